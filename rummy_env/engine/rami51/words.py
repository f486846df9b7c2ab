"""Why a rami51 action is illegal, in words (R5-R25): the family's wording of the reason codes
(``rummy_env.engine.explain`` formats them) and of a play after which the turn could not be finished (R23)."""

from __future__ import annotations

from rummy_env.engine import reasons as why
from rummy_env.engine.explain import SHARED_WORDS, table_context as word_context

WORDS = {
    **SHARED_WORDS,
    why.MUST_DRAW: "a turn starts with a draw from the stock or the discard pile (R6)",
    why.ALREADY_DREW: "{player} has already drawn this turn, or it is the dealer's first turn, which has no draw "
                      "(R5, R6)",
    why.STOCK_EMPTY: "the stock is empty (R17)",
    why.ONE_CARD_NO_PICKUP: "a player with one card left may not take the discard top (R7)",
    why.PICKUP_FIRST_ROUND: "nobody takes the discard top before every player has had a turn "
                            "(discard_pickup_from_second_round, R20)",
    why.PICKUP_UNUSABLE: "the discard top can be taken only if that card can be laid this turn, and no legal way to "
                         "lay it exists (R6, AR2; for a player who has not opened: within a valid opening, R11)",
    why.NOT_OWN_CARD: "{card} was taken from a meld this turn (or is a freed joker): it may only go into a new meld "
                      "with a card of the player's own (R13, R14)",
    why.DISCARD_TAKEN: "{card} was taken from the discard pile this turn and must be laid (R6)",
    why.OBLIGATIONS_LEFT: "cards taken from melds or a freed joker must go into a new meld first (R13, R14)",
    why.TAKEN_NOT_LAID: "{taken}, taken from the discard pile, must be laid first (R6)",
    why.TENTATIVE_LEFT: "tentative plays are on the table: COMMIT the opening or UNDO them first (R11.5)",
    why.SILENT_NOT_LAST: "discarding without announcing applies only to the discard that leaves one card (R7)",
    why.FINAL_DISCARD: 'with final_discard = "forbidden" the last card cannot be discarded: go out by laying it '
                       "(R15)",
    why.DOES_NOT_FIT: "{card} does not extend the meld {members} (R8, R9, R12)",
    why.DEALER_FIRST_TURN: "the dealer's first turn allows only a discard (dealer_first_turn_may_meld = false, R5)",
    why.ALREADY_OPENED: "the player has already opened (R11.5)",
    why.NOTHING_TO_COMMIT: "no tentative play to commit (R11.5)",
    why.COMMIT_WITHOUT_TAKEN: "the opening must contain {taken}, taken from the discard pile (R6, AR2)",
    why.BELOW_THRESHOLD: "the opening counts {points} points, below {threshold} (R10, R11.1, R16)",
    why.NO_PURE_RUN: "the opening has no pure run (a joker-free run of own cards, R11.2, AR8)",
    why.NOTHING_TO_UNDO: "there is no tentative play to take back (R24)",
    why.UNDOS_SPENT: "the undos of this turn are used up (max_undos_per_turn, R24)",
    why.NEEDS_OWN_CARD: "a new meld needs a card of the player's own (two beside a freed joker) next to cards taken "
                        "from melds (R13, R14)",
    why.JOKER_NOT_BURNT: "a joker may stand for a card in a run only when both copies of that card are on the table "
                         "(R21.2, AL2)",
    why.EMPTIES_HAND: "it would empty the hand, and a card must stay for the final discard (final_discard = "
                      '"required", R15)',
    why.JOKER_ON_OPPONENT_RUN: "a joker never goes onto an opponent's run (R9)",
    why.JOKER_ON_OPPONENT_SET: "a joker goes onto an opponent's set only with joker_on_opponent_set (AR6)",
    why.SECOND_JOKER: "the meld already holds a joker: one joker per meld (R9, AR4)",
    why.OLD_MELD_NOT_ALLOWED: "a player who has not opened may not touch a meld that was on the table at the start "
                              "of the turn (opening_may_use_table = false, R11.3)",
    why.ALL_AT_ONCE_USED_TABLE: "an all-at-once out may not use melds that were on the table at the start of the "
                                "turn (all_at_once_may_use_table = false, R16)",
    why.MELD_TOO_SHORT: "a card can be taken only from a meld of 4 or more cards, which keeps 3 (R13)",
    why.NO_CARD_THERE: "that meld has no such card to take (a run gives its ends, a set the natural of a suit, R13)",
    why.TAKE_JOKER: "a joker is never taken from a meld (can_take_joker_from_meld = false, R13, AR7)",
    why.TAKE_OWN_MELD: "a player takes from his own melds only with take_from_own_melds (AR7)",
    why.TAKE_DISABLED: "taking cards from melds is off (allow_take_from_meld = false, R13)",
    why.SWAP_NOT_OPENED: "only a player who has opened may swap a joker (R14)",
    why.SWAP_BEFORE_TURN: "with joker_swap_requires_prior_opening only a player who opened before this turn may "
                          "swap (AR13)",
    why.SWAP_UNDETERMINED: "that meld holds no joker whose card is determined (a joker in a 3-card set stands for "
                           "one of two suits, R14)",
    why.SWAP_NOT_HELD: "the player holds no {represented} of his own, the card the joker stands for (R14)",
    why.PICKUP_MIN_LAY: "a turn that took the discard top must lay at least {minimum} points (every_pickup, AL3)",
    why.TAKE_BACK_OFF: 'there is no take-back under dead_ends = "prevent": the mask hides every play after which '
                       "the turn could not be finished instead (R25)",
    why.NOTHING_TO_TAKE_BACK: "nothing to take back: the turn has laid or taken nothing, and no card must still be "
                              "laid (R25)",
    why.TOOK_BACK: "{player} took the turn back: only a discard ends it now (R25)",
}


def dead_end_words(rules, r, kind: str) -> str:
    """R23 under ``dead_ends = "prevent"``: the play would leave a turn that cannot be finished."""
    if kind == "commit":
        return "after the commit the turn could not be finished (R23)"
    return "after it the turn could not be finished: no legal discard, opening or out would remain (R23)"


__all__ = ["WORDS", "dead_end_words", "word_context"]

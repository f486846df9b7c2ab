"""Words for why an action is illegal, from the reason code the legality check returned
(``rummy_env.engine.reasons``): error messages, never on the hot path, never a second verdict."""

from __future__ import annotations

import numpy as np

from rummy_env import cards
from rummy_env.actions import ActionLayout
from rummy_env.engine import reasons as why
from rummy_env.engine.positions import meld_cards
from rummy_env.melds import KIND_RUN
from rummy_env.rules import RummyRules

# code -> (basic wording, rami51 wording); "" where the code cannot arise in that ruleset
_WORDS = {
    why.HAND_OVER: ("the hand is over",) * 2,
    why.GAME_OVER: ("the game is over",) * 2,
    why.MUST_DRAW: ("a turn starts with a draw from the stock or the discard pile (B6)",
                    "a turn starts with a draw from the stock or the discard pile (R6)"),
    why.ALREADY_DREW: ("{player} has already drawn this turn (B6)",
                       "{player} has already drawn this turn, or it is the dealer's first turn, which has no draw (R5, R6)"),
    why.STOCK_EMPTY: ("the stock is empty (B11)", "the stock is empty (R17)"),
    why.PILE_EMPTY: ("the discard pile is empty",) * 2,
    why.ONE_CARD_NO_PICKUP: ("", "a player with one card left may not take the discard top (R7)"),
    why.PICKUP_FIRST_ROUND: ("", "nobody takes the discard top before every player has had a turn "
                                 "(discard_pickup_from_second_round, R20)"),
    why.PICKUP_UNUSABLE: ("", "the discard top can be taken only if that card can be laid this turn, and no legal way to "
                              "lay it exists (R6, AR2; for a player who has not opened: within a valid opening, R11)"),
    why.NOT_IN_HAND: ("{card} is not in the hand",) * 2,
    why.NOT_OWN_CARD: ("", "{card} was taken from a meld this turn (or is a freed joker): it may only go into a new "
                           "meld with a card of the player's own (R13, R14)"),
    why.DISCARD_TAKEN: ("{card} was taken from the discard pile this turn (B7)",
                        "{card} was taken from the discard pile this turn and must be laid (R6)"),
    why.OBLIGATIONS_LEFT: ("", "cards taken from melds or a freed joker must go into a new meld first (R13, R14)"),
    why.TAKEN_NOT_LAID: ("", "{taken}, taken from the discard pile, must be laid first (R6)"),
    why.TENTATIVE_LEFT: ("", "tentative plays are on the table: COMMIT the opening or UNDO them first (R11.5)"),
    why.SILENT_NOT_LAST: ("", "discarding without announcing applies only to the discard that leaves one card (R7)"),
    why.FINAL_DISCARD: ("", 'with final_discard = "forbidden" the last card cannot be discarded: go out by laying it (R15)'),
    why.TABLE_FULL: ("the table has no free slot",) * 2,
    why.NO_MELD_IN_SLOT: ("slot {slot} holds no meld",) * 2,
    why.MELD_FIRST: ("must_meld_before_layoff requires a meld of one's own first (B9)", ""),
    why.DOES_NOT_FIT: ("{card} does not extend the meld {members} (B8, B9, B15)",
                       "{card} does not extend the meld {members} (R8, R9, R12)"),
    why.DEALER_FIRST_TURN: ("", "the dealer's first turn allows only a discard (dealer_first_turn_may_meld = false, R5)"),
    why.ALREADY_OPENED: ("", "the player has already opened (R11.5)"),
    why.NOTHING_TO_COMMIT: ("", "no tentative play to commit (R11.5)"),
    why.COMMIT_WITHOUT_TAKEN: ("", "the opening must contain {taken}, taken from the discard pile (R6, AR2)"),
    why.BELOW_THRESHOLD: ("", "the opening counts {points} points, below {threshold} (R10, R11.1, R16)"),
    why.NO_PURE_RUN: ("", "the opening has no pure run (a joker-free run of own cards, R11.2, AR8)"),
    why.NOTHING_TO_UNDO: ("", "there is no tentative play to take back (R24)"),
    why.UNDOS_SPENT: ("", "the undos of this turn are used up (max_undos_per_turn, R24)"),
    why.NEEDS_OWN_CARD: ("", "a new meld needs a card of the player's own (two beside a freed joker) next to cards "
                             "taken from melds (R13, R14)"),
    why.JOKER_NOT_BURNT: ("", "a joker may stand for a card in a run only when both copies of that card are on the "
                              "table (R21.2, AL2)"),
    why.EMPTIES_HAND: ("", 'it would empty the hand, and a card must stay for the final discard '
                           '(final_discard = "required", R15)'),
    why.JOKER_ON_OPPONENT_RUN: ("", "a joker never goes onto an opponent's run (R9)"),
    why.JOKER_ON_OPPONENT_SET: ("", "a joker goes onto an opponent's set only with joker_on_opponent_set (AR6)"),
    why.SECOND_JOKER: ("", "the meld already holds a joker: one joker per meld (R9, AR4)"),
    why.OLD_MELD_NOT_ALLOWED: ("", "a player who has not opened may not touch a meld that was on the table at the start "
                                   "of the turn (opening_may_use_table = false, R11.3)"),
    why.ALL_AT_ONCE_USED_TABLE: ("", "an all-at-once out may not use melds that were on the table at the start of the "
                                     "turn (all_at_once_may_use_table = false, R16)"),
    why.MELD_TOO_SHORT: ("", "a card can be taken only from a meld of 4 or more cards, which keeps 3 (R13)"),
    why.NO_CARD_THERE: ("", "that meld has no such card to take (a run gives its ends, a set the natural of a suit, "
                            "R13)"),
    why.TAKE_JOKER: ("", "a joker is never taken from a meld (can_take_joker_from_meld = false, R13, AR7)"),
    why.TAKE_OWN_MELD: ("", "a player takes from his own melds only with take_from_own_melds (AR7)"),
    why.TAKE_DISABLED: ("", "taking cards from melds is off (allow_take_from_meld = false, R13)"),
    why.SWAP_NOT_OPENED: ("", "only a player who has opened may swap a joker (R14)"),
    why.SWAP_BEFORE_TURN: ("", "with joker_swap_requires_prior_opening only a player who opened before this turn may "
                               "swap (AR13)"),
    why.SWAP_UNDETERMINED: ("", "that meld holds no joker whose card is determined (a joker in a 3-card set stands for "
                                "one of two suits, R14)"),
    why.SWAP_NOT_HELD: ("", "the player holds no {represented} of his own, the card the joker stands for (R14)"),
    why.PICKUP_MIN_LAY: ("", "a turn that took the discard top must lay at least {minimum} points (every_pickup, AL3)"),
    why.NOT_IN_RULESET: ("that action does not exist in this ruleset",) * 2,
    why.TAKE_BACK_OFF: ("", 'there is no take-back under dead_ends = "prevent": the mask hides every play after which the '
                            'turn could not be finished instead (R25)'),
    why.NOTHING_TO_TAKE_BACK: ("", "nothing to take back: the turn has laid or taken nothing, and no card must still be "
                                   "laid (R25)"),
    why.TOOK_BACK: ("", "{player} took the turn back: only a discard ends it now (R25)"),
}


# gin (G1-G14): code -> words
_GIN_WORDS = {
    why.HAND_OVER: "the hand is over",
    why.GAME_OVER: "the game is over",
    why.MUST_DRAW: "a turn starts with a draw: the stock or the upcard (G4)",
    why.ALREADY_DREW: "{player} has already drawn this turn (G4)",
    why.STOCK_EMPTY: "the stock is empty",
    why.PILE_EMPTY: "there is no upcard to take",
    why.NOT_IN_HAND: "{card} is not in the hand",
    why.DISCARD_TAKEN: "{card} was taken from the discard pile this turn (forbid_discarding_taken_card, G4)",
    why.DOES_NOT_FIT: "{card} extends none of the knocker's melds{cap} (G8)",
    why.UPCARD_OFFER: "the first upcard is on offer: take it or pass (G3)",
    why.UPCARD_PASSED: "both players passed the first upcard: the non-dealer draws from the stock (G3, EG5)",
    why.STOCK_AT_WALL: 'two cards are left in the stock: take the discard or declare the hand dead '
                       '(wall_rule = "pickup_or_dead", G14)',
    why.CANNOT_KNOCK: "the least deadwood after an allowed discard would be {deadwood}, above the knock card {limit} (G6)",
    why.SHORTCUT_REFUSES: 'OpenSpiel\'s 11-card deadwood (knock_deadwood = "openspiel_shortcut") is {shortcut}, above '
                          'the knock card {limit}, although a discard would leave {deadwood} (G13, EG9)',
    why.GIN_FORCED: "a discard can leave gin, and gin_forced allows only the gin knock (G14)",
    why.KNOCK_DISCARD_TOO_HIGH: "after discarding {card} the deadwood would be {after}, above the knock card {limit} (G6)",
    why.NO_BIG_GIN: "big gin needs all 11 cards in melds, and big_gin_bonus > 0 (G7)",
    why.MELD_TOO_COSTLY: "no arrangement of the hand with this meld leaves deadwood within {limit} (G6, EG12)",
    why.DEADWOOD_LEFT: "the cards left count {left}, above {limit}: lay more melds first (G6)",
    why.LAYOFFS_OVER: "lay-offs come before the defender's melds, and none are allowed on gin or with layoffs = false "
                      "(G8, EG3)",
    why.NOT_NOW: "{now}",
}
_GIN_NOW = {  # phase -> what it allows (why.NOT_NOW)
    "upcard": "the first upcard is on offer: take it or pass (G3)",
    "draw": "a turn starts with a draw (G4)",
    "play": "after the draw a player discards or knocks (G4, G6)",
    "wall": "at the wall a player knocks with the upcard or passes (G10)",
    "knock": "the knocker discards (or declares big gin), then lays melds and passes (G6, G7)",
    "layoff": "the defender lays off onto the knocker's melds, or passes (G8)",
    "defend": "the defender lays his melds, or passes (G8)",
}


def explain(rules: RummyRules, layout: ActionLayout, r, action: int, code: int) -> str:
    """Why ``action`` is illegal in game record ``r``, given the ``code`` its legality check returned."""
    if code == why.OUTSIDE_SPACE:
        return f"action {action} is outside the action space 0..{layout.num_actions - 1}"
    if code == why.LEGAL:
        return f"action {action} ({layout.to_str(action)}) is legal"
    seat = int(r["current"])
    described = f"player_{seat} cannot {layout.to_str(action)}"
    return f"{described}: {_reason(rules, layout, r, action, code, seat)}"


def _reason(rules: RummyRules, layout: ActionLayout, r, action: int, code: int, seat: int) -> str:
    kind, a, b = layout.decode(action)
    if code == why.DEAD_END:
        return _dead_end(rules, r, kind)
    card = a if kind == "discard" else b if kind == "lay_off" else -1
    if kind == "meld":
        missing = [cards.symbol(c) for c in layout.catalogue.members(a) if r["hand"][seat][c] == 0]
        if code == why.NOT_IN_HAND:
            return f"{' '.join(missing)} not in the hand"
    if rules.ruleset == "gin":
        return _GIN_WORDS.get(code, _GIN_WORDS[why.NOT_NOW]).format(**_gin_context(rules, r, card, seat))
    taken = int(r["taken"])
    context = {
        "player": f"player_{seat}", "slot": a, "points": int(r["turn_points"]),
        "card": cards.symbol(min(card, cards.JOKER)) if card >= 0 else "",
        "taken": cards.symbol(taken) if taken >= 0 else "",
        "threshold": _threshold(rules, r), "minimum": rules.discard_pickup_min_lay,
        "members": " ".join(cards.symbol(c) for c in meld_cards(rules, r, a)) if kind == "lay_off" and a < r["slot_n"] else "",
        "represented": _represented(r, a) if kind == "swap" and a < r["slot_n"] else "",
    }
    words = _WORDS[code][1 if rules.ruleset == "rami51" else 0]
    return words.format(**context)


def _gin_context(rules: RummyRules, r, card: int, seat: int) -> dict:
    """The figures the gin words quote (G6, G13), worked out from the record for the message only."""
    from rummy_env.engine.gin import deadwood
    from rummy_env.engine.state import PHASE_NAMES, PHASE_WALL

    ubuf, ibuf = (buf[0] for buf in deadwood.scratch(1))
    hand = deadwood.hand_mask(r["hand"][seat])
    avoid = np.uint64(0)
    if rules.forbid_discarding_taken_card and int(r["taken"]) >= 0:
        avoid = deadwood.bit(int(r["taken"]))
    if int(r["phase"]) == PHASE_WALL:
        top = int(r["pile"][int(r["pile_n"]) - 1])
        hand |= deadwood.bit(top)
        avoid = deadwood.bit(top) if rules.forbid_discarding_taken_card else np.uint64(0)
    exact, shortcut, _ = deadwood.knock_figures(hand, avoid, ubuf, ibuf)
    after = deadwood.deadwood(hand & ~deadwood.bit(card), ubuf, ibuf) if card >= 0 else 0
    cap = rules.max_layoffs_per_run_end
    return {"player": f"player_{seat}", "card": cards.symbol(card) if card >= 0 else "", "limit": int(r["knock_limit"]),
            "deadwood": exact, "shortcut": shortcut, "after": after, "left": deadwood.cards_value(hand),
            "cap": f", or that run end already took {cap} cards (max_layoffs_per_run_end)" if cap else "",
            "now": _GIN_NOW.get(PHASE_NAMES[int(r["phase"])], "")}


def _threshold(rules: RummyRules, r) -> int:
    if int(r["taken"]) >= 0 and rules.discard_pickup_min_lay is not None:
        return rules.discard_pickup_min_lay
    return rules.opening_threshold


def _represented(r, slot: int) -> str:
    joker_at = int(r["slot_joker"][slot])
    if joker_at < 0:
        return "card"
    if r["slot_kind"][slot] == KIND_RUN:
        return cards.symbol(int(r["slot_key"][slot]) * 13 + (joker_at - 1) % 13)
    return cards.symbol(joker_at * 13 + int(r["slot_key"][slot]) - 1)


def _dead_end(rules: RummyRules, r, kind: str) -> str:
    if rules.ruleset == "rami51":
        if kind == "commit":
            return "after the commit the turn could not be finished (R23)"
        return "after it the turn could not be finished: no legal discard, opening or out would remain (R23)"
    if rules.must_discard_to_go_out:
        return "it would leave no card to discard, and must_discard_to_go_out requires going out by a discard (B10, B18)"
    taken = cards.symbol(int(r["taken"]))
    return (f"it would leave only {taken}, taken from the discard pile this turn, which can be neither discarded (B7) "
            f"nor laid off: the turn could not be finished (B18)")

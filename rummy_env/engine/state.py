"""The batched game state: one packed numpy record per game, sized from the rules.

One record per game (a structured array of shape ``(B,)``) keeps a compiled per-row kernel fast:
it touches one contiguous block per game (PERF_NOTES.md). Every field below is indexed by seat
(absolute, ``0..P-1``), card type (``0..T-1``), physical card position (``0..N-1``) or table slot
(``0..S-1``).

================  ========  =================================================================
field             shape     meaning
================  ========  =================================================================
rng               ()        per-game xorshift64* state: every shuffle of that game draws from it
phase             ()        PHASE_DRAW, PHASE_PLAY, PHASE_HAND_OVER or PHASE_GAME_OVER
current           ()        seat to act
dealer            ()        seat that dealt this hand
taken             ()        card taken from the discard pile this turn, or -1 (B7)
played_turn       ()        1 once the current player melded or laid off this turn
undos             ()        undos used this turn (B19; the basic ruleset has no tentative play)
stock_n, stock    (N,)      stock size; ``stock[:stock_n]`` bottom to top
pile_n, pile      (N,)      discard pile size; ``pile[:pile_n]`` bottom to top
hand, hand_n      (P,T)     card counts per seat, and hand sizes
known             (P,T)     cards each seat is publicly known to hold (taken from the discard pile)
slot_n            ()        table slots in use (slots fill in order)
slot_kind         (S,)      KIND_EMPTY, KIND_SET or KIND_RUN (``rummy_env.melds``)
slot_owner        (S,)      seat that laid the meld
slot_key          (S,)      rank of a set, suit of a run
slot_lo, slot_hi  (S,)      end positions of a run (a set: its rank)
slot_count        (S,)      cards in the meld
slot_cards        (S,T)     card counts per slot
slot_joker        (S,)      where the slot's joker sits: a run position, a 4-card set's missing
                            suit; -1 for no joker or a 3-card joker set (rami51, R9)
slot_tentative    (S,)      1 while the slot is a tentative play (rami51 opening)
slot_mine         (S,)      own cards the player to act laid on the slot this turn (``rami.mine_cell``
                            bits): they count toward the opening where they sit (R11.1)
slot_pure         (S,)      1 for a run laid this turn with no joker, of own cards (R11.2, AR8); 2 while a
                            joker laid off on such a run is on it (pure again if it is taken back)
table_by_seat     (P,T)     table cards by the seat that laid them
has_played        (P,)      melded or laid off in an earlier turn of this hand (B13)
has_melded        (P,)      laid a new meld this hand (``must_meld_before_layoff``)
turns             ()        turns completed this hand (B17)
reshuffles        ()        stock rebuilds this hand (B11)
hands_played      ()        hands finished in this game, dead ones included (B14)
winner            ()        seat that went out in the last finished hand, or -1
rummy             ()        1 if that seat went rummy (B13)
end_reason        ()        END_* code of the last finished hand
hand_scores       (P,)      points credited in the last finished hand
totals            (P,)      game totals
game_winners      (P,)      1 for each winner once the game is over (ties are joint)
illegal_by        ()        seat whose illegal action ended the game (penalty policy), or -1
================  ========  =================================================================

Fields of the rami51 turn (zero in basic):

================  ========  =================================================================
opened            (P,)      the seat's opening has been validated this round (R11.5)
first_turn        ()        the dealer's first turn of the round: no draw (R5)
opened_at_start   ()        the player to act had opened before this turn
taken_laid        ()        the discard-pile card taken this turn is on the table (R6)
pending           (T,)      cards taken from melds this turn, still in hand (R13)
freed_jokers      ()        jokers freed by SWAP this turn, still in hand (R14)
tentative         ()        tentative plays since the last COMMIT/UNDO (R11.5)
turn_points       ()        R10 points of own cards laid this turn
turn_jokers       ()        jokers laid this turn (Lebanese scaling, R21.5)
touched_table     ()        a play of this turn changed a meld that was on the table at its start
start_slots       ()        slots in use at the start of the turn
doomed            ()        a penalty draw could not rebuild the stock: dead at the next turn (R17)
all_at_once       ()        the last round's winner went out all at once (R16)
joker_finish      ()        … and made a joker his final discard (R19)
search_gave_up    ()        no-dead-end searches of this game that reached their size limit (the
                            action they judged was masked out: safe, possibly not complete)
u_*                         the position before the first tentative play, for UNDO (R24)
================  ========  =================================================================
"""

from __future__ import annotations

import functools

import numpy as np

from rummy_env.rules import RummyRules

PHASE_DRAW, PHASE_PLAY, PHASE_HAND_OVER, PHASE_GAME_OVER = 0, 1, 2, 3
PHASE_NAMES = ("draw", "play", "hand_over", "game_over")

END_NONE, END_OUT, END_DEAD_NO_DRAW, END_DEAD_RESHUFFLES, END_DEAD_TURN_CAP, END_ILLEGAL = 0, 1, 2, 3, 4, 5
END_NAMES = ("none", "out", "dead_no_draw", "dead_reshuffles", "dead_turn_cap", "illegal_action")


def truncated(records) -> np.ndarray | np.bool_:
    """Whether finished games ended at the engine's turn cap (``max_turns_per_round``, B17): the one
    end every env reports as a truncation rather than a termination. Takes records or a record."""
    return records["end_reason"] == END_DEAD_TURN_CAP


MAX_SEATS = 6


def state_dtype(rules: RummyRules) -> np.dtype:
    """The record type of one game under ``rules``.

    Seat-indexed fields always have ``MAX_SEATS`` entries (seats past ``num_players`` stay empty), so
    every player count shares one record type and the kernels compile once per deck, not once per
    player count."""
    return _record_dtype(rules.num_card_types, rules.deck_size, rules.num_slots, rules.ruleset == "rami51")


@functools.lru_cache(maxsize=None)
def _record_dtype(types: int, cards: int, slots: int, tentative: bool) -> np.dtype:
    """One dtype object per shape: numba's dispatcher recognises a record type it has seen by the
    dtype object, and an equal but new object sends every call down its slow typing path."""
    players = MAX_SEATS
    fields = [
        ("rng", np.uint64),
        ("phase", np.int8), ("current", np.int8), ("dealer", np.int8), ("taken", np.int8),
        ("played_turn", np.int8), ("undos", np.int8),
        ("stock_n", np.int16), ("pile_n", np.int16),
        ("stock", np.int8, (cards,)), ("pile", np.int8, (cards,)),
        ("hand", np.int8, (players, types)), ("hand_n", np.int8, (players,)),
        ("known", np.int8, (players, types)),
        ("slot_n", np.int8),
        ("slot_kind", np.int8, (slots,)), ("slot_owner", np.int8, (slots,)), ("slot_key", np.int8, (slots,)),
        ("slot_lo", np.int8, (slots,)), ("slot_hi", np.int8, (slots,)), ("slot_count", np.int8, (slots,)),
        ("slot_cards", np.int8, (slots, types)), ("slot_joker", np.int8, (slots,)), ("slot_tentative", np.int8, (slots,)),
        ("table_by_seat", np.int8, (players, types)),
        ("has_played", np.int8, (players,)), ("has_melded", np.int8, (players,)),
        ("turns", np.int16), ("reshuffles", np.int16), ("hands_played", np.int16),
        ("winner", np.int8), ("rummy", np.int8), ("end_reason", np.int8), ("illegal_by", np.int8),
        ("hand_scores", np.float64, (players,)), ("totals", np.float64, (players,)),
        ("game_winners", np.int8, (players,)),
        ("opened", np.int8, (players,)), ("first_turn", np.int8), ("opened_at_start", np.int8),
        ("taken_laid", np.int8), ("freed_jokers", np.int8), ("tentative", np.int8), ("touched_table", np.int8),
        ("start_slots", np.int8), ("doomed", np.int8), ("all_at_once", np.int8), ("joker_finish", np.int8),
        ("turn_jokers", np.int8), ("turn_points", np.int16),
        ("pending", np.int8, (types,)), ("slot_pure", np.int8, (slots,)), ("slot_mine", np.int32, (slots,)),
        ("search_gave_up", np.int32),
    ]
    if tentative:  # the position before the first tentative play of the turn (R24)
        fields += [
            ("u_hand", np.int8, (types,)), ("u_known", np.int8, (types,)), ("u_pending", np.int8, (types,)),
            ("u_hand_n", np.int8), ("u_slot_n", np.int8), ("u_taken_laid", np.int8), ("u_turn_points", np.int16),
            ("u_turn_jokers", np.int8), ("u_touched_table", np.int8),
            ("u_slot_kind", np.int8, (slots,)), ("u_slot_owner", np.int8, (slots,)), ("u_slot_key", np.int8, (slots,)),
            ("u_slot_lo", np.int8, (slots,)), ("u_slot_hi", np.int8, (slots,)), ("u_slot_count", np.int8, (slots,)),
            ("u_slot_joker", np.int8, (slots,)), ("u_slot_pure", np.int8, (slots,)),
            ("u_slot_cards", np.int8, (slots, types)), ("u_table_by_seat", np.int8, (players, types)),
        ]
    return np.dtype(fields, align=True)

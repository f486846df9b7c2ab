"""The game record (one packed numpy record per game), its phases and end reasons.

One record per game (a structured array of shape ``(B,)``) keeps a compiled per-row kernel fast: it
touches one contiguous block per game (PERF_NOTES.md). Fields are indexed by seat (absolute,
``0..MAX_SEATS-1``; seats past ``num_players`` stay empty), card type (``0..T-1``), physical card
position (``0..N-1``) or table slot (``0..S-1``). A table meld is stored by its shape, never card by
card: a set by its rank and the suits of its naturals, a run by its suit and end positions, each with
at most one joker (``rummy_env.engine.table`` reads the cards off the shape).

================  ========  =================================================================
field             shape     meaning
================  ========  =================================================================
rng               ()        per-game xorshift64* state: every shuffle of that game draws from it
phase             ()        PHASE_DRAW, PHASE_PLAY, PHASE_HAND_OVER or PHASE_GAME_OVER
current, dealer   ()        seat to act; seat that dealt this hand
taken             ()        card taken from the discard pile this turn, or -1 (B7, R6)
played_turn       ()        1 once the current player melded or laid off this turn
undos             ()        UNDOs used this turn (B19, R24)
stock_n, stock    (N,)      stock size; ``stock[:stock_n]`` bottom to top
pile_n, pile      (N,)      discard pile size; ``pile[:pile_n]`` bottom to top
hand, hand_n      (P,T)     card counts per seat, and hand sizes
known             (P,T)     cards each seat is publicly known to hold: taken face up and not
                            yet seen leaving the hand
slot_n            ()        table slots in use (slots fill in order)
slot_kind         (S,)      KIND_EMPTY, KIND_SET or KIND_RUN (``rummy_env.melds``)
slot_owner        (S,)      seat that laid the meld
slot_key          (S,)      rank of a set, suit of a run
slot_lo, slot_hi  (S,)      end positions of a run (a set: its rank)
slot_suits        (S,)      a set's natural suits, one bit each
slot_jokers       (S,)      jokers in the meld: 0 or 1 (R9, AR4)
slot_joker        (S,)      where the joker sits: a run position, a 4-card set's missing suit;
                            -1 for none or a 3-card joker set (its suit is undetermined, R9)
slot_tentative    (S,)      1 while the slot is a tentative play (rami51 opening, R11.5)
slot_pure         (S,)      PURE for a run laid this turn with no joker, of own cards (R11.2,
                            AR8); PURE_BUT_JOKER while a joker laid off on it is there
slot_mine         (S,)      own cards the player to act laid on the slot this turn
                            (``rami51.opening.mine_cell`` bits): they count toward the opening
table_by_seat     (P,T)     table cards by the seat that laid them
has_played        (P,)      melded or laid off in an earlier turn of this hand (B13)
has_melded        (P,)      laid a new meld this hand (``must_meld_before_layoff``)
turns             ()        turns completed this hand (B17, R17)
reshuffles        ()        stock rebuilds this hand (B11, R17)
hands_played      ()        hands finished in this game, dead ones included (B14, R22)
winner            ()        seat that went out in the last finished hand, or -1
rummy             ()        1 if that seat went rummy (B13)
end_reason        ()        END_* code of the last finished hand
hand_scores       (P,)      points of the last finished hand (credited, basic; penalties, rami51)
totals            (P,)      game totals
game_winners      (P,)      1 for each winner once the game is over (ties are joint)
illegal_by        ()        seat whose illegal action ended the game (penalty policy), or -1
history           (P,K,T)   the hand's public history: per seat, per kind of ``HISTORY_KINDS``
                            (``rummy_env.observations``: took from the pile, passed, discarded,
                            laid, took back), how often each card type was concerned (max 127)
last_discard      (P,)      the card each seat discarded last this hand, or -1
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
turn_points       ()        R10 points of the own cards laid this turn, where they sit (R11.1)
turn_jokers       ()        jokers laid this turn (Lebanese scaling, R21.5)
touched_table     ()        a play of this turn changed a meld that was on the table at its start
start_slots       ()        slots in use at the start of the turn
doomed            ()        a penalty draw could not rebuild the stock: dead at the next turn (R17)
took_back         ()        the player to act took his turn back (R25): only a discard remains
take_backs        (P,)      take-backs of each seat this round (R25), public
all_at_once       ()        the last round's winner went out all at once (R16)
joker_finish      ()        … and made a joker his final discard (R19)
================  ========  =================================================================

Fields of a gin hand (G1-G14; zero in the other rulesets):

================  ========  =================================================================
knocker           ()        seat that knocked this hand, or -1
knock_limit       ()        this hand's knock card (``knock_card``, or the first upcard's value
                            with ``oklahoma``, G11)
knock_stage       ()        in the knock: 0 before the knocker's discard, 1 after it, 2 big gin
                            declared (no discard, G7)
upcard_passes     ()        passes on the first upcard (G3)
repeated          ()        the last discard was the card just taken from the pile (G13)
upcard_draws      ()        draws of the upcard in ordinary turns (``upcard_draw_limit``, G13)
slot_low_layoffs  (S,)      cards laid off below / above the run the knocker laid in the slot
slot_high_layoffs (S,)      (``max_layoffs_per_run_end``, G13)
boxes             (P,)      hands won in this game (``box_bonus``, G12)
================  ========  =================================================================

UNDO (R24) and TAKE_BACK (R25) return to the position before the turn's first play (for a player who has
not opened, that is also the position before his first tentative play): the engine keeps a copy of the
whole record taken then (``RummyEngine`` holds one per row, outside this record, so that the no-dead-end
search never copies it) and restores it (``rami51.restore``).
"""

from __future__ import annotations

import functools

import numpy as np

from rummy_env.observations import HISTORY_KINDS
from rummy_env.rules import RummyRules

PHASE_DRAW, PHASE_PLAY, PHASE_HAND_OVER, PHASE_GAME_OVER = 0, 1, 2, 3
# gin (G3, G6, G8, G10): the first upcard, the knocker laying his hand, the defender's lay-offs and melds, the wall
PHASE_UPCARD, PHASE_KNOCK, PHASE_LAYOFF, PHASE_DEFEND, PHASE_WALL = 4, 5, 6, 7, 8
PHASE_NAMES = ("draw", "play", "hand_over", "game_over", "upcard", "knock", "layoff", "defend", "wall")

END_NONE, END_OUT, END_DEAD_NO_DRAW, END_DEAD_RESHUFFLES, END_DEAD_TURN_CAP, END_ILLEGAL = 0, 1, 2, 3, 4, 5
# gin: a knock the knocker won (or a tie scoring nothing), an undercut, gin, big gin; void hands (G9-G13)
END_KNOCK, END_UNDERCUT, END_GIN, END_BIG_GIN, END_WALL, END_REPEATED, END_UPCARD_LIMIT = 6, 7, 8, 9, 10, 11, 12
END_NAMES = ("none", "out", "dead_no_draw", "dead_reshuffles", "dead_turn_cap", "illegal_action", "knock", "undercut",
             "gin", "big_gin", "wall", "repeated_discard", "upcard_draw_limit")

PURE, PURE_BUT_JOKER = 1, 2  # slot_pure values (R11.2, AR8)
MAX_SEATS = 6


def truncated(records) -> np.ndarray | np.bool_:
    """Whether finished games ended at the engine's turn cap (``max_turns_per_round``, B17): the one
    end every env reports as a truncation rather than a termination. Takes records or a record."""
    return records["end_reason"] == END_DEAD_TURN_CAP


def state_dtype(rules: RummyRules) -> np.dtype:
    """The record type of one game under ``rules``: one per deck, shared by every player count, so that
    the kernels compile once per deck."""
    return _record_dtype(rules.num_card_types, rules.deck_size, rules.num_slots)


@functools.lru_cache(maxsize=None)
def _record_dtype(types: int, cards: int, slots: int) -> np.dtype:
    """One dtype object per shape: numba's dispatcher recognises a record type it has seen by the
    dtype object, and an equal but new object sends every call down its slow typing path."""
    seats = MAX_SEATS
    fields = [
        ("rng", np.uint64),
        ("phase", np.int8), ("current", np.int8), ("dealer", np.int8), ("taken", np.int8),
        ("played_turn", np.int8), ("undos", np.int8),
        ("stock_n", np.int16), ("pile_n", np.int16),
        ("stock", np.int8, (cards,)), ("pile", np.int8, (cards,)),
        ("hand", np.int8, (seats, types)), ("hand_n", np.int8, (seats,)),
        ("known", np.int8, (seats, types)),
        ("slot_n", np.int8),
        ("slot_kind", np.int8, (slots,)), ("slot_owner", np.int8, (slots,)), ("slot_key", np.int8, (slots,)),
        ("slot_lo", np.int8, (slots,)), ("slot_hi", np.int8, (slots,)), ("slot_suits", np.int8, (slots,)),
        ("slot_jokers", np.int8, (slots,)), ("slot_joker", np.int8, (slots,)), ("slot_tentative", np.int8, (slots,)),
        ("slot_pure", np.int8, (slots,)), ("slot_mine", np.int32, (slots,)),
        ("table_by_seat", np.int8, (seats, types)),
        ("has_played", np.int8, (seats,)), ("has_melded", np.int8, (seats,)),
        ("turns", np.int16), ("reshuffles", np.int16), ("hands_played", np.int16),
        ("winner", np.int8), ("rummy", np.int8), ("end_reason", np.int8), ("illegal_by", np.int8),
        ("hand_scores", np.float64, (seats,)), ("totals", np.float64, (seats,)),
        ("game_winners", np.int8, (seats,)),
        ("opened", np.int8, (seats,)), ("first_turn", np.int8), ("opened_at_start", np.int8),
        ("taken_laid", np.int8), ("freed_jokers", np.int8), ("tentative", np.int8), ("touched_table", np.int8),
        ("start_slots", np.int8), ("doomed", np.int8), ("all_at_once", np.int8), ("joker_finish", np.int8),
        ("turn_jokers", np.int8), ("turn_points", np.int16), ("took_back", np.int8), ("take_backs", np.int8, (seats,)),
        ("pending", np.int8, (types,)),
        ("knocker", np.int8), ("knock_limit", np.int8), ("knock_stage", np.int8), ("upcard_passes", np.int8),
        ("repeated", np.int8), ("upcard_draws", np.int16),
        ("slot_low_layoffs", np.int8, (slots,)), ("slot_high_layoffs", np.int8, (slots,)),
        ("boxes", np.int16, (seats,)),
        ("history", np.int8, (seats, len(HISTORY_KINDS), types)),
        ("last_discard", np.int8, (seats,)),
    ]
    return np.dtype(fields, align=True)

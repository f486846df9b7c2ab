"""Compiled kernels of the rami51 ruleset (RULES.md §2): jokers, the 51-point opening, TAKE, SWAP.

Same record, same engine and same action space conventions as the basic ruleset (``kernels``);
this module holds what rami51 adds. Rule ids in comments point into RULES.md.

Legality has two layers. *Local* predicates (``play_ok``, ``discard_ok``, ``commit_ok``, ``undo_ok``)
check one action against the position. The *no-dead-end* obligation (R23) is then decided by
``finishable``: a depth-first search over the engine's own plays, applied to copies of the record,
until some legal end of the turn is reached (a discard, or going out by a play). While an UNDO
remains and a tentative play exists, a position counts as finishable (R24). The mask, the step and
the DRAW_DISCARD test (``can_use``, searched without undo, AR2) all use these same functions.

Bookkeeping of one turn (fields described in ``state``): cards taken from melds are *pending*
(R13), a joker freed by SWAP is a *freed joker* (R14); a MELD consumes pending copies before own
copies and needs one own card (two with a freed joker); lay-offs and discards use own copies only.
Points of the opening (R10) are added as own cards are laid, in the position they take.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.engine.config import (
    C_AAO_CRITERIA, C_AAO_PURE, C_AAO_TABLE, C_ACE_BOTH, C_ACE_FIXED, C_ALLOW_TAKE, C_BURNT, C_BURNT_PILE,
    C_CIRCULAR, C_DEAD_SCORING, C_DEALER_MAY_MELD, C_DECK, C_DISCARD_OFFSET, C_END_MODE, C_EPISODE,
    C_FINAL_DISCARD, C_FIRST_DEALER, C_FLAT100, C_FREED_LAYOFF, C_HAND_SIZE, C_JOKER_OPEN_MODE,
    C_JOKER_OPEN_VALUE, C_JOKER_OPP_SET, C_KEEP_TOP, C_LAYOFF_CODES, C_LAYOFF_OFFSET, C_MANUAL_ANNOUNCE,
    C_MAX_HANDS, C_MAX_RESHUFFLES, C_MAX_TURNS, C_MAX_UNDOS, C_MELD_OFFSET, C_MELDS, C_NON_OPENER, C_NUM_HANDS,
    C_OPEN_PURE, C_OPEN_THRESHOLD, C_OPEN_USE_TABLE, C_PENALTY_CARDS, C_PICKUP_EVERY, C_PICKUP_MIN,
    C_PICKUP_SECOND_ROUND, C_PLAYERS, C_PURE_OWN_ONLY, C_ROUNDING, C_SCALING, C_SLOTS, C_SWAP_OFFSET,
    C_SWAP_PRIOR, C_TAKE_JOKER, C_TAKE_OFFSET, C_TAKE_OWN, C_TARGET, F_AAO_MULT, F_JOKER_FINISH,
    F_PENALTY, F_SCALE,
)
from rummy_env.engine.kernels import (
    JIT, add_end_rewards, card_bit, clear_hand_state, random_below, seeded_state, shuffle_prefix,
)
from rummy_env.engine.state import (
    END_DEAD_NO_DRAW, END_DEAD_RESHUFFLES, END_DEAD_TURN_CAP, END_ILLEGAL, END_NONE, END_OUT, PHASE_DRAW,
    PHASE_GAME_OVER, PHASE_HAND_OVER, PHASE_PLAY,
)
from rummy_env.melds import KIND_RUN, KIND_SET

JOKER = 52
PURE, PURE_BUT_JOKER = 1, 2  # slot_pure: a run of own naturals laid this turn; the same with a joker laid off on it
CAT_KIND, CAT_KEY, CAT_LO, CAT_HI, CAT_JOKER = 3, 4, 5, 6, 7
SEARCH_DEPTH = 40         # plays explored in one turn (each play lays or takes a card)
CANDIDATES = 1024         # local candidates kept per search level
VISITED = 1 << 14         # positions remembered per row check (open addressing); beyond it, no memo
# slots after the owners table: search ids, the row check's first id, give-ups, plays tried (a statistic)
OWNER_NEXT_ID, OWNER_CALL_START, OWNER_GAVE_UP, OWNER_NODES = (2 * VISITED + k for k in range(4))
OWNER_SIZE = 2 * VISITED + 4
SEARCH_NODES = 1 << 15    # plays tried by one search at most (then it gives up: see ``search``)
SCRATCH_ROWS = SEARCH_DEPTH + 2    # per worker: the search levels, plus one row for the tested action
CANDIDATE_ROWS = SEARCH_DEPTH + 1  # per worker: the search levels, plus the mask's own list


# ---------------------------------------------------------------------------------------- cards
@nb.njit(**JIT)
def rank_of(card: int) -> int:
    return card % 13 + 1


@nb.njit(**JIT)
def suit_of(card: int) -> int:
    return card // 13


@nb.njit(**JIT)
def card_at(suit: int, position: int) -> int:
    """The natural card of ``suit`` at run position ``position`` (wrapping past 14, R20)."""
    return suit * 13 + (position - 1) % 13


@nb.njit(**JIT)
def own(r, p: int, card: int) -> int:
    """Own (not pending, not freed) copies of ``card`` in seat ``p``'s hand."""
    n = r.hand[p, card] - r.pending[card]
    if card == JOKER:
        n -= r.freed_jokers
    return n


@nb.njit(**JIT)
def natural_points(card: int, position: int, cfg) -> int:
    """R10 value of a natural card laid at run ``position`` (0 = in a set); ace 1 low, 11 after a
    king or in a set (AR11), always ``ace_fixed_value`` under the Lebanese rule (R21.1)."""
    rank = rank_of(card)
    if rank == 1:
        if cfg[C_ACE_FIXED] > 0:
            return cfg[C_ACE_FIXED]
        return 1 if position == 1 else 11
    return min(rank, 10)


@nb.njit(**JIT)
def joker_points(represented: int, position: int, cfg) -> int:
    """R10 value of a laid joker: the represented card's (AR12), 0, or a fixed value (AR15)."""
    mode = cfg[C_JOKER_OPEN_MODE]
    if mode == 1:
        return 0
    if mode == 2:
        return cfg[C_JOKER_OPEN_VALUE]
    return natural_points(represented, position, cfg)


@nb.njit(**JIT)
def max_points(card: int, cfg) -> int:
    """Largest R10 value ``card`` can bring to an opening (an upper bound for pruning)."""
    if card == JOKER:
        mode = cfg[C_JOKER_OPEN_MODE]
        if mode == 1:
            return 0
        if mode == 2:
            return cfg[C_JOKER_OPEN_VALUE]
        return cfg[C_ACE_FIXED] if cfg[C_ACE_FIXED] > 10 else 11
    return natural_points(card, 14, cfg)


# ---------------------------------------------------------------------------------------- meld geometry
@nb.njit(**JIT)
def run_end_position(r, slot: int, high: bool, cfg) -> int:
    """Position a card added at the low/high end of run ``slot`` would take, or 0 if that end is
    closed (no wrap by default, R2; 14 cards at most with both aces, AR10; 13 circular, R20)."""
    lo, hi = r.slot_lo[slot], r.slot_hi[slot]
    if cfg[C_CIRCULAR]:
        if hi - lo + 1 >= 13:
            return 0
        if not high and lo == 1:
            return -13  # position 0 (a K below an ace at 1): 0 itself means "closed"; extend_run maps it
        return hi + 1 if high else lo - 1
    if high:
        if hi + 1 > 14 or (hi + 1 == 14 and lo == 1 and not cfg[C_ACE_BOTH]):
            return 0
        return hi + 1
    if lo - 1 < 1 or (lo - 1 == 1 and hi == 14 and not cfg[C_ACE_BOTH]):
        return 0
    return lo - 1


@nb.njit(**JIT)
def natural_run_end(r, slot: int, card: int, cfg) -> int:
    """Position ``card`` takes when laid off on run ``slot`` (0: it does not fit). A card that fits
    both ends goes to the high end (only a 12-card circular run or an ace on 2..K; for the ace the
    high end is worth 11 and leaves the same later plays)."""
    if suit_of(card) != r.slot_key[slot]:
        return 0
    high = run_end_position(r, slot, True, cfg)
    if high > 0 and card_at(r.slot_key[slot], high) == card:
        return high
    low = run_end_position(r, slot, False, cfg)
    if low != 0 and card_at(r.slot_key[slot], low) == card:
        return low
    return 0


@nb.njit(**JIT)
def set_missing_suit(r, slot: int) -> int:
    """The one suit of a 4-card joker set that no natural holds (R9)."""
    for suit in range(4):
        if r.slot_cards[slot, suit * 13 + r.slot_key[slot] - 1] == 0:
            return suit
    return -1


@nb.njit(**JIT)
def burnt(r, card: int, cfg) -> bool:
    """Both copies of ``card`` are in table melds (+ the discard pile with the knob): a joker may
    then stand for it in a run (Lebanese R21.2, AL2)."""
    if not cfg[C_BURNT]:
        return True
    n = 0
    for slot in range(r.slot_n):
        n += r.slot_cards[slot, card]
    if cfg[C_BURNT_PILE]:
        for k in range(r.pile_n):
            if r.pile[k] == card:
                n += 1
    return n >= 2


@nb.njit(**JIT)
def represented(r, slot: int) -> int:
    """The natural card the joker of ``slot`` stands for, or -1 (no joker, 3-card joker set)."""
    if r.slot_cards[slot, JOKER] == 0 or r.slot_joker[slot] < 0:
        return -1
    if r.slot_kind[slot] == KIND_RUN:
        return card_at(r.slot_key[slot], r.slot_joker[slot])
    return r.slot_joker[slot] * 13 + r.slot_key[slot] - 1


# ---------------------------------------------------------------------------------------- turn facts
@nb.njit(**JIT)
def pending_total(r) -> int:
    n = r.freed_jokers
    for card in range(JOKER + 1):
        n += r.pending[card]
    return n


@nb.njit(**JIT)
def threshold(r, cfg) -> int:
    """Points the opening needs: 51 (or the knob), 71 instead after a Lebanese discard pickup
    (R21.3, AL3: "threshold 71 if taken", R23)."""
    if r.taken >= 0 and cfg[C_PICKUP_MIN] > 0:
        return cfg[C_PICKUP_MIN]
    return cfg[C_OPEN_THRESHOLD]


@nb.njit(**JIT)
def has_pure_run(r) -> bool:
    """A run laid this turn with no joker and only own cards (R11.2, AR8)."""
    for slot in range(r.start_slots, r.slot_n):
        if r.slot_pure[slot] == PURE:
            return True
    return False


@nb.njit(**JIT)
def may_play(r, cfg) -> bool:
    """Plays are allowed at all: not on the dealer's first turn with the knob off (R5, AR1)."""
    return r.phase == PHASE_PLAY and not (r.first_turn and not cfg[C_DEALER_MAY_MELD])


@nb.njit(**JIT)
def table_allowed(r, slot: int, cfg) -> bool:
    """A non-opened player may touch a meld that was on the table at turn start only with
    ``opening_may_use_table`` (R11.3)."""
    return r.opened[r.current] or slot >= r.start_slots or cfg[C_OPEN_USE_TABLE]


@nb.njit(**JIT)
def out_ok(r, cfg) -> bool:
    """Going out now (empty hand) is legal: nothing pending, the taken card laid, and a turn that
    began not opened is an all-at-once out that passes R16 (R11.5 (ii))."""
    if pending_total(r) > 0 or (r.taken >= 0 and not r.taken_laid):
        return False
    if r.taken >= 0 and cfg[C_PICKUP_EVERY] and r.turn_points < cfg[C_PICKUP_MIN]:
        return False  # "every_pickup": every pickup turn lays the minimum, going out included (AL3)
    if r.opened_at_start:
        return True
    if r.touched_table and not cfg[C_AAO_TABLE]:
        return False
    if r.opened[r.current]:  # committed earlier this turn
        return True
    if cfg[C_AAO_CRITERIA] and r.turn_points < threshold(r, cfg):
        return False
    if cfg[C_OPEN_PURE] and cfg[C_AAO_PURE] and not has_pure_run(r):
        return False
    return True


# ---------------------------------------------------------------------------------------- local legality
@nb.njit(**JIT)
def meld_ok(r, entry: int, catalogue, cfg) -> bool:
    """MELD ``entry`` (R8, R9, R13, R14): cards in hand, pending copies first, at least one own card
    (two beside a freed joker); a joker run needs its card burnt (Lebanese); R15 "required"."""
    p = r.current
    if r.slot_n >= cfg[C_SLOTS]:
        return False
    own_used, freed_used = 0, 0
    for k in range(3):
        card = catalogue[entry, k]
        if r.hand[p, card] == 0:
            return False
        if card == JOKER and r.freed_jokers > 0:
            freed_used = 1
        elif r.pending[card] == 0:
            own_used += 1
    if own_used < 1 + freed_used:
        return False
    if catalogue[entry, CAT_JOKER] > 0:
        if not burnt(r, card_at(catalogue[entry, CAT_KEY], catalogue[entry, CAT_JOKER]), cfg):
            return False
    return not (cfg[C_FINAL_DISCARD] == 0 and r.hand_n[p] == 3)


@nb.njit(**JIT)
def lay_off_ok(r, slot: int, code: int, cfg) -> bool:
    """LAY_OFF (R12, R9, AR6, R21.2): own card (a freed joker with "new_meld_or_layoff"); fits."""
    p = r.current
    if slot >= r.slot_n or not table_allowed(r, slot, cfg):
        return False
    if cfg[C_FINAL_DISCARD] == 0 and r.hand_n[p] == 1:
        return False
    kind = r.slot_kind[slot]
    if code < JOKER:
        if own(r, p, code) < 1:
            return False
        if kind == KIND_SET:
            return rank_of(code) == r.slot_key[slot] and r.slot_count[slot] < 4 and r.slot_cards[slot, code] == 0
        return natural_run_end(r, slot, code, cfg) != 0
    if own(r, p, JOKER) < 1 and not (cfg[C_FREED_LAYOFF] and r.freed_jokers > 0):
        return False
    if r.slot_cards[slot, JOKER] > 0:
        return False  # one joker per meld (R9, AR4)
    if kind == KIND_SET:
        return code == JOKER and r.slot_count[slot] == 3 and (r.slot_owner[slot] == p or cfg[C_JOKER_OPP_SET])
    if r.slot_owner[slot] != p:
        return False  # never onto an opponent's run (R9)
    position = run_end_position(r, slot, code == JOKER + 1, cfg)
    if position == 0:
        return False
    return burnt(r, card_at(r.slot_key[slot], position), cfg)


@nb.njit(**JIT)
def take_card(r, slot: int, choice: int) -> int:
    """The card TAKE ``choice`` would remove from ``slot``, or -1 (R13)."""
    if r.slot_kind[slot] == KIND_RUN:
        if choice > 1:
            return -1
        position = r.slot_lo[slot] if choice == 0 else r.slot_hi[slot]
        if r.slot_cards[slot, JOKER] > 0 and r.slot_joker[slot] == position:
            return JOKER
        return card_at(r.slot_key[slot], position)
    if choice == 4:
        return JOKER if r.slot_cards[slot, JOKER] > 0 else -1
    card = choice * 13 + r.slot_key[slot] - 1
    return card if r.slot_cards[slot, card] > 0 else -1


@nb.njit(**JIT)
def take_ok(r, slot: int, choice: int, cfg) -> bool:
    """TAKE (R13, AR7): a meld of 4+ cards keeps 3 (an end of a run), no joker unless the knob."""
    p = r.current
    if not cfg[C_ALLOW_TAKE] or slot >= r.slot_n or r.slot_count[slot] < 4 or not table_allowed(r, slot, cfg):
        return False
    if r.slot_owner[slot] == p and not cfg[C_TAKE_OWN]:
        return False
    card = take_card(r, slot, choice)
    if card < 0:
        return False
    return card != JOKER or cfg[C_TAKE_JOKER]


@nb.njit(**JIT)
def swap_ok(r, slot: int, cfg) -> bool:
    """SWAP (R14, AR13): opened (before this turn with the knob), a joker whose card is determined
    (a run or a 4-card set), and an own copy of that card."""
    p = r.current
    if slot >= r.slot_n or not r.opened[p] or (cfg[C_SWAP_PRIOR] and not r.opened_at_start):
        return False
    card = represented(r, slot)
    return card >= 0 and own(r, p, card) >= 1


@nb.njit(**JIT)
def commit_ok(r, cfg) -> bool:
    """COMMIT (R11.5 (i)): tentative plays holding the taken card, the threshold, a pure run."""
    if r.opened[r.current] or r.tentative == 0 or (r.taken >= 0 and not r.taken_laid):
        return False
    if r.turn_points < threshold(r, cfg):
        return False
    return not cfg[C_OPEN_PURE] or has_pure_run(r)


@nb.njit(**JIT)
def undo_ok(r, cfg) -> bool:
    return r.phase == PHASE_PLAY and r.tentative > 0 and r.undos < cfg[C_MAX_UNDOS]


@nb.njit(**JIT)
def discard_ok(r, card: int, announce: bool, cfg) -> bool:
    """DISCARD (R6, R7, R15, R16): an own card other than the taken one, nothing left to lay."""
    p = r.current
    if r.phase != PHASE_PLAY or own(r, p, card) < 1 or card == r.taken:
        return False
    if pending_total(r) > 0 or (r.taken >= 0 and not r.taken_laid):
        return False
    n = r.hand_n[p]
    if not announce and not (cfg[C_MANUAL_ANNOUNCE] and n == 2):
        return False
    if n == 1:
        return cfg[C_FINAL_DISCARD] != 2 and out_ok(r, cfg)
    if r.tentative > 0:
        return False
    if r.taken >= 0 and cfg[C_PICKUP_EVERY] and r.opened_at_start and r.turn_points < cfg[C_PICKUP_MIN]:
        return False
    return True


@nb.njit(**JIT)
def play_ok(r, action: int, catalogue, cfg) -> bool:
    """Local legality of a play (MELD, LAY_OFF, TAKE, SWAP, COMMIT) of the player to act."""
    if not may_play(r, cfg):
        return False
    if action == 2:
        return commit_ok(r, cfg)
    if action < cfg[C_LAYOFF_OFFSET]:
        return meld_ok(r, action - cfg[C_MELD_OFFSET], catalogue, cfg)
    if action < cfg[C_TAKE_OFFSET]:
        offset = action - cfg[C_LAYOFF_OFFSET]
        return lay_off_ok(r, offset // cfg[C_LAYOFF_CODES], offset % cfg[C_LAYOFF_CODES], cfg)
    if action < cfg[C_SWAP_OFFSET]:
        offset = action - cfg[C_TAKE_OFFSET]
        return take_ok(r, offset // 5, offset % 5, cfg)
    return swap_ok(r, action - cfg[C_SWAP_OFFSET], cfg)


# ---------------------------------------------------------------------------------------- applying plays
@nb.njit(**JIT)
def save_turn(r) -> None:
    """Remember the position before the first tentative play (for UNDO, R24)."""
    p = r.current
    r.u_hand[:] = r.hand[p]
    r.u_known[:] = r.known[p]
    r.u_pending[:] = r.pending
    r.u_hand_n = r.hand_n[p]
    r.u_slot_n = r.slot_n
    r.u_taken_laid = r.taken_laid
    r.u_turn_points = r.turn_points
    r.u_turn_jokers = r.turn_jokers
    r.u_touched_table = r.touched_table
    r.u_slot_kind[:] = r.slot_kind
    r.u_slot_owner[:] = r.slot_owner
    r.u_slot_key[:] = r.slot_key
    r.u_slot_lo[:] = r.slot_lo
    r.u_slot_hi[:] = r.slot_hi
    r.u_slot_count[:] = r.slot_count
    r.u_slot_joker[:] = r.slot_joker
    r.u_slot_pure[:] = r.slot_pure
    r.u_slot_cards[:, :] = r.slot_cards
    r.u_table_by_seat[:, :] = r.table_by_seat


@nb.njit(**JIT)
def restore_turn(r) -> None:
    p = r.current
    r.hand[p, :] = r.u_hand
    r.known[p, :] = r.u_known
    r.pending[:] = r.u_pending
    r.hand_n[p] = r.u_hand_n
    r.slot_n = r.u_slot_n
    r.taken_laid = r.u_taken_laid
    r.turn_points = r.u_turn_points
    r.turn_jokers = r.u_turn_jokers
    r.touched_table = r.u_touched_table
    r.slot_kind[:] = r.u_slot_kind
    r.slot_owner[:] = r.u_slot_owner
    r.slot_key[:] = r.u_slot_key
    r.slot_lo[:] = r.u_slot_lo
    r.slot_hi[:] = r.u_slot_hi
    r.slot_count[:] = r.u_slot_count
    r.slot_joker[:] = r.u_slot_joker
    r.slot_pure[:] = r.u_slot_pure
    r.slot_cards[:, :] = r.u_slot_cards
    r.table_by_seat[:, :] = r.u_table_by_seat
    r.slot_tentative[:] = 0
    r.slot_mine[:] = 0  # saved before the turn's first play: nothing laid this turn yet


@nb.njit(**JIT)
def begin_play(r) -> None:
    """Before any play: a non-opened player's plays are tentative (R11.5); remember the position."""
    if not r.opened[r.current]:
        if r.tentative == 0:
            save_turn(r)
        r.tentative += 1


@nb.njit(**JIT)
def leave_hand(r, p: int, card: int) -> None:
    """One copy of ``card`` leaves seat ``p``'s hand face up: the public knows one copy fewer. Which
    copy left is not public (two copies are identical), so ``known`` drops by one whatever the hand
    holds; ``min(known, hand)`` would reveal a hidden second copy."""
    r.hand[p, card] -= 1
    r.hand_n[p] -= 1
    if r.known[p, card] > 0:
        r.known[p, card] -= 1


@nb.njit(**JIT)
def mine_cell(kind: int, card: int, position: int, cfg) -> int:
    """Bit of ``slot_mine`` naming where a card sits in a meld: a set's natural by its suit, a run's
    natural by its position (by its rank in a circular run, whose positions are renumbered), any
    joker by bit 15 (one joker per meld, R9)."""
    if card == JOKER:
        return 15
    if kind == KIND_SET:
        return suit_of(card)
    return rank_of(card) if cfg[C_CIRCULAR] else position


@nb.njit(**JIT)
def slot_points(r, slot: int, cfg) -> int:
    """R10 points of the own cards the player to act laid on ``slot`` this turn (``slot_mine``),
    valued where they sit now (R11.1): a circular run's ace is worth 11 once a king precedes it."""
    mine = r.slot_mine[slot]
    if mine == 0:
        return 0
    key = r.slot_key[slot]
    total = 0
    if r.slot_kind[slot] == KIND_SET:
        for suit in range(4):
            if mine & (1 << suit):
                total += natural_points(suit * 13 + key - 1, 0, cfg)
        if mine & (1 << 15):
            total += joker_points(key - 1, 0, cfg)
        return total
    for position in range(r.slot_lo[slot], r.slot_hi[slot] + 1):
        card = card_at(key, position)
        if position == r.slot_joker[slot] and r.slot_cards[slot, JOKER] > 0:
            if mine & (1 << 15):
                total += joker_points(card, position, cfg)
        elif mine & (1 << mine_cell(KIND_RUN, card, position, cfg)):
            total += natural_points(card, position, cfg)
    return total


@nb.njit(**JIT)
def lay_card(r, slot: int, card: int, position: int, cfg) -> None:
    """Move an own copy of ``card`` from the current player's hand onto ``slot`` at ``position``
    (a run position; 0 in a set) and book it: an own card laid this turn (``slot_mine``, counted by
    ``slot_points``), jokers laid (R21.5), the taken card now on the table (R6). The caller
    recounts the slot's points once the meld has its new shape."""
    p = r.current
    leave_hand(r, p, card)
    r.slot_cards[slot, card] += 1
    r.slot_count[slot] += 1
    r.table_by_seat[p, card] += 1
    r.slot_mine[slot] |= 1 << mine_cell(r.slot_kind[slot], card, position, cfg)
    if card == JOKER:
        r.turn_jokers += 1
    if card == r.taken:
        r.taken_laid = 1


@nb.njit(**JIT)
def recount(r, slot: int, before: int, cfg) -> None:
    """The turn's points after a play changed ``slot``, whose own cards counted ``before``."""
    r.turn_points += slot_points(r, slot, cfg) - before


@nb.njit(**JIT)
def apply_meld(r, entry: int, catalogue, cfg) -> None:
    p = r.current
    begin_play(r)
    slot = r.slot_n
    r.slot_n += 1
    kind, key, lo = catalogue[entry, CAT_KIND], catalogue[entry, CAT_KEY], catalogue[entry, CAT_LO]
    joker_at = catalogue[entry, CAT_JOKER]
    r.slot_kind[slot] = kind
    r.slot_key[slot] = key
    r.slot_lo[slot] = lo
    r.slot_hi[slot] = catalogue[entry, CAT_HI]
    r.slot_owner[slot] = p
    r.slot_joker[slot] = joker_at if kind == KIND_RUN else -1
    r.slot_tentative[slot] = 0 if r.opened[p] else 1
    r.slot_mine[slot] = 0
    all_own = True
    for k in range(3):
        card = catalogue[entry, k]
        position = lo + k if kind == KIND_RUN else 0
        if card == JOKER and r.freed_jokers > 0:
            r.freed_jokers -= 1
            leave_hand(r, p, JOKER)
            r.slot_cards[slot, JOKER] += 1
            r.slot_count[slot] += 1
            r.table_by_seat[p, JOKER] += 1
            r.turn_jokers += 1
            all_own = False
        elif r.pending[card] > 0:
            r.pending[card] -= 1
            leave_hand(r, p, card)
            r.slot_cards[slot, card] += 1
            r.slot_count[slot] += 1
            r.table_by_seat[p, card] += 1
            all_own = False
        else:
            lay_card(r, slot, card, position, cfg)
    recount(r, slot, 0, cfg)
    pure_ok = all_own or not cfg[C_PURE_OWN_ONLY]
    r.slot_pure[slot] = PURE if kind == KIND_RUN and joker_at < 0 and pure_ok else 0
    r.played_turn = 1


@nb.njit(**JIT)
def apply_lay_off(r, slot: int, code: int, cfg) -> None:
    begin_play(r)
    if slot < r.start_slots:
        r.touched_table = 1
    before = slot_points(r, slot, cfg)
    if code < JOKER:
        if r.slot_kind[slot] == KIND_SET:
            lay_card(r, slot, code, 0, cfg)
            if r.slot_cards[slot, JOKER] > 0 and r.slot_count[slot] == 4:
                r.slot_joker[slot] = set_missing_suit(r, slot)
        else:
            position = natural_run_end(r, slot, code, cfg)
            extend_run(r, slot, position)
            lay_card(r, slot, code, position, cfg)
    else:
        position = 0 if r.slot_kind[slot] == KIND_SET else run_end_position(r, slot, code == JOKER + 1, cfg)
        if r.slot_kind[slot] == KIND_RUN and r.slot_pure[slot] == PURE:
            r.slot_pure[slot] = PURE_BUT_JOKER
        if cfg[C_FREED_LAYOFF] and r.freed_jokers > 0:  # a freed joker is not an own card: no points
            r.freed_jokers -= 1
            leave_hand(r, r.current, JOKER)
            r.slot_cards[slot, JOKER] += 1
            r.slot_count[slot] += 1
            r.table_by_seat[r.current, JOKER] += 1
            r.turn_jokers += 1
        else:
            lay_card(r, slot, JOKER, position, cfg)
        if r.slot_kind[slot] == KIND_SET:
            r.slot_joker[slot] = set_missing_suit(r, slot)
        else:
            r.slot_joker[slot] = position
            extend_run(r, slot, position)
    recount(r, slot, before, cfg)
    r.played_turn = 1


@nb.njit(**JIT)
def extend_run(r, slot: int, position: int) -> None:
    """Grow run ``slot`` to ``position``; circular runs keep their low end in 1..13 (R20)."""
    if position > r.slot_hi[slot]:
        r.slot_hi[slot] = position
        return
    if position == -13:  # position 0 as run_end_position reports it
        position = 0
        if r.slot_joker[slot] == -13:
            r.slot_joker[slot] = 0
    r.slot_lo[slot] = position
    if position < 1:  # a circular run wrapped below the ace: renumber one lap up
        r.slot_lo[slot] += 13
        r.slot_hi[slot] += 13
        if r.slot_joker[slot] >= 0:
            r.slot_joker[slot] += 13


@nb.njit(**JIT)
def apply_take(r, slot: int, choice: int, cfg) -> None:
    p = r.current
    begin_play(r)
    if slot < r.start_slots:
        r.touched_table = 1
    before = slot_points(r, slot, cfg)
    card = take_card(r, slot, choice)
    if r.slot_kind[slot] == KIND_RUN:  # an own card laid this turn and taken back stops counting (R11.1, R13)
        end = r.slot_lo[slot] if choice == 0 else r.slot_hi[slot]
        r.slot_mine[slot] &= ~(1 << mine_cell(KIND_RUN, card, end, cfg))
    else:
        r.slot_mine[slot] &= ~(1 << mine_cell(KIND_SET, card, 0, cfg))
    if r.slot_kind[slot] == KIND_RUN:
        if choice == 0:
            r.slot_lo[slot] += 1
        else:
            r.slot_hi[slot] -= 1
        if card == JOKER:
            r.slot_joker[slot] = -1
            if r.slot_pure[slot] == PURE_BUT_JOKER:
                r.slot_pure[slot] = PURE  # judged at the commit (R11.2, AR8): no joker any more
        if r.slot_lo[slot] > 13:
            r.slot_lo[slot] -= 13
            r.slot_hi[slot] -= 13
            if r.slot_joker[slot] >= 0:
                r.slot_joker[slot] -= 13
    else:
        r.slot_joker[slot] = -1  # a 3-card set's joker is undetermined; a 4-card one lost its joker
    r.slot_cards[slot, card] -= 1
    r.slot_count[slot] -= 1
    recount(r, slot, before, cfg)
    unlay(r, slot, card)
    r.hand[p, card] += 1
    r.hand_n[p] += 1
    r.known[p, card] += 1
    r.pending[card] += 1
    r.played_turn = 1


@nb.njit(**JIT)
def unlay(r, slot: int, card: int) -> None:
    """Book a card leaving the table: from its meld's owner if he laid one, else whoever did."""
    owner = r.slot_owner[slot]
    if r.table_by_seat[owner, card] > 0:
        r.table_by_seat[owner, card] -= 1
        return
    for seat in range(r.table_by_seat.shape[0]):
        if r.table_by_seat[seat, card] > 0:
            r.table_by_seat[seat, card] -= 1
            return


@nb.njit(**JIT)
def apply_swap(r, slot: int, cfg) -> None:
    p = r.current
    if slot < r.start_slots:
        r.touched_table = 1
    before = slot_points(r, slot, cfg)
    card = represented(r, slot)
    position = r.slot_joker[slot] if r.slot_kind[slot] == KIND_RUN else 0
    r.slot_joker[slot] = -1
    r.slot_cards[slot, JOKER] -= 1
    r.slot_count[slot] -= 1
    r.slot_mine[slot] &= ~(1 << 15)
    unlay(r, slot, JOKER)
    lay_card(r, slot, card, position, cfg)
    recount(r, slot, before, cfg)
    r.hand[p, JOKER] += 1
    r.hand_n[p] += 1
    r.known[p, JOKER] += 1
    r.freed_jokers += 1
    r.played_turn = 1


@nb.njit(**JIT)
def apply_play(r, action: int, catalogue, cfg) -> None:
    """Apply a locally legal play (the hand may end empty; the caller ends the round)."""
    if action == 2:  # COMMIT
        r.opened[r.current] = 1
        r.tentative = 0
        r.slot_tentative[:] = 0
        return
    if action == 3:  # UNDO
        restore_turn(r)
        r.tentative = 0
        r.undos += 1
        return
    if action < cfg[C_LAYOFF_OFFSET]:
        apply_meld(r, action - cfg[C_MELD_OFFSET], catalogue, cfg)
    elif action < cfg[C_TAKE_OFFSET]:
        offset = action - cfg[C_LAYOFF_OFFSET]
        apply_lay_off(r, offset // cfg[C_LAYOFF_CODES], offset % cfg[C_LAYOFF_CODES], cfg)
    elif action < cfg[C_SWAP_OFFSET]:
        offset = action - cfg[C_TAKE_OFFSET]
        apply_take(r, offset // 5, offset % 5, cfg)
    else:
        apply_swap(r, action - cfg[C_SWAP_OFFSET], cfg)


# ---------------------------------------------------------------------------------------- candidates
@nb.njit(**JIT)
def hand_bits(r, p: int) -> np.uint64:
    bits = np.uint64(0)
    for card in range(JOKER + 1):
        if r.hand[p, card] > 0:
            bits |= card_bit(card)
    return bits


@nb.njit(**JIT)
def play_candidates(r, out, catalogue, catalogue_bits, cfg, focus: bool = False) -> int:
    """Write every locally legal play (COMMIT, MELD, LAY_OFF, TAKE, SWAP) into ``out``; returns
    how many. Bitsets pre-select; each candidate is decided by the local predicates.

    ``focus`` (the search only, see ``focused``) keeps just the plays that can help lay the cards
    the turn still owes: melds holding one of them, lay-offs of the taken card or a freed joker,
    lay-offs onto 3-card melds (they can open a meld to TAKE or fix a joker to SWAP), TAKE, SWAP."""
    n = 0
    if not may_play(r, cfg):
        return 0
    p = r.current
    if commit_ok(r, cfg):
        out[n] = 2
        n += 1
    hand = hand_bits(r, p)
    owed = np.uint64(0)
    if focus:
        for card in range(JOKER + 1):
            if r.pending[card] > 0:
                owed |= card_bit(card)
        if r.freed_jokers > 0:
            owed |= card_bit(JOKER)
        if r.taken >= 0 and not r.taken_laid:
            owed |= card_bit(r.taken)
    if r.slot_n < cfg[C_SLOTS]:
        for entry in range(cfg[C_MELDS]):
            if catalogue_bits[entry] & ~hand == 0 and (not focus or catalogue_bits[entry] & owed) \
                    and meld_ok(r, entry, catalogue, cfg):
                out[n] = cfg[C_MELD_OFFSET] + entry
                n += 1
    codes = cfg[C_LAYOFF_CODES]
    joker_in_hand = (hand & card_bit(JOKER)) != 0
    for slot in range(r.slot_n):
        base = cfg[C_LAYOFF_OFFSET] + slot * codes
        if focus and r.slot_count[slot] != 3:
            # only the owed cards may be laid off here
            for code in range(JOKER + 2):
                card = min(code, JOKER)
                if owed & card_bit(card) and r.hand[p, card] > 0 and lay_off_ok(r, slot, code, cfg) \
                        and (code >= JOKER or r.slot_kind[slot] == KIND_SET
                             or natural_run_end(r, slot, card, cfg) != 0):
                    out[n] = base + code
                    n += 1
            n = take_and_swap_candidates(r, slot, out, n, cfg)
            continue
        if r.slot_kind[slot] == KIND_SET:
            for suit in range(4):
                card = suit * 13 + r.slot_key[slot] - 1
                if r.hand[p, card] > 0 and lay_off_ok(r, slot, card, cfg):
                    out[n] = base + card
                    n += 1
        else:
            for high in (False, True):
                position = run_end_position(r, slot, high, cfg)
                if position != 0:
                    card = card_at(r.slot_key[slot], position)
                    if r.hand[p, card] > 0 and natural_run_end(r, slot, card, cfg) == position \
                            and lay_off_ok(r, slot, card, cfg):
                        out[n] = base + card
                        n += 1
        if joker_in_hand:
            for code in (JOKER, JOKER + 1):
                if lay_off_ok(r, slot, code, cfg):
                    out[n] = base + code
                    n += 1
        n = take_and_swap_candidates(r, slot, out, n, cfg)
    return n


@nb.njit(**JIT)
def take_and_swap_candidates(r, slot: int, out, n: int, cfg) -> int:
    if r.slot_count[slot] >= 4:
        for choice in range(5):
            if take_ok(r, slot, choice, cfg):
                out[n] = cfg[C_TAKE_OFFSET] + slot * 5 + choice
                n += 1
    if r.slot_cards[slot, JOKER] > 0 and swap_ok(r, slot, cfg):
        out[n] = cfg[C_SWAP_OFFSET] + slot
        n += 1
    return n


@nb.njit(**JIT)
def focused(r, cfg) -> bool:
    """Whether the search may skip the plays that do not touch an owed card (``play_candidates``):
    an opened player who must keep a card to discard (R15 "required") can only lose by laying own
    cards that no obligation needs, unless a 71-point pickup (R21.3 "every_pickup") or the burnt-card
    rule (R21.2) makes other plays matter."""
    return (r.opened[r.current] == 1 and cfg[C_FINAL_DISCARD] == 0 and not cfg[C_BURNT]
            and not (cfg[C_PICKUP_EVERY] and r.taken >= 0))


# ---------------------------------------------------------------------------------------- no dead end
@nb.njit(**JIT)
def can_end_now(r, cfg) -> bool:
    """Some DISCARD ends the turn legally from here."""
    p = r.current
    for card in range(JOKER + 1):
        if r.hand[p, card] > 0 and discard_ok(r, card, True, cfg):
            return True
    return False


@nb.njit(**JIT)
def can_grow(r, slot: int, cfg) -> bool:
    """Whether some card the player could lay off this turn fits meld ``slot`` now: an own natural
    at an end of a run or of a missing suit of a set, or a joker (own, or a freed one with
    ``new_meld_or_layoff``) where one may go (R9, R12). A relaxation for ``takeable_bits``: only a
    lay-off lengthens a meld, and the ends of a meld no lay-off fits stay as they are."""
    p = r.current
    jokers = own(r, p, JOKER) > 0 or (cfg[C_FREED_LAYOFF] and r.opened[p])
    if r.slot_kind[slot] == KIND_SET:
        if r.slot_count[slot] >= 4:
            return False
        if jokers and r.slot_cards[slot, JOKER] == 0:
            return True
        for suit in range(4):
            card = suit * 13 + r.slot_key[slot] - 1
            if r.slot_cards[slot, card] == 0 and own(r, p, card) > 0:
                return True
        return False
    if jokers and r.slot_cards[slot, JOKER] == 0 and r.slot_owner[slot] == p:
        return True
    for high in (False, True):
        position = run_end_position(r, slot, high, cfg)
        if position != 0 and own(r, p, card_at(r.slot_key[slot], position)) > 0:
            return True
    return False


@nb.njit(**JIT)
def takeable_bits(r, cfg) -> np.uint64:
    """Cards a chain of TAKEs could bring into the hand this turn: every card of a meld the player
    may take from that has 4 cards or can grow (lay-offs can lengthen a meld, and each TAKE from a
    run exposes the next card; after a commit the turn-start melds open up too, R11.3). A 3-card
    meld that no own card can lengthen stays at 3 for the rest of the turn. A relaxation used only
    to prune the search."""
    bits = np.uint64(0)
    if not cfg[C_ALLOW_TAKE]:
        return bits
    p = r.current
    for slot in range(r.slot_n):
        if r.slot_owner[slot] == p and not cfg[C_TAKE_OWN]:
            continue
        if r.slot_count[slot] < 4 and not can_grow(r, slot, cfg):
            continue
        for card in range(JOKER):
            if r.slot_cards[slot, card] > 0:
                bits |= card_bit(card)
        if r.slot_cards[slot, JOKER] > 0 and cfg[C_TAKE_JOKER]:
            bits |= card_bit(JOKER)
    return bits


@nb.njit(**JIT)
def placeable_bits(r, reachable: np.uint64, catalogue_bits, cfg) -> np.uint64:
    """Cards that could still reach the table this turn by some play: members of a catalogue meld
    whose cards are all ``reachable`` (in the hand or takeable), cards a table meld accepts, cards a SWAP would
    lay. A relaxation (it ignores counts and order), used only to prune: it must cover every line of
    plays, so a run accepts the chain of cards beyond each end that the hand (or one joker) can
    bridge, a set any suit of its rank (a TAKE can reopen a full set), and a SWAP's freed joker is
    reachable."""
    p = r.current
    for slot in range(r.slot_n):
        if r.slot_cards[slot, JOKER] == 0:
            continue
        if r.slot_kind[slot] == KIND_SET:  # a lay-off can first make a 3-card joker set's joker swappable
            for suit in range(4):
                card = suit * 13 + r.slot_key[slot] - 1
                if r.slot_cards[slot, card] == 0 and own(r, p, card) > 0:
                    reachable |= card_bit(JOKER)
        else:
            card = represented(r, slot)
            if card >= 0 and own(r, p, card) > 0:
                reachable |= card_bit(JOKER)
    bits = np.uint64(0)
    for entry in range(cfg[C_MELDS]):
        if catalogue_bits[entry] & ~reachable == 0:
            bits |= catalogue_bits[entry]
    joker_reachable = (reachable & card_bit(JOKER)) != 0
    for slot in range(r.slot_n):
        if r.slot_cards[slot, JOKER] == 0 and (r.slot_kind[slot] == KIND_SET and r.slot_count[slot] == 3
                                               or r.slot_kind[slot] == KIND_RUN and r.slot_owner[slot] == p):
            bits |= card_bit(JOKER)
        if r.slot_kind[slot] == KIND_SET:
            for suit in range(4):
                bits |= card_bit(suit * 13 + r.slot_key[slot] - 1)
        else:
            for high in (False, True):
                position = r.slot_hi[slot] if high else r.slot_lo[slot]
                gap = joker_reachable
                for _ in range(13):
                    position = position + 1 if high else position - 1
                    if not cfg[C_CIRCULAR] and (position < 1 or position > 14):
                        break
                    card = card_at(r.slot_key[slot], position)
                    bits |= card_bit(card)
                    if reachable & card_bit(card) == 0:
                        if not gap:
                            break
                        gap = False
        card = represented(r, slot)
        if card >= 0:
            bits |= card_bit(card)
    return bits


@nb.njit(**JIT)
def new_meld_reachable(r, card: int, reachable: np.uint64, catalogue_bits, cfg) -> bool:
    """Whether ``card`` (a pending card, R13, or a freed joker, R14) could still go into a new meld:
    a catalogue meld holding it, with at least one other own card, whose cards are all in the hand
    or takeable (``placeable_bits`` also counts lay-offs, which these cards may not use)."""
    p = r.current
    bit = card_bit(card)
    own_bits = np.uint64(0)
    for other in range(JOKER + 1):
        if other != card and own(r, p, other) > 0:
            own_bits |= card_bit(other)
    for entry in range(cfg[C_MELDS]):
        entry_bits = catalogue_bits[entry]
        if entry_bits & bit and entry_bits & ~reachable == 0 and entry_bits & own_bits:
            return True
    return False


@nb.njit(**JIT)
def hopeless(r, catalogue, catalogue_bits, cfg) -> bool:
    """Cheap proofs that no finish exists from ``r`` (sound relaxations; they only prune):

    * too few own cards are left to meld the pending cards and freed jokers and keep a discard;
    * a card that must be laid (the taken card, R6; a pending card, R13; a freed joker, R14) can
      reach no meld, lay-off or swap;
    * a non-opened player who has made tentative plays (or holds the taken card) and has no undo
      left must reach a COMMIT or an all-at-once out (R11.5): a COMMIT needs the points, counted
      only over own cards that could still be laid, and (``opening_requires_pure_run``) a pure run
      of own cards; an all-at-once out needs what R16's knobs ask of it and every own card laid but
      the final discard."""
    p = r.current
    must_lay = r.taken >= 0 and not r.taken_laid
    if not must_lay and pending_total(r) == 0 and (r.opened[p] or r.tentative == 0):
        return False
    own_cards = 0
    for card in range(JOKER + 1):
        own_cards += own(r, p, card)
    taken_cards = pending_total(r) - r.freed_jokers
    # every new meld holding taken cards needs an own card, so holds at most two of them; a freed
    # joker needs two own cards (R13, R14); "required" keeps one card for the discard (R15)
    # (with "new_meld_or_layoff" a freed joker may be laid off instead, needing no own card)
    freed_need = 0 if cfg[C_FREED_LAYOFF] else 2 * r.freed_jokers
    if own_cards < (taken_cards + 1) // 2 + freed_need + (1 if cfg[C_FINAL_DISCARD] == 0 else 0):
        return True
    reachable = hand_bits(r, p) | takeable_bits(r, cfg)
    placeable = placeable_bits(r, reachable, catalogue_bits, cfg)
    if must_lay and placeable & card_bit(r.taken) == 0:
        return True
    for card in range(JOKER + 1):
        if r.pending[card] > 0 and not new_meld_reachable(r, card, reachable, catalogue_bits, cfg):
            return True
    if r.freed_jokers > 0 and placeable & card_bit(JOKER) == 0:
        return True
    if r.freed_jokers > 0 and not cfg[C_FREED_LAYOFF] and not new_meld_reachable(r, JOKER, reachable, catalogue_bits, cfg):
        return True
    if r.opened[p]:
        return False
    bound = r.turn_points + ace_slack(r, cfg)
    unplaceable = 0
    for card in range(JOKER + 1):
        n = own(r, p, card)
        if n > 0:
            if placeable & card_bit(card):
                bound += n * max_points(card, cfg)
            else:
                unplaceable += n
    points_ok = bound >= threshold(r, cfg)
    pure_ok = not cfg[C_OPEN_PURE] or pure_run_reachable(r, cfg)
    if points_ok and pure_ok:
        return False  # a COMMIT may be reachable
    # only an all-at-once out is left (R16): every own card laid but the final discard (R15)
    if r.touched_table and not cfg[C_AAO_TABLE]:
        return True
    if (cfg[C_AAO_CRITERIA] and not points_ok) or (cfg[C_AAO_PURE] and not pure_ok):
        return True
    return unplaceable > (0 if cfg[C_FINAL_DISCARD] == 2 else 1)


@nb.njit(**JIT)
def ace_slack(r, cfg) -> int:
    """Points the own cards already laid may still gain: in a circular run a king laid before a low ace
    (or a joker standing for one) makes it worth 11 instead of 1 (R10, AR11)."""
    if not cfg[C_CIRCULAR] or cfg[C_ACE_FIXED] > 0:
        return 0
    slack = 0
    for slot in range(r.slot_n):
        if r.slot_kind[slot] == KIND_RUN and r.slot_mine[slot] & ((1 << 1) | (1 << 15)):
            slack += 10
    return slack


@nb.njit(**JIT)
def pure_run_reachable(r, cfg) -> bool:
    """A pure run is on the table this turn (or will be once a joker laid off on it is taken back),
    or three consecutive naturals of one suit could still form one: own cards, or (without
    ``pure_run_hand_cards_only``) cards a TAKE could bring."""
    if has_pure_run(r):
        return True
    if cfg[C_TAKE_JOKER]:  # a TAKE of the joker makes such a run pure again
        for slot in range(r.start_slots, r.slot_n):
            if r.slot_pure[slot] == PURE_BUT_JOKER:
                return True
    p = r.current
    last_start = 13 if cfg[C_CIRCULAR] else 12
    later = np.uint64(0) if cfg[C_PURE_OWN_ONLY] else takeable_bits(r, cfg)
    for suit in range(4):
        for start in range(1, last_start + 1):
            ok = True
            for k in range(3):
                card = card_at(suit, start + k)
                held = own(r, p, card) if cfg[C_PURE_OWN_ONLY] else r.hand[p, card]
                if held < 1 and later & card_bit(card) == 0:
                    ok = False
                    break
            if ok:
                return True
    return False


@nb.njit(**JIT)
def node_status(r, allow_undo: bool, catalogue, catalogue_bits, cfg) -> int:
    """1: the turn can be finished from here at once; -1: it cannot be finished; 0: search on."""
    p = r.current
    if r.hand_n[p] == 0:
        return 1 if out_ok(r, cfg) else -1
    if allow_undo and r.tentative > 0 and r.undos < cfg[C_MAX_UNDOS]:
        return 1
    if can_end_now(r, cfg):
        return 1
    if hopeless(r, catalogue, catalogue_bits, cfg):
        return -1
    return 0


@nb.njit(**JIT)
def position_hash(r) -> np.uint64:
    p = r.current
    h = np.uint64(1469598103934665603)
    prime = np.uint64(1099511628211)
    for card in range(JOKER + 1):
        h = (h ^ np.uint64(r.hand[p, card] * 8 + r.pending[card])) * prime
    h = (h ^ np.uint64(r.freed_jokers * 64 + r.opened[p] * 16 + r.taken_laid * 4 + r.tentative)) * prime
    h = (h ^ np.uint64(r.turn_points)) * prime
    for slot in range(r.slot_n):
        h = (h ^ np.uint64(r.slot_count[slot] * 4096 + r.slot_lo[slot] * 64 + r.slot_hi[slot])) * prime
        h = (h ^ np.uint64(r.slot_joker[slot] + 64 + r.slot_pure[slot] * 256 + r.slot_key[slot] * 1024
                           + r.slot_kind[slot] * 32768)) * prime
        h = (h ^ np.uint64(r.slot_mine[slot])) * prime
    if h == np.uint64(0):
        h = np.uint64(1)
    return h


@nb.njit(**JIT)
def remember(visited, owners, search_id: int, h: np.uint64) -> int:
    """Record position ``h`` as being explored by search ``search_id``: returns its table index, -1
    if a search of the same row check proved it dead, -3 if this search has met it already (skip it
    either way), -2 if the table is crowded (explore without memo). Open addressing; entries of
    earlier row checks are stale."""
    wrap = np.int64(VISITED - 1)
    start = owners[OWNER_CALL_START]
    index = np.int64(h >> np.uint64(40)) & wrap
    for _ in range(64):
        owner = owners[index]
        if owner < start:  # empty or stale
            visited[index] = h
            owners[index] = search_id
            owners[VISITED + index] = 0
            return index
        if visited[index] == h:
            if owners[VISITED + index] == start:
                return -1
            if owner == search_id:
                return -3
            owners[index] = search_id  # met by a search that succeeded elsewhere: not known dead
            return index
        index = (index + np.int64(1)) & wrap
    return -2


@nb.njit(**JIT)
def mark_dead(owners, index: int) -> None:
    """The position at table ``index`` was fully explored without a way to finish the turn."""
    if index >= 0:
        owners[VISITED + index] = owners[OWNER_CALL_START]


@nb.njit(**JIT)
def begin_row_check(work) -> None:
    """Forget the positions explored for another row or an earlier state (they are stale)."""
    owners = work[3]
    owners[OWNER_CALL_START] = owners[OWNER_NEXT_ID]


@nb.njit(**JIT)
def end_row_check(r, work) -> None:
    """Count the searches of this row check that gave up (``SEARCH_NODES``) in the row's record."""
    owners = work[3]
    if owners[OWNER_GAVE_UP] > 0:
        r.search_gave_up += owners[OWNER_GAVE_UP]
        owners[OWNER_GAVE_UP] = 0


@nb.njit(**JIT)
def finishable(r, allow_undo: bool, work, catalogue, catalogue_bits, cfg) -> bool:
    """Whether the player to act can still finish the turn legally from position ``r`` (R23)."""
    return search(r, allow_undo, False, work, catalogue, catalogue_bits, cfg)


@nb.njit(**JIT)
def search(r, allow_undo: bool, commit_first: bool, work, catalogue, catalogue_bits, cfg) -> bool:
    """Search over locally legal plays, each applied to a copy of the record, for a legal end of
    the turn (``node_status``). With ``commit_first`` the turn must pass through a COMMIT before it
    may end (R11.5 under ``all_at_once_may_use_table = false``).

    Each position's children are first all checked for an immediate end, then explored depth
    first, by iterative deepening (2, 4, 8, … plays deep). Positions already explored, or proved dead by another search of the same row check, are
    skipped (a hash table: the orders of commuting plays meet there), and ``hopeless`` prunes.
    ``SEARCH_NODES`` bounds the work: a search that reaches it gives up and answers "not finishable", so that the mask stays safe (it never
    offers an action that could strand the turn) at the price of hiding, in such rare positions, a
    play that had a long way out; every give-up is counted in the row's ``search_gave_up``."""
    if not commit_first:
        status = node_status(r, allow_undo, catalogue, catalogue_bits, cfg)
        if status != 0:
            return status == 1
    scratch, candidates, visited, owners = work
    salt = np.uint64(1 + allow_undo * 2 + commit_first * 4)
    counts = np.zeros(SEARCH_DEPTH, dtype=np.int64)
    index = np.zeros(SEARCH_DEPTH, dtype=np.int64)
    committed = np.zeros(SEARCH_DEPTH, dtype=np.bool_)
    where = np.zeros(SEARCH_DEPTH, dtype=np.int64)
    cut = np.zeros(SEARCH_DEPTH, dtype=np.bool_)
    nodes = 0
    limit = 2
    while True:  # iterative deepening: short ways out are found before long dead ends are explored
        search_id = owners[OWNER_NEXT_ID]
        owners[OWNER_NEXT_ID] += 1
        committed[0] = not commit_first
        cut[:] = False
        index[:] = 0
        scratch[0] = r
        where[0] = remember(visited, owners, search_id, position_hash(r) * salt)
        if where[0] == -1:
            return False  # proved dead by an earlier search of this row check
        where[0] = max(where[0], -2)
        used = expand(0, scratch, candidates, counts, committed, allow_undo, catalogue, catalogue_bits, cfg)
        if used < 0:
            return True
        nodes += used
        owners[OWNER_NODES] += used
        level = 0
        while level >= 0:
            if index[level] >= counts[level]:
                if not cut[level]:  # explored to the end: no way out from here
                    mark_dead(owners, where[level])
                elif level > 0:
                    cut[level - 1] = True
                level -= 1
                continue
            action = candidates[level, index[level]]
            index[level] += 1
            if action < 0:
                continue
            if level + 1 >= limit:
                cut[level] = True
                continue
            scratch[level + 1] = scratch[level]
            child = scratch[level + 1]
            apply_play(child, action, catalogue, cfg)
            committed_child = committed[level] or action == 2
            slot = remember(visited, owners, search_id, position_hash(child) * (salt + np.uint64(8 * committed_child)))
            if slot == -3:  # met earlier in this pass, perhaps cut short there: not a proof of a dead end
                cut[level] = True
                continue
            if slot == -1:
                continue
            level += 1
            where[level] = slot
            committed[level] = committed_child
            index[level] = 0
            cut[level] = False
            used = expand(level, scratch, candidates, counts, committed, allow_undo, catalogue, catalogue_bits, cfg)
            if used < 0:
                return True
            nodes += used
            owners[OWNER_NODES] += used
            if nodes > SEARCH_NODES:
                owners[OWNER_GAVE_UP] += 1
                return False  # the positions still on the path are not marked dead
        if not cut[0] or limit >= SEARCH_DEPTH:
            return False
        limit = min(2 * limit, SEARCH_DEPTH)


@nb.njit(**JIT)
def expand(level: int, scratch, candidates, counts, committed, allow_undo: bool, catalogue, catalogue_bits, cfg) -> int:
    """List the plays of the position at ``level`` and check each child: returns -1 if one ends the
    turn legally, else the number of children tried; dead children are marked -1 in
    the candidate list so that the search does not descend into them."""
    n = play_candidates(scratch[level], candidates[level], catalogue, catalogue_bits, cfg, focused(scratch[level], cfg))
    counts[level] = n
    for k in range(n):
        action = candidates[level, k]
        scratch[level + 1] = scratch[level]
        child = scratch[level + 1]
        apply_play(child, action, catalogue, cfg)
        if committed[level] or action == 2:
            status = node_status(child, allow_undo, catalogue, catalogue_bits, cfg)
        elif child.hand_n[child.current] == 0 or hopeless(child, catalogue, catalogue_bits, cfg):
            status = -1
        else:
            status = 0
        if status == 1:
            return -1
        if status == -1:
            candidates[level, k] = -1
    return n


@nb.njit(**JIT)
def play_legal(r, action: int, work, catalogue, catalogue_bits, cfg) -> bool:
    """A locally legal play is legal if the turn can be finished after it (R23; E70's rule for a
    non-opened player touching an old meld under ``all_at_once_may_use_table = false``)."""
    p = r.current
    scratch = work[0]
    slot = play_slot(action, cfg)
    needs_commit = (not cfg[C_AAO_TABLE] and not r.opened[p] and action != 2 and 0 <= slot < r.start_slots)
    if not needs_commit and not r.opened[p] and r.undos < cfg[C_MAX_UNDOS] and r.hand_n[p] > 3:
        # a tentative play with an undo left that keeps cards in hand: undo is a way out (R24)
        return True
    top = SEARCH_DEPTH + 1
    scratch[top] = r
    child = scratch[top]
    apply_play(child, action, catalogue, cfg)
    if child.hand_n[p] == 0:
        return not needs_commit and out_ok(child, cfg)
    # the search reuses the scratch rows below ``top``; the child stays intact
    return search(child, True, needs_commit, work, catalogue, catalogue_bits, cfg)


@nb.njit(**JIT)
def play_slot(action: int, cfg) -> int:
    """Table slot a LAY_OFF, TAKE or SWAP acts on, else -1."""
    if action < cfg[C_LAYOFF_OFFSET]:
        return -1
    if action < cfg[C_TAKE_OFFSET]:
        return (action - cfg[C_LAYOFF_OFFSET]) // cfg[C_LAYOFF_CODES]
    if action < cfg[C_SWAP_OFFSET]:
        return (action - cfg[C_TAKE_OFFSET]) // 5
    return action - cfg[C_SWAP_OFFSET]


@nb.njit(**JIT)
def draw_discard_ok(r, work, catalogue, catalogue_bits, cfg) -> bool:
    """DRAW_DISCARD (R6, R7, R20, AR2): a top card exists, the hand holds more than one card, the
    first lap is over if required, and ``can_use``: a finish of the turn lays it (no undo)."""
    p = r.current
    if r.phase != PHASE_DRAW or r.pile_n == 0 or r.hand_n[p] == 1:
        return False
    if cfg[C_PICKUP_SECOND_ROUND] and r.turns < cfg[C_PLAYERS]:
        return False
    scratch = work[0]
    top = SEARCH_DEPTH + 1
    scratch[top] = r
    child = scratch[top]
    draw(child, True)
    return finishable(child, False, work, catalogue, catalogue_bits, cfg)


@nb.njit(**JIT)
def draw(r, from_pile: bool) -> None:
    p = r.current
    if from_pile:
        r.pile_n -= 1
        card = r.pile[r.pile_n]
        r.known[p, card] += 1
        r.taken = card
    else:
        r.stock_n -= 1
        card = r.stock[r.stock_n]
    r.hand[p, card] += 1
    r.hand_n[p] += 1
    r.phase = PHASE_PLAY


# ---------------------------------------------------------------------------------------- mask and legality
@nb.njit(**JIT)
def mask_row(r, out, work, catalogue, catalogue_bits, cfg) -> None:
    """The exact legal-action mask of game ``r`` (zeroed here)."""
    out[:] = 0
    begin_row_check(work)
    if r.phase == PHASE_DRAW:
        out[0] = r.stock_n > 0
        out[1] = draw_discard_ok(r, work, catalogue, catalogue_bits, cfg)
        return
    if r.phase != PHASE_PLAY:
        return
    candidates = work[1][SEARCH_DEPTH]  # the searches use rows below
    n = play_candidates(r, candidates, catalogue, catalogue_bits, cfg)
    for k in range(n):
        action = candidates[k]
        if action == 2:
            out[2] = commit_legal(r, work, catalogue, catalogue_bits, cfg)
        else:
            out[action] = play_legal(r, action, work, catalogue, catalogue_bits, cfg)
    out[3] = undo_ok(r, cfg)
    discard = cfg[C_DISCARD_OFFSET]
    p = r.current
    for card in range(JOKER + 1):
        if r.hand[p, card] > 0:
            out[discard + card] = discard_ok(r, card, True, cfg)
            if cfg[C_MANUAL_ANNOUNCE]:
                out[discard + JOKER + 1 + card] = discard_ok(r, card, False, cfg)


@nb.njit(**JIT)
def commit_legal(r, work, catalogue, catalogue_bits, cfg) -> bool:
    """COMMIT is never undone: afterwards the turn must be finishable without undo (R23)."""
    if not commit_ok(r, cfg):
        return False
    top = SEARCH_DEPTH + 1
    scratch = work[0]
    scratch[top] = r
    child = scratch[top]
    apply_play(child, 2, catalogue, cfg)
    return finishable(child, False, work, catalogue, catalogue_bits, cfg)


@nb.njit(**JIT)
def action_legal(r, action: int, work, catalogue, catalogue_bits, cfg) -> bool:
    """Whether ``action`` is legal for the player to act (the mask's decision for one action)."""
    begin_row_check(work)
    if r.phase == PHASE_DRAW:
        if action == 0:
            return r.stock_n > 0
        if action == 1:
            return draw_discard_ok(r, work, catalogue, catalogue_bits, cfg)
        return False
    if r.phase != PHASE_PLAY or action < 2:
        return False
    if action == 2:
        return commit_legal(r, work, catalogue, catalogue_bits, cfg)
    if action == 3:
        return undo_ok(r, cfg)
    discard = cfg[C_DISCARD_OFFSET]
    if action >= discard:
        card = action - discard
        if card <= JOKER:
            return discard_ok(r, card, True, cfg)
        if cfg[C_MANUAL_ANNOUNCE] and card - JOKER - 1 <= JOKER:
            return discard_ok(r, card - JOKER - 1, False, cfg)
        return False
    return play_ok(r, action, catalogue, cfg) and play_legal(r, action, work, catalogue, catalogue_bits, cfg)


# ---------------------------------------------------------------------------------------- rounds
@nb.njit(**JIT)
def clear_round(r) -> None:
    """The basic ruleset's cleared hand (``kernels.clear_hand_state``), plus what rami51 adds."""
    clear_hand_state(r)
    r.slot_pure[:] = 0
    r.opened[:] = 0
    r.doomed = 0
    r.pile_n = 0
    r.pending[:] = 0
    r.taken_laid = 0
    r.turn_points = 0
    r.turn_jokers = 0
    r.touched_table = 0
    # the UNDO copy too (rewritten before any use, but part of the snapshot: a reset must not
    # depend on what the row played before): a copy of the cleared position
    save_turn(r)


@nb.njit(**JIT)
def deal_row(r, deck, use_deck: bool, work, catalogue, catalogue_bits, values, cfg) -> None:
    """Deal a round (R4): 13 cards one at a time clockwise from the dealer's left, 14 to the
    dealer, no upcard; the dealer plays first without drawing (R5)."""
    players, hand_size, n = cfg[C_PLAYERS], cfg[C_HAND_SIZE], cfg[C_DECK]
    clear_round(r)
    if use_deck:
        for k in range(n):
            r.stock[k] = deck[k]
    else:
        for k in range(n):
            r.stock[k] = k % 52 if k < 104 else JOKER
        shuffle_prefix(r, r.stock, n)
    k = 0
    for _ in range(hand_size):
        for offset in range(1, players + 1):
            seat = (r.dealer + offset) % players
            r.hand[seat, r.stock[k]] += 1
            r.hand_n[seat] += 1
            k += 1
    r.hand[r.dealer, r.stock[k]] += 1
    r.hand_n[r.dealer] += 1
    k += 1
    remaining = n - k
    for j in range(remaining):
        r.stock[j] = r.stock[k + j]
    for j in range(remaining // 2):  # the next card of the deck on top
        tmp = r.stock[j]
        r.stock[j] = r.stock[remaining - 1 - j]
        r.stock[remaining - 1 - j] = tmp
    r.stock_n = remaining
    r.current = r.dealer
    r.first_turn = 1
    start_turn(r, work, catalogue, catalogue_bits, values, cfg)


@nb.njit(**JIT)
def start_turn(r, work, catalogue, catalogue_bits, values, cfg) -> None:
    """Turn start (R23): caps, the stock rebuild (R17, AR17), the draw (none on the dealer's first
    turn, R5), or a dead round when no draw is possible."""
    p = r.current
    r.taken = -1
    r.taken_laid = 0
    r.pending[:] = 0
    r.freed_jokers = 0
    r.tentative = 0
    r.undos = 0
    r.turn_points = 0
    r.turn_jokers = 0
    r.touched_table = 0
    r.played_turn = 0
    r.start_slots = r.slot_n
    r.slot_pure[:] = 0
    r.slot_mine[:] = 0
    r.slot_tentative[:] = 0
    r.opened_at_start = r.opened[p]
    if r.turns >= cfg[C_MAX_TURNS]:
        end_round_dead(r, END_DEAD_TURN_CAP, values, cfg)
        return
    if r.doomed:
        end_round_dead(r, END_DEAD_RESHUFFLES, values, cfg)
        return
    if r.first_turn:
        r.phase = PHASE_PLAY
        return
    if r.stock_n == 0 and r.pile_n - keep_top(cfg) >= 1:
        if reshuffles_exhausted(r, cfg):
            end_round_dead(r, END_DEAD_RESHUFFLES, values, cfg)
            return
        rebuild(r, cfg)
    r.phase = PHASE_DRAW
    if r.stock_n == 0:
        begin_row_check(work)
    if r.stock_n == 0 and not draw_discard_ok(r, work, catalogue, catalogue_bits, cfg):
        end_round_dead(r, END_DEAD_NO_DRAW, values, cfg)
    if r.stock_n == 0:
        end_row_check(r, work)


@nb.njit(**JIT)
def keep_top(cfg) -> int:
    return 1 if cfg[C_KEEP_TOP] else 0


@nb.njit(**JIT)
def reshuffles_exhausted(r, cfg) -> bool:
    return cfg[C_MAX_RESHUFFLES] >= 0 and r.reshuffles >= cfg[C_MAX_RESHUFFLES]


@nb.njit(**JIT)
def rebuild(r, cfg) -> None:
    """Shuffle the discard pile (all of it, or all but the top with the knob) into a new stock
    (R17, AR17); the caller checks that something can be rebuilt and the cap."""
    keep = keep_top(cfg)
    moved = r.pile_n - keep
    for j in range(moved):
        r.stock[j] = r.pile[j]
    if keep:
        r.pile[0] = r.pile[r.pile_n - 1]
    r.pile_n = keep
    r.stock_n = moved
    shuffle_prefix(r, r.stock, moved)
    r.reshuffles += 1


@nb.njit(**JIT)
def penalty_draws(r, cfg) -> None:
    """A missed "carte" (manual mode): draw the penalty cards, rebuilding as needed (R7, R17)."""
    for _ in range(cfg[C_PENALTY_CARDS]):
        if r.stock_n == 0:
            if r.pile_n - keep_top(cfg) < 1:
                return  # nothing to rebuild: no further penalty card
            if reshuffles_exhausted(r, cfg):
                r.doomed = 1  # the round ends dead at the next turn start
                return
            rebuild(r, cfg)
        draw(r, False)


@nb.njit(**JIT)
def end_turn(r, work, catalogue, catalogue_bits, values, cfg) -> None:
    p = r.current
    if r.played_turn:
        r.has_played[p] = 1
    r.first_turn = 0
    r.turns += 1
    r.current = (p + 1) % cfg[C_PLAYERS]
    start_turn(r, work, catalogue, catalogue_bits, values, cfg)


@nb.njit(**JIT)
def base_penalty(r, seat: int, values, cfg) -> float:
    """R19.1: 100 for a player who has not opened, else his hand (ace 11, joker 20 …)."""
    if not r.opened[seat]:
        return float(cfg[C_NON_OPENER])
    total = 0
    for card in range(JOKER + 1):
        total += r.hand[seat, card] * values[card]
    return float(total)


@nb.njit(**JIT)
def rounded(x: float, cfg) -> float:
    if cfg[C_ROUNDING] == 1:
        return np.ceil(x)
    if cfg[C_ROUNDING] == 2:
        return np.floor(x)
    return x


@nb.njit(**JIT)
def end_round_out(r, joker_discarded: bool, values, cfg, fcfg) -> None:
    """The player to act went out (R18, R19): penalties for the others, multiplied for an
    all-at-once out (×2, ×4 with a joker as final discard; flat 100; Lebanese joker scaling)."""
    p = r.current
    all_at_once = not r.opened_at_start
    r.all_at_once = all_at_once
    r.joker_finish = all_at_once and joker_discarded
    r.hand_scores[:] = 0
    for q in range(cfg[C_PLAYERS]):
        if q == p:
            continue
        score = base_penalty(r, q, values, cfg)
        if all_at_once:
            if cfg[C_SCALING]:
                score = rounded(score * fcfg[F_SCALE + min(r.turn_jokers, 4)], cfg)
            elif cfg[C_FLAT100]:
                score = 100.0
            elif joker_discarded:
                score = score * fcfg[F_JOKER_FINISH]
            else:
                score = score * fcfg[F_AAO_MULT]
        r.hand_scores[q] = score
        r.totals[q] += score
    r.opened[p] = 1
    r.winner = p
    r.end_reason = END_OUT
    finish_round(r, cfg)


@nb.njit(**JIT)
def end_round_dead(r, reason: int, values, cfg) -> None:
    """A dead round (R17): nobody scores, or ("hand_penalties") everyone his base penalty."""
    r.hand_scores[:] = 0
    r.winner = -1
    r.all_at_once = 0
    r.joker_finish = 0
    r.end_reason = reason
    if cfg[C_DEAD_SCORING] == 1:
        for q in range(cfg[C_PLAYERS]):
            score = base_penalty(r, q, values, cfg)
            r.hand_scores[q] = score
            r.totals[q] += score
    finish_round(r, cfg)


@nb.njit(**JIT)
def finish_round(r, cfg) -> None:
    """Count the round and decide whether the game is over (R22, AR18): a total reaching the
    threshold, the number of rounds, or the ``max_rounds`` cap; lowest totals win."""
    r.hands_played += 1
    r.phase = PHASE_HAND_OVER
    over = r.hands_played >= cfg[C_MAX_HANDS]
    if cfg[C_END_MODE] == 0:
        for q in range(cfg[C_PLAYERS]):
            if r.totals[q] >= cfg[C_TARGET]:
                over = True
    elif r.hands_played >= cfg[C_NUM_HANDS]:
        over = True
    if over:
        best = r.totals[0]
        for q in range(cfg[C_PLAYERS]):
            best = min(best, r.totals[q])
        for q in range(cfg[C_PLAYERS]):
            r.game_winners[q] = 1 if r.totals[q] == best else 0
        r.phase = PHASE_GAME_OVER


@nb.njit(**JIT)
def new_game_row(r, seed: np.uint64, deck, use_deck: bool, dealer: int, work, catalogue, catalogue_bits, values, cfg) -> None:
    r.rng = seeded_state(seed)
    r.search_gave_up = 0
    r.totals[:] = 0
    r.hand_scores[:] = 0
    r.game_winners[:] = 0
    r.hands_played = 0
    r.illegal_by = -1
    r.winner = -1
    r.rummy = 0
    r.all_at_once = 0
    r.joker_finish = 0
    r.end_reason = END_NONE
    if dealer >= 0:
        r.dealer = dealer
    elif cfg[C_FIRST_DEALER] >= 0:
        r.dealer = cfg[C_FIRST_DEALER]
    else:
        r.dealer = random_below(r, cfg[C_PLAYERS])
    deal_row(r, deck, use_deck, work, catalogue, catalogue_bits, values, cfg)
    while cfg[C_EPISODE] == 1 and r.phase == PHASE_HAND_OVER:
        next_round_row(r, work, catalogue, catalogue_bits, values, cfg)


@nb.njit(**JIT)
def new_game_rows(state, rows, seeds, decks, use_decks: bool, dealers, all_work, catalogue, catalogue_bits, values, cfg) -> None:
    work = worker_buffers(all_work, 0)
    for i in range(state.shape[0]):
        if rows[i]:
            new_game_row(state[i], seeds[i], decks[i], use_decks, dealers[i], work, catalogue, catalogue_bits, values, cfg)


@nb.njit(**JIT)
def next_round_row(r, work, catalogue, catalogue_bits, values, cfg) -> None:
    """The next round: the next player clockwise deals (R4.1)."""
    r.dealer = (r.dealer + 1) % cfg[C_PLAYERS]
    deal_row(r, r.stock, False, work, catalogue, catalogue_bits, values, cfg)


@nb.njit(**JIT)
def next_round_rows(state, rows, all_work, catalogue, catalogue_bits, values, cfg) -> None:
    work = worker_buffers(all_work, 0)
    for i in range(state.shape[0]):
        if rows[i] and state[i].phase == PHASE_HAND_OVER:
            next_round_row(state[i], work, catalogue, catalogue_bits, values, cfg)


# ---------------------------------------------------------------------------------------- stepping
@nb.njit(**JIT)
def apply_row(r, action: int, work, catalogue, catalogue_bits, values, cfg, fcfg) -> None:
    """Apply a legal ``action`` of the player to act."""
    p = r.current
    if action == 0 or action == 1:
        draw(r, action == 1)
        return
    discard = cfg[C_DISCARD_OFFSET]
    if action >= discard:
        code = action - discard
        card = code if code <= JOKER else code - JOKER - 1
        leave_hand(r, p, card)
        r.pile[r.pile_n] = card
        r.pile_n += 1
        if r.hand_n[p] == 0:
            end_round_out(r, card == JOKER, values, cfg, fcfg)
            return
        if code > JOKER:
            penalty_draws(r, cfg)
        end_turn(r, work, catalogue, catalogue_bits, values, cfg)
        return
    apply_play(r, action, catalogue, cfg)
    if r.hand_n[p] == 0:
        end_round_out(r, False, values, cfg, fcfg)


@nb.njit(**JIT)
def step_row(r, action: int, legal: bool, work, catalogue, catalogue_bits, values, cfg, fcfg, rewards) -> bool:
    """One step of one game; writes the seats' rewards and returns whether a round ended."""
    rewards[:] = 0.0
    if r.phase == PHASE_HAND_OVER or r.phase == PHASE_GAME_OVER:
        return False
    players = cfg[C_PLAYERS]
    if not legal:
        r.illegal_by = r.current
        r.end_reason = END_ILLEGAL
        r.winner = -1
        r.hand_scores[:] = 0
        r.game_winners[:] = 0
        r.phase = PHASE_GAME_OVER
        for q in range(players):
            rewards[q] = -fcfg[F_PENALTY] / (players - 1)
        rewards[r.current] = fcfg[F_PENALTY]
        return True
    apply_row(r, action, work, catalogue, catalogue_bits, values, cfg, fcfg)
    if r.phase != PHASE_HAND_OVER and r.phase != PHASE_GAME_OVER:
        return False
    add_end_rewards(r, cfg, fcfg, rewards)
    if cfg[C_EPISODE] == 1:
        while r.phase == PHASE_HAND_OVER:
            next_round_row(r, work, catalogue, catalogue_bits, values, cfg)
            if r.phase == PHASE_HAND_OVER or r.phase == PHASE_GAME_OVER:
                add_end_rewards(r, cfg, fcfg, rewards)
    return True


@nb.njit(**JIT)
def step_rows(state, actions, active, legal, all_work, catalogue, catalogue_bits, values, cfg, fcfg, rewards, hand_ended) -> None:
    work = worker_buffers(all_work, 0)
    for i in range(state.shape[0]):
        if active[i]:
            hand_ended[i] = step_row(state[i], actions[i], legal[i] != 0, work, catalogue, catalogue_bits, values, cfg,
                                     fcfg, rewards[i])
        else:
            rewards[i, :] = 0.0
            hand_ended[i] = False


@nb.njit(**JIT)
def worker_buffers(work, worker: int):
    """The search buffers of one worker: the row kernels split the batch into one contiguous chunk
    per worker (a thread-id lookup would break numba's on-disk cache)."""
    scratch, candidates, visited, owners = work
    return (scratch[worker * SCRATCH_ROWS:(worker + 1) * SCRATCH_ROWS],
            candidates[worker * CANDIDATE_ROWS:(worker + 1) * CANDIDATE_ROWS], visited[worker], owners[worker])


@nb.njit(**JIT, parallel=True)
def step_rows_parallel(state, actions, active, legal, work, catalogue, catalogue_bits, values, cfg, fcfg, rewards, hand_ended) -> None:
    workers = work[2].shape[0]
    rows = state.shape[0]
    for worker in nb.prange(workers):
        own_work = worker_buffers(work, worker)
        for i in range(worker * rows // workers, (worker + 1) * rows // workers):
            if active[i]:
                hand_ended[i] = step_row(state[i], actions[i], legal[i] != 0, own_work, catalogue, catalogue_bits,
                                         values, cfg, fcfg, rewards[i])
            else:
                rewards[i, :] = 0.0
                hand_ended[i] = False


@nb.njit(**JIT)
def mask_rows(state, out, all_work, catalogue, catalogue_bits, cfg) -> None:
    work = worker_buffers(all_work, 0)
    for i in range(state.shape[0]):
        mask_row(state[i], out[i], work, catalogue, catalogue_bits, cfg)
        end_row_check(state[i], work)


@nb.njit(**JIT, parallel=True)
def mask_rows_parallel(state, out, work, catalogue, catalogue_bits, cfg) -> None:
    workers = work[2].shape[0]
    rows = state.shape[0]
    for worker in nb.prange(workers):
        own_work = worker_buffers(work, worker)
        for i in range(worker * rows // workers, (worker + 1) * rows // workers):
            mask_row(state[i], out[i], own_work, catalogue, catalogue_bits, cfg)
            end_row_check(state[i], own_work)


@nb.njit(**JIT)
def check_actions(state, actions, active, all_work, catalogue, catalogue_bits, cfg, legal) -> int:
    first = -1
    work = worker_buffers(all_work, 0)
    for i in range(state.shape[0]):
        legal[i] = action_legal(state[i], actions[i], work, catalogue, catalogue_bits, cfg)
        end_row_check(state[i], work)
        if first < 0 and active[i] and legal[i] == 0 and state[i].phase != PHASE_HAND_OVER \
                and state[i].phase != PHASE_GAME_OVER:
            first = i
    return first


@nb.njit(**JIT)
def check_actions_by_mask(state, actions, active, mask, legal) -> int:
    """``check_actions`` read off a mask computed for this very state (no search repeated)."""
    first = -1
    for i in range(state.shape[0]):
        action = actions[i]
        legal[i] = mask[i, action] if 0 <= action < mask.shape[1] else 0
        if first < 0 and active[i] and legal[i] == 0 and state[i].phase != PHASE_HAND_OVER \
                and state[i].phase != PHASE_GAME_OVER:
            first = i
    return first

"""The opening count and its tests (R10, R11, R16, R21.3, AR8, AR11, AR12, AR15): the R10 value of a laid card,
the own cards laid this turn where they sit (``slot_mine``), the threshold, the pure run, COMMIT and the
all-at-once out."""

from __future__ import annotations

import numba as nb

from rummy_env.cards import JOKER
from rummy_env.engine import reasons as why
from rummy_env.engine.config import EVERY_PICKUP, JOKER_FIXED, JOKER_ZERO
from rummy_env.engine.jit import JIT
from rummy_env.engine.state import PURE, PURE_BUT_JOKER
from rummy_env.engine.table import card_at, holds_joker_at, rank_of, suit_of
from rummy_env.engine.rami51.turn import owes_cards
from rummy_env.melds import KIND_SET

JOKER_CELL = 15  # the slot_mine bit of a meld's joker (one joker per meld, R9)


@nb.njit(**JIT)
def natural_points(card: int, position: int, cfg) -> int:
    """R10 value of a natural laid at run ``position`` (0 = in a set): ace 1 low, 11 after a king or in a
    set (AR11), always ``ace_fixed_value`` under the Lebanese rule (R21.1)."""
    if rank_of(card) == 1:
        if cfg.ace_fixed_value > 0:
            return cfg.ace_fixed_value
        return 1 if position == 1 else 11
    return min(rank_of(card), 10)


@nb.njit(**JIT)
def joker_points(represented: int, position: int, cfg) -> int:
    """R10 value of a laid joker: the represented card's (AR12), 0, or a fixed value (AR15)."""
    if cfg.joker_opening_mode == JOKER_ZERO:
        return 0
    if cfg.joker_opening_mode == JOKER_FIXED:
        return cfg.joker_opening_points
    return natural_points(represented, position, cfg)


@nb.njit(**JIT)
def max_points(card: int, cfg) -> int:
    """The largest R10 value ``card`` can bring to an opening (an upper bound, for pruning)."""
    if card == JOKER:
        if cfg.joker_opening_mode == JOKER_ZERO:
            return 0
        if cfg.joker_opening_mode == JOKER_FIXED:
            return cfg.joker_opening_points
        return cfg.ace_fixed_value if cfg.ace_fixed_value > 10 else 11
    return natural_points(card, 14, cfg)


@nb.njit(**JIT)
def mine_cell(kind: int, card: int, position: int, cfg) -> int:
    """The ``slot_mine`` bit of a card in a meld: a set's natural by its suit, a run's natural by its
    position (by its rank in a circular run, whose positions are renumbered), a joker by ``JOKER_CELL``."""
    if card == JOKER:
        return JOKER_CELL
    if kind == KIND_SET:
        return suit_of(card)
    return rank_of(card) if cfg.circular_runs else position


@nb.njit(**JIT)
def slot_points(r, slot: int, cfg) -> int:
    """R10 points of the own cards the player to act laid on ``slot`` this turn, valued where they sit now
    (R11.1): a circular run's ace is worth 11 once a king precedes it."""
    mine = r.slot_mine[slot]
    if mine == 0:
        return 0
    key = r.slot_key[slot]
    total = 0
    if r.slot_kind[slot] == KIND_SET:
        for suit in range(4):
            if mine >> suit & 1:
                total += natural_points(card_at(suit, key), 0, cfg)
        if mine >> JOKER_CELL & 1:
            total += joker_points(key - 1, 0, cfg)
        return total
    for position in range(r.slot_lo[slot], r.slot_hi[slot] + 1):
        card = card_at(key, position)
        if holds_joker_at(r, slot, position):
            if mine >> JOKER_CELL & 1:
                total += joker_points(card, position, cfg)
        elif mine >> mine_cell(r.slot_kind[slot], card, position, cfg) & 1:
            total += natural_points(card, position, cfg)
    return total


@nb.njit(**JIT)
def recount(r, slot: int, before: int, cfg) -> None:
    """The turn's points after a play changed ``slot``, whose own cards counted ``before``."""
    r.turn_points += slot_points(r, slot, cfg) - before


@nb.njit(**JIT)
def threshold(r, cfg) -> int:
    """Points the opening needs: ``opening_threshold``, or ``discard_pickup_min_lay`` after a discard
    pickup under the Lebanese rule (R21.3, AL3)."""
    if r.taken >= 0 and cfg.discard_pickup_min_lay >= 0:
        return cfg.discard_pickup_min_lay
    return cfg.opening_threshold


@nb.njit(**JIT)
def has_turn_run(r, purity: int) -> bool:
    """A meld laid this turn whose purity mark is ``purity`` (R11.2, AR8)."""
    for slot in range(r.start_slots, r.slot_n):
        if r.slot_pure[slot] == purity:
            return True
    return False


@nb.njit(**JIT)
def has_pure_run(r) -> bool:
    """A run laid this turn with no joker and only own cards (R11.2, AR8)."""
    return has_turn_run(r, PURE)


@nb.njit(**JIT)
def pure_run_laid(r, cfg) -> bool:
    """A pure run is on the table this turn, or will be once a joker laid off on it is taken back (with
    ``can_take_joker_from_meld``, a TAKE of the joker makes it pure again; R11.2, AR8)."""
    return has_pure_run(r) or (cfg.can_take_joker_from_meld and has_turn_run(r, PURE_BUT_JOKER))


@nb.njit(**JIT)
def short_of_pickup_lay(r, cfg) -> bool:
    """``every_pickup`` scope (AL3): a turn that took the discard top lays at least ``discard_pickup_min_lay``."""
    return r.taken >= 0 and cfg.discard_pickup_min_lay_scope == EVERY_PICKUP and r.turn_points < cfg.discard_pickup_min_lay


@nb.njit(**JIT)
def out_check(r, cfg) -> int:
    """Going out now (empty hand) is legal: nothing owed, and a turn that began not opened is an
    all-at-once out that passes R16 (R11.5 (ii)); 0 or why not."""
    if owes_cards(r):
        return why.OBLIGATIONS_LEFT
    if short_of_pickup_lay(r, cfg):
        return why.PICKUP_MIN_LAY
    if r.opened_at_start:
        return why.LEGAL
    if r.touched_table and not cfg.all_at_once_may_use_table:
        return why.ALL_AT_ONCE_USED_TABLE
    if r.opened[r.current]:  # committed earlier this turn
        return why.LEGAL
    if cfg.all_at_once_requires_opening_criteria and r.turn_points < threshold(r, cfg):
        return why.BELOW_THRESHOLD
    if cfg.opening_requires_pure_run and cfg.all_at_once_requires_pure_run and not has_pure_run(r):
        return why.NO_PURE_RUN
    return why.LEGAL


@nb.njit(**JIT)
def commit_check(r, cfg) -> int:
    """COMMIT (R11.5 (i)): tentative plays holding the taken card, the threshold, a pure run."""
    if r.opened[r.current]:
        return why.ALREADY_OPENED
    if r.tentative == 0:
        return why.NOTHING_TO_COMMIT
    if r.taken >= 0 and not r.taken_laid:
        return why.COMMIT_WITHOUT_TAKEN
    if r.turn_points < threshold(r, cfg):
        return why.BELOW_THRESHOLD
    if cfg.opening_requires_pure_run and not has_pure_run(r):
        return why.NO_PURE_RUN
    return why.LEGAL


@nb.njit(**JIT)
def apply_commit(r) -> None:
    r.opened[r.current] = 1
    r.tentative = 0
    r.slot_tentative[:] = 0



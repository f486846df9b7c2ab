"""Rami51 meld shapes (R2, R8, R9, R13, R20, R21.2, AR5, AR10, AR11): run ends, where a card or a joker
goes, the card a joker stands for, the card a TAKE removes, and the Lebanese "burnt" card.

Melds are stored as shapes (``rummy_env.engine.table``). A run's positions are 1..14 (the ace is 1 or 14,
R2); a circular run (``circular_runs``, R20) keeps its low end in 1..13 and may go up to 25.
"""

from __future__ import annotations

import numba as nb

from rummy_env.actions import TAKE_HIGH_END, TAKE_LOW_END, TAKE_SET_JOKER
from rummy_env.cards import JOKER
from rummy_env.engine.jit import JIT
from rummy_env.engine.table import card_at, holds_joker_at, suit_of, table_count
from rummy_env.melds import KIND_RUN, KIND_SET

WRAP_BELOW_ACE = -13  # run_end_position of a king laid below a circular run's ace at 1 (position 0)


@nb.njit(**JIT)
def run_end_position(r, slot: int, high: bool, cfg) -> int:
    """Position a card added at the low/high end of run ``slot`` would take, or 0 if that end is closed
    (no wrap by default, R2; 14 cards at most with both aces, AR10; 13 when circular, R20)."""
    lo, hi = r.slot_lo[slot], r.slot_hi[slot]
    if cfg.circular_runs:
        if hi - lo + 1 >= 13:
            return 0
        if not high and lo == 1:
            return WRAP_BELOW_ACE
        return hi + 1 if high else lo - 1
    if high:
        if hi + 1 > 14 or (hi + 1 == 14 and lo == 1 and not cfg.allow_ace_both_ends):
            return 0
        return hi + 1
    if lo - 1 < 1 or (lo - 1 == 1 and hi == 14 and not cfg.allow_ace_both_ends):
        return 0
    return lo - 1


@nb.njit(**JIT)
def natural_run_end(r, slot: int, card: int, cfg) -> int:
    """Position ``card`` takes when laid off on run ``slot`` (0: it does not fit). A card that fits both
    ends goes to the high end (a 12-card circular run, or an ace on 2..K: the high end is worth 11 and
    leaves the same later plays)."""
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
def extend_run(r, slot: int, position: int) -> None:
    """Grow run ``slot`` to ``position``; a circular run wrapped below its ace renumbers one lap up."""
    if position > r.slot_hi[slot]:
        r.slot_hi[slot] = position
        return
    if position == WRAP_BELOW_ACE:
        position = 0
        if r.slot_joker[slot] == WRAP_BELOW_ACE:
            r.slot_joker[slot] = 0
    r.slot_lo[slot] = position
    if position < 1:
        r.slot_lo[slot] += 13
        r.slot_hi[slot] += 13
        if r.slot_joker[slot] >= 0:
            r.slot_joker[slot] += 13


@nb.njit(**JIT)
def shorten_run(r, slot: int, from_low: bool) -> None:
    """Remove run ``slot``'s low or high end card; a circular run whose low end passes 13 renumbers down."""
    if from_low:
        r.slot_lo[slot] += 1
    else:
        r.slot_hi[slot] -= 1
    if r.slot_lo[slot] > 13:
        r.slot_lo[slot] -= 13
        r.slot_hi[slot] -= 13
        if r.slot_joker[slot] >= 0:
            r.slot_joker[slot] -= 13


@nb.njit(**JIT)
def set_missing_suit(r, slot: int) -> int:
    """The one suit of a 4-card joker set that no natural holds (R9), or -1."""
    for suit in range(4):
        if not r.slot_suits[slot] >> suit & 1:
            return suit
    return -1


@nb.njit(**JIT)
def represented(r, slot: int) -> int:
    """The natural card the joker of ``slot`` stands for, or -1 (no joker, or a 3-card joker set, whose
    suit is undetermined, R9)."""
    if r.slot_jokers[slot] == 0 or r.slot_joker[slot] < 0:
        return -1
    if r.slot_kind[slot] == KIND_RUN:
        return card_at(r.slot_key[slot], r.slot_joker[slot])
    return card_at(r.slot_joker[slot], r.slot_key[slot])


@nb.njit(**JIT)
def take_card(r, slot: int, choice: int) -> int:
    """The card TAKE ``choice`` removes from ``slot`` (R13: a run's ``TAKE_LOW_END`` or ``TAKE_HIGH_END``; a set's
    natural of suit ``choice`` or, ``TAKE_SET_JOKER``, its joker), or -1 when there is none."""
    if r.slot_kind[slot] == KIND_RUN:
        if choice > TAKE_HIGH_END:
            return -1
        position = r.slot_lo[slot] if choice == TAKE_LOW_END else r.slot_hi[slot]
        if holds_joker_at(r, slot, position):
            return JOKER
        return card_at(r.slot_key[slot], position)
    if choice == TAKE_SET_JOKER:
        return JOKER if r.slot_jokers[slot] > 0 else -1
    return card_at(choice, r.slot_key[slot]) if r.slot_suits[slot] >> choice & 1 else -1


@nb.njit(**JIT)
def burnt(r, card: int, cfg) -> bool:
    """Both copies of ``card`` are in table melds (+ the discard pile with the knob): a joker may then stand
    for it in a run (Lebanese R21.2, AL2)."""
    if not cfg.joker_run_requires_burnt:
        return True
    n = table_count(r, card)
    if cfg.burnt_includes_discard_pile:
        for k in range(r.pile_n):
            if r.pile[k] == card:
                n += 1
    return n >= 2


@nb.njit(**JIT)
def is_set(r, slot: int) -> bool:
    return r.slot_kind[slot] == KIND_SET

"""Table melds as shapes (B8, R8, R9): the cards of a slot read off its kind, key, ends, suits and joker.

A set is its rank (``slot_key``), the suits of its naturals (``slot_suits``, one bit each) and its
joker; a run is its suit (``slot_key``), its end positions (``slot_lo``..``slot_hi``; position ``p``
holds rank ``(p - 1) % 13 + 1``, so an ace is 1 or 14, and a round-the-corner run goes past 14) and its
joker's position (``slot_joker``). Every ruleset stores its melds this way; the rules that decide what
may join a meld live with each ruleset.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.cards import JOKER
from rummy_env.engine.jit import JIT
from rummy_env.melds import KIND_EMPTY, KIND_RUN, KIND_SET


@nb.njit(**JIT)
def rank_of(card: int) -> int:
    return card % 13 + 1


@nb.njit(**JIT)
def suit_of(card: int) -> int:
    return card // 13


@nb.njit(**JIT)
def card_at(suit: int, position: int) -> int:
    """The natural card of ``suit`` at run ``position`` (positions past 14 wrap, B15, R20)."""
    return suit * 13 + (position - 1) % 13


@nb.njit(**JIT)
def card_bit(card: int) -> np.uint64:
    return np.uint64(1) << np.uint64(card)


@nb.njit(**JIT)
def slot_size(r, slot: int) -> int:
    """Cards in the meld of ``slot``."""
    if r.slot_kind[slot] == KIND_RUN:
        return r.slot_hi[slot] - r.slot_lo[slot] + 1
    suits = r.slot_suits[slot]
    return (suits & 1) + (suits >> 1 & 1) + (suits >> 2 & 1) + (suits >> 3 & 1) + r.slot_jokers[slot]


@nb.njit(**JIT)
def holds_joker_at(r, slot: int, position: int) -> bool:
    return r.slot_jokers[slot] > 0 and r.slot_joker[slot] == position


@nb.njit(**JIT)
def slot_count(r, slot: int, card: int) -> int:
    """Copies of ``card`` in the meld of ``slot`` (two aces only in a 14-card run, AR10)."""
    if card == JOKER:
        return r.slot_jokers[slot]
    key = r.slot_key[slot]
    if r.slot_kind[slot] == KIND_SET:
        return 1 if rank_of(card) == key and r.slot_suits[slot] >> suit_of(card) & 1 else 0
    if r.slot_kind[slot] != KIND_RUN or suit_of(card) != key:
        return 0
    count = 0
    for position in range(r.slot_lo[slot], r.slot_hi[slot] + 1):
        if card_at(key, position) == card and not holds_joker_at(r, slot, position):
            count += 1
    return count


@nb.njit(**JIT)
def table_count(r, card: int) -> int:
    """Copies of ``card`` in all table melds."""
    count = 0
    for slot in range(r.slot_n):
        count += slot_count(r, slot, card)
    return count


@nb.njit(**JIT, inline="always")
def slot_cards(r, slot: int, out, offset: int = 0) -> None:
    """Add the card counts of the meld in ``slot`` to ``out[offset:]`` (indexed by card type). Inlined, and an
    offset rather than a slice: a call, or a view, costs the observation an atomic reference count per slot."""
    key = r.slot_key[slot]
    if r.slot_kind[slot] == KIND_SET:
        for suit in range(4):
            if r.slot_suits[slot] >> suit & 1:
                out[offset + suit * 13 + key - 1] += 1
    elif r.slot_kind[slot] == KIND_RUN:
        joker = r.slot_joker[slot] if r.slot_jokers[slot] > 0 else -100
        for position in range(r.slot_lo[slot], r.slot_hi[slot] + 1):
            if position != joker:
                out[offset + card_at(key, position)] += 1
    if r.slot_jokers[slot] > 0:
        out[offset + JOKER] += r.slot_jokers[slot]


@nb.njit(**JIT)
def open_slot(r, kind: int, key: int, lo: int, hi: int, owner: int) -> int:
    """Start an empty meld of that shape in the next free slot; returns the slot."""
    slot = r.slot_n
    r.slot_n += 1
    r.slot_kind[slot] = kind
    r.slot_key[slot] = key
    r.slot_lo[slot] = lo
    r.slot_hi[slot] = hi
    r.slot_owner[slot] = owner
    r.slot_suits[slot] = 0
    r.slot_jokers[slot] = 0
    r.slot_joker[slot] = -1
    r.slot_tentative[slot] = 0
    r.slot_pure[slot] = 0
    r.slot_mine[slot] = 0
    r.slot_low_layoffs[slot] = 0
    r.slot_high_layoffs[slot] = 0
    return slot


@nb.njit(**JIT)
def clear_table(r) -> None:
    r.slot_n = 0
    r.slot_kind[:] = KIND_EMPTY
    r.slot_owner[:] = -1
    r.slot_key[:] = 0
    r.slot_lo[:] = 0
    r.slot_hi[:] = 0
    r.slot_suits[:] = 0
    r.slot_jokers[:] = 0
    r.slot_joker[:] = -1
    r.slot_tentative[:] = 0
    r.slot_pure[:] = 0
    r.slot_mine[:] = 0
    r.slot_low_layoffs[:] = 0
    r.slot_high_layoffs[:] = 0


@nb.njit(**JIT)
def table_counts_rows(state, out) -> None:
    """``out[i, t]``: copies of card type ``t`` on the table of game ``i`` (zeroed here)."""
    out[:, :] = 0
    for i in range(state.shape[0]):
        for slot in range(state[i].slot_n):
            slot_cards(state[i], slot, out[i])

"""Gin melds on the table (G6, G7, G8, G13, G14, EG3, EG7, EG11): laying a whole meld as a slot, the
defender's lay-offs onto the knocker's melds, and laying a player's best arrangement (``auto_melds``).

A lay-off names only its card (``rummy_env.actions``): it goes onto a knocker's run it extends, else onto his
3-card set of its rank. That choice is never worse than another: a set takes no card after its fourth, while
a run keeps taking. A card between two of his runs of one suit joins the first; the run it then touches ends
where the other begins, so both accept exactly what the merged run would. With ``max_layoffs_per_run_end``
each end of a run the knocker laid takes at most that many cards (OpenSpiel's 2, G13).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.engine.common import leave_hand
from rummy_env.engine.config import CAT_HI, CAT_KEY, CAT_KIND, CAT_LO
from rummy_env.engine.gin.deadwood import MAX_DEPTH, best_arrangement, hand_mask
from rummy_env.engine.jit import JIT
from rummy_env.engine.table import open_slot, rank_of, slot_size, suit_of
from rummy_env.melds import KIND_RUN, KIND_SET


@nb.njit(**JIT)
def lay_meld_bits(r, seat: int, cards: np.uint64, kind: int, key: int, lo: int, hi: int) -> None:
    """Seat ``seat`` lays the meld of ``cards`` (its shape ``kind, key, lo, hi``) into the next slot."""
    slot = open_slot(r, kind, key, lo, hi, seat)
    for card in range(52):
        if cards >> np.uint64(card) & np.uint64(1):
            leave_hand(r, seat, card)
            r.table_by_seat[seat, card] += 1
            if kind == KIND_SET:
                r.slot_suits[slot] |= 1 << suit_of(card)
    r.has_melded[seat] = 1
    r.played_turn = 1


@nb.njit(**JIT)
def lay_entry(r, seat: int, entry: int, catalogue, catalogue_bits) -> None:
    """Lay catalogue meld ``entry`` (whole, G6, G8)."""
    lay_meld_bits(r, seat, catalogue_bits[entry], catalogue[entry, CAT_KIND], catalogue[entry, CAT_KEY],
                  catalogue[entry, CAT_LO], catalogue[entry, CAT_HI])


@nb.njit(**JIT)
def layoff_slot(r, card: int, cfg) -> int:
    """The knocker's slot that ``card`` is laid off onto (see the module docstring), or -1 if it fits none."""
    cap = cfg.max_layoffs_per_run_end
    rank = rank_of(card)
    for slot in range(r.slot_n):
        if r.slot_owner[slot] != r.knocker or r.slot_kind[slot] != KIND_RUN or r.slot_key[slot] != suit_of(card):
            continue
        if rank == r.slot_hi[slot] + 1 and (cap < 0 or r.slot_high_layoffs[slot] < cap):
            return slot
        if rank == r.slot_lo[slot] - 1 and (cap < 0 or r.slot_low_layoffs[slot] < cap):
            return slot
    for slot in range(r.slot_n):
        if r.slot_owner[slot] == r.knocker and r.slot_kind[slot] == KIND_SET and r.slot_key[slot] == rank \
                and slot_size(r, slot) == 3:
            return slot
    return -1


@nb.njit(**JIT)
def lay_off(r, seat: int, card: int, cfg) -> None:
    """The defender lays ``card`` off (G8); the caller has checked that it fits."""
    slot = layoff_slot(r, card, cfg)
    if r.slot_kind[slot] == KIND_SET:
        r.slot_suits[slot] |= 1 << suit_of(card)
    elif rank_of(card) > r.slot_hi[slot]:
        r.slot_hi[slot] += 1
        r.slot_high_layoffs[slot] += 1
    else:
        r.slot_lo[slot] -= 1
        r.slot_low_layoffs[slot] += 1
    leave_hand(r, seat, card)
    r.table_by_seat[seat, card] += 1


@nb.njit(**JIT)
def lay_best(r, seat: int, catalogue, catalogue_bits, ubuf, ibuf) -> None:
    """Lay ``seat``'s best arrangement (``auto_melds``, G14): the first group melding the most points."""
    groups = np.zeros(MAX_DEPTH, dtype=np.uint64)
    for k in range(best_arrangement(hand_mask(r.hand[seat]), ubuf, ibuf, groups)):
        for entry in range(catalogue_bits.shape[0]):
            if catalogue_bits[entry] == groups[k]:
                lay_entry(r, seat, entry, catalogue, catalogue_bits)
                break


@nb.njit(**JIT)
def reveal(r, seat: int) -> None:
    """``seat`` shows the cards left in his hand: from now on the public knows them (G6, G9)."""
    for card in range(52):
        r.known[seat, card] = r.hand[seat, card]


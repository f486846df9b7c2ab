"""The memo of ``opening_dp`` (R10, R11): the outcomes a DP state can reach, kept per state with the choice
behind each value, and the state's words of pending cards held (a 4-bit count per card type).

A state is a mask of the items still to decide (own cards and table melds, bits 0..61), a flag for a pending card
left over (bit 62) and a marker (bit 63), plus two words of pending counts. An outcome folds the own cards left
(0, 1, 2+), a pure run laid, the taken card laid and an out barred into one index.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.engine.jit import JIT

MEMO_BITS = 16
MEMO = 1 << MEMO_BITS     # DP states remembered per call
OUTCOMES = 24             # ((left * 2 + pure) * 2 + taken) * 2 + no_out
NONE = -30000
UNKNOWN, NO_OPENING = -1, -2
DONE, KEEP = -1, -2       # choices besides a row of the table: the end; an own card kept, or a meld left alone
MAX_TYPES = 32            # card types that may be pending: a 4-bit count each, in two words
MAX_BITS = 62             # items: bits 0..61 of a state; bit 62: a pending card was left over; bit 63: a marker
LEFT_OVER = np.uint64(1) << np.uint64(62)
MARKER = np.uint64(1) << np.uint64(63)
ITEMS = LEFT_OVER - np.uint64(1)


@nb.njit(**JIT)
def outcome(left: int, pure: int, taken: int, no_out: int) -> int:
    return ((min(left, 2) * 2 + pure) * 2 + taken) * 2 + no_out


@nb.njit(**JIT)
def outcome_fields(o: int) -> tuple:
    """``(left, pure, taken, no_out)`` of outcome ``o`` (the inverse of ``outcome``)."""
    return o // 8, (o // 4) % 2, (o // 2) % 2, o % 2


@nb.njit(**JIT)
def merge(values, choices, nexts, index: int, sub: int, points: int, left: int, pure: int, taken: int, no_out: int,
          choice: int) -> None:
    """Fold the outcomes of state ``sub`` into state ``index`` through a choice that adds these points/flags."""
    for o in range(OUTCOMES):
        v = values[sub, o]
        if v == NONE:
            continue
        had_left, had_pure, had_taken, had_no_out = outcome_fields(o)
        moved = outcome(had_left + left, had_pure | pure, had_taken | taken, had_no_out | no_out)
        if v + points > values[index, moved]:
            values[index, moved] = v + points
            choices[index, moved] = choice
            nexts[index, moved] = sub * 32 + o


@nb.njit(**JIT)
def held(words, t: int) -> int:
    """Pending cards of type ``t`` taken and not yet placed."""
    return int((words[t // 16] >> np.uint64((t % 16) * 4)) & np.uint64(15))


@nb.njit(**JIT)
def add_held(words, t: int, delta: int) -> bool:
    """Add ``delta`` to ``held(t)``; False when that leaves 0..15."""
    value = held(words, t) + delta
    if value < 0 or value > 15:
        return False
    shift = np.uint64((t % 16) * 4)
    words[t // 16] = (words[t // 16] & ~(np.uint64(15) << shift)) | (np.uint64(value) << shift)
    return True


@nb.njit(**JIT)
def lookup(keys, stamps, counters, mask: np.uint64, w0: np.uint64, w1: np.uint64) -> tuple:
    """The memo index of a state and whether it was just created; index -1 when the memo is three quarters
    full (``counters[3]`` counts the states of this call)."""
    stamp = counters[0]
    wrap = np.int64(MEMO - 1)
    h = (mask * np.uint64(0x9E3779B97F4A7C15)) ^ (w0 * np.uint64(0xC2B2AE3D27D4EB4F)) \
        ^ (w1 * np.uint64(0x165667B19E3779F9))
    index = np.int64(h >> np.uint64(64 - MEMO_BITS))  # the hash's top bits
    while True:
        if stamps[index] != stamp:
            if counters[3] >= MEMO * 3 // 4:
                return -1, False
            counters[3] += 1
            stamps[index] = stamp
            keys[index, 0], keys[index, 1], keys[index, 2] = mask, w0, w1
            return index, True
        if keys[index, 0] == mask and keys[index, 1] == w0 and keys[index, 2] == w1:
            return index, False
        index = (index + 1) & wrap


@nb.njit(**JIT)
def lowest_item(mask: np.uint64) -> int:
    items = mask & ITEMS
    if items == 0:
        return MAX_BITS
    lowest = 0
    while not items >> np.uint64(lowest) & np.uint64(1):
        lowest += 1
    return lowest

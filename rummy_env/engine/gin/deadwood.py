"""Gin melds and deadwood (G5, G6, G7, G13, EG1, EG9): the melds inside a hand, the best arrangement, the
deadwood left after the best discard, and OpenSpiel's 11-card shortcut.

A hand is a 52-bit mask (bit ``t`` = card type ``t``). ``hand_melds`` lists every meld inside it, 3- and
4-card sets and runs of 3 to 5 (a longer run is two of them), in OpenSpiel's order: 4-card sets by rank
(each followed by two of its 3-card subsets), the other 3-card sets by rank, then runs of 5, 4 and 3, each by
suit (OpenSpiel's spades, clubs, diamonds, hearts) and rank. ``scan_groups`` walks every group of disjoint
melds in lexicographic order of that list and returns at once:

* the most points a group can meld (the deadwood of a hand is its total minus that, G5);
* the cards left by the *first* best group in that order, the group OpenSpiel's ``BestMeldGroup`` finds,
  so that ``knock_deadwood="openspiel_shortcut"`` can drop the highest of them (G13, EG9);
* the least deadwood after discarding one card that is not ``avoid`` (the 11-card knock test, G6): every
  group leaves cards, and the best discard among them is the highest (discarding a card of a meld is
  covered by the group without that meld, or with its shorter sub-meld).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.engine.jit import JIT

RANKS = 13
MAX_MELDS = 64                   # melds inside an 11-card hand (a run A..J holds 24)
MAX_DEPTH = 6                    # disjoint melds in a hand (11 cards: 3), plus the empty group
OPENSPIEL_SUITS = (3, 0, 1, 2)   # our suit of OpenSpiel's s, c, d, h
RANK_ROW = np.uint64(0x1FFF)
NO_DISCARD = 1 << 20             # deadwood when no card may be discarded


@nb.njit(**JIT)
def bit(card: int) -> np.uint64:
    return np.uint64(1) << np.uint64(card)


@nb.njit(**JIT)
def hand_mask(counts) -> np.uint64:
    """A seat's hand (counts per card type) as bits."""
    bits = np.uint64(0)
    for card in range(52):
        if counts[card] > 0:
            bits |= bit(card)
    return bits


@nb.njit(**JIT)
def card_value(card: int) -> int:
    """Deadwood value (G1): ace 1, 2-10 face value, J Q K 10."""
    return min(card % RANKS + 1, 10)


# per 13-bit suit row (bit r = rank r + 1): the value of its cards, and the value of its highest card
ROW_VALUE = np.array([sum(min(r + 1, 10) for r in range(RANKS) if row >> r & 1) for row in range(1 << RANKS)],
                     dtype=np.int64)
ROW_TOP = np.array([min(row.bit_length(), 10) for row in range(1 << RANKS)], dtype=np.int64)


@nb.njit(**JIT)
def cards_value(bits: np.uint64) -> int:
    """Deadwood value of the cards ``bits``."""
    return (ROW_VALUE[bits & RANK_ROW] + ROW_VALUE[bits >> np.uint64(13) & RANK_ROW]
            + ROW_VALUE[bits >> np.uint64(26) & RANK_ROW] + ROW_VALUE[bits >> np.uint64(39) & RANK_ROW])


@nb.njit(**JIT)
def top_value(bits: np.uint64) -> int:
    """Value of the highest-ranked card among ``bits`` (0 for none): the card a player sheds first."""
    return ROW_TOP[(bits | bits >> np.uint64(13) | bits >> np.uint64(26) | bits >> np.uint64(39)) & RANK_ROW]


@nb.njit(**JIT)
def _add(melds, values, n: int, bits: np.uint64) -> int:
    if n < MAX_MELDS:
        melds[n] = bits
        values[n] = cards_value(bits)
        n += 1
    return n


@nb.njit(**JIT)
def _set_of(rank0: int, suit_a: int, suit_b: int, suit_c: int) -> np.uint64:
    return bit(suit_a * RANKS + rank0) | bit(suit_b * RANKS + rank0) | bit(suit_c * RANKS + rank0)


@nb.njit(**JIT)
def hand_melds(h: np.uint64, melds, values) -> int:
    """Every meld inside hand ``h`` into ``melds`` (bits) and ``values`` (points), in OpenSpiel's order
    (see the module docstring); returns how many."""
    n = 0
    s, c, d, hh = OPENSPIEL_SUITS
    for rank0 in range(RANKS):  # 4-card sets, each with its subsets missing OpenSpiel's clubs, diamonds
        four = _set_of(rank0, s, c, d) | bit(hh * RANKS + rank0)
        if h & four == four:
            n = _add(melds, values, n, four)
            n = _add(melds, values, n, _set_of(rank0, s, c, hh))
            n = _add(melds, values, n, _set_of(rank0, s, d, hh))
    for rank0 in range(RANKS):  # 3-card sets of a rank held three times; of a rank held four times, two more
        held = 0
        for suit in range(4):
            held += int(h >> np.uint64(suit * RANKS + rank0) & np.uint64(1))
        if held == 4:
            n = _add(melds, values, n, _set_of(rank0, s, c, d))
            n = _add(melds, values, n, _set_of(rank0, c, d, hh))
        elif held == 3:
            n = _add(melds, values, n, h & (_set_of(rank0, s, c, d) | bit(hh * RANKS + rank0)))
    for length in (5, 4, 3):
        full = np.uint64((1 << length) - 1)
        for suit in OPENSPIEL_SUITS:
            row = h >> np.uint64(suit * RANKS) & RANK_ROW
            for start in range(RANKS - length + 1):
                if row >> np.uint64(start) & full == full:
                    n = _add(melds, values, n, full << np.uint64(suit * RANKS + start))
    return n


def scratch(threads: int) -> tuple:
    """Per-thread scratch of the scans: ``ubuf`` (melds, then the cards used at each depth) and ``ibuf``
    (meld values, then the points, next candidate and meld at each depth, then the first best group)."""
    return (np.zeros((threads, MAX_MELDS + MAX_DEPTH), dtype=np.uint64),
            np.zeros((threads, MAX_MELDS + 4 * MAX_DEPTH), dtype=np.int64))


@nb.njit(**JIT)
def best_group(ibuf):
    """The meld indices of the first best group of the last ``scan_groups`` (its length is returned there)."""
    return ibuf[MAX_MELDS + 3 * MAX_DEPTH:]


@nb.njit(**JIT)
def scan_groups(h: np.uint64, avoid: np.uint64, ubuf, ibuf, n: int) -> tuple:
    """``(best, first_best_top, knock, best_len)`` over every group of disjoint melds among the ``n`` melds of
    ``hand_melds`` in ``ubuf``/``ibuf`` (see the module docstring): the most points melded, the top card value
    left by the first best group, the least deadwood after discarding a card not in ``avoid``
    (``NO_DISCARD`` if none can be), and the first best group's length (its melds: ``best_group``)."""
    melds, used = ubuf[:MAX_MELDS], ubuf[MAX_MELDS:]
    values = ibuf[:MAX_MELDS]
    points = ibuf[MAX_MELDS:MAX_MELDS + MAX_DEPTH]
    following = ibuf[MAX_MELDS + MAX_DEPTH:MAX_MELDS + 2 * MAX_DEPTH]
    path = ibuf[MAX_MELDS + 2 * MAX_DEPTH:MAX_MELDS + 3 * MAX_DEPTH]
    best_path = best_group(ibuf)
    total = cards_value(h)
    used[0], points[0], following[0] = 0, 0, 0
    best, best_top, best_len = 0, top_value(h), 0
    knock = total - top_value(h & ~avoid) if h & ~avoid else NO_DISCARD
    depth = 0
    while depth >= 0:
        i = following[depth]
        while i < n and melds[i] & used[depth]:
            i += 1
        if i >= n:
            depth -= 1
            continue
        following[depth] = i + 1
        path[depth] = i
        depth += 1
        used[depth] = used[depth - 1] | melds[i]
        points[depth] = points[depth - 1] + values[i]
        following[depth] = i + 1
        left = h & ~used[depth]
        if points[depth] > best:
            best, best_top, best_len = points[depth], top_value(left), depth
            for k in range(depth):
                best_path[k] = path[k]
        if left & ~avoid:
            knock = min(knock, total - points[depth] - top_value(left & ~avoid))
    return best, best_top, knock, best_len


@nb.njit(**JIT)
def best_arrangement(h: np.uint64, ubuf, ibuf, groups) -> int:
    """The melds (bits) of hand ``h``'s first best arrangement (the group ``scan_groups`` finds first) into
    ``groups`` (``MAX_DEPTH`` entries); returns how many."""
    n = hand_melds(h, ubuf[:MAX_MELDS], ibuf[:MAX_MELDS])
    if n == 0:
        return 0
    length = scan_groups(h, np.uint64(0), ubuf, ibuf, n)[3]
    chosen = best_group(ibuf)
    for k in range(length):
        groups[k] = ubuf[chosen[k]]
    return length


@nb.njit(**JIT)
def melded_points(h: np.uint64, ubuf, ibuf) -> int:
    """The most points hand ``h`` can meld (its deadwood is ``cards_value(h)`` less that, G5)."""
    n = hand_melds(h, ubuf[:MAX_MELDS], ibuf[:MAX_MELDS])
    if n == 0:
        return 0
    return scan_groups(h, np.uint64(0), ubuf, ibuf, n)[0]


@nb.njit(**JIT)
def deadwood(h: np.uint64, ubuf, ibuf) -> int:
    """The least deadwood of hand ``h`` over every arrangement into melds (G5)."""
    return cards_value(h) - melded_points(h, ubuf, ibuf)


@nb.njit(**JIT)
def knock_figures(h: np.uint64, avoid: np.uint64, ubuf, ibuf) -> tuple:
    """``(exact, shortcut, unmelded)`` for an 11-card hand (G6, G7, G13, EG9): the least deadwood after
    discarding a card not in ``avoid`` (``NO_DISCARD`` when every card is in it); OpenSpiel's figure, the first
    best group's leftovers less the highest of them (never lower than the least deadwood after any discard);
    and the deadwood of all 11 cards (0: big gin)."""
    n = hand_melds(h, ubuf[:MAX_MELDS], ibuf[:MAX_MELDS])
    best, best_top, knock, _ = scan_groups(h, avoid, ubuf, ibuf, n)
    total = cards_value(h)
    return knock, total - best - best_top, total - best

"""New melds of an opening plan (R8, R9, R11.5, R13, R20, AR4, AR8, AR10), as rows of the placement table that
``opening_dp`` packs (the rows of ``profiles`` share the table).

A row lists the own cards it uses (by type, sorted), the pending cards it places (cards taken from melds, R13:
only in the meld's 3-card MELD, beside an own card; at most two) and the pending cards it makes (profiles only),
with its R10 points, flags and a shape that ``witness`` lays. New melds hold at most one joker; burnt cards
(R21.2) and the order of plays are not checked here (``witness`` lays a plan with the engine's own checks).
``post_placements`` adds the melds that place a pending card after the COMMIT: they count no points.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.cards import JOKER
from rummy_env.engine.jit import JIT
from rummy_env.engine.rami51.opening import joker_points, natural_points
from rummy_env.engine.table import card_at, card_bit

MAX_GROUPS = 4096
MAX_OWN = 15        # own cards one placement uses
MAX_MADE = 12       # pending cards one slot profile produces (``profiles``)
MAX_ITEMS = 62      # pending cards, own cards and the cards profiles may take: bits of one DP state
# columns of ``meta``
POINTS, PURE_RUN, TAKEN, OWN_CARDS, SHAPE, SHAPE_A, SHAPE_B, SHAPE_C, SHAPE_D, SHAPE_E, TOUCHED, STAGE = range(12)
META_COLUMNS = 12
# shapes
NEW_SET, NEW_RUN, PROFILE_RUN, PROFILE_SET, POST_MELD = range(5)
JOKER_OWN, JOKER_PENDING = 1, 2


@nb.njit(**JIT)
def add_group(table, n: int, types, n_own: int, pending, n_pend: int, points: int, pure: bool, taken_type: int,
              shape: int, a: int, b: int, c: int, d: int, e: int) -> int:
    """Append a placement (own cards sorted: the DP looks a placement up by its lowest own card); returns the new
    count, unchanged when the table is full (the caller then gives up)."""
    owns, pend, made, meta = table
    if n >= MAX_GROUPS or n_own > MAX_OWN:
        return MAX_GROUPS
    owns[n, :] = -1
    pend[n, :] = -1
    made[n, :] = -1
    has_taken = False
    for k in range(n_own):
        card = types[k]
        has_taken = has_taken or card == taken_type
        j = k
        while j > 0 and owns[n, j - 1] > card:
            owns[n, j] = owns[n, j - 1]
            j -= 1
        owns[n, j] = card
    for k in range(n_pend):
        pend[n, k] = pending[k]
    meta[n, POINTS] = points
    meta[n, PURE_RUN] = pure
    meta[n, TAKEN] = has_taken
    meta[n, OWN_CARDS] = n_own
    meta[n, SHAPE] = shape
    meta[n, SHAPE_A] = a
    meta[n, SHAPE_B] = b
    meta[n, SHAPE_C] = c
    meta[n, SHAPE_D] = d
    meta[n, SHAPE_E] = e
    meta[n, TOUCHED] = 0
    meta[n, STAGE] = -1
    return n + 1


@nb.njit(**JIT)
def value_at(card: int, position: int, cfg) -> int:
    """R10 value of a natural at a run position that may lie below 1 (a circular run renumbers it one lap up)."""
    return natural_points(card, position + 13 if position < 1 else position, cfg)


@nb.njit(**JIT)
def set_placements(avail, pend, table, n: int, taken_type: int, cfg) -> int:
    """New sets (R8, R9, AR4): 3 or 4 cards of one rank in distinct suits, at most one joker, two naturals at
    least, an own card, at most two pending cards (they must be in the MELD, R13)."""
    types = np.empty(MAX_OWN, dtype=np.int64)
    pending = np.empty(2, dtype=np.int64)
    for rank in range(1, 14):
        owned = avail[JOKER] > 0
        for suit in range(4):
            owned = owned or avail[card_at(suit, rank)] > 0
        if not owned:
            continue
        for code in range(81):  # per suit: absent, own, pending
            naturals, n_own, n_pend, points, ok, rest = 0, 0, 0, 0, True, code
            for suit in range(4):
                choice = rest % 3
                rest //= 3
                card = card_at(suit, rank)
                if choice == 1:
                    if avail[card] == 0:
                        ok = False
                        break
                    types[n_own] = card
                    n_own += 1
                    points += natural_points(card, 0, cfg)
                    naturals += 1
                elif choice == 2:
                    if pend[card] == 0:
                        ok = False
                        break
                    pending[n_pend] = card
                    n_pend += 1
                    naturals += 1
            if not ok or naturals < 2 or n_pend > 2:
                continue
            for joker in range(3):  # none, own, pending
                if joker == 1 and avail[JOKER] == 0 or joker == 2 and (pend[JOKER] == 0 or n_pend == 2):
                    continue
                size = naturals + (joker > 0)
                if size < 3 or size > 4:
                    continue
                total_own, total_pend, total_points = n_own, n_pend, points
                if joker == JOKER_OWN:
                    types[total_own] = JOKER
                    total_own += 1
                    total_points += joker_points(rank - 1, 0, cfg)
                elif joker == JOKER_PENDING:
                    pending[total_pend] = JOKER
                    total_pend += 1
                if total_own >= 1:
                    n = add_group(table, n, types, total_own, pending, total_pend, total_points, False, taken_type,
                                  NEW_SET, rank, joker, 0, 0, 0)
    return n


@nb.njit(**JIT)
def run_placements(avail, pend, table, n: int, taken_type: int, cfg) -> int:
    """New runs (R8, R9, R20, AR8, AR10): consecutive positions of one suit, at most one joker, at most two pending
    cards in one 3-card base with an own card; a joker-free run of own cards is pure."""
    last_start = 13 if cfg.circular_runs else 12
    for suit in range(4):
        owned = avail[JOKER] > 0
        for rank in range(13):
            owned = owned or avail[card_at(suit, rank + 1)] > 0
        if not owned:
            continue
        for start in range(1, last_start + 1):
            gaps = 0
            for length in range(1, 15):
                end = start + length - 1
                if cfg.circular_runs:
                    if length > 13:
                        break
                elif end > 14 or (length == 14 and not cfg.allow_ace_both_ends):
                    break
                card = card_at(suit, end)
                if avail[card] == 0 and pend[card] == 0:
                    gaps += 1
                if gaps > 1 or (gaps == 1 and avail[JOKER] + pend[JOKER] == 0):
                    break
                if length < 3:
                    continue
                for joker_cell in range(-1, length):
                    for source in (JOKER_OWN, JOKER_PENDING):
                        if joker_cell < 0 and source == JOKER_PENDING:
                            continue
                        if joker_cell >= 0 and (source == JOKER_OWN and avail[JOKER] == 0
                                                or source == JOKER_PENDING and pend[JOKER] == 0):
                            continue
                        n = run_variants(suit, start, length, joker_cell, source, avail, pend, table, n, taken_type,
                                         cfg)
                        if n >= MAX_GROUPS:
                            return n
    return n


@nb.njit(**JIT)
def run_variants(suit: int, start: int, length: int, joker_cell: int, source: int, avail, pend, table, n: int,
                 taken_type: int, cfg) -> int:
    """The run window with its joker fixed, for each choice of which cells hold pending cards: every cell with
    no own copy, and any with both, at most two in all, in one 3-card base beside an own card."""
    must = np.empty(2, dtype=np.int64)
    n_must = 0
    may = np.empty(14, dtype=np.int64)
    n_may = 0
    for cell in range(length):
        if cell == joker_cell:
            continue
        card = card_at(suit, start + cell)
        if avail[card] == 0:
            if pend[card] == 0 or n_must == 2:
                return n
            must[n_must] = cell
            n_must += 1
        elif pend[card] > 0:
            may[n_may] = cell
            n_may += 1
    joker_pending = joker_cell >= 0 and source == JOKER_PENDING
    state = np.empty(14, dtype=np.int64)
    types = np.empty(MAX_OWN, dtype=np.int64)
    pending = np.empty(2, dtype=np.int64)
    for extra in range(1 << n_may):
        chosen = n_must + joker_pending
        for k in range(n_may):
            chosen += extra >> k & 1
        if chosen > 2:
            continue
        for cell in range(length):
            state[cell] = 1
        for k in range(n_must):
            state[must[k]] = 2
        for k in range(n_may):
            if extra >> k & 1:
                state[may[k]] = 2
        if joker_cell >= 0:
            state[joker_cell] = 2 if joker_pending else 1
        if chosen > 0 and not own_base(state, length):
            continue
        n_own, n_pend, points = 0, 0, 0
        for cell in range(length):
            position = start + cell
            card = card_at(suit, position)
            if state[cell] == 1:
                types[n_own] = JOKER if cell == joker_cell else card
                points += (joker_points(card, position, cfg) if cell == joker_cell
                           else natural_points(card, position, cfg))
                n_own += 1
            else:
                pending[n_pend] = JOKER if cell == joker_cell else card
                n_pend += 1
        pure = joker_cell < 0 and (chosen == 0 or not cfg.pure_run_hand_cards_only)
        n = add_group(table, n, types, n_own, pending, n_pend, points, pure, taken_type,
                      NEW_RUN, suit, start, length, joker_cell, source)
        if n >= MAX_GROUPS:
            return n
    return n


@nb.njit(**JIT)
def own_base(state, length: int) -> bool:
    """Some 3 consecutive cells hold every pending card and an own one (a MELD, R13)."""
    for base in range(length - 2):
        inside_own, outside_pending = False, False
        for cell in range(length):
            inside = base <= cell < base + 3
            if state[cell] == 1 and inside:
                inside_own = True
            if state[cell] != 1 and not inside:
                outside_pending = True
        if inside_own and not outside_pending:
            return True
    return False


@nb.njit(**JIT)
def post_placements(avail, pend, spare: np.uint64, table, n: int, catalogue_bits, cfg) -> int:
    """The 3-card MELDs that may place a pending card after the COMMIT (R11.5, R13): the pending card, an own card
    kept at the COMMIT (the only own cards then in hand: a card taken back is pending, and a freed joker needs two
    own cards beside it, R14) and a third card: pending too (one row places both), or one of ``spare``, not
    counted off (an own natural may be taken back by then), or else another own card kept. No points: the opening
    was judged at the COMMIT; such a row bars an all-at-once out (it stands for plays after a COMMIT)."""
    types = np.empty(2, dtype=np.int64)
    pending = np.empty(2, dtype=np.int64)
    cards = np.empty(3, dtype=np.int64)
    pend_bits = np.uint64(0)
    for card in range(JOKER + 1):
        if pend[card] > 0:
            pend_bits |= card_bit(card)
    start = n
    for entry in range(cfg.num_melds):
        bits = catalogue_bits[entry]
        if bits & pend_bits == 0:
            continue
        m = 0
        for card in range(JOKER + 1):
            if bits & card_bit(card):
                cards[m] = card
                m += 1
        for i in range(3):       # the pending card
            for j in range(3):   # the own card
                if i == j or pend[cards[i]] == 0 or avail[cards[j]] == 0:
                    continue
                third = cards[3 - i - j]
                types[0], types[1], pending[0], pending[1] = cards[j], third, cards[i], third
                if pend[third] > 0 and cards[i] < third:
                    n = add_post(table, n, start, types, 1, pending, 2)
                if spare & card_bit(third):
                    n = add_post(table, n, start, types, 1, pending, 1)
                elif avail[third] > 0 and cards[j] < third:
                    n = add_post(table, n, start, types, 2, pending, 1)
                if n >= MAX_GROUPS:
                    return n
    return n


@nb.njit(**JIT)
def add_post(table, n: int, start: int, types, n_own: int, pending, n_pend: int) -> int:
    """Append a post-COMMIT row unless rows ``start..n`` hold it already."""
    owns, pend, meta = table[0], table[1], table[3]
    for g in range(start, n):
        if meta[g, OWN_CARDS] == n_own and owns[g, 0] == min(types[0], types[n_own - 1]) \
                and owns[g, n_own - 1] == max(types[0], types[n_own - 1]) and pend[g, 0] == pending[0] \
                and (pend[g, 1] == pending[1] if n_pend == 2 else pend[g, 1] < 0):
            return n
    return add_group(table, n, types, n_own, pending, n_pend, 0, False, -1, POST_MELD, 0, 0, 0, 0, 0)

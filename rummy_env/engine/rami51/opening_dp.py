"""Can this hand still open? (R10, R11, R13, R16) An exact "no" by a DP over the shapes an opening can leave.

A player who has not opened must reach a COMMIT (``opening_threshold`` points of own cards with a pure run, the
taken card laid) or go out all at once (R16). Whatever plays he makes, the table then shows:

* on each meld that was already there, one *profile* (``profiles``): cards taken from its ends, own cards laid
  back and beyond them;
* new melds (``placements``), each holding own cards and at most two pending cards (taken from melds) in its
  3-card MELD beside an own card;
* the own cards left in his hand.

``opening_outcomes`` maximises the R10 points of such a picture for each outcome: own cards left (0, 1, 2+), a
pure run laid, the taken card laid, and whether an all-at-once out is barred (a pending card left for plays
after a COMMIT; a turn-start meld touched under ``all_at_once_may_use_table = false``). It decides the items one
at a time, lowest first, with a memo over the items left and the pending cards held: each own card, rank by
rank, is kept or is the lowest own card of a new meld; each meld on the table is left alone or gets a profile,
decided before any own card its profiles lay and any new meld that may place a card it gives. A pending card no
meld still to decide can place is left over for after the COMMIT. With ``post`` it must then go into a meld made
after the COMMIT (``placements.post_placements``: an own card kept at the COMMIT, no points; its third card may
be one taken back from a meld laid this turn, which counted at the COMMIT, as in a position that
``tests/test_opening_bound.py`` keeps); that DP has more states, so ``witness`` asks it only when the plain one
leaves a card over. The pictures it allows include every reachable one (it ignores the order of plays, burnt
cards and the hand's size along the way), so ``NO_OPENING`` is a proof; a "yes" is only a plan for ``witness``.

Its states grow with the sets of taken cards held at once: on a table of many melds (4 or 5 players: 14 to 45
cards that TAKEs could bring) the memo fills. ``narrow`` then asks for a plan only, among the pictures that never
hold more than ``NARROW_HELD`` taken cards beyond those pending at the start, along the DP's order (a card left
over stops counting); on such tables that fits the memo and finds the plans that take a card or two
(``tests/test_opening_bound.py``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.cards import JOKER
from rummy_env.engine.jit import JIT
from rummy_env.engine.rami51.candidates import hand_bits
from rummy_env.engine.rami51.opening_memo import (
    DONE, KEEP, LEFT_OVER, MARKER, MAX_BITS, MAX_TYPES, MEMO, NO_OPENING, NONE, OUTCOMES, UNKNOWN, add_held, held,
    lookup, lowest_item, merge, outcome, outcome_fields,
)
from rummy_env.engine.rami51.placements import (
    MAX_GROUPS, MAX_ITEMS, MAX_MADE, MAX_OWN, META_COLUMNS, OWN_CARDS, POINTS, POST_MELD, PURE_RUN, SHAPE, STAGE,
    TAKEN, TOUCHED, post_placements, run_placements, set_placements,
)
from rummy_env.engine.rami51.profiles import slot_profiles
from rummy_env.engine.rami51.prune import new_meld_reachable, take_sources, turn_meld_bits
from rummy_env.engine.rami51.turn import own
from rummy_env.engine.table import card_at, card_bit, rank_of, suit_of

NARROW_HELD = 1  # with ``narrow``: taken cards a state may hold beyond those pending at the start


# the DP's buffers, one flat byte row per thread (``dp_buffers``): a search passes one array, not eleven (every
# array an njit function receives costs an atomic reference count each way), and the DP unpacks it (``dp_views``)
DP_BUFFERS = (((MAX_GROUPS, MAX_OWN), np.int8), ((MAX_GROUPS, 2), np.int8), ((MAX_GROUPS, MAX_MADE), np.int8),
              ((MAX_GROUPS, META_COLUMNS), np.int16), ((MEMO, 3), np.uint64), ((MEMO, OUTCOMES), np.int16),
              ((MEMO, OUTCOMES), np.int32), ((MEMO, OUTCOMES), np.int32), ((MEMO,), np.int64), ((2, 64), np.int64),
              ((4,), np.int64))


def _layout() -> tuple:
    """Each buffer's first byte (8-byte aligned) and its size in bytes, and the bytes of a row."""
    starts, sizes, at = [], [], 0
    for shape, dtype in DP_BUFFERS:
        size = int(np.prod(shape)) * np.dtype(dtype).itemsize
        starts.append(at)
        sizes.append(size)
        at += -(-size // 8) * 8
    return tuple(starts), tuple(sizes), at


(D0, D1, D2, D3, D4, D5, D6, D7, D8, D9, D10), (S0, S1, S2, S3, S4, S5, S6, S7, S8, S9, S10), DP_BYTES = _layout()


def dp_buffers(threads: int) -> np.ndarray:
    """Per thread, one byte row holding: the placement table (own cards, pending cards used and produced, the meta
    columns of each row, ``placements``), the memo (state keys, values per outcome, the choice behind each value and
    where it goes on, stamps), item scratch and counters (calls, own cards no row holds, the root's index, states)."""
    return np.zeros((threads, DP_BYTES), dtype=np.uint8)


@nb.njit(**JIT)
def dp_views(flat):
    """The DP's buffers (``DP_BUFFERS``) as views of one thread's byte row."""
    return (flat[D0:D0 + S0].view(np.int8).reshape((MAX_GROUPS, MAX_OWN)),
            flat[D1:D1 + S1].view(np.int8).reshape((MAX_GROUPS, 2)),
            flat[D2:D2 + S2].view(np.int8).reshape((MAX_GROUPS, MAX_MADE)),
            flat[D3:D3 + S3].view(np.int16).reshape((MAX_GROUPS, META_COLUMNS)),
            flat[D4:D4 + S4].view(np.uint64).reshape((MEMO, 3)),
            flat[D5:D5 + S5].view(np.int16).reshape((MEMO, OUTCOMES)),
            flat[D6:D6 + S6].view(np.int32).reshape((MEMO, OUTCOMES)),
            flat[D7:D7 + S7].view(np.int32).reshape((MEMO, OUTCOMES)),
            flat[D8:D8 + S8].view(np.int64),
            flat[D9:D9 + S9].view(np.int64).reshape((2, 64)),
            flat[D10:D10 + S10].view(np.int64))


@nb.njit(**JIT)
def order_key(card: int) -> int:
    """Own cards are decided rank by rank (a set's cards, and a run's, lie close together in this order)."""
    return 52 if card == JOKER else (rank_of(card) - 1) * 4 + suit_of(card)


@nb.njit(**JIT)
def order_card(order: int) -> int:
    """The card at ``order`` (the inverse of ``order_key``)."""
    return JOKER if order == 52 else card_at(order % 4, order // 4 + 1)


@nb.njit(**JIT)
def held_total(words, n_types: int) -> int:
    """Pending cards held, over every type."""
    total = 0
    for t in range(n_types):
        total += held(words, t)
    return total


@nb.njit(**JIT)
def retire(mask: np.uint64, words, ctx) -> np.uint64:
    """Pending types no row still to decide can place are forgotten; a card of one still held is left over,
    which bars an out, or (``post``: the rows after a COMMIT are in the table) ends the picture: returns 0."""
    item_start, item_end, stage_bit, type_index, last_use, n_types, post, cap = ctx
    lowest = lowest_item(mask)
    for t in range(n_types):
        if last_use[t] < lowest and held(words, t) > 0:
            if post:
                return np.uint64(0)
            mask |= LEFT_OVER
            add_held(words, t, -held(words, t))
    return mask


@nb.njit(**JIT)
def apply_row(g: int, mask: np.uint64, words, owns, pend, made, meta, ctx) -> np.uint64:
    """The state after row ``g``: its own items (the lowest copies left) and its meld's item taken, the
    pending cards it places (held before) and takes counted in ``words``; 0 when it does not fit."""
    item_start, item_end, stage_bit, type_index, last_use, n_types, post, cap = ctx
    rest = mask
    for k in range(meta[g, OWN_CARDS]):
        card = owns[g, k]
        found = False
        for item in range(item_start[card], item_end[card]):
            bit = np.uint64(1) << np.uint64(item)
            if rest & bit:
                rest &= ~bit
                found = True
                break
        if not found:
            return np.uint64(0)
    stage = meta[g, STAGE]
    if stage >= 0:
        bit = np.uint64(1) << np.uint64(stage_bit[stage])
        if rest & bit == 0:
            return np.uint64(0)
        rest &= ~bit
        for k in range(made.shape[1]):
            if made[g, k] < 0:
                break
            if type_index[made[g, k]] >= 0 and not add_held(words, type_index[made[g, k]], 1):
                return np.uint64(0)
        if cap >= 0 and held_total(words, n_types) > cap:
            return np.uint64(0)
    for k in range(2):
        if pend[g, k] < 0:
            break
        if not add_held(words, type_index[pend[g, k]], -1):
            return np.uint64(0)
    return retire(rest, words, ctx)


@nb.njit(**JIT)
def row_choice(k: int, lowest: int, item_key, by_low, by_low_start) -> int:
    """Choice ``k`` at a state whose lowest item is ``lowest``: ``KEEP`` first, then the rows that item decides;
    -3 past the end."""
    if k == 0:
        return KEEP
    key = item_key[lowest]
    if by_low_start[key] + k - 1 >= by_low_start[key + 1]:
        return -3
    return by_low[by_low_start[key] + k - 1]


@nb.njit(**JIT)
def solve(root_mask: np.uint64, root_words, work, ctx, by_low, by_low_start, item_key, no_out_touch: int) -> int:
    """The DP, depth first with an explicit stack (every choice decides the lowest item left, so no state
    repeats along a path). Returns the root's memo index, or -1 when the memo is full."""
    owns, pend, made, meta, keys, values, choices, nexts, stamps, items, counters = work
    frame_index = np.empty(MAX_BITS + 2, dtype=np.int64)
    frame_k = np.empty(MAX_BITS + 2, dtype=np.int64)
    frame_wait = np.empty(MAX_BITS + 2, dtype=np.int64)
    words = np.empty(2, dtype=np.uint64)
    root, _ = lookup(keys, stamps, counters, root_mask, root_words[0], root_words[1])
    if root < 0:
        return -1
    values[root, :] = NONE
    frame_index[0], frame_k[0], frame_wait[0] = root, 0, -1
    sp = 1
    while sp > 0:
        f = sp - 1
        index = frame_index[f]
        mask = keys[index, 0]
        lowest = lowest_item(mask)
        if lowest == MAX_BITS:  # the end: every pending card placed, or one left over (no out)
            o = outcome(0, 0, 0, 1 if mask & LEFT_OVER else 0)
            values[index, o] = 0
            choices[index, o] = DONE
            sp -= 1
            continue
        pushed = False
        while True:
            k = frame_k[f]
            choice = row_choice(k, lowest, item_key, by_low, by_low_start)
            if choice == -3:
                break
            if frame_wait[f] >= 0:  # the child of choice k is done
                child = frame_wait[f]
                frame_wait[f] = -1
            else:
                words[0], words[1] = keys[index, 1], keys[index, 2]
                if choice == KEEP:
                    after = retire(mask & ~(np.uint64(1) << np.uint64(lowest)), words, ctx)
                else:
                    after = apply_row(choice, mask, words, owns, pend, made, meta, ctx)
                if after == 0:
                    frame_k[f] += 1
                    continue
                child, created = lookup(keys, stamps, counters, after, words[0], words[1])
                if child < 0:
                    return -1
                if created:
                    values[child, :] = NONE
                    frame_wait[f] = child
                    frame_index[sp], frame_k[sp], frame_wait[sp] = child, 0, -1
                    sp += 1
                    pushed = True
                    break
            if choice == KEEP:
                merge(values, choices, nexts, index, child, 0, 1 if item_key[lowest] <= JOKER else 0, 0, 0, 0, KEEP)
            else:
                no_out = meta[choice, SHAPE] == POST_MELD or meta[choice, TOUCHED] & no_out_touch
                merge(values, choices, nexts, index, child, meta[choice, POINTS], 0, meta[choice, PURE_RUN],
                      meta[choice, TAKEN], no_out, choice)
            frame_k[f] += 1
        if not pushed:
            sp -= 1
    return root


@nb.njit(**JIT)
def opening_outcomes(r, work, catalogue_bits, cfg, out, post: bool, narrow: bool = False) -> int:
    """``out[outcome]``: the most R10 points the plays still to come can add, for each outcome (``NONE`` where
    none), with the melds after a COMMIT if ``post``, and with ``narrow`` only the pictures of the module
    docstring's cap (a plan-finder for ``witness``: its ``NO_OPENING`` proves nothing). Returns the root's memo
    index (for ``witness``), ``NO_OPENING`` when a pending card has no meld at all, or ``UNKNOWN`` when the rows,
    the items or the memo do not fit the buffers."""
    owns, pend, made, meta, keys, values, choices, nexts, stamps, items, counters = work
    table = (owns, pend, made, meta)
    p = r.current
    avail = np.zeros(JOKER + 1, dtype=np.int64)
    pending = np.zeros(JOKER + 1, dtype=np.int64)
    for card in range(JOKER + 1):
        avail[card] = own(r, p, card)
        pending[card] = r.pending[card]
    taken_type = r.taken if r.taken >= 0 and not r.taken_laid else -1
    # the cards a TAKE may bring: only those some new meld could hold beside an own card
    gives = np.empty(r.slot_n, dtype=np.uint64)
    takeable, single = take_sources(r, cfg, gives)
    reachable = hand_bits(r, p) | takeable | card_bit(JOKER)
    meldable = np.zeros(JOKER + 1, dtype=np.bool_)
    for card in range(JOKER + 1):
        if takeable & card_bit(card):
            meldable[card] = new_meld_reachable(r, card, reachable, gives, single, catalogue_bits, cfg)
    made_type, made_slot = items[0], items[1]
    stage_slot = np.empty(64, dtype=np.int64)
    n, n_made, stages = slot_profiles(r, avail, meldable, table, 0, made_type, made_slot, 0, stage_slot, taken_type,
                                      cfg)
    if n >= MAX_GROUPS or n_made >= MAX_ITEMS:
        return UNKNOWN
    profiles_end = n
    supply = pending.copy()  # pending cards a new meld may place: held, or taken by some profile
    for g in range(profiles_end):
        for k in range(MAX_MADE):
            if made[g, k] < 0:
                break
            made[g, k] = made_type[made[g, k]]
    for k in range(n_made):
        supply[made_type[k]] = min(supply[made_type[k]] + 1, 2)
    n = set_placements(avail, supply, table, n, taken_type, cfg)
    n = run_placements(avail, supply, table, n, taken_type, cfg)
    if post:  # the third card of a meld after the COMMIT: in hand (kept, or laid and taken back), or a TAKE's
        spare = hand_bits(r, p) | takeable | turn_meld_bits(r, cfg)
        if not cfg.can_take_joker_from_meld:
            spare &= ~card_bit(JOKER)
        n = post_placements(avail, supply, spare, table, n, catalogue_bits, cfg)
    if n >= MAX_GROUPS:
        return UNKNOWN
    # own cards no row holds stay in the hand whatever happens: counted aside, not searched
    placeable = np.zeros(JOKER + 1, dtype=np.bool_)
    for g in range(n):
        for k in range(meta[g, OWN_CARDS]):
            placeable[owns[g, k]] = True
    stuck = 0
    for card in range(JOKER + 1):
        if not placeable[card]:
            stuck += avail[card]
            avail[card] = 0
    # where each row is decided: a new meld at its lowest own card, a profile at its meld's item, which comes
    # before every own card its profiles lay and every new meld that places a card they take
    row_key = np.empty(max(n, 1), dtype=np.int64)
    first_use = np.full(JOKER + 1, 99, dtype=np.int64)    # the earliest own card (order) of a meld placing a type
    for g in range(profiles_end, n):
        low = 99
        for k in range(meta[g, OWN_CARDS]):
            low = min(low, order_key(owns[g, k]))
        row_key[g] = low
        for k in range(2):
            if pend[g, k] >= 0:
                first_use[pend[g, k]] = min(first_use[pend[g, k]], low)
    stage_order = np.full(max(stages, 1), 99, dtype=np.int64)
    for g in range(profiles_end):
        s = meta[g, STAGE]
        for k in range(meta[g, OWN_CARDS]):
            stage_order[s] = min(stage_order[s], order_key(owns[g, k]))
        for k in range(MAX_MADE):
            if made[g, k] < 0:
                break
            stage_order[s] = min(stage_order[s], first_use[made[g, k]])
    # items in order: at each place of ``order_key``, the melds decided there, then the own copies of that card
    n_items = 0
    for card in range(JOKER + 1):
        n_items += avail[card]
    for s in range(stages):
        n_items += stage_order[s] < 99
    if n_items > MAX_BITS:
        return UNKNOWN
    item_key = np.empty(MAX_BITS + 1, dtype=np.int64)   # per bit: the own card's type, or JOKER + 1 + stage
    item_start = np.zeros(JOKER + 1, dtype=np.int64)
    item_end = np.zeros(JOKER + 1, dtype=np.int64)
    stage_bit = np.full(max(stages, 1), -1, dtype=np.int64)
    bit = 0
    for order in range(JOKER + 1):
        for s in range(stages):
            if stage_order[s] == order:
                stage_bit[s] = bit
                item_key[bit] = JOKER + 1 + s
                bit += 1
        card = order_card(order)
        item_start[card] = bit
        for _ in range(avail[card]):
            item_key[bit] = card
            bit += 1
        item_end[card] = bit
    # pending types, and the last item that decides a meld placing one (after it, a held card is left over)
    type_index = np.full(JOKER + 1, -1, dtype=np.int64)
    n_types = 0
    for card in range(JOKER + 1):
        if supply[card] > 0:
            if n_types >= MAX_TYPES:
                return UNKNOWN
            type_index[card] = n_types
            n_types += 1
    last_use = np.full(max(n_types, 1), -1, dtype=np.int64)
    for g in range(profiles_end, n):
        if meta[g, OWN_CARDS] == 0:
            continue
        card = order_card(row_key[g])
        for k in range(2):
            if pend[g, k] >= 0:
                t = type_index[pend[g, k]]
                last_use[t] = max(last_use[t], item_end[card] - 1)
    # rows listed under the item that decides them
    lists = JOKER + 1 + stages
    by_low_start = np.zeros(lists + 1, dtype=np.int64)
    for g in range(n):
        if g < profiles_end:
            row_key[g] = JOKER + 1 + meta[g, STAGE] if stage_bit[meta[g, STAGE]] >= 0 else -1
        elif meta[g, OWN_CARDS] > 0:
            row_key[g] = order_card(row_key[g])
        else:
            row_key[g] = -1
        if row_key[g] >= 0:
            by_low_start[row_key[g] + 1] += 1
    for key in range(lists):
        by_low_start[key + 1] += by_low_start[key]
    by_low = np.empty(max(n, 1), dtype=np.int64)
    fill = by_low_start.copy()
    for g in range(n):
        if row_key[g] >= 0:
            by_low[fill[row_key[g]]] = g
            fill[row_key[g]] += 1
    cap = pending.sum() + NARROW_HELD if narrow else -1  # pending cards a state may hold (-1: no cap)
    ctx = (item_start, item_end, stage_bit, type_index, last_use, n_types, post, cap)
    mask = MARKER
    for b in range(n_items):
        mask |= np.uint64(1) << np.uint64(b)
    words = np.zeros(2, dtype=np.uint64)
    for card in range(JOKER + 1):
        for _ in range(pending[card]):
            add_held(words, type_index[card], 1)
    mask = retire(mask, words, ctx)
    out[:] = NONE
    if mask == 0:
        return NO_OPENING  # a pending card no meld can place
    counters[0] += 1
    counters[3] = 0
    root = solve(mask, words, work, ctx, by_low, by_low_start, item_key, 0 if cfg.all_at_once_may_use_table else 1)
    if root < 0:
        return UNKNOWN
    for o in range(OUTCOMES):
        if values[root, o] > NONE:
            left, pure, taken, no_out = outcome_fields(o)
            moved = outcome(left + stuck, pure, taken, no_out)
            out[moved] = max(out[moved], values[root, o])
    counters[1] = stuck
    counters[2] = root
    return root

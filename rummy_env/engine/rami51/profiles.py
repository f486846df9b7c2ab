"""What a player who has not opened can do to one meld on the table (R11.3, R12, R13, AR7, AR9): a *profile* of
TAKEs and own lay-offs on it, as rows of the placement table that ``opening_dp`` chooses from, one per meld.

A run gives cards from its ends (a TAKE leaves at least 3 cards; lay-offs at the other end may lengthen it
first); own naturals may then be laid back on the cells taken (an exchange) and beyond the ends, with one own
joker on the player's own run that has none (R9). A set gives naturals (and, with ``can_take_joker_from_meld``,
its joker) and takes own naturals of missing or taken suits and an own joker (another player's set: with
``joker_on_opponent_set``). Each card a profile takes becomes pending: ``opening_dp`` makes the new melds place
it. A card that no new meld could hold is never taken (``meldable``: ``prune.new_meld_reachable``). Own cards
a TAKE brings back from a meld laid this turn stop counting (R11.1). Feasibility is judged on the meld's final
shape; the order of a run's plays is chosen for ``witness`` (``ORDERS``), which lays them with the engine's
own checks.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.cards import JOKER
from rummy_env.engine.jit import JIT
from rummy_env.engine.rami51.opening import JOKER_CELL, joker_points, mine_cell, natural_points
from rummy_env.engine.rami51.placements import (
    MAX_GROUPS, MAX_ITEMS, MAX_MADE, MAX_OWN, PROFILE_RUN, PROFILE_SET, STAGE, TOUCHED, add_group, value_at,
)
from rummy_env.engine.rami51.turn import table_allowed
from rummy_env.engine.table import card_at, holds_joker_at, slot_size
from rummy_env.melds import KIND_RUN, KIND_SET

# orders of a run profile's plays: E = lay-offs beyond an end that gives nothing, T = TAKEs at an end, R = own
# cards laid at that end after its TAKEs
ORDERS = 4  # 0: E, T low, R low, T high, R high; 1: E, T high, R high, T low, R low; 2 and 3: the same, E last


@nb.njit(**JIT)
def run_order(length: int, j_lo: int, k_lo: int, j_hi: int, k_hi: int, longest: int) -> int:
    """An order of the profile's plays in which every TAKE leaves 3 cards and no lay-off passes ``longest``, or
    -1 (the final shape alone then decides, and ``witness`` leaves it to the search)."""
    ext = (k_lo if j_lo == 0 else 0) + (k_hi if j_hi == 0 else 0)
    for order in range(ORDERS):
        size = length
        ok = True
        if order < 2:
            size += ext
            ok = size <= longest
        for half in range(2):
            low = (half == 0) == (order % 2 == 0)
            takes, lays = (j_lo, k_lo) if low else (j_hi, k_hi)
            if takes == 0:
                continue
            for _ in range(takes):
                ok = ok and size >= 4
                size -= 1
            size += lays
            ok = ok and size <= longest
        if order >= 2:
            size += ext
            ok = ok and size <= longest
        if ok:
            return order
    return -1


@nb.njit(**JIT)
def cell_points(r, slot: int, position: int, cfg) -> int:
    """R10 points the player loses when the card at ``position`` of run ``slot`` leaves it: its value if he laid
    it this turn (``slot_mine``), else 0."""
    mine = r.slot_mine[slot]
    if mine == 0:
        return 0
    card = card_at(r.slot_key[slot], position)
    if holds_joker_at(r, slot, position):
        return joker_points(card, position, cfg) if mine >> JOKER_CELL & 1 else 0
    return value_at(card, position, cfg) if mine >> mine_cell(KIND_RUN, card, position, cfg) & 1 else 0


@nb.njit(**JIT)
def lay_position(r, slot: int, takes: int, step: int, high: bool) -> int:
    """The run position of the ``step``-th own card laid at one end after ``takes`` TAKEs there (the cells
    taken are refilled first, then the run grows beyond the end)."""
    return r.slot_hi[slot] - takes + 1 + step if high else r.slot_lo[slot] + takes - 1 - step


@nb.njit(**JIT)
def deficits(r, slot: int, takes: int, lays: int, high: bool, avail, counts, cfg) -> int:
    """How many of the ``lays`` cells laid at one end find no own natural (``counts``, zeroed here, counts the
    copies used), or 99 when a cell lies off the run's positions."""
    counts[:] = 0
    missing = 0
    for step in range(lays):
        position = lay_position(r, slot, takes, step, high)
        if not cfg.circular_runs and (position < 1 or position > 14):
            return 99
        card = card_at(r.slot_key[slot], position)
        counts[card] += 1
        if counts[card] > avail[card]:
            missing += 1
    return missing


@nb.njit(**JIT)
def run_profiles(r, slot: int, avail, meldable, table, n: int, made_type, made_slot, n_made: int, taken_type: int,
                 cfg) -> tuple:
    """Profiles of run ``slot``: ``j`` TAKEs and then ``k`` own cards laid at each end. Returns ``(rows, made
    items)``; a row's shape: ``(slot, j_lo * 16 + k_lo, j_hi * 16 + k_hi, order, joker)`` where ``joker`` is the
    laid cell holding the own joker (``end * 16 + step``) or -1."""
    made, meta = table[2], table[3]
    key, lo, hi = r.slot_key[slot], r.slot_lo[slot], r.slot_hi[slot]
    length = hi - lo + 1
    longest = 13 if cfg.circular_runs or not cfg.allow_ace_both_ends else 14
    mine_run = r.slot_owner[slot] == r.current
    may_take = cfg.allow_take_from_meld and (cfg.take_from_own_melds or not mine_run)
    # the cards each end can give, from the end inwards, as pending items
    give = np.full((2, 14), -1, dtype=np.int64)
    gives = np.zeros(2, dtype=np.int64)
    lost = np.zeros((2, 15), dtype=np.int64)           # own points among the first j cards taken at an end
    jokers_given = np.zeros((2, 15), dtype=np.int64)
    for end in range(2):
        for depth in range(length):
            position = lo + depth if end == 0 else hi - depth
            joker = holds_joker_at(r, slot, position)
            card = (JOKER if cfg.can_take_joker_from_meld else -1) if joker else card_at(key, position)
            if not may_take or card < 0 or not meldable[card] or n_made >= MAX_ITEMS:
                break
            made_type[n_made] = card
            made_slot[n_made] = slot
            give[end, depth] = n_made
            n_made += 1
            gives[end] += 1
            lost[end, depth + 1] = lost[end, depth] + cell_points(r, slot, position, cfg)
            jokers_given[end, depth + 1] = jokers_given[end, depth] + joker
    types = np.empty(MAX_OWN, dtype=np.int64)
    none = np.empty(2, dtype=np.int64)
    counts = np.zeros(JOKER + 1, dtype=np.int64)
    for j_lo in range(gives[0] + 1):
        for j_hi in range(gives[1] + 1):
            if j_lo + j_hi > length:
                continue
            if j_lo + j_hi > MAX_MADE:
                return MAX_GROUPS, n_made  # more than a row holds: the DP cannot decide
            joker_ok = mine_run and avail[JOKER] > 0 \
                and r.slot_jokers[slot] - jokers_given[0, j_lo] - jokers_given[1, j_hi] == 0
            allowance = 1 if joker_ok else 0
            for k_lo in range(MAX_OWN + 1):
                if deficits(r, slot, j_lo, k_lo, False, avail, counts, cfg) > allowance:
                    break
                for k_hi in range(MAX_OWN + 1 - k_lo):
                    if deficits(r, slot, j_hi, k_hi, True, avail, counts, cfg) > allowance:
                        break
                    final = length - j_lo - j_hi + k_lo + k_hi
                    if final < 3 or final > longest or j_lo + j_hi + k_lo + k_hi == 0:
                        continue
                    order = run_order(length, j_lo, k_lo, j_hi, k_hi, longest)
                    for joker_cell in range(-1, k_lo + k_hi if joker_ok else 0):
                        size, points, ok = 0, -lost[0, j_lo] - lost[1, j_hi], True
                        counts[:] = 0
                        for cell in range(k_lo + k_hi):
                            high = cell >= k_lo
                            step = cell - k_lo if high else cell
                            position = lay_position(r, slot, j_hi if high else j_lo, step, high)
                            card = card_at(key, position)
                            if cell == joker_cell:
                                types[size] = JOKER
                                points += joker_points(card, position + 13 if position < 1 else position, cfg)
                            else:
                                counts[card] += 1
                                ok = ok and counts[card] <= avail[card]
                                types[size] = card
                                points += value_at(card, position, cfg)
                            size += 1
                        if not ok:
                            continue
                        joker_code = -1
                        if joker_cell >= 0:
                            joker_code = 16 + joker_cell - k_lo if joker_cell >= k_lo else joker_cell
                        before = n
                        n = add_group(table, n, types, size, none, 0, points, False, taken_type, PROFILE_RUN, slot,
                                      j_lo * 16 + k_lo, j_hi * 16 + k_hi, order, joker_code)
                        if n == before + 1:
                            meta[before, TOUCHED] = slot < r.start_slots
                            k = 0
                            for depth in range(j_lo):
                                made[before, k] = give[0, depth]
                                k += 1
                            for depth in range(j_hi):
                                made[before, k] = give[1, depth]
                                k += 1
                        if n >= MAX_GROUPS:
                            return n, n_made
    return n, n_made


@nb.njit(**JIT)
def set_profiles(r, slot: int, avail, meldable, table, n: int, made_type, made_slot, n_made: int, taken_type: int,
                 cfg) -> tuple:
    """Profiles of set ``slot``: naturals (and the joker, with the knob) taken, own naturals of missing or taken
    suits laid, an own joker laid (R9, R13, AR6, AR7). Returns ``(rows, made items)``; a row's shape: ``(slot,
    taken, laid, joker laid, 0)`` with ``taken`` bits 0-3 for suits and 4 for the joker."""
    made, meta = table[2], table[3]
    rank = r.slot_key[slot]
    suits, jokers, mine = r.slot_suits[slot], r.slot_jokers[slot], r.slot_mine[slot]
    item = np.full(5, -1, dtype=np.int64)   # the pending item of each takeable card: suits 0..3, the joker
    lost = np.zeros(5, dtype=np.int64)      # own points it takes back
    may_take = cfg.allow_take_from_meld and (cfg.take_from_own_melds or r.slot_owner[slot] != r.current)
    for suit in range(4):
        card = card_at(suit, rank)
        if may_take and suits >> suit & 1 and meldable[card] and n_made < MAX_ITEMS:
            made_type[n_made] = card
            made_slot[n_made] = slot
            item[suit] = n_made
            n_made += 1
            lost[suit] = natural_points(card, 0, cfg) if mine >> mine_cell(KIND_SET, card, 0, cfg) & 1 else 0
    if may_take and jokers > 0 and cfg.can_take_joker_from_meld and meldable[JOKER] and n_made < MAX_ITEMS:
        made_type[n_made] = JOKER
        made_slot[n_made] = slot
        item[4] = n_made
        n_made += 1
        lost[4] = joker_points(rank - 1, 0, cfg) if mine >> JOKER_CELL & 1 else 0
    types = np.empty(MAX_OWN, dtype=np.int64)
    none = np.empty(2, dtype=np.int64)
    joker_lay_ok = cfg.joker_on_opponent_set or r.slot_owner[slot] == r.current
    for taken in range(32):  # bits 0..3: the naturals of those suits; bit 4: the joker
        ok = True
        taken_points = 0
        for code in range(5):
            if taken >> code & 1:
                ok = ok and item[code] >= 0
                taken_points += lost[code] if item[code] >= 0 else 0
        if not ok:
            continue
        kept = 0  # natural suits still in the meld after the TAKEs
        for suit in range(4):
            if suits >> suit & 1 and not taken >> suit & 1:
                kept |= 1 << suit
        for laid in range(16):  # own naturals of suits not kept
            if laid & kept:
                continue
            size, points, ok = 0, -taken_points, True
            for suit in range(4):
                if laid >> suit & 1:
                    card = card_at(suit, rank)
                    if avail[card] == 0:
                        ok = False
                        break
                    types[size] = card
                    size += 1
                    points += natural_points(card, 0, cfg)
            if not ok:
                continue
            naturals = 0
            for suit in range(4):
                naturals += (kept | laid) >> suit & 1
            for joker_laid in range(2):
                if taken == 0 and laid == 0 and joker_laid == 0:
                    continue
                final_jokers = jokers - (taken >> 4 & 1) + joker_laid
                if joker_laid and (avail[JOKER] == 0 or not joker_lay_ok or final_jokers > 1):
                    continue
                final = naturals + final_jokers
                if final < 3 or final > 4 or naturals < 2:
                    continue
                total, total_points = size, points
                if joker_laid:
                    types[total] = JOKER
                    total += 1
                    total_points += joker_points(rank - 1, 0, cfg)
                before = n
                n = add_group(table, n, types, total, none, 0, total_points, False, taken_type,
                              PROFILE_SET, slot, taken, laid, joker_laid, 0)
                if n == before + 1:
                    meta[before, TOUCHED] = slot < r.start_slots
                    k = 0
                    for code in range(5):
                        if taken >> code & 1:
                            made[before, k] = item[code]
                            k += 1
                if n >= MAX_GROUPS:
                    return n, n_made
    return n, n_made


@nb.njit(**JIT)
def slot_profiles(r, avail, meldable, table, n: int, made_type, made_slot, n_made: int, stage_slot, taken_type: int,
                  cfg) -> tuple:
    """The profiles of every table meld the player may touch, slot by slot; ``stage_slot[s]``: the slot of DP
    stage ``s`` (slots with no profile get no stage). Returns ``(rows, made items, stages)``."""
    stages = 0
    for slot in range(r.slot_n):
        if not table_allowed(r, slot, cfg) or slot_size(r, slot) == 0:
            continue
        before = n
        if r.slot_kind[slot] == KIND_RUN:
            n, n_made = run_profiles(r, slot, avail, meldable, table, n, made_type, made_slot, n_made, taken_type, cfg)
        else:
            n, n_made = set_profiles(r, slot, avail, meldable, table, n, made_type, made_slot, n_made, taken_type, cfg)
        if n >= MAX_GROUPS:
            return n, n_made, stages
        if n > before:
            for g in range(before, n):
                table[3][g, STAGE] = stages
            stage_slot[stages] = slot
            stages += 1
    return n, n_made, stages

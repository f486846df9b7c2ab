"""The rami51 heuristic's meld planner (R10, R11, R13, AR12, AR15): the pieces a hand can lay (new sets and runs,
extensions of table melds, new melds around a card taken from a meld) and the best disjoint combination of them for
a goal, by branch and bound with a node budget. The compiled heuristic (``engine.rami51.policy``) and
``RamiHeuristicAgent`` both call it, through ``policy.plan_actions``, so they plan alike.

Pieces live in arrays (``Pieces``): up to ``MAX_PIECE_CARDS`` cards each, with points (R10), value (hand
value removed), purity, the action that starts laying it and the table meld end it extends (``-1``: none).
A table meld is a row of ``melds`` ``(slot, kind, key, lo, hi, suits bits, count)``; a take a row of
``takes`` ``(slot, choice, card)``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.cards import JOKER
from rummy_env.engine.config import CAT_JOKER, CAT_KEY, CAT_KIND, CAT_LO
from rummy_env.engine.jit import JIT
from rummy_env.engine.rami51.opening import joker_points, natural_points
from rummy_env.engine.table import card_at, rank_of, suit_of
from rummy_env.melds import KIND_RUN, KIND_SET

MAX_NODES = 2000       # combinations tried at most
LONGEST_RUN = 13
MAX_PIECES = 1024
MAX_PIECE_CARDS = 14
# piece columns: number of cards, points, value, pure, action, end
P_LEN, P_POINTS, P_VALUE, P_PURE, P_ACTION, P_END = range(6)
TAKE_END = 1000


@nb.njit(**JIT)
def set_entry(catalogue, a: int, b: int, c: int) -> int:
    for entry in range(catalogue.shape[0]):
        if (catalogue[entry, CAT_KIND] == KIND_SET and catalogue[entry, 0] == a and catalogue[entry, 1] == b
                and catalogue[entry, 2] == c):
            return entry
    return -1


@nb.njit(**JIT)
def run_entry(catalogue, suit: int, lo: int, joker_at: int) -> int:
    for entry in range(catalogue.shape[0]):
        if (catalogue[entry, CAT_KIND] == KIND_RUN and catalogue[entry, CAT_KEY] == suit
                and catalogue[entry, CAT_LO] == lo and catalogue[entry, CAT_JOKER] == joker_at):
            return entry
    return -1


@nb.njit(**JIT)
def add_piece(info, cards, n: int, members, size: int, piece_points: int, values, pure: bool, action: int,
              end: int) -> int:
    if n >= info.shape[0]:
        return n
    value = 0
    for k in range(size):
        cards[n, k] = members[k]
        value += values[members[k]]
    info[n, P_LEN], info[n, P_POINTS], info[n, P_VALUE] = size, piece_points, value
    info[n, P_PURE], info[n, P_ACTION], info[n, P_END] = 1 if pure else 0, action, end
    return n + 1


@nb.njit(**JIT)
def add_sets(have, info, cards, n: int, catalogue, values, cfg) -> int:
    members = np.zeros(MAX_PIECE_CARDS, dtype=np.int64)
    naturals = np.zeros(4, dtype=np.int64)
    for rank in range(1, 14):
        count = 0
        for suit in range(4):
            if have[card_at(suit, rank)] > 0:
                naturals[count] = card_at(suit, rank)
                count += 1
        each = natural_points(naturals[0], 0, cfg) if count else 0
        if count >= 3:
            for size in range(3, count + 1):  # itertools.combinations order
                for left_out in range(count - 1, -1, -1) if size == 3 and count == 4 else range(-1, 0):
                    k = 0
                    for j in range(count):
                        if j != left_out:
                            members[k] = naturals[j]
                            k += 1
                    entry = set_entry(catalogue, members[0], members[1], members[2])
                    n = add_piece(info, cards, n, members, size, each * size, values, False,
                                  cfg.meld_offset + entry, -1)
        elif count == 2 and have[JOKER] > 0:
            members[0], members[1], members[2] = naturals[0], naturals[1], JOKER
            entry = set_entry(catalogue, naturals[0], naturals[1], JOKER)
            n = add_piece(info, cards, n, members, 3, 2 * each + joker_points(naturals[0], 0, cfg), values, False,
                          cfg.meld_offset + entry, -1)
    return n


@nb.njit(**JIT)
def add_run(info, cards, n: int, suit: int, lo: int, hi: int, gap: int, catalogue, values, cfg) -> int:
    members = np.zeros(MAX_PIECE_CARDS, dtype=np.int64)
    total = 0
    for position in range(lo, hi + 1):
        card = card_at(suit, position)
        if position == gap:
            members[position - lo] = JOKER
            total += joker_points(card, position, cfg)
        else:
            members[position - lo] = card
            total += natural_points(card, position, cfg)
    start = min(max(lo, gap - 2), hi - 2) if gap else lo
    entry = run_entry(catalogue, suit, start, gap if gap else -1)
    return add_piece(info, cards, n, members, hi - lo + 1, total, values, gap == 0, cfg.meld_offset + entry, -1)


@nb.njit(**JIT)
def add_runs(have, on_table, info, cards, n: int, catalogue, values, cfg) -> int:
    jokers = have[JOKER] > 0
    for suit in range(4):
        for lo in range(1, 13):
            gap, naturals = 0, 0
            for hi in range(lo, min(lo + LONGEST_RUN, 15)):
                if have[card_at(suit, hi)] > 0:
                    naturals += 1
                elif gap or not jokers or (cfg.joker_run_requires_burnt and on_table[card_at(suit, hi)] < 2):
                    break
                else:
                    gap = hi
                if hi - lo < 2:
                    continue
                if not gap:
                    n = add_run(info, cards, n, suit, lo, hi, 0, catalogue, values, cfg)
                elif naturals >= 2 and (lo < gap < hi or naturals == 2):
                    n = add_run(info, cards, n, suit, lo, hi, gap, catalogue, values, cfg)
    return n


@nb.njit(**JIT)
def add_extensions(own, meld, info, cards, n: int, values, cfg) -> int:
    """``meld`` = (slot, kind, key, lo, hi, suits bits, count)."""
    slot, kind, key, lo, hi, suits, count = meld[0], meld[1], meld[2], meld[3], meld[4], meld[5], meld[6]
    members = np.zeros(MAX_PIECE_CARDS, dtype=np.int64)
    base = cfg.layoff_offset + slot * cfg.layoff_codes
    if kind == KIND_SET:
        if count < 4:
            for suit in range(4):
                card = card_at(suit, key)
                if not (suits >> suit) & 1 and own[card] > 0:
                    members[0] = card
                    n = add_piece(info, cards, n, members, 1, natural_points(card, 0, cfg), values, False, base + card,
                                  slot * 3)
        return n
    for step, end in ((-1, 1), (1, 2)):
        edge = lo if step < 0 else hi
        size, total = 0, 0
        position = edge + step
        while 1 <= position <= 14 and size + hi - lo + 1 < LONGEST_RUN:
            card = card_at(key, position)
            repeats = 0
            for k in range(size):
                repeats += members[k] == card
            if own[card] <= 0 or repeats >= own[card]:
                break
            members[size] = card
            size += 1
            total += natural_points(card, position, cfg)
            n = add_piece(info, cards, n, members, size, total, values, False, base + members[0], slot * 3 + end)
            position += step
    return n


@nb.njit(**JIT)
def add_around(own, slot: int, choice: int, taken: int, info, cards, n: int, values, cfg) -> int:
    """New melds of ``taken`` (from ``slot``) and two hand naturals: the set of its rank, then runs."""
    rank, suit = rank_of(taken), suit_of(taken)
    action = cfg.take_offset + slot * 5 + choice
    members = np.zeros(MAX_PIECE_CARDS, dtype=np.int64)
    for a in range(4):  # combinations of the other suits, two at a time
        for b in range(a + 1, 4):
            if a != suit and b != suit:
                members[0], members[1] = card_at(a, rank), card_at(b, rank)
                if own[members[0]] > 0 and own[members[1]] > 0:
                    n = add_piece(info, cards, n, members, 2, 0, values, False, action, TAKE_END + slot)
    for option in range(3):
        if rank > 1:
            start = rank - 2 + option
        elif option < 2:
            start = 1 if option == 0 else 12
        else:
            break
        if not (1 <= start and start + 2 <= 14):
            continue
        size = 0
        for position in range(start, start + 3):
            card = card_at(suit, position)
            if card != taken:
                if size < 2:
                    members[size] = card
                size += 1
        if size == 2 and own[members[0]] > 0 and own[members[1]] > 0 and members[0] != members[1]:
            n = add_piece(info, cards, n, members, 2, 0, values, False, action, TAKE_END + slot)
    return n


@nb.njit(**JIT)
def plan(info, cards, n: int, have, need: int, need_pure: bool, required, keep: int, out) -> int:
    """The best combination of the ``n`` pieces for the goal (``need`` points, a pure run if ``need_pure``,
    ``required`` card counts laid, ``keep`` cards left), as piece indices in ``out`` in laying order; returns
    how many, or -1 when no combination meets the goal."""
    order = np.argsort(-info[:n, P_VALUE], kind="mergesort")
    room = -keep
    for card in range(have.shape[0]):
        room += have[card]
    total_points = 0
    for k in range(n):
        total_points += info[k, P_POINTS]
    if need > 0 and total_points < need:
        return -1
    suffix = np.zeros(n + 1, dtype=np.int64)
    for k in range(n - 1, -1, -1):
        suffix[k] = suffix[k + 1] + info[order[k], P_VALUE]
    used = np.zeros(have.shape[0], dtype=np.int64)
    ends = np.zeros(TAKE_END + 64, dtype=np.bool_)
    chosen = np.zeros(n + 1, dtype=np.int64)
    next_k = np.zeros(n + 2, dtype=np.int64)
    frame_points = np.zeros(n + 2, dtype=np.int64)
    frame_value = np.zeros(n + 2, dtype=np.int64)
    frame_laid = np.zeros(n + 2, dtype=np.int64)
    frame_pure = np.zeros(n + 2, dtype=np.bool_)
    best_value, best_size = -1, -1
    nodes = 1  # the root frame
    depth = 0
    if meets(0, False, need, need_pure, used, required) and 0 > best_value:
        best_value, best_size = 0, 0
    while True:
        k = next_k[depth]
        descended = False
        while k < n:
            if nodes > MAX_NODES or frame_value[depth] + suffix[k] <= best_value:
                k = n
                break
            piece = order[k]
            size = info[piece, P_LEN]
            end = info[piece, P_END]
            if frame_laid[depth] + size > room or (end >= 0 and ends[end]):
                k += 1
                continue
            fits = True
            for j in range(size):
                card = cards[piece, j]
                repeats = 0
                for m in range(size):
                    repeats += cards[piece, m] == card
                if used[card] + repeats > have[card]:
                    fits = False
                    break
            if not fits:
                k += 1
                continue
            next_k[depth] = k + 1
            for j in range(size):
                used[cards[piece, j]] += 1
            if end >= 0:
                ends[end] = True
            chosen[depth] = piece
            depth += 1
            next_k[depth] = k + 1
            frame_points[depth] = frame_points[depth - 1] + info[piece, P_POINTS]
            frame_value[depth] = frame_value[depth - 1] + info[piece, P_VALUE]
            frame_laid[depth] = frame_laid[depth - 1] + size
            frame_pure[depth] = frame_pure[depth - 1] or info[piece, P_PURE] == 1
            nodes += 1
            if frame_value[depth] > best_value and meets(frame_points[depth], frame_pure[depth], need, need_pure,
                                                         used, required):
                best_value, best_size = frame_value[depth], depth
                out[:depth] = chosen[:depth]
            descended = True
            break
        if descended:
            continue
        if depth == 0:
            break
        depth -= 1
        piece = chosen[depth]
        for j in range(info[piece, P_LEN]):
            used[cards[piece, j]] -= 1
        if info[piece, P_END] >= 0:
            ends[info[piece, P_END]] = False
    if best_size < 0:
        return -1
    if need_pure:  # a needed pure run first (a stable sort)
        tmp = out[:best_size].copy()
        k = 0
        for j in range(best_size):
            if info[tmp[j], P_PURE]:
                out[k] = tmp[j]
                k += 1
        for j in range(best_size):
            if not info[tmp[j], P_PURE]:
                out[k] = tmp[j]
                k += 1
    return best_size


@nb.njit(**JIT)
def meets(total_points: int, pure: bool, need: int, need_pure: bool, used, required) -> bool:
    if total_points < need or (need_pure and not pure):
        return False
    for card in range(required.shape[0]):
        if used[card] < required[card]:
            return False
    return True

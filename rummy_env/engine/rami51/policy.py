"""Compiled policies of the rami51 family (R5-R25) for rollouts: ``RandomAgent`` and ``RamiHeuristicAgent``,
decision for decision (``engine/search/rollout.py`` states the random number convention; ``tests/test_rollout.py``
checks the equivalence on many states).

The heuristic reads what ``RamiHeuristicAgent`` reads from the observation (the record's public fields: own
hand, the table slot by slot, the turn's state) and plans with the planner the agent calls too (``plan_actions``,
``engine.rami51.planner``). Where the Python agent reads its mask, this one asks ``legal_reason`` for just the
actions it considers, in the order the agent considers them, which decides the same; the full mask (its
searches) is computed only by the random policy.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.actions import COMMIT, DRAW_DISCARD, DRAW_STOCK, TAKE_BACK, TAKE_HIGH_END, TAKE_LOW_END, UNDO
from rummy_env.cards import JOKER
from rummy_env.engine.config import FINAL_REQUIRED, PREVENT_DEAD_ENDS
from rummy_env.engine.search.ismcts import make_ismcts
from rummy_env.engine.jit import JIT
from rummy_env.engine import reasons as why
from rummy_env.engine.rami51.moves import discard_card_check, discard_turn_check
from rummy_env.engine.rami51.planner import (
    MAX_PIECE_CARDS, MAX_PIECES, P_ACTION, add_around, add_extensions, add_runs, add_sets, plan,
)
from rummy_env.engine.rami51.search import worker_buffers
from rummy_env.engine.rami51.step import kernels, made_once
from rummy_env.engine.search.rollout import POLICY_RANDOM, Policies, held_types, make_rollouts
from rummy_env.engine.state import PHASE_DRAW, PHASE_PLAY
from rummy_env.engine.table import card_at, rank_of, slot_cards, suit_of
from rummy_env.melds import KIND_RUN, KIND_SET
from rummy_env.sampling import pick_legal_row

JOKER_WEIGHT = 1000.0
POLICIES: dict = {}  # dead_ends -> Policies, made on first use (``policies_for``)


@nb.njit(**JIT)
def gap(a: int, b: int) -> int:
    """Distance of two naturals of one suit along a run, the ace at both ends (``partner_matrices``)."""
    ra, rb = rank_of(a), rank_of(b)
    return min(abs(ra - rb), abs((ra if ra > 1 else 14) - (rb if rb > 1 else 14)))


@nb.njit(**JIT)
def relation(a: int, b: int) -> int:
    """0 none, 1 same rank, 2 same suit one apart, 3 same suit two apart (naturals; the joker has none)."""
    if a >= JOKER or b >= JOKER or a == b:
        return 0
    if rank_of(a) == rank_of(b):
        return 1
    if suit_of(a) == suit_of(b):
        distance = gap(a, b)
        return 2 if distance == 1 else 3 if distance == 2 else 0
    return 0


# ---------------------------------------------------------------------------------------- the table
@nb.njit(**JIT)
def table_view(r, slots):
    """``slots[s]``: the card counts of table slot ``s`` (the observation's ``slot_cards``)."""
    slots[:, :] = 0
    for slot in range(r.slot_n):
        slot_cards(r, slot, slots[slot])


@nb.njit(**JIT)
def observed_joker(r, slot: int) -> int:
    """The observation's ``slot_joker``: the joker's position plus 1, 0 for none or undetermined."""
    return r.slot_joker[slot] + 1 if r.slot_jokers[slot] > 0 else 0


@nb.njit(**JIT)
def table_melds(r, opened: bool, slots, melds, cfg) -> int:
    """The melds the player may extend (``RamiHeuristicAgent._table``) as rows of ``melds``; returns how many."""
    m = 0
    for slot in range(r.slot_n):
        if r.slot_kind[slot] == 0 or not (opened or cfg.opening_may_use_table or r.slot_tentative[slot]):
            continue
        count, first, suits, lowest, highest, has_ace = 0, -1, 0, 99, -99, False
        for t in range(JOKER + 1):
            count += slots[slot, t]
        joker = observed_joker(r, slot)
        for t in range(JOKER):
            if slots[slot, t] > 0:
                if first < 0:
                    first = t
                suits |= 1 << suit_of(t)
                rank = rank_of(t)
                if rank == 1:
                    has_ace = True
                else:
                    lowest, highest = min(lowest, rank), max(highest, rank)
        if r.slot_kind[slot] == KIND_SET:
            melds[m, 0], melds[m, 1], melds[m, 2], melds[m, 5], melds[m, 6] = slot, KIND_SET, rank_of(first), suits, count
            m += 1
        elif not cfg.circular_runs:
            if joker:
                lowest, highest = min(lowest, joker - 1), max(highest, joker - 1)
            found = False
            for option in range(3 if has_ace else 1):
                lo, hi = lowest, highest
                if has_ace:
                    if option != 1:
                        lo = min(lo, 1)
                    if option != 0:
                        hi = max(hi, 14)
                if hi - lo + 1 == count:
                    found = True
                    break
            if found:
                melds[m, 0], melds[m, 1], melds[m, 2], melds[m, 3], melds[m, 4] = slot, KIND_RUN, suit_of(first), lo, hi
                melds[m, 6] = count
                m += 1
    return m


@nb.njit(**JIT)
def table_takes(r, melds, m: int, slots, takes, cfg) -> int:
    """``(slot, choice, card)`` of every natural a TAKE may remove (``RamiHeuristicAgent._takes``)."""
    if not cfg.allow_take_from_meld:
        return 0
    n = 0
    for k in range(m):
        slot = melds[k, 0]
        count = 0
        for t in range(JOKER + 1):
            count += slots[slot, t]
        if count < 4 or (r.slot_owner[slot] == r.current and not cfg.take_from_own_melds):
            continue
        if melds[k, 1] == KIND_SET:
            for suit in range(4):
                if (melds[k, 5] >> suit) & 1:
                    takes[n, 0], takes[n, 1], takes[n, 2] = slot, suit, card_at(suit, melds[k, 2])
                    n += 1
            continue
        for choice in range(TAKE_HIGH_END + 1):
            position = melds[k, 3] if choice == TAKE_LOW_END else melds[k, 4]
            if observed_joker(r, slot) != position + 1:
                takes[n, 0], takes[n, 1], takes[n, 2] = slot, choice, card_at(melds[k, 2], position)
                n += 1
    return n


# ---------------------------------------------------------------------------------------- plans
@nb.njit(**JIT)
def make_plan(r, hand, pending, opened: bool, need: int, need_pure: bool, required, tabs, cfg, out) -> int:
    """The planner's pieces for ``hand`` over the table of record ``r`` and the best plan (-1: none)."""
    slots = np.zeros((r.slot_kind.shape[0], JOKER + 1), dtype=np.int64)
    table_view(r, slots)
    melds = np.zeros((r.slot_kind.shape[0], 7), dtype=np.int64)
    m = table_melds(r, opened, slots, melds, cfg)
    takes = np.zeros((4 * r.slot_kind.shape[0], 3), dtype=np.int64)
    t = table_takes(r, melds, m, slots, takes, cfg) if opened else 0
    return plan_actions(hand, pending, slots.sum(axis=0), melds[:m], takes[:t], need, need_pure, required, tabs, cfg,
                        out)


@nb.njit(**JIT)
def plan_actions(hand, pending, on_table, melds, takes, need: int, need_pure: bool, required, tabs, cfg, out) -> int:
    """The pieces of ``hand`` (new melds; extensions of ``melds``, rows ``(slot, kind, key, lo, hi, suits bits,
    count)``, by own cards only: ``pending`` cards go into new melds, R13; new melds around a card of ``takes``, rows
    ``(slot, choice, card)``) and the best plan for the goal (``need`` opening points, a pure run if ``need_pure``,
    the ``required`` cards laid, R10, R11, R13): its pieces' first actions in ``out``, their number, or -1 when no
    plan meets the goal. The compiled heuristic and ``RamiHeuristicAgent`` both plan with it."""
    catalogue, values = tabs.catalogue, tabs.values
    info = np.empty((MAX_PIECES, 6), dtype=np.int64)  # add_piece writes every entry it reads back
    cards = np.empty((MAX_PIECES, MAX_PIECE_CARDS), dtype=np.int64)
    n = add_sets(hand, info, cards, 0, catalogue, values, cfg)
    n = add_runs(hand, on_table, info, cards, n, catalogue, values, cfg)
    own = hand - pending
    for k in range(melds.shape[0]):
        n = add_extensions(own, melds[k], info, cards, n, values, cfg)
    for k in range(takes.shape[0]):
        n = add_around(own, takes[k, 0], takes[k, 1], takes[k, 2], info, cards, n, values, cfg)
    chosen = np.zeros(n + 1, dtype=np.int64)
    size = plan(info, cards, n, hand, need, need_pure, required, 1 if cfg.final_discard == FINAL_REQUIRED else 0,
                chosen)
    for k in range(max(size, 0)):
        out[k] = info[chosen[k], P_ACTION]
    return size


@nb.njit(**JIT)
def wants_top(r, tabs, cfg) -> bool:
    """Opened: under ``dead_ends = "prevent"`` the mask decides, under ``"take_back"`` a plan must lay the discard
    top. Not opened: an opening must lay it (``_wants_top``)."""
    p = r.current
    opened = r.opened[p] != 0
    if opened and cfg.dead_ends == PREVENT_DEAD_ENDS:
        return True
    hand = r.hand[p].astype(np.int64)
    top = r.pile[r.pile_n - 1]
    hand[top] += 1
    required = np.zeros(JOKER + 1, dtype=np.int64)
    required[top] = 1
    need = 0 if opened else cfg.discard_pickup_min_lay if cfg.discard_pickup_min_lay > 0 else cfg.opening_threshold
    out = np.empty(MAX_PIECES, dtype=np.int64)
    return make_plan(r, hand, np.zeros(JOKER + 1, dtype=np.int64), opened, need,
                     not opened and cfg.opening_requires_pure_run != 0, required, tabs, cfg, out) >= 0


# ---------------------------------------------------------------------------------------- discards
@nb.njit(**JIT)
def discard_choice(r, tabs, cfg) -> int:
    """``RamiHeuristicAgent._discards`` for one row, with the same floating-point operations: the card type to
    discard, or -1 when no discard is legal."""
    p = r.current
    values = tabs.values
    opened = r.opened[p] != 0
    now, later = table_fits(r)
    held, n = held_types(r.hand[p], JOKER)
    run_weight = 1.0 if opened else 1.5
    later_weight = 0.4 if opened else 0.0
    sign = -1.0 if opened else 1.0
    best, best_score = -1, np.inf
    turn_ends = discard_turn_check(r, True, cfg) == why.LEGAL  # a DISCARD's legality has no look-ahead (R23, R25)
    for t in range(JOKER + 1):
        if not turn_ends or discard_card_check(r, t) != why.LEGAL:
            continue
        same, next_to, two = 0.0, 0.0, 0.0
        for k in range(n):
            kind = relation(held[k], t)
            if kind == 1:
                same += r.hand[p, held[k]]
            elif kind == 2:
                next_to += r.hand[p, held[k]]
            elif kind == 3:
                two += 0.5 * r.hand[p, held[k]]
        useful = same + run_weight * (next_to + two) - 0.5 * (1.0 if r.hand[p, t] > 1 else 0.0)
        useful += now[t] + later_weight * later[t]
        if t == JOKER:
            useful = JOKER_WEIGHT
        score = useful + (0.01 * sign) * values[t]
        if best < 0 or score < best_score:
            best, best_score = t, score
    return best


@nb.njit(**JIT)
def table_fits(r) -> tuple:
    """Per natural, 1.0 if it fits a table meld now (next to a run's card, or a set's missing suit while the
    set has fewer than 4 cards) and if it lies two beyond a run's card (and not next to it): ``_table_fits``."""
    now = np.zeros(JOKER + 1)
    later = np.zeros(JOKER + 1)
    members = np.zeros(JOKER + 1, dtype=np.int64)
    near = np.zeros(JOKER + 1, dtype=np.bool_)
    far = np.zeros(JOKER + 1, dtype=np.bool_)
    same = np.zeros(JOKER + 1, dtype=np.bool_)
    for slot in range(r.slot_n):
        kind = r.slot_kind[slot]
        if kind == 0:
            continue
        members[:] = 0
        slot_cards(r, slot, members)
        near[:], far[:], same[:] = False, False, False
        present = 0
        for m in range(JOKER + 1):
            if members[m] == 0:
                continue
            present += 1
            for t in range(JOKER):
                relation_kind = relation(m, t)
                near[t] |= relation_kind == 2
                far[t] |= relation_kind == 3
                same[t] |= relation_kind == 1
        for t in range(JOKER):
            if members[t] > 0:
                continue
            if kind == KIND_RUN and near[t] or kind == KIND_SET and present < 4 and same[t]:
                now[t] = 1.0
            if kind == KIND_RUN and far[t] and not near[t]:
                later[t] = 1.0
    return now, later


# ---------------------------------------------------------------------------------------- the policies
def policies_for(dead_ends: str) -> Policies:
    """The compiled policies and rollout loops under ``dead_ends`` (``step.kernels``: the mode is fixed when they
    compile), made once per process."""
    return made_once(POLICIES, dead_ends, make_policies)


def make_policies(dead_ends: str) -> Policies:
    """The policies of ``dead_ends``, made afresh (``policies_for`` keeps them)."""
    rules_kernels = kernels(dead_ends)
    legal_reason, mask_row, play = rules_kernels.legal_reason, rules_kernels.mask_row, rules_kernels.drivers.play

    @nb.njit(**JIT)
    def legal(r, action: int, work, tabs, cfg) -> bool:
        return legal_reason(r, action, work, tabs, cfg) == 0

    @nb.njit(**JIT)
    def play_action(r, work, tabs, cfg) -> int:
        """``RamiHeuristicAgent._play``: the play to make, or -1 to discard."""
        p = r.current
        opened = r.opened[p] != 0
        if not opened and legal(r, COMMIT, work, tabs, cfg):
            return COMMIT
        if opened:
            for slot in range(r.slot_n):
                if r.slot_jokers[slot] > 0 and legal(r, cfg.swap_offset + slot, work, tabs, cfg):
                    return cfg.swap_offset + slot
        hand = r.hand[p].astype(np.int64)
        pending = r.pending.astype(np.int64)
        required = pending.copy()  # the turn's obligations (``_goal``)
        if r.taken >= 0 and not r.taken_laid:
            required[r.taken] += 1
        required[JOKER] += r.freed_jokers
        need, need_pure = 0, False
        if not opened:
            threshold = cfg.discard_pickup_min_lay if r.taken >= 0 and cfg.discard_pickup_min_lay >= 0 \
                else cfg.opening_threshold
            need = max(threshold - r.turn_points, 0)
            mine = False
            slots = np.zeros((r.slot_kind.shape[0], JOKER + 1), dtype=np.int64)
            table_view(r, slots)
            for slot in range(r.slot_n):
                if r.slot_tentative[slot] > 0 and r.slot_kind[slot] == KIND_RUN and slots[slot, JOKER] == 0:
                    mine = True
            need_pure = cfg.opening_requires_pure_run != 0 and not mine
        actions = np.empty(MAX_PIECES, dtype=np.int64)
        for k in range(make_plan(r, hand, pending, opened, need, need_pure, required, tabs, cfg, actions)):
            if legal(r, actions[k], work, tabs, cfg):
                return actions[k]
        if opened and r.hand_n[p] <= 2 and hand[JOKER] > 0:
            for slot in range(r.slot_n):  # an empty slot takes no lay-off
                for code in (JOKER, JOKER + 1):
                    action = cfg.layoff_offset + slot * cfg.layoff_codes + code
                    if legal(r, action, work, tabs, cfg):
                        return action
        if not opened and r.tentative and legal(r, UNDO, work, tabs, cfg):
            return UNDO
        if discard_turn_check(r, True, cfg) == why.LEGAL:  # a DISCARD's legality has no look-ahead (R23, R25)
            for card in range(JOKER + 1):
                if discard_card_check(r, card) == why.LEGAL:
                    return -1
        if legal(r, TAKE_BACK, work, tabs, cfg):  # the plan broke down and no undo is left (R25)
            return TAKE_BACK
        for action in range(COMMIT, cfg.discard_offset):  # ``_any_play``: the first legal play but UNDO
            if action != UNDO and legal(r, action, work, tabs, cfg):
                return action
        return first_legal(r, work, tabs, cfg)

    @nb.njit(**JIT)
    def first_legal(r, work, tabs, cfg) -> int:
        for action in range(cfg.num_actions):
            if legal(r, action, work, tabs, cfg):
                return action
        return 0

    @nb.njit(**JIT)
    def discard_action(r, work, tabs, cfg) -> int:
        best = discard_choice(r, tabs, cfg)
        return cfg.discard_offset + best if best >= 0 else first_legal(r, work, tabs, cfg)

    @nb.njit(**JIT)
    def heuristic_action(r, work, tabs, cfg) -> int:
        """``RamiHeuristicAgent``'s action for the player to act in ``r``."""
        if r.phase == PHASE_DRAW:
            stock = r.stock_n > 0
            if (not stock or wants_top(r, tabs, cfg)) and legal(r, DRAW_DISCARD, work, tabs, cfg):
                return DRAW_DISCARD
            return DRAW_STOCK
        if r.phase != PHASE_PLAY:
            return 0
        action = play_action(r, work, tabs, cfg)
        return action if action >= 0 else discard_action(r, work, tabs, cfg)

    @nb.njit(**JIT)
    def choose(r, code: int, u: float, mask, work, tabs, cfg) -> int:
        """The action of policy ``code`` (``engine.search.rollout``) for the player to act in ``r``."""
        if code == POLICY_RANDOM:
            mask_row(r, mask, work, tabs, cfg)
            return pick_legal_row(mask, u)
        return heuristic_action(r, work, tabs, cfg)

    tag = f"rami51.{dead_ends}"
    play_out, play_out_rows, choose_rows, evaluate = make_rollouts(play, choose, worker_buffers, tag)
    return Policies(play_out, play_out_rows, choose_rows, evaluate,
                    make_ismcts(play, mask_row, play_out, worker_buffers, tag))


def policies(rules) -> Policies:
    """The compiled policies and rollout loops of ``rules`` (a rami51 ``RummyRules``)."""
    return policies_for(rules.dead_ends)

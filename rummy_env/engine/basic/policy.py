"""Compiled policies of the basic family (B6-B10) for rollouts: ``RandomAgent`` and ``HeuristicAgent``, decision
for decision (``engine/search/rollout.py`` states the random number convention; ``tests/test_rollout.py`` checks the
equivalence on many states).

The heuristic, as ``rummy_env.agents.heuristic_agent`` documents it: take the discard top when it makes a
catalogue meld with two hand cards or fits a table meld, else draw from the stock; lay the legal new meld worth
the most points, else lay off the most valuable legal card; else discard the legal card with the fewest meld
partners in the hand (same rank; same suit, one or two ranks apart), the most valuable among those. Ties go to
the lowest action id, as ``argmax``/``argmin`` break them.
"""

from __future__ import annotations

import numba as nb

from rummy_env.actions import DRAW_DISCARD, DRAW_STOCK
from rummy_env.engine.basic.step import DRIVERS, mask_row, slot_fit, worker_buffers
from rummy_env.engine.search.ismcts import make_ismcts
from rummy_env.engine.jit import JIT
from rummy_env.engine.search.rollout import POLICY_RANDOM, Policies, held_types, make_rollouts
from rummy_env.engine.state import PHASE_DRAW
from rummy_env.engine.table import card_bit, rank_of, suit_of
from rummy_env.sampling import pick_legal_row


@nb.njit(**JIT)
def partners(a: int, b: int) -> bool:
    """``b`` could join ``a`` in a meld: same rank, or same suit and one or two ranks apart."""
    if a == b:
        return False
    if rank_of(a) == rank_of(b):
        return True
    return suit_of(a) == suit_of(b) and abs(rank_of(a) - rank_of(b)) <= 2


@nb.njit(**JIT)
def wants_top(r, p: int, catalogue_bits, cfg) -> bool:
    """The discard top makes a catalogue meld with two hand cards, or fits a table meld."""
    top = r.pile[r.pile_n - 1]
    top_bit = card_bit(top)
    hand = top_bit
    for card in range(cfg.num_card_types):
        if r.hand[p, card] > 0:
            hand |= card_bit(card)
    for entry in range(cfg.num_melds):
        if catalogue_bits[entry] & top_bit and catalogue_bits[entry] & ~hand == 0:
            return True
    for slot in range(r.slot_n):
        if slot_fit(r, slot, top, cfg) != 0:
            return True
    return False


@nb.njit(**JIT)
def heuristic_action(r, mask, tabs, cfg) -> int:
    """``HeuristicAgent``'s action for the player to act in ``r``, given its exact mask."""
    p = r.current
    catalogue, values = tabs.catalogue, tabs.values
    if r.phase == PHASE_DRAW:
        if mask[DRAW_DISCARD] and r.pile_n > 0 and wants_top(r, p, tabs.catalogue_bits, cfg):
            return DRAW_DISCARD
        return DRAW_STOCK if mask[DRAW_STOCK] else DRAW_DISCARD
    best, best_value = -1, -1.0
    for entry in range(cfg.num_melds):
        if mask[cfg.meld_offset + entry]:
            value = values[catalogue[entry, 0]] + values[catalogue[entry, 1]] + values[catalogue[entry, 2]]
            if best < 0 or value > best_value:
                best, best_value = cfg.meld_offset + entry, value
    if best >= 0:
        return best
    types = cfg.num_card_types
    for action in range(cfg.layoff_offset, cfg.discard_offset):
        if mask[action]:
            value = values[(action - cfg.layoff_offset) % types]
            if best < 0 or value > best_value:
                best, best_value = action, value
    if best >= 0:
        return best
    held, n = held_types(r.hand[p], types)
    best_score = 0.0
    for card in range(types):
        if mask[cfg.discard_offset + card]:
            useful = 0
            for k in range(n):
                if partners(card, held[k]):
                    useful += r.hand[p, held[k]]
            score = useful * 1000.0 - values[card]
            if best < 0 or score < best_score:
                best, best_score = cfg.discard_offset + card, score
    return best


@nb.njit(**JIT)
def choose(r, code: int, u: float, mask, work, tabs, cfg) -> int:
    """The action of policy ``code`` (``engine.search.rollout``) for the player to act in ``r``."""
    mask_row(r, mask, work, tabs, cfg)
    if code == POLICY_RANDOM:
        return pick_legal_row(mask, u)
    return heuristic_action(r, mask, tabs, cfg)


play_out, play_out_rows, choose_rows, evaluate = make_rollouts(DRIVERS.play, choose, worker_buffers, "basic")
POLICIES = Policies(play_out, play_out_rows, choose_rows, evaluate,
                    make_ismcts(DRIVERS.play, mask_row, play_out, worker_buffers, "basic"))


def policies(rules) -> Policies:
    """The compiled policies and rollout loops, one set for every basic rules."""
    return POLICIES

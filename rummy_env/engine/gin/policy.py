"""Compiled policies of the gin family (G3-G10) for rollouts: ``RandomAgent`` and ``GinHeuristicAgent``, decision
for decision (``engine/search/rollout.py`` states the random number convention; ``tests/test_rollout.py`` checks the
equivalence on many states).

The heuristic, as ``rummy_env.agents.gin_heuristic_agent`` documents it: knock as soon as it may (at the wall
too, else pass); take the upcard when, after the best discard, the hand could knock, or the card joins a meld
of the best arrangement and lowers the deadwood by at least ``TAKE_GAIN``; discard the card leaving the least
deadwood, then the fewest live partners, then the fewest partners among the cards the opponent took face
up, then the highest; as knocker or defender lay the best arrangement meld by meld; as defender lay off
every card whose removal lowers the deadwood. Ties go to the lowest action id.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.actions import DRAW_DISCARD, DRAW_STOCK, KNOCK, PASS
from rummy_env.engine.gin import deadwood as D
from rummy_env.engine.gin.step import DRIVERS, mask_row, worker_buffers
from rummy_env.engine.jit import JIT
from rummy_env.engine.search.ismcts import make_ismcts
from rummy_env.engine.search.rollout import POLICY_RANDOM, Policies, make_rollouts
from rummy_env.engine.state import PHASE_DEFEND, PHASE_KNOCK, PHASE_LAYOFF, PHASE_WALL
from rummy_env.engine.table import slot_cards
from rummy_env.sampling import pick_legal_row

TAKE_GAIN = 4  # GinHeuristicAgent's default take_gain


@nb.njit(**JIT)
def partners(card: int, pool: np.uint64) -> int:
    """Cards of ``pool`` that could share a meld with ``card``: its rank in another suit, suit neighbours 1-2
    ranks away."""
    rank, suit = card % 13, card // 13
    count = 0
    for other in range(4):
        if other != suit:
            count += int(pool >> np.uint64(other * 13 + rank) & np.uint64(1))
    for step in (-2, -1, 1, 2):
        if 0 <= rank + step < 13:
            count += int(pool >> np.uint64(suit * 13 + rank + step) & np.uint64(1))
    return count


@nb.njit(**JIT)
def takes_upcard(r, hand: np.uint64, ubuf, ibuf, cfg) -> bool:
    """The heuristic's draw: the upcard lets it knock after its best discard, or joins a meld and lowers the
    deadwood by ``TAKE_GAIN``."""
    upcard = r.pile[r.pile_n - 1]
    with_it = hand | D.bit(upcard)
    avoid = D.bit(upcard) if cfg.forbid_discarding_taken_card else np.uint64(0)
    after = D.knock_figures(with_it, avoid, ubuf, ibuf)[0]  # the least deadwood after the best allowed discard
    if after <= r.knock_limit:
        return True
    groups = np.zeros(D.MAX_DEPTH, dtype=np.uint64)
    melded = False
    for k in range(D.best_arrangement(with_it, ubuf, ibuf, groups)):
        melded |= groups[k] & D.bit(upcard) != 0
    return melded and after <= D.deadwood(hand, ubuf, ibuf) - TAKE_GAIN


@nb.njit(**JIT)
def discard_action(r, p: int, hand: np.uint64, mask, ubuf, ibuf, cfg) -> int:
    """The legal discard leaving the least deadwood, then the fewest live partners, then the fewest the
    opponent wants, then the highest card."""
    dead = np.zeros(52, dtype=np.int64)
    for k in range(r.pile_n):
        dead[r.pile[k]] = 1
    for slot in range(r.slot_n):
        slot_cards(r, slot, dead, 0)
    dead_bits, wanted = np.uint64(0), np.uint64(0)
    for card in range(52):
        if dead[card] > 0:
            dead_bits |= D.bit(card)
        if r.known[1 - p, card] > 0:
            wanted |= D.bit(card)
    best, key0, key1, key2, key3 = -1, 0, 0, 0, 0
    for card in range(52):
        action = cfg.discard_offset + card
        if not mask[action]:
            continue
        rest = hand & ~D.bit(card)
        k0, k1 = D.deadwood(rest, ubuf, ibuf), partners(card, rest & ~dead_bits)
        k2, k3 = partners(card, wanted), -D.card_value(card)
        if best < 0 or (k0, k1, k2, k3) < (key0, key1, key2, key3):
            best, key0, key1, key2, key3 = action, k0, k1, k2, k3
    return best


@nb.njit(**JIT)
def meld_action(hand: np.uint64, mask, ubuf, ibuf, tabs, cfg) -> int:
    """The first legal meld of the hand's best arrangement, else PASS."""
    groups = np.zeros(D.MAX_DEPTH, dtype=np.uint64)
    for k in range(D.best_arrangement(hand, ubuf, ibuf, groups)):
        for entry in range(cfg.num_melds):
            if tabs.catalogue_bits[entry] == groups[k] and mask[cfg.meld_offset + entry]:
                return cfg.meld_offset + entry
    return PASS


@nb.njit(**JIT)
def layoff_action(hand: np.uint64, mask, ubuf, ibuf, cfg) -> int:
    """The first legal lay-off that lowers the deadwood, else PASS."""
    now = D.deadwood(hand, ubuf, ibuf)
    for card in range(52):
        if mask[cfg.layoff_offset + card] and D.deadwood(hand & ~D.bit(card), ubuf, ibuf) < now:
            return cfg.layoff_offset + card
    return PASS


@nb.njit(**JIT)
def heuristic_action(r, mask, work, tabs, cfg) -> int:
    """``GinHeuristicAgent``'s action for the player to act in ``r``, given its exact mask."""
    p = r.current
    ubuf, ibuf = work
    hand = D.hand_mask(r.hand[p])
    if r.phase == PHASE_WALL:
        return KNOCK if mask[KNOCK] else PASS
    if mask[KNOCK]:
        return KNOCK
    if mask[DRAW_DISCARD] or mask[DRAW_STOCK]:
        if mask[DRAW_DISCARD] and r.pile_n > 0 and takes_upcard(r, hand, ubuf, ibuf, cfg):
            return DRAW_DISCARD
        if mask[DRAW_STOCK]:
            return DRAW_STOCK
        return PASS if mask[PASS] else pick_legal_row(mask, 0.0)
    if r.phase == PHASE_LAYOFF:
        return layoff_action(hand, mask, ubuf, ibuf, cfg)
    best = discard_action(r, p, hand, mask, ubuf, ibuf, cfg)
    if best >= 0:
        return best
    if r.phase == PHASE_KNOCK or r.phase == PHASE_DEFEND:
        return meld_action(hand, mask, ubuf, ibuf, tabs, cfg)
    return pick_legal_row(mask, 0.0)


@nb.njit(**JIT)
def choose(r, code: int, u: float, mask, work, tabs, cfg) -> int:
    """The action of policy ``code`` (``engine.search.rollout``) for the player to act in ``r``."""
    mask_row(r, mask, work, tabs, cfg)
    if code == POLICY_RANDOM:
        return pick_legal_row(mask, u)
    return heuristic_action(r, mask, work, tabs, cfg)


play_out, play_out_rows, choose_rows, evaluate = make_rollouts(DRIVERS.play, choose, worker_buffers, "gin")
POLICIES = Policies(play_out, play_out_rows, choose_rows, evaluate,
                    make_ismcts(DRIVERS.play, mask_row, play_out, worker_buffers, "gin"))


def policies(rules) -> Policies:
    """The compiled policies and rollout loops, one set for every gin rules."""
    return POLICIES

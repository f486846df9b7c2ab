"""Single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012), compiled, for every family.

One tree from the searching seat's view: a node is a sequence of actions from the root (action ids are public:
a draw from the stock is one edge whatever card it brings), every seat's moves in the same tree. Each iteration

1. takes the next world of the belief (``rummy_env.beliefs``): the determinization;
2. descends from the root, playing in that world: at a node, the actions legal *in this world* are the
   available ones; an available action without a child is expanded (the first in id order), else the child
   with the best UCB ``W/N + c * sqrt(ln(A)/N)`` is followed, ``A`` counting the iterations in which the child
   was available (the ISMCTS form of UCB);
3. plays the rest of the hand out with the compiled rollout policy (``engine.search.rollout``);
4. credits every node of the path with the share of the hand (``hand_won``) of the seat that moved into it.

The tree lives in arrays owned by the caller (``tree_arrays``), so a search can run in chunks of iterations
(a time budget) and grow the same tree; the move chosen is the root's most visited child.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.engine.common import over, seeded_state
from rummy_env.engine.jit import JIT, fix_identities
from rummy_env.engine.search.rollout import hand_won

# tree columns (int64): action, parent, first child, next sibling, mover; (float64): visits, wins, available
ACTION, PARENT, CHILD, SIBLING, MOVER = range(5)
VISITS, WINS, AVAILABLE = range(3)


def tree_arrays(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Empty tree storage for ``nodes`` nodes, the root (node 0) in place."""
    links = np.full((nodes, 5), -1, dtype=np.int64)
    counts = np.zeros((nodes, 3))
    return links, counts


def make_ismcts(play, mask_row, play_out, worker_buffers, tag: str):
    """The ISMCTS iterations of one family (module docstring); ``tag`` names the family's closures
    (``jit.fix_identities``)."""

    @nb.njit(**JIT)
    def child_of(links, node: int, action: int) -> int:
        child = links[node, CHILD]
        while child >= 0:
            if links[child, ACTION] == action:
                return child
            child = links[child, SIBLING]
        return -1

    @nb.njit(**JIT)
    def add_child(links, counts, size: int, node: int, action: int, mover: int) -> int:
        counts[size, :] = 0.0
        links[size, ACTION] = action
        links[size, PARENT] = node
        links[size, CHILD] = -1
        links[size, MOVER] = mover
        links[size, SIBLING] = links[node, CHILD]
        links[node, CHILD] = size
        return size

    @nb.njit(**JIT)
    def iterate(links, counts, size: int, worlds, world_undos, first: int, iterations: int, codes,
                seed: np.uint64, exploration: float, work, tabs, cfgs, cap: int, scratch, scratch_undo) -> int:
        """Run ``iterations`` iterations, the ``i``-th on world ``(first + i) % len(worlds)``; returns the
        tree's new size (nodes in use). Stops early when the arrays are full."""
        cfg = cfgs[0]
        own = worker_buffers(work, 0)
        mask = np.zeros(cfg.num_actions, dtype=np.int8)
        seen = np.empty(cfg.num_card_types, dtype=np.int8)
        prng = np.zeros(1, dtype=np.uint64)
        path = np.zeros(links.shape[0], dtype=np.int64)
        for i in range(iterations):
            if size >= links.shape[0]:
                break
            k = (first + i) % worlds.shape[0]
            scratch[0] = worlds[k]
            scratch_undo[0] = world_undos[k]
            r = scratch[0]
            node, depth = 0, 0
            expanded = False
            while not over(r) and not expanded:
                mask_row(r, mask, own, tabs, cfg)
                best, best_score, untried = -1, -1.0, -1
                for action in range(cfg.num_actions):
                    if not mask[action]:
                        continue
                    child = child_of(links, node, action)
                    if child < 0:
                        if untried < 0:
                            untried = action
                        continue
                    counts[child, AVAILABLE] += 1.0
                    visits = counts[child, VISITS]
                    score = counts[child, WINS] / visits + exploration * np.sqrt(np.log(counts[child, AVAILABLE])
                                                                                 / visits)
                    if best < 0 or score > best_score:
                        best, best_score = child, score
                if untried >= 0:  # expand the first untried action
                    best = add_child(links, counts, size, node, untried, r.current)
                    size += 1
                    expanded = True
                if best < 0:
                    break
                play(scratch, scratch_undo, links[best, ACTION], own, tabs, cfg, seen)
                node = best
                depth += 1
                path[depth] = node
            prng[0] = seeded_state(seed + np.uint64(first + i))
            play_out(scratch, scratch_undo, codes, prng, mask, own, tabs, cfg, cap)
            counts[0, VISITS] += 1.0
            for d in range(1, depth + 1):
                n = path[d]
                counts[n, VISITS] += 1.0
                counts[n, WINS] += hand_won(scratch[0], links[n, MOVER], cfg)
        return size

    fix_identities(tag, iterate)
    return iterate

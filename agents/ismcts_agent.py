"""``ISMCTSAgent``: single-observer information-set Monte Carlo tree search (Cowling, Powley and Whitehouse
2012) on the batched engine.

Per decision with more than one legal action, ``iterations`` iterations (or as many as the time bank of
``seconds`` per decision on average allows, in chunks of ``chunk``, at most ``iterations``) each determinize
with the next of ``worlds`` worlds of the belief, taken in turn (``rummy_env.beliefs``; the oracle keeps the
other hands), descend the one tree of the searching seat's view with UCB over the actions available in that
world (``exploration``), expand a node, play the hand out with the compiled rollout policy and credit the
path (``rummy_env.engine.search.ismcts``). The move is the root's most
visited child. Every decision of a turn is searched alike: draws, melds, lay-offs, discards (and COMMIT,
UNDO, TAKE, SWAP in rami51).

    agent = ISMCTSAgent(rules, iterations=2000)          # arena spec "ismcts:iterations=2000"
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from rummy_env.agents.search import ROLLOUT_CAP, SearchAgent
from rummy_env.engine.search.ismcts import ACTION, CHILD, SIBLING, VISITS, tree_arrays
from rummy_env.rules import RummyRules

OPTIONS = {"iterations": int, "seconds": float, "exploration": float, "worlds": int, "belief": str, "rollout": str,
           "burn": int, "thin": int, "chunk": int, "blueprint": str}


class ISMCTSAgent(SearchAgent):
    """See the module docstring."""

    def __init__(self, rules: RummyRules, iterations: int = 1000, seconds: float | None = None,
                 exploration: float = 0.7, worlds: int = 128, blueprint: Any = "heuristic", rollout: str = "heuristic",
                 belief: str = "uniform", oracle: bool = False, burn: int = 500, thin: int = 50, chunk: int = 100):
        for name, value in (("iterations", iterations), ("worlds", worlds), ("chunk", chunk)):
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        if not (math.isfinite(exploration) and exploration >= 0):
            raise ValueError(f"exploration must be a finite number >= 0, got {exploration!r}")
        super().__init__(rules, blueprint, rollout, belief, oracle, burn, thin, seconds)
        self.iterations, self.exploration, self.chunk = iterations, exploration, chunk
        self.max_worlds = worlds
        self.links, self.counts = tree_arrays(iterations + 1)

    def decide(self, record: np.ndarray, undo: np.ndarray, legal: np.ndarray, anchor: int, seed: int) -> int:
        started = time.process_time()
        worlds = self.worlds(record, undo, min(self.max_worlds, self.iterations), seed)
        links, counts = self.links, self.counts
        links[0] = -1
        counts[0] = 0.0
        size, done = 1, 0
        step = self.chunk if self.seconds is not None else self.iterations
        while done < self.iterations:
            count = min(step, self.iterations - done)
            size = self.kernels.ismcts_iterate(links, counts, size, worlds.records, worlds.undo, done, count,
                                               self.codes, np.uint64(seed % 2**64), self.exploration, self.work,
                                               self.tables, self.cfgs, ROLLOUT_CAP, self.scratch, self.scratch_undo)
            done += count
            if self.spend(started):
                break
        best, best_visits = anchor, -1.0
        child = links[0, CHILD]
        while child >= 0:  # the most visited root child (ties: the lowest action id)
            visits = counts[child, VISITS]
            if visits > best_visits or (visits == best_visits and links[child, ACTION] < best):
                best, best_visits = int(links[child, ACTION]), visits
            child = links[child, SIBLING]
        return best

"""``PIMCAgent``: anchored determinized search (perfect-information Monte Carlo) over any blueprint policy.

For each decision with more than one legal action (draws, new melds, lay-offs, discards, and in rami51
COMMIT, UNDO, TAKE and SWAP too):

1. sample ``worlds`` worlds consistent with the seat's view (``rummy_env.beliefs``; or, for the oracle, the
   true other hands with a re-dealt stock);
2. play every legal action in every world and then the hand to its end with the compiled rollout policy in
   every seat (``rummy_env.engine.search.rollout``); the value of a play-out is the seat's share of the hand
   (1 if it wins, else 0);
3. **anchor**: keep the blueprint's action ``b`` unless the action ``a*`` with the best mean value beats it by
   more than ``z`` standard errors of the paired gain ``v_k(a*) - v_k(b)`` over the worlds ``k`` (every
   action of a world meets the same deal and the same rollout random numbers). Unanchored "best mean" loses
   to the blueprint's noise: with few worlds most apparent gains are luck.

Worlds are played out in chunks of ``chunk``. From the second chunk on, the search **races**: an action whose
paired gain over the blueprint's cannot exceed zero (mean plus ``z`` standard errors) is dropped, and the
search stops when only the blueprint's action is left; the others are played out on more worlds. The budget
is ``worlds`` per decision, or ``seconds`` per decision on average: each decision adds ``seconds`` to a time
bank (at most ``4 * seconds`` in it) and a search stops when its share is spent (after at least one chunk),
at most ``worlds`` worlds.

    agent = PIMCAgent(rules, worlds=128)                      # arena spec "pimc:worlds=128"
    agent = PIMCAgent(rules, worlds=128, oracle=True)         # "pimc-oracle": sees the other hands
    actions = agent.act(obs, mask, rng, records=engine.state[rows], undo=engine.undo_copies[rows])
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from rummy_env.agents.search import ROLLOUT_CAP, SearchAgent
from rummy_env.rules import RummyRules

OPTIONS = {"worlds": int, "seconds": float, "z": float, "belief": str, "rollout": str, "burn": int, "thin": int,
           "chunk": int, "blueprint": str}


class PIMCAgent(SearchAgent):
    """See the module docstring."""

    def __init__(self, rules: RummyRules, worlds: int = 128, seconds: float | None = None, z: float = 2.0,
                 blueprint: Any = "heuristic", rollout: str = "heuristic", belief: str = "uniform",
                 oracle: bool = False, burn: int = 500, thin: int = 50, chunk: int = 16):
        if worlds < 2:
            raise ValueError(f"worlds must be at least 2 (a standard error needs two), got {worlds}")
        if chunk < 2:
            raise ValueError(f"chunk must be at least 2 worlds, got {chunk}")
        if not (math.isfinite(z) and z >= 0):
            raise ValueError(f"z (standard errors a move must gain) must be a finite number >= 0, got {z!r}")
        super().__init__(rules, blueprint, rollout, belief, oracle, burn, thin, seconds)
        self.max_worlds, self.z, self.chunk = worlds, z, chunk

    def decide(self, record: np.ndarray, undo: np.ndarray, legal: np.ndarray, anchor: int, seed: int) -> int:
        started = time.process_time()
        seat = int(record[0]["current"])
        worlds = self.worlds(record, undo, self.max_worlds, seed)
        values = np.zeros((len(worlds), legal.size))
        alive = np.ones(legal.size, dtype=bool)
        mine = int(np.flatnonzero(legal == anchor)[0])
        done = 0
        while done < len(worlds):
            end = min(done + self.chunk, len(worlds))
            columns = np.flatnonzero(alive)
            played = np.zeros((end - done, columns.size))
            self.stats["rollout_steps"] += self.kernels.evaluate(
                worlds.records[done:end], worlds.undo[done:end], legal[columns], seat, self.codes,
                np.uint64(seed % 2**64), self.work, self.tables, self.cfgs, ROLLOUT_CAP, self.scratch, self.scratch_undo,
                played)
            values[done:end, columns] = played
            done = end
            if done >= 2 * self.chunk:  # racing: drop the actions that clearly do no better than the anchor
                gains = values[:done] - values[:done, mine:mine + 1]
                upper = gains.mean(axis=0) + self.z * gains.std(axis=0, ddof=1) / np.sqrt(done)
                alive &= (upper > 0) | (np.arange(legal.size) == mine)
                if alive.sum() == 1:
                    break
            if self.spend(started):
                break
        columns = np.flatnonzero(alive)
        return anchored_choice(values[:done, columns], legal[columns], anchor, self.z)


def anchored_choice(values: np.ndarray, legal: np.ndarray, anchor: int, z: float) -> int:
    """The action with the best mean value if its paired gain over ``anchor`` exceeds ``z`` standard errors
    (``values`` ``(worlds, actions)``, columns in the order of ``legal``), else ``anchor``."""
    best = int(values.mean(axis=0).argmax())
    if legal[best] == anchor or anchor not in legal:
        return int(legal[best])
    gain = values[:, best] - values[:, int(np.flatnonzero(legal == anchor)[0])]
    spread = gain.std(ddof=1) / np.sqrt(len(gain)) if len(gain) > 1 else np.inf
    return int(legal[best]) if gain.mean() > z * spread else anchor

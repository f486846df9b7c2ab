"""``RandomAgent``: a uniformly random legal action per row, for baselines and benchmarks."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def pick_legal(mask: np.ndarray, uniforms: np.ndarray, out: np.ndarray) -> None:
    """``out[i]`` = the ``floor(u_i * n_i)``-th legal action of row ``i`` (``n_i`` legal actions, the
    mask holding 0/1); rows with no legal action get 0."""
    for i in range(mask.shape[0]):
        row = mask[i]
        count = 0
        for a in range(row.shape[0]):  # a mask holds 0/1: a plain sum vectorises
            count += row[a]
        out[i] = 0
        if count == 0:
            continue
        target = min(int(uniforms[i] * count), count - 1)
        for a in range(row.shape[0]):
            if row[a] != 0:
                if target == 0:
                    out[i] = a
                    break
                target -= 1


class RandomAgent:
    """Uniform over the legal actions of each row: ``act(observation, action_mask, rng) -> actions``."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        mask = np.atleast_2d(action_mask)
        actions = np.empty(mask.shape[0], dtype=np.int64)
        pick_legal(mask, rng.random(mask.shape[0]), actions)
        return actions

"""``RandomAgent``: a uniformly random legal action per row, for baselines and benchmarks."""

from __future__ import annotations

import numpy as np

from rummy_env.sampling import uniform_legal_actions


class RandomAgent:
    """Uniform over the legal actions of each row: ``act(observation, action_mask, rng) -> actions``."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return uniform_legal_actions(action_mask, rng)

"""``SB3Agent``: a ``MaskablePPO`` model saved by ``training/train_sb3.py``, behind the batched
``Policy`` interface (``act(observation, action_mask, rng) -> actions``).

The model was trained on ``RummySB3VecEnv``, whose observation is the learner's own view
(``engine.observe``), the same vector every seat gets from ``RummyVectorEnv``; so the agent can sit
in any seat. It acts greedily (the most probable legal action) unless ``deterministic=False``, in
which case sampling uses torch's generator, not ``rng``.

Requires ``pip install -e ".[train]"`` (sb3-contrib).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rummy_env.actions import ActionLayout
from rummy_env.agents.base import InputCheck
from rummy_env.observations import ObservationLayout
from rummy_env.rules import RummyRules


class SB3Agent:
    """A loaded ``MaskablePPO`` model acting on the rows it is given."""

    def __init__(self, model, rules: RummyRules, deterministic: bool = True):
        self.model = model
        self.rules = rules
        self.deterministic = deterministic
        self.check_inputs = InputCheck(rules)

    @classmethod
    def load(cls, path: str | Path, rules: RummyRules, deterministic: bool = True) -> SB3Agent:
        """Load ``path`` (a ``.zip`` from ``MaskablePPO.save``) for a game under ``rules``; a model
        whose observation or action sizes do not fit those rules is refused with a ``ValueError``."""
        from sb3_contrib import MaskablePPO

        try:
            model = MaskablePPO.load(str(path), device="cpu")
        except Exception as error:  # a file of another kind: SB3 raises anything from AssertionError to KeyError
            raise ValueError(f"{path} is not a stable-baselines3 MaskablePPO model (a .zip from model.save, e.g. "
                             f"training/train_sb3.py): loading it failed with {type(error).__name__}") from error
        expected = (ObservationLayout(rules).size, ActionLayout.for_rules(rules).num_actions)
        found = (int(model.observation_space.shape[0]), int(model.action_space.n))
        if found != expected:
            raise ValueError(f"{path}: model has (observation, action) sizes {found}, but ruleset "
                             f"{rules.ruleset!r} with {rules.num_players} players needs {expected}")
        return cls(model, rules, deterministic)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        observations, masks = self.check_inputs(observation, action_mask)
        masks = masks.astype(bool)
        actions, _ = self.model.predict(observations, action_masks=masks, deterministic=self.deterministic)
        return np.asarray(actions, dtype=np.int64).reshape(-1)

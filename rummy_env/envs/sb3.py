"""``RummySB3VecEnv``: the natively batched single-agent env as a stable-baselines3 ``VecEnv``.

Every row is stepped by the engine in one call: no per-game Python objects, no subprocesses.
``env_method("action_masks")`` (what sb3-contrib's ``MaskablePPO`` calls) is answered from one mask
array. SB3's auto-reset convention holds: a finished row is reset within the same step and its last
observation is in ``infos[i]["terminal_observation"]``; a turn-cap end also sets
``infos[i]["TimeLimit.truncated"]``. Observations are the int8 vectors of the observation space
(copies; SB3 turns them into floats for the network and keeps its rollout buffer in int8).

The engine runs its one-thread kernels here by default (``parallel=False``): beside a torch learner
the env is a few percent of the step, and numba's thread pool would compete with torch's for the
cores (measured: about a quarter slower rollouts on 2 cores).

Requires the ``train`` extra (``pip install "rummy_env[train]"``: stable-baselines3).

>>> from rummy_env.envs.sb3 import RummySB3VecEnv
>>> from sb3_contrib import MaskablePPO
>>> venv = RummySB3VecEnv(num_envs=256, num_players=2, seed=0)
>>> MaskablePPO("MlpPolicy", venv, n_steps=64).learn(10_000)
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from rummy_env.extras import needs_extra

with needs_extra("train", "RummySB3VecEnv"):
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from rummy_env.envs.single_agent import Opponent, RummyGymVectorEnv
from rummy_env.inputs import as_actions
from rummy_env.rules import RummyRules


class RummySB3VecEnv(VecEnv):
    """``num_envs`` games, the learner in one seat of each, opponents inside (``RummyGymVectorEnv``)."""

    def __init__(self, num_envs: int, rules: str | RummyRules = "basic", num_players: int | None = None,
                 opponent: Opponent | str | None = None, learner_seat: int | str = 0, seed: int | None = None,
                 parallel: bool | None = False, **overrides: Any):
        self.vector_env = RummyGymVectorEnv(num_envs, rules, num_players, opponent, learner_seat, parallel=parallel,
                                            **overrides)
        self.render_mode = None
        super().__init__(num_envs, self.vector_env.single_observation_space, self.vector_env.single_action_space)
        self._next_seed = seed
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        seed = self._next_seed if self._next_seed is not None else self._seeds[0]
        self._next_seed = None
        observation, _ = self.vector_env.reset(seed=seed)
        self._reset_seeds()
        return observation.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = as_actions(actions).reshape(self.num_envs)

    def step_wait(self):
        observation, rewards, terminations, truncations, infos = self.vector_env.step(self._actions)
        dones = terminations | truncations
        info_list: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for row in np.flatnonzero(dones):
            info_list[row]["terminal_observation"] = infos["final_obs"][row].copy()
            info_list[row]["TimeLimit.truncated"] = bool(truncations[row])
            info_list[row]["hand_score"] = int(infos["final_hand_score"][row])
        return observation.copy(), rewards.astype(np.float32), dones, info_list

    def action_masks(self) -> np.ndarray:
        return self.vector_env.action_masks()

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.vector_env.action_masks()
            return [masks[row] for row in rows]
        result = getattr(self.vector_env, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self.vector_env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.vector_env, attr_name, value)

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        self._next_seed = seed
        return [seed for _ in range(self.num_envs)]

    def close(self) -> None:
        pass

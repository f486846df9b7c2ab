"""RLlib's side of the env: ``RummyMultiAgentEnv`` (the AEC env as a turn-based ``MultiAgentEnv``),
``MaskedPPOModule`` (a PPO actor-critic that never puts probability on an illegal action) and the
``RummyMetrics`` callback. ``training/train_rllib.py`` runs them; ``training/RLLIB.md`` explains them.

The module accepts torch tensors or numpy arrays, so a loaded policy plays from the env's own arrays:

    module = RLModule.from_checkpoint(".../learner_group/learner/rl_module/shared")
    logits = module.forward_inference({"obs": {"observations": obs[None], "action_mask": mask[None]}})["action_dist_inputs"]
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from torch import nn

import rummy_env
from rummy_env.engine.state import END_OUT

POLICY_ID = "shared"
# Logit given to illegal actions: exp(MASKED_LOGIT - max) underflows to exactly 0 in float32, so an
# illegal action is never sampled nor chosen by argmax, and stays finite (no inf - inf = nan in the
# KL / entropy terms).
MASKED_LOGIT = -1e9


# ---------------------------------------------------------------------------------------- the env
class RummyMultiAgentEnv(MultiAgentEnv):
    """``rummy_env.raw_env`` as an RLlib turn-based ``MultiAgentEnv``.

    ``config``: ``rules`` (a preset name, default ``"basic"``, a ``.toml`` rules file or a ``RummyRules``),
    ``num_players`` (a preset's default 2) and any rules knobs (e.g. ``max_turns_per_round``), passed to
    ``rummy_env.raw_env``.

    * Each ``reset``/``step`` returns the observation of the seat to act only; that seat may be the
      same for several steps in a row (draw, plays, discard), which RLlib handles as consecutive
      agent steps.
    * Observations are ``{"observations": float32 (O,), "action_mask": float32 (A,)}`` (the AEC env's
      int8 ``observation`` renamed and cast; the masking module reads these two keys).
    * The AEC env reports every seat's reward at every step. A seat's reward is added up while it
      waits and handed to it together with its next observation (so it is credited to that seat's
      previous action), or at the end of the hand, when every seat gets its last observation, the
      rest of its reward and the AEC env's ending: ``terminated`` (a player went out) or
      ``truncated`` (the turn cap ``max_turns_per_round`` cut the hand; RLlib then bootstraps from
      the value of the last observation).
    """

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        rules = config.pop("rules", "basic")
        self.aec = rummy_env.raw_env(rules, config.pop("num_players", None), **config)
        self.agents = self.possible_agents = list(self.aec.possible_agents)
        aec_space = self.aec.observation_space(self.possible_agents[0])
        space = gym.spaces.Dict({
            "observations": gym.spaces.Box(0.0, 127.0, aec_space["observation"].shape, np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, aec_space["action_mask"].shape, np.float32),
        })
        self.observation_spaces = {agent: space for agent in self.possible_agents}
        self.action_spaces = {agent: self.aec.action_space(agent) for agent in self.possible_agents}
        self._pending = dict.fromkeys(self.possible_agents, 0.0)

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.aec.observe(agent)
        return {"observations": obs["observation"].astype(np.float32),
                "action_mask": obs["action_mask"].astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed, options=options)
        self._pending = dict.fromkeys(self.possible_agents, 0.0)
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {agent: dict(self.aec.infos[agent])}

    def step(self, action_dict: dict[str, Any]):
        agent = self.aec.agent_selection
        if set(action_dict) != {agent}:
            raise ValueError(f"expected an action for {agent} only, got actions for {sorted(action_dict)}")
        self.aec.step(int(action_dict[agent]))          # raises ValueError on an illegal action
        for name, reward in self.aec.rewards.items():   # this step's reward of every seat
            self._pending[name] += reward

        terminated = all(self.aec.terminations.values())
        truncated = all(self.aec.truncations[name] or self.aec.terminations[name] for name in self.agents)
        if terminated or truncated:                      # the hand is over: every seat gets its last step
            names = self.possible_agents
            obs = {name: self._observe(name) for name in names}
            rewards, self._pending = self._pending, dict.fromkeys(names, 0.0)
            terminateds = {name: self.aec.terminations[name] for name in names}
            truncateds = {name: self.aec.truncations[name] and not self.aec.terminations[name] for name in names}
            terminateds["__all__"] = terminated
            truncateds["__all__"] = not terminated
            return obs, rewards, terminateds, truncateds, {name: dict(self.aec.infos[name]) for name in names}

        nxt = self.aec.agent_selection
        reward, self._pending[nxt] = self._pending[nxt], 0.0
        return ({nxt: self._observe(nxt)}, {nxt: reward}, {"__all__": False}, {"__all__": False},
                {nxt: dict(self.aec.infos[nxt])})

    def render(self) -> str | None:
        return self.aec.render()


def make_env(config: dict | None = None) -> RummyMultiAgentEnv:
    return RummyMultiAgentEnv(config)


# ------------------------------------------------------------------------------------- the policy
class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """An MLP actor-critic for PPO that never puts probability on an illegal action.

    Reads the Dict observation ``{"observations", "action_mask"}``: a shared trunk over
    ``log1p(observations)`` (the raw features are small counts with a few fields up to 127), then a
    policy head whose logits of illegal actions (mask 0) are replaced by ``MASKED_LOGIT`` and a value
    head. ``model_config``: ``{"hidden": [256, 256]}``.

    The masking is applied in every forward pass (inference, exploration and training), so the
    action distribution the env runners sample from and the one PPO's loss re-evaluates are the
    same; illegal logits get no gradient. Observations may be torch tensors or numpy arrays.
    """

    def setup(self):
        obs_dim = int(np.prod(self.observation_space["observations"].shape))
        hidden = list(self.model_config.get("hidden", [256, 256]))
        layers, width = [], obs_dim
        for size in hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        self._trunk = nn.Sequential(*layers)
        self._pi = nn.Linear(width, self.action_space.n)
        self._vf = nn.Linear(width, 1)
        nn.init.orthogonal_(self._pi.weight, gain=0.01)  # near-uniform over legal actions at first
        nn.init.zeros_(self._pi.bias)

    def _features(self, obs: dict[str, Any]) -> torch.Tensor:
        return self._trunk(torch.log1p(torch.as_tensor(obs["observations"]).float()))

    def _masked_logits(self, features: torch.Tensor, mask: Any) -> torch.Tensor:
        return self._pi(features).masked_fill(torch.as_tensor(mask) < 0.5, MASKED_LOGIT)

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(self._features(obs), obs["action_mask"])}

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        features = self._features(obs)
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(features, obs["action_mask"]),
                Columns.EMBEDDINGS: features}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self._features(batch[Columns.OBS])
        return self._vf(embeddings).squeeze(-1)


# ------------------------------------------------------------------------------------ metrics
class RummyMetrics(RLlibCallback):
    """Logs, per finished hand, whether a player went out (``hand_out_rate``) and the absolute hand
    score (``hand_score_abs``; 0 for a dead hand)."""

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        if metrics_logger is None:
            return
        infos = [sa.get_infos(-1) for sa in episode.agent_episodes.values()]
        info = next((i for i in infos if i and "end_reason" in i), None)
        if info is None:
            return
        metrics_logger.log_value("hand_out_rate", float(info["end_reason"] == END_OUT), reduce="mean", window=200)
        metrics_logger.log_value("hand_score_abs", float(max(abs(s) for s in info["hand_scores"])),
                                 reduce="mean", window=200)

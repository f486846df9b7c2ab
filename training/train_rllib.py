"""PPO self-play on Rummy with Ray RLlib (new API stack), locally or on a Ray cluster.

One shared policy plays every seat. The PettingZoo AEC env is adapted to RLlib's ``MultiAgentEnv``
by ``RummyMultiAgentEnv`` below (only the acting seat observes at each step; rewards are held for a
seat until it next acts or the hand ends), and illegal actions are masked inside the policy by
``MaskedPPOModule`` (the env raises ``ValueError`` on an illegal action, so an unmasked policy would
crash the run).

Install (once): ``pip install -e ".[rllib]"`` (see ``training/RLLIB.md``).

Run on this machine (starts a local Ray instance, which stops when the script ends)::

    python training/train_rllib.py --iterations 20 --num-env-runners 2

Run on a Ray cluster (every node needs this repository installed in the same Python
environment, e.g. ``pip install -e ".[rllib]"`` in the node image)::

    ray start --head                                  # on the head node
    ray start --address=<head-ip>:6379                # on each worker node
    python training/train_rllib.py --address auto --num-env-runners 32 --iterations 500 \\
        --checkpoint-dir ~/rummy_ckpt                 # on the head node

``--address`` is passed to ``ray.init``: ``auto`` joins the cluster this machine belongs to,
``ray://<head-ip>:10001`` connects through Ray Client from outside the cluster.

Each iteration prints the number of hands finished, their mean length (in env steps, every seat's
actions counted), the mean return of each seat (zero-sum, so the sum over seats is ~0 and the per-seat
means only show seat bias), the share of hands ended by a player going out (the rest are cut by the
turn cap) and the learner's loss terms. ``--checkpoint-dir`` saves the algorithm after the last iteration (and
every ``--checkpoint-every`` iterations); restore it with ``Algorithm.from_checkpoint(path)`` or take the
policy alone with ``RLModule.from_checkpoint(path/learner_group/learner/rl_module/shared)``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np
import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
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

    ``config``: ``rules`` (preset name, default ``"basic"``), ``num_players`` (default 2) and any rules
    knobs (e.g. ``max_turns_per_round``), passed to ``rummy_env.raw_env``.

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
        num_players = int(config.pop("num_players", 2))
        self.aec = rummy_env.raw_env(rules, num_players, **config)
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
    same; illegal logits get no gradient.
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

    def _features(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        return self._trunk(torch.log1p(obs["observations"].float()))

    def _masked_logits(self, features: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self._pi(features).masked_fill(mask < 0.5, MASKED_LOGIT)

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


# ------------------------------------------------------------------------------------ the run
def build_config(
    *,
    num_players: int = 2,
    rules: str = "basic",
    rules_overrides: dict | None = None,
    num_env_runners: int = 2,
    envs_per_env_runner: int = 1,
    train_batch_size: int = 4000,
    minibatch_size: int = 500,
    num_epochs: int = 4,
    lr: float = 3e-4,
    gamma: float = 0.995,
    entropy_coeff: float = 0.01,
    hidden: tuple[int, ...] = (256, 256),
    num_learners: int = 0,
    num_gpus_per_learner: float = 0,
    seed: int | None = None,
    restart_failed_env_runners: bool = False,
) -> PPOConfig:
    """The PPO config: one shared, masked policy for every seat (self-play).

    ``restart_failed_env_runners=False`` (unlike RLlib's default) makes an error inside an env runner,
    such as an illegal action, stop training with that error instead of restarting the runner and
    carrying on without its samples; set it on clusters whose nodes may go away."""
    env_config = {"rules": rules, "num_players": num_players, **(rules_overrides or {})}
    config = (
        PPOConfig()
        # RLlib's env pre-check steps the env with unmasked random actions, which this env rejects.
        # The env class itself (not a registered name), so that a checkpoint restores in a fresh process.
        .environment(RummyMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=envs_per_env_runner,
                     num_cpus_per_env_runner=1)
        .learners(num_learners=num_learners, num_gpus_per_learner=num_gpus_per_learner)
        .multi_agent(policies={POLICY_ID}, policy_mapping_fn=lambda agent_id, episode, **kw: POLICY_ID)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            POLICY_ID: RLModuleSpec(module_class=MaskedPPOModule, model_config={"hidden": list(hidden)}),
        }))
        .training(train_batch_size_per_learner=train_batch_size, minibatch_size=minibatch_size,
                  num_epochs=num_epochs, lr=lr, gamma=gamma, lambda_=0.95, entropy_coeff=entropy_coeff,
                  vf_loss_coeff=0.5, clip_param=0.2)
        .callbacks(RummyMetrics)
        .fault_tolerance(restart_failed_env_runners=restart_failed_env_runners)
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    return config


def _get(result: dict, *keys: str, default: float = math.nan) -> Any:
    for key in keys:
        if not isinstance(result, dict) or key not in result:
            return default
        result = result[key]
    return result


def summarize(result: dict, agents: list[str]) -> dict[str, float]:
    """The numbers printed per iteration, from one ``algo.train()`` result."""
    runners, learner = result.get("env_runners", {}), _get(result, "learners", POLICY_ID, default={})
    summary = {
        "episodes": _get(runners, "num_episodes", default=0),
        "env_steps": _get(runners, "num_env_steps_sampled", default=0),
        "episode_len_mean": _get(runners, "episode_len_mean"),
        "episode_return_mean": _get(runners, "episode_return_mean"),
        "hand_out_rate": _get(runners, "hand_out_rate"),
        "hand_score_abs": _get(runners, "hand_score_abs"),
    }
    for agent in agents:
        summary[f"return_{agent}"] = _get(runners, "agent_episode_returns_mean", agent)
    for key in ("total_loss", "policy_loss", "vf_loss", "entropy", "mean_kl_loss"):
        summary[key] = _get(learner, key)
    return {k: float(v) for k, v in summary.items()}


def format_summary(iteration: int, summary: dict[str, float], seconds: float) -> str:
    seats = " ".join(f"{k[len('return_'):]}={v:+.3f}" for k, v in summary.items() if k.startswith("return_"))
    return (f"iter {iteration:4d} {seconds:6.1f}s  steps={summary['env_steps']:.0f} "
            f"episodes={summary['episodes']:.0f} len={summary['episode_len_mean']:.1f} "
            f"return={summary['episode_return_mean']:+.3f} [{seats}] out_rate={summary['hand_out_rate']:.2f}  "
            f"loss={summary['total_loss']:.4f} pi={summary['policy_loss']:.4f} vf={summary['vf_loss']:.4f} "
            f"entropy={summary['entropy']:.3f} kl={summary['mean_kl_loss']:.4f}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--num-players", type=int, default=2)
    p.add_argument("--rules", default="basic", help="rules preset")
    p.add_argument("--max-turns-per-round", type=int, default=None,
                   help="rules knob: end a hand dead after this many turns (shorter hands for quick runs)")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--num-env-runners", type=int, default=2,
                   help="remote sampling workers (0: sample in this process)")
    p.add_argument("--envs-per-env-runner", type=int, default=1)
    p.add_argument("--train-batch-size", type=int, default=4000, help="env steps per iteration (per learner)")
    p.add_argument("--minibatch-size", type=int, default=500)
    p.add_argument("--num-epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument("--num-learners", type=int, default=0, help="remote learner workers (0: learn in this process)")
    p.add_argument("--num-gpus-per-learner", type=float, default=0)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--restart-failed-env-runners", action="store_true",
                   help="restart an env runner that fails (lost node) instead of stopping with its error")
    p.add_argument("--address", default=None,
                   help="Ray cluster to join ('auto', '<ip>:6379' or 'ray://<ip>:10001'); default: start a local one")
    p.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local Ray instance (without --address)")
    p.add_argument("--checkpoint-dir", default=None, help="save the algorithm here after training")
    p.add_argument("--checkpoint-every", type=int, default=0, help="also save every N iterations (0: only at the end)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> list[dict[str, float]]:
    args = parse_args(argv)
    # The env and module classes live in this file, which remote workers may not be able to import
    # (it is not part of the installed package): ship them by value.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    started_here = not ray.is_initialized()
    if started_here:
        if args.address:
            ray.init(address=args.address)
        else:
            ray.init(address="local", num_cpus=args.num_cpus, include_dashboard=False)  # always a new instance
    overrides = {} if args.max_turns_per_round is None else {"max_turns_per_round": args.max_turns_per_round}
    config = build_config(
        num_players=args.num_players, rules=args.rules, rules_overrides=overrides,
        num_env_runners=args.num_env_runners, envs_per_env_runner=args.envs_per_env_runner,
        train_batch_size=args.train_batch_size, minibatch_size=args.minibatch_size, num_epochs=args.num_epochs,
        lr=args.lr, hidden=tuple(args.hidden), num_learners=args.num_learners,
        num_gpus_per_learner=args.num_gpus_per_learner, seed=args.seed,
        restart_failed_env_runners=args.restart_failed_env_runners,
    )
    agents = [f"player_{seat}" for seat in range(args.num_players)]
    algo = config.build_algo()
    summaries = []
    try:
        for iteration in range(1, args.iterations + 1):
            start = time.perf_counter()
            result = algo.train()
            summary = summarize(result, agents)
            summaries.append(summary)
            print(format_summary(iteration, summary, time.perf_counter() - start), flush=True)
            if args.checkpoint_dir and args.checkpoint_every and iteration % args.checkpoint_every == 0:
                print("checkpoint:", algo.save_to_path(os.path.abspath(os.path.expanduser(args.checkpoint_dir))))
        if args.checkpoint_dir:
            print("checkpoint:", algo.save_to_path(os.path.abspath(os.path.expanduser(args.checkpoint_dir))))
    finally:
        algo.stop()
        if started_here:
            ray.shutdown()
    return summaries


if __name__ == "__main__":
    main()

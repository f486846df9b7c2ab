"""Train sb3-contrib ``MaskablePPO`` against a fixed opponent on the natively batched ``RummySB3VecEnv``.

The learner holds one seat of every row (a fresh random seat each episode); the other seats are
played inside the env by the opponent (an ``agents/registry.py`` spec: ``random``, ``greedy``,
``heuristic``, ``ppo:PATH``, ``sb3:PATH``). No subprocesses: every row is a game stepped by the
compiled engine, and ``MaskablePPO`` reads the legal actions of all rows from one mask array.

``MaskableEvalCallback`` plays ``--eval-episodes`` episodes on a separately seeded env every
``--eval-freq`` steps and keeps the best model. Written under ``--out``:

=========================  ===================================================================
``best_model.zip``         the model with the best mean evaluation reward
``final_model.zip``        the model at the end of training
``checkpoints/``           ``sb3_<steps>_steps.zip`` every ``--eval-freq`` steps (for the arena's
                           ``--checkpoints-dir``)
``evaluations.npz``        the evaluation rewards (``MaskableEvalCallback``)
``progress.csv``,         the training log, as CSV and TensorBoard events (a learning curve:
``events.out.tfevents.*``  ``python -m rummy_env.training.evaluate --log OUT/progress.csv --log-tag eval/mean_reward``)
=========================  ===================================================================

A saved model is an arena agent: ``sb3:OUT/best_model.zip``, under the same ``--rules`` and ``--players``.

    python -m rummy_env.training.train_sb3 --rules basic --players 2 --opponent random --timesteps 1000000 --out runs/sb3_basic_2p
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Sequence

import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback
from stable_baselines3.common.logger import configure
from stable_baselines3.common.vec_env import VecMonitor

from rummy_env.agents.registry import make_agent
from rummy_env.inputs import seed_type
from rummy_env.rules import make_rules
from rummy_env.envs.sb3 import RummySB3VecEnv
from rummy_env.rules import RummyRules


def make_env(rules: RummyRules, opponent: str, num_envs: int, seed: int) -> VecMonitor:
    """``num_envs`` games, the learner in a random seat of each, ``opponent`` in the others."""
    return VecMonitor(RummySB3VecEnv(num_envs, rules, rules.num_players, opponent=make_agent(opponent, rules),
                                     learner_seat="random", seed=seed))


class ProgressBar(BaseCallback):
    """A tqdm bar of the learner's steps on stderr (SB3's own needs the ``rich`` package)."""

    def __init__(self, total: int):
        super().__init__()
        from tqdm import tqdm

        self.bar = tqdm(total=total, unit="step", file=sys.stderr, dynamic_ncols=True)

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_training_end(self) -> None:
        self.bar.close()


def train(args: argparse.Namespace) -> MaskablePPO:
    """Train as the command line says; returns the final model."""
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    rules = make_rules(args.rules, args.players)
    env = make_env(rules, args.opponent, args.num_envs, args.seed)
    eval_env = make_env(rules, args.opponent, args.eval_envs, args.seed + 1)
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=args.n_steps * args.num_envs // 4,
                        learning_rate=args.learning_rate, policy_kwargs={"net_arch": [256, 256]}, seed=args.seed,
                        device="cpu", verbose=0)
    model.set_logger(configure(str(args.out), ["stdout", "csv", "tensorboard"]))
    every = max(1, args.eval_freq // args.num_envs)  # callbacks count vector steps
    callbacks = [
        MaskableEvalCallback(eval_env, n_eval_episodes=args.eval_episodes, eval_freq=every,
                             best_model_save_path=str(args.out), log_path=str(args.out), deterministic=True),
        CheckpointCallback(every, str(args.out / "checkpoints"), name_prefix="sb3"),
    ]
    if not getattr(args, "quiet", False) and sys.stderr.isatty():
        callbacks.append(ProgressBar(args.timesteps))
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps, callback=callbacks)
    model.save(args.out / "final_model.zip")
    print(f"trained {model.num_timesteps:,} steps in {time.perf_counter() - start:.0f} s; models in {args.out}")
    return model


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", default="basic", help="rules preset (basic, rami51, lebanese14, gin, gin_openspiel, "
                                                         "gin_rlcard) or .toml rules file")
    parser.add_argument("--players", type=int, default=None, help="seats (default: the preset's 2, or the file's)")
    parser.add_argument("--opponent", default="random", help="agent spec of the fixed opponent")
    parser.add_argument("--timesteps", type=int, default=1_000_000, help="learner steps in total")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--n-steps", type=int, default=64, help="rollout length per env")
    parser.add_argument("--learning-rate", type=float, default=3e-4)
    parser.add_argument("--eval-freq", type=int, default=100_000, help="learner steps between evaluations")
    parser.add_argument("--eval-episodes", type=int, default=500)
    parser.add_argument("--eval-envs", type=int, default=100)
    parser.add_argument("--torch-threads", type=int, help="torch's CPU threads (default: torch's choice)")
    parser.add_argument("--out", type=Path, default=Path("runs/sb3"))
    parser.add_argument("--seed", type=seed_type(2**32 - 1), default=0)  # SB3 seeds numpy's legacy generator: 0..2**32-1
    parser.add_argument("--quiet", action="store_true", help="no progress bar (there is none when stderr is not a terminal)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    from rummy_env.cli import guarded

    sys.exit(guarded("python -m rummy_env.training.train_sb3", lambda: train(parse_args())))

"""Throughput of the training interfaces (basic rules, 2 players, this machine, one process).

* ``RummyVectorEnv`` (native multi-agent self-play env) with auto-reset at B = 1 … 4096, random
  legal actions, counting one step per row;
* sb3-contrib ``MaskablePPO`` rollout collection (env stepping + policy inference + buffer writes,
  timed between rollout start and end; the gradient updates are not counted) on the native
  ``RummySB3VecEnv`` versus the usual ``SubprocVecEnv`` of single ``RummyGymEnv``s, in the same run.
  Each gets its best torch setting on 2 cores: 2 threads in-process for the native env, 1 thread for
  the learner beside the subprocesses (2 threads there fight the workers and run 5x slower).

Usage: ``python benchmarks/vector_throughput.py [--seconds 5] [--ppo-envs 1024] [--subproc-envs 2,8]``
(needs the ``train`` extra: torch, stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from rummy_env import RummyGymEnv, RummyVectorEnv
from rummy_env.sampling import uniform_legal_actions


def vector_env_rate(batch: int, seconds: float, seed: int = 0) -> float:
    env = RummyVectorEnv(batch, num_players=2, seed=seed)
    observation, _ = env.reset()
    generator = np.random.default_rng(seed)
    observation, *_ = env.step(uniform_legal_actions(observation["action_mask"], generator))  # load kernels
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            observation, *_ = env.step(uniform_legal_actions(observation["action_mask"], generator))
        steps += 10 * batch
    return steps / (time.perf_counter() - start)


def rollout_rate(venv, n_steps: int, rollouts: int, torch_threads: int) -> float:
    """Median rollout-collection steps/s of MaskablePPO on ``venv`` over ``rollouts`` rollouts."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    torch.set_num_threads(torch_threads)

    class RolloutTimer(BaseCallback):
        def __init__(self):
            super().__init__()
            self.rates: list[float] = []

        def _on_rollout_start(self) -> None:
            self.start = time.perf_counter()

        def _on_rollout_end(self) -> None:
            self.rates.append(n_steps * venv.num_envs / (time.perf_counter() - self.start))

        def _on_step(self) -> bool:
            return True

    timer = RolloutTimer()
    model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=n_steps * venv.num_envs, n_epochs=1,
                        policy_kwargs={"net_arch": [64, 64]}, verbose=0, seed=0)
    model.learn(total_timesteps=n_steps * venv.num_envs * (rollouts + 1), callback=timer)
    return statistics.median(timer.rates[1:])  # the first rollout pays the start-up


def make_single(seed: int):
    def thunk():
        env = RummyGymEnv(num_players=2)
        env.reset(seed=seed)
        return env
    return thunk


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--batches", default="1,64,1024,4096")
    parser.add_argument("--ppo-envs", type=int, default=1024)
    parser.add_argument("--subproc-envs", default="2,8")
    parser.add_argument("--rollouts", type=int, default=3)
    args = parser.parse_args(argv)

    from stable_baselines3.common.vec_env import SubprocVecEnv

    from rummy_env.envs.sb3 import RummySB3VecEnv

    rows = []
    native = RummySB3VecEnv(args.ppo_envs, num_players=2, seed=0)
    rows.append((f"native RummySB3VecEnv, {args.ppo_envs} envs", rollout_rate(native, max(16, 16384 // args.ppo_envs), args.rollouts, 2)))
    for count in (int(c) for c in args.subproc_envs.split(",")):
        venv = SubprocVecEnv([make_single(seed) for seed in range(count)])
        rows.append((f"SubprocVecEnv of {count} RummyGymEnv", rollout_rate(venv, max(64, 16384 // count // 4), args.rollouts, 1)))
        venv.close()
    baseline = max(rate for label, rate in rows[1:])
    print("\nMaskablePPO rollout collection (env + policy inference), basic, 2 players vs a random opponent\n")
    print(f"| {'vector env':<40} | {'steps/s':>10} | {'vs best SubprocVecEnv':>21} |\n|{'-' * 42}|{'-' * 12}|{'-' * 23}|")
    for label, rate in rows:
        print(f"| {label:<40} | {rate:>10,.0f} | {rate / baseline:>20.1f}x |")

    # after the PPO runs: numba's OpenMP threads, once started by the parallel kernels, keep spinning
    # a while after each launch and would slow a torch learner in this process
    print("\nRummyVectorEnv, random legal play with auto-reset (basic, 2 players)\n")
    print(f"| {'B':>5} | {'steps/s':>12} |\n|{'-' * 7}|{'-' * 14}|")
    for batch in (int(b) for b in args.batches.split(",")):
        print(f"| {batch:>5} | {vector_env_rate(batch, args.seconds):>12,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""End-to-end PPO self-play training throughput (env + opponents + learner) and peak memory.

Runs ``training/ppo_selfplay.py``'s ``Trainer`` on a config (default: ``configs/ppo/basic_2p.toml``)
for a few updates after one warm-up update (kernels loaded, pool drawn) and prints env steps/s (all
rows, all seats, counted as the trainer counts them), the time split between rollout and learning,
and the process's peak resident memory (``resource.getrusage``' maxrss).

Usage: ``python benchmarks/training_throughput.py [--config configs/ppo/basic_2p.toml] [--updates 5]``
(needs the ``train`` extra). On a shared machine the figure moves with the other processes' load.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rummy_env.training.ppo_selfplay import Trainer, load_config  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="configs/ppo/basic_2p.toml")
    parser.add_argument("--updates", type=int, default=5)
    args = parser.parse_args()
    config = load_config(args.config)
    trainer = Trainer(config)
    trainer.train_one_update()  # warm-up: compiled kernels loaded, first allocations made
    rollout_seconds = learn_seconds = 0.0
    for _ in range(args.updates):
        start = time.perf_counter()
        batch = trainer.rollout()
        rolled = time.perf_counter()
        trainer.learn(batch)
        rollout_seconds += rolled - start
        learn_seconds += time.perf_counter() - rolled
    steps = args.updates * config.steps_per_update
    total = rollout_seconds + learn_seconds
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB
    print(f"{args.config}: {config.num_envs} rows x {config.num_steps} steps, {args.updates} updates, "
          f"torch threads {config.torch_threads}")
    print(f"env steps/s (end to end): {steps / total:,.0f}")
    print(f"time split: rollout {rollout_seconds / total:.0%} ({steps / rollout_seconds:,.0f} steps/s), "
          f"learning {learn_seconds / total:.0%}")
    print(f"peak memory (maxrss): {peak_mib:,.0f} MiB")


if __name__ == "__main__":
    main()

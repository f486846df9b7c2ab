"""Train sb3-contrib ``MaskablePPO`` on the natively batched ``RummySB3VecEnv`` (no subprocesses).

The learner plays seat 0 of basic 2-player rummy against a uniformly random opponent; every row of
the vector env is a game stepped by the compiled engine, and ``MaskablePPO`` reads the legal actions
of all rows from one mask array. After training, the script plays ``--eval-episodes`` hands with the
deterministic policy and prints the learner's mean reward (zero-sum: > 0 means it outscores the
opponent).

    python training/sb3_native_vecenv.py --num-envs 256 --timesteps 200000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sb3_contrib import MaskablePPO

from rummy_env.envs.sb3 import RummySB3VecEnv


def evaluate(model: MaskablePPO, episodes: int, num_envs: int, seed: int) -> float:
    """Mean learner reward over ``episodes`` finished hands, masked deterministic actions."""
    env = RummySB3VecEnv(num_envs, num_players=2, seed=seed)
    observation = env.reset()
    returns = np.zeros(num_envs)
    finished: list[float] = []
    while len(finished) < episodes:
        actions, _ = model.predict(observation, action_masks=env.action_masks(), deterministic=True)
        observation, rewards, dones, _ = env.step(actions)
        returns += rewards
        finished.extend(returns[dones].tolist())
        returns[dones] = 0.0
    return float(np.mean(finished[:episodes]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--timesteps", type=int, default=200_000)
    parser.add_argument("--n-steps", type=int, default=64)
    parser.add_argument("--eval-episodes", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    env = RummySB3VecEnv(args.num_envs, num_players=2, seed=args.seed)
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=args.n_steps * args.num_envs // 4,
                        policy_kwargs={"net_arch": [256, 256]}, seed=args.seed, verbose=1)
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    print(f"trained {args.timesteps:,} steps in {time.perf_counter() - start:.0f} s")
    print(f"mean learner reward vs random over {args.eval_episodes} hands: "
          f"{evaluate(model, args.eval_episodes, 64, args.seed + 1):+.3f}")


if __name__ == "__main__":
    main()

"""The native TorchRL env beside ``RummyVectorEnv``: steps/s of the same random legal play, side by side.

Both loops play uniformly random legal actions (``rummy_env.sampling.pick_legal_actions`` on the mask each env
returns), ``B`` rows (1024), one thread, the same seed. ``RummyVectorEnv`` resets finished rows inside ``step``;
the bare ``RummyTorchRLEnv`` (``rummy_env.envs.torchrl_env``) goes through its ``step_and_maybe_reset`` (what
TorchRL's collectors call), which builds the TensorDicts and deals the rows that ended again in the same pass. The clock starts once
every row has finished one whole hand (the steady state), and the two envs alternate in ``--rounds`` timed
windows of ``--seconds`` each, so that a change of load touches both. The target (issue 30): the TorchRL env at
≥ 50% of ``RummyVectorEnv``'s steps/s at B = 1024. Last, for scale, TorchRL's own ``PettingZooWrapper`` over the
AEC env (one game, basic 2 players, the same random play) for ``--seconds``.

    python benchmarks/torchrl_env.py [--batch 1024] [--seconds 10] [--rounds 3] [--busy]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import rummy_env  # noqa: E402
from rummy_env.envs.torchrl_env import RummyTorchRLEnv  # noqa: E402
from rummy_env.sampling import pick_legal_actions  # noqa: E402
from steady_state import busy_process  # noqa: E402

CONFIGS = [("basic", 2), ("rami51", 2), ("rami51", 4)]


class VectorLoop:
    def __init__(self, rules, batch: int, seed: int):
        self.env = rummy_env.RummyVectorEnv(batch, rules, seed=seed, parallel=False)
        self.observation, _ = self.env.reset()
        self.actions, self.rng = np.zeros(batch, dtype=np.int64), np.random.default_rng(seed)

    def step(self) -> np.ndarray:
        mask = self.observation["action_mask"]
        pick_legal_actions(mask, self.rng.random(mask.shape[0]), self.actions)
        self.observation, _, terminated, truncated, _ = self.env.step(self.actions)
        return terminated | truncated


class TorchRLLoop:
    def __init__(self, rules, batch: int, seed: int):
        self.env = RummyTorchRLEnv(batch, rules, seed=seed, parallel=False)
        self.td = self.env.reset()
        self.actions, self.rng = np.zeros(batch, dtype=np.int64), np.random.default_rng(seed)

    def step(self) -> np.ndarray:
        mask = self.td["action_mask"].numpy().view(np.int8)
        pick_legal_actions(mask, self.rng.random(mask.shape[0]), self.actions)
        self.td["action"] = torch.from_numpy(self.actions)
        result, self.td = self.env.step_and_maybe_reset(self.td)
        return result["next", "done"].numpy().reshape(-1)


def wrapper_rate(seconds: float) -> float:
    """Steps/s of TorchRL's ``PettingZooWrapper`` over ``rummy_env.env`` (the mask only in the observation)."""
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    env = PettingZooWrapper(env=rummy_env.env("basic", action_mask_in_infos=False), use_mask=True,
                            categorical_actions=True, done_on_any=False)
    td, rng, steps = env.reset(seed=0), np.random.default_rng(0), 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for group in env.group_map:
            mask = td[group, "action_mask"].numpy()
            actions = np.zeros(mask.shape[0], dtype=np.int64)
            for row in range(mask.shape[0]):
                legal = np.flatnonzero(mask[row])
                actions[row] = legal[rng.integers(len(legal))] if len(legal) else 0
            td[group, "action"] = torch.from_numpy(actions)
        td = env.step(td)["next"]
        steps += 1
        if td["done"].all():
            td = env.reset()
    return steps / (time.perf_counter() - start)


def warm(loop, batch: int, limit: float) -> None:
    """Step until every row has finished one hand (or ``limit`` seconds)."""
    finished, start = np.zeros(batch, dtype=np.bool_), time.perf_counter()
    while not finished.all() and time.perf_counter() - start < limit:
        finished |= loop.step()


def timed(loop, batch: int, seconds: float) -> float:
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        loop.step()
        steps += batch
    return steps / (time.perf_counter() - start)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per timed window")
    parser.add_argument("--rounds", type=int, default=3, help="timed windows per env, alternating")
    parser.add_argument("--warmup-limit", type=float, default=120.0)
    parser.add_argument("--busy", action="store_true", help="measure beside a busy process")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    condition = "beside a busy process" if args.busy else "quiet"
    print(f"random legal play, B = {args.batch}, one thread, {condition}; steady state, {args.rounds} windows of "
          f"{args.seconds:g} s per env, alternating\n")
    print("| rules | RummyVectorEnv steps/s | RummyTorchRLEnv steps/s | ratio |")
    print("| --- | ---: | ---: | ---: |")
    with busy_process(args.busy):
        for preset, players in CONFIGS:
            rules = rummy_env.RummyRules.preset(preset, num_players=players)
            loops = {"vector": VectorLoop(rules, args.batch, 0), "torchrl": TorchRLLoop(rules, args.batch, 0)}
            for loop in loops.values():
                warm(loop, args.batch, args.warmup_limit)
            rates = {name: [] for name in loops}
            for _ in range(args.rounds):
                for name, loop in loops.items():
                    rates[name].append(timed(loop, args.batch, args.seconds))
            vector, torchrl = np.median(rates["vector"]), np.median(rates["torchrl"])
            print(f"| {preset} {players}p | {vector:,.0f} | {torchrl:,.0f} | {torchrl / vector:.0%} |", flush=True)
        print(f"\nTorchRL's PettingZooWrapper over rummy_env.env('basic'), one game: {wrapper_rate(args.seconds):,.0f} steps/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

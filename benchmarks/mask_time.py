"""Time of the legal-action mask along one seeded random game trajectory (one row, one thread), with the
search's counters and a fingerprint of the masks, so that two builds can be compared on the very same positions:

    python benchmarks/mask_time.py --preset rami51 --players 2 --steps 200000 --seed 7

Equal fingerprints mean both builds masked the same actions in (a give-up changes it only when it hides a
legal play); the mask's total, mean and median time, its slowest call and the share of calls over 1 ms show
where the time goes (the rami51 search's tail).
"""

from __future__ import annotations

import argparse
import hashlib
import time

import numpy as np

import rummy_env
from rummy_env.sampling import uniform_legal_actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="rami51")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    engine = rummy_env.RummyEngine(rummy_env.RummyRules.preset(args.preset, num_players=args.players), 1)
    engine.reset(seed=args.seed)
    engine.legal_action_mask()  # compile or load the kernels before timing
    engine.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    seconds = np.zeros(args.steps)
    fingerprint = hashlib.sha1()
    before = engine.search_stats()
    for step in range(args.steps):
        start = time.perf_counter()
        mask = engine.legal_action_mask()
        seconds[step] = time.perf_counter() - start
        fingerprint.update(mask.tobytes())
        engine.step(uniform_legal_actions(mask, rng))
        if engine.done[0]:
            engine.reset(rows=engine.done.copy())
    counters = {key: value - before.get(key, 0) for key, value in engine.search_stats().items()}
    total = seconds.sum()
    print(f"{args.preset}, {args.players} players, seed {args.seed}: {args.steps:,} masks in {total:.2f} s "
          f"(mean {total / args.steps * 1e6:.1f} us, median {np.median(seconds) * 1e6:.1f} us, slowest "
          f"{seconds.max() * 1e3:.1f} ms, {seconds[seconds > 1e-3].sum() / total:.0%} of the time in masks over 1 ms); "
          f"masks {fingerprint.hexdigest()[:12]}; {counters}")


if __name__ == "__main__":
    main()

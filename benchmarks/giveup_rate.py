"""How often the rami51 no-dead-end search gives up (R23), in random play: steps, hands ended, give-ups,
searches settled by the opening bound and the slowest mask of a batch, for one preset and seat count.

    python benchmarks/giveup_rate.py --preset rami51 --players 4 --seconds 240 --seed 21

Each step, every live row plays a uniformly random legal action; rows whose hand ended are dealt again. A
give-up masks a play out unproven (README, "Known limit"); compare builds side by side, same seed and time.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import rummy_env
from rummy_env.sampling import uniform_legal_actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="rami51", choices=("rami51", "lebanese14"))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=240.0)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--batch", type=int, default=64)
    args = parser.parse_args()
    rules = rummy_env.RummyRules.preset(args.preset, num_players=args.players)
    engine = rummy_env.RummyEngine(rules, args.batch)
    engine.reset(seed=args.seed)
    engine.legal_action_mask()  # compiled before the clock starts
    rng = np.random.default_rng(args.seed)
    steps = hands = 0
    slowest = 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        tick = time.perf_counter()
        mask = engine.legal_action_mask()
        slowest = max(slowest, time.perf_counter() - tick)
        live = ~engine.done
        engine.step(uniform_legal_actions(mask, rng), rows=live)
        steps += int(live.sum())
        if engine.done.any():
            hands += int(engine.done.sum())
            engine.reset(rows=engine.done.copy())
    elapsed = time.perf_counter() - start
    stats = engine.search_stats()
    per = f"one per {steps // stats['gave_up']:,} steps" if stats["gave_up"] else "none"
    # a build before the opening bound has no bound counters: say so rather than print 0
    bound = (f"bound asked {stats['bounds_asked']}, settled {stats['bounds_settled']}" if "bounds_asked" in stats
             else "no opening bound in this build")
    print(f"{args.preset}, {args.players} players, seed {args.seed}, B = {args.batch}: {steps:,} steps, "
          f"{hands:,} hands ended in {elapsed:.0f} s ({steps / elapsed:,.0f} steps/s); give-ups {stats['gave_up']} "
          f"({per}); {bound}; "
          f"slowest batch mask {slowest:.2f} s")


if __name__ == "__main__":
    main()

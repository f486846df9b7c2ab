"""The cold start: how long a first game waits for its kernels to compile, on an empty cache.

Each case runs in a fresh interpreter whose kernel cache (``RUMMY_ENV_CACHE_DIR``) is an empty folder, and plays
what ``rummy play`` plays: a one-row engine, the heuristic at every seat (``act_on``: reset, mask, observation,
the agent, step). It prints the seconds to the first move (imports included) and to ``--steps`` moves; a second
run from the now-warm cache shows what every later start costs.

    python benchmarks/cold_start.py                      # basic, rami51 (dead_ends "take_back"), rami51 "prevent"
    python benchmarks/cold_start.py --cases rami51 --players 4
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

CASES = {"basic": ("basic", {}), "gin": ("gin", {}), "rami51": ("rami51", {}),
         "rami51_prevent": ("rami51", {"dead_ends": "prevent"})}

FIRST_GAME = """
import json, sys, time
start = time.perf_counter()
import numpy as np
from rummy_env import RummyEngine, RummyRules
from rummy_env.agents.base import act_on
from rummy_env.agents.registry import make_agent
preset, players, knobs, steps = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3]), int(sys.argv[4])
rules = RummyRules.preset(preset, num_players=players, **knobs)
engine, agent, rng = RummyEngine(rules, 1), make_agent("heuristic", rules), np.random.default_rng(0)
engine.reset(seed=1)
for n in range(steps):
    action = act_on(agent, engine.observe(), engine.legal_action_mask(), rng, engine.state, engine.undo_copies)
    engine.step(np.asarray(action, dtype=np.int64))
    if n == 0:
        first = time.perf_counter() - start
    engine.reset(rows=engine.done.copy())
print(f"{first:.1f} {time.perf_counter() - start:.1f}")
"""


def first_game(preset: str, players: int, knobs: dict, steps: int, cache: str) -> tuple[float, float]:
    env = dict(os.environ, RUMMY_ENV_CACHE_DIR=cache, RUMMY_ENV_COMPILE_NOTICE="0")
    command = [sys.executable, "-c", FIRST_GAME, preset, str(players), json.dumps(knobs), str(steps)]
    run = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise SystemExit(f"the {preset} {knobs} game failed:\n{run.stderr[-3000:]}")
    first, total = (float(x) for x in run.stdout.split())
    return first, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="basic,rami51,rami51_prevent",
                        help=f"comma-separated, of {', '.join(CASES)}")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--steps", type=int, default=200, help="moves played per game (at least 1)")
    args = parser.parse_args()
    if args.steps < 1:
        parser.error(f"--steps must be at least 1, not {args.steps}")
    names = args.cases.split(",")
    unknown = [name for name in names if name not in CASES]
    if unknown:
        parser.error(f"unknown cases {unknown}; the cases are {', '.join(CASES)}")
    print(f"| case | players | cold: first move | cold: {args.steps} moves | warm: first move |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in names:
        preset, knobs = CASES[name]
        with tempfile.TemporaryDirectory() as cache:
            cold_first, cold_total = first_game(preset, args.players, knobs, args.steps, cache)
            warm_first, _ = first_game(preset, args.players, knobs, args.steps, cache)
        print(f"| {name} | {args.players} | {cold_first:.1f} s | {cold_total:.1f} s | {warm_first:.1f} s |", flush=True)


if __name__ == "__main__":
    main()

"""How the batched engine should use threads: one thread against the parallel kernels, quiet and busy.

The loop is the random-policy loop of a batched rollout: legal-action mask, uniform pick of a legal action
(``rummy_env.sampling``), step, reset of finished rows, counting one step per row. It runs for each thread
setting:

* ``one thread``: ``RummyEngine(parallel=False)``;
* ``static``: the parallel kernels with numba's static split (``chunk_size=0``: each thread gets an equal
  share of the rows up front);
* ``chunks of k``: the parallel kernels handing out ``k`` rows at a time (``chunk_size=k``), so a thread
  that is held up by another process takes fewer chunks.

and twice: quiet, and beside a busy process (one core kept busy by a matrix-multiply loop, as a learner
would). Each figure is the median of ``--repeats`` timings; the ratio column compares with one thread in
the same condition. ``RummyEngine``'s default (``rummy_env.engine.threads``) was chosen from this table.

Usage: ``python benchmarks/threads.py [--ruleset basic] [--players 2] [--batches 256,4096]
[--chunks 0,16,64,256] [--seconds 3] [--repeats 3] [--no-busy]``
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

import numba
import numpy as np

import rummy_env
from rummy_env.engine.threads import CHUNK_SIZE
from rummy_env.sampling import pick_legal_actions

BUSY = "import numpy as np\na = np.random.rand(400, 400)\nwhile True:\n    a = a @ a\n    a /= np.abs(a).max()\n"


def loop_rate(engine: rummy_env.RummyEngine, seconds: float, repeats: int) -> float:
    """Median rows stepped per second of the random-policy loop."""
    rng = np.random.default_rng(0)
    actions = np.zeros(engine.batch_size, dtype=np.int64)

    def one_step() -> int:
        active = int((~engine.done).sum())
        mask = engine.legal_action_mask()
        pick_legal_actions(mask, rng.random(engine.batch_size), actions, engine.parallel, engine.chunk_size)
        engine.step(actions)
        engine.reset(rows=engine.done.copy())
        return active

    engine.reset(seed=0)
    for _ in range(20):  # warm-up (and compilation on the first setting)
        one_step()
    rates = []
    for _ in range(repeats):
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            steps += one_step()
        rates.append(steps / (time.perf_counter() - start))
    return statistics.median(rates)


def table(rules, batches, chunks, seconds, repeats) -> dict:
    rows = {}
    for batch in batches:
        rows[(batch, "one thread")] = loop_rate(rummy_env.RummyEngine(rules, batch, parallel=False), seconds, repeats)
        for chunk in chunks:
            label = "static" if chunk == 0 else f"chunks of {chunk}"
            engine = rummy_env.RummyEngine(rules, batch, parallel=True, chunk_size=chunk)
            rows[(batch, label)] = loop_rate(engine, seconds, repeats)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="basic")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--batches", default="256,4096")
    parser.add_argument("--chunks", default="0,16,64,256")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-busy", action="store_true", help="skip the run beside a busy process")
    args = parser.parse_args(argv)
    rules = rummy_env.RummyRules.preset(args.ruleset, num_players=args.players)
    batches = [int(b) for b in args.batches.split(",")]
    chunks = [int(c) for c in args.chunks.split(",")]
    conditions = {"quiet": table(rules, batches, chunks, args.seconds, args.repeats)}
    if not args.no_busy:
        busy = subprocess.Popen([sys.executable, "-c", BUSY], env={"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                                                                   "MKL_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
        try:
            time.sleep(1.0)
            conditions["beside a busy process"] = table(rules, batches, chunks, args.seconds, args.repeats)
        finally:
            busy.kill()
            busy.wait()
    print(f"{args.ruleset}, {args.players} players, random-policy loop (mask + pick + step + reset), "
          f"{numba.config.NUMBA_NUM_THREADS} numba threads; default chunk_size {CHUNK_SIZE}")
    print(f"{'condition':<24}{'B':>6}  {'setting':<16}{'steps/s':>12}{'vs one thread':>15}")
    for condition, rows in conditions.items():
        for (batch, label), rate in rows.items():
            base = rows[(batch, "one thread")]
            print(f"{condition:<24}{batch:>6}  {label:<16}{rate:>12,.0f}{rate / base:>14.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

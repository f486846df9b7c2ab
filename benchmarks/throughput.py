"""Throughput of rummy_env beside the anchors, measured in the same run.

Random legal play, one process:

* the AEC env (``rummy_env.env`` and ``raw_env``), the standard ``agent_iter``/``last``/``step``
  loop, observation and mask fetched every step — the same loop and the same picker
  (``random.Random.choice`` over the legal ids) as the PettingZoo anchor;
* the batched engine at B = 1, 64, 1024, 4096: mask + observation for the player to act + step +
  reset of finished rows, counting one step per row;
* the anchors (``benchmarks/anchors.py``, run in ``.venv-bench``): PettingZoo 1.26.1
  ``gin_rummy_v4``, RLCard 1.2.0 ``gin-rummy``, OpenSpiel 2.0.2 ``gin_rummy``;
* memory of the batched state, and the import time of ``rummy_env``.

Usage: ``python benchmarks/throughput.py [--ruleset basic|rami51|lebanese14|gin|gin_openspiel|gin_rlcard]
[--seconds 5] [--repeats 3]
[--players 2] [--batches 1,64,1024,4096] [--bench-python .venv-bench/bin/python] [--json out.json]``
(``make bench`` builds the bench venv and runs it for basic, rami51 and gin). The anchors play gin rummy
whatever ``--ruleset`` is: they are the fixed yardstick of every row, and with ``--ruleset gin`` (or
``gin_openspiel``) the same game.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import rummy_env
from rummy_env.sampling import pick_legal_actions

HERE = Path(__file__).resolve().parent


def timed_rate(run_once, seconds: float, repeats: int) -> float:
    """Median over ``repeats`` of (units done by ``run_once`` in ``seconds``) per second."""
    rates = []
    for _ in range(repeats):
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            count += run_once()
        rates.append(count / (time.perf_counter() - start))
    return statistics.median(rates)


def aec_rate(make_env, seconds: float, repeats: int, seed: int = 0) -> float:
    """Steps/s of the standard AEC loop (observation + mask every step)."""
    env = make_env()
    env.reset(seed=seed)
    picker = random.Random(seed)

    def one_episode() -> int:
        steps = 0
        for _agent in env.agent_iter():
            observation, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                action = None
            else:
                action = picker.choice(np.flatnonzero(observation["action_mask"]))
                steps += 1
            env.step(action)
        env.reset()
        return steps

    one_episode()  # warm-up (compiles or loads the kernels)
    return timed_rate(one_episode, seconds, repeats)


def engine_rate(rules: rummy_env.RummyRules, batch: int, seconds: float, repeats: int, seed: int = 0) -> float:
    """Steps/s of the batched engine: mask + observation + step + reset of finished rows."""
    engine = rummy_env.RummyEngine(rules, batch_size=batch)
    engine.reset(seed=seed)
    generator = np.random.default_rng(seed)
    actions = np.zeros(batch, dtype=np.int64)

    def iterations() -> int:
        for _ in range(20):
            mask = engine.legal_action_mask()
            engine.observe()
            pick_legal_actions(mask, generator.random(batch), actions, engine.parallel, engine.chunk_size)
            engine.step(actions)
            done = engine.done
            if done.any():
                engine.reset(rows=done)
        return 20 * batch

    iterations()
    return timed_rate(iterations, seconds, repeats)


def import_seconds() -> tuple[float, float]:
    """Seconds for ``import rummy_env``, and for import plus the first reset/mask/observe/step."""
    code = ("import time; t=time.perf_counter(); import rummy_env; t1=time.perf_counter(); "
            "e=rummy_env.RummyEngine(rummy_env.RummyRules.preset('basic', num_players=2)); e.reset(seed=0); "
            "e.legal_action_mask(); e.observe(); e.step([0]); print(t1-t, time.perf_counter()-t)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1])


def anchors(bench_python: str, seconds: float, repeats: int) -> dict:
    """The anchors' JSON from ``benchmarks/anchors.py`` run in the bench venv ({} if unavailable)."""
    if not Path(bench_python).exists():
        print(f"(no {bench_python}: anchors skipped; `make bench` installs them)", file=sys.stderr)
        return {}
    result = subprocess.run([bench_python, str(HERE / "anchors.py"), "--seconds", str(seconds), "--repeats", str(repeats)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        print(result.stderr, file=sys.stderr)
        return {}
    return json.loads(result.stdout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--ruleset", default="basic", help="preset: basic, rami51, lebanese14, gin, gin_openspiel or "
                                                           "gin_rlcard")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--batches", default="1,64,1024,4096")
    parser.add_argument("--bench-python", default=str(HERE.parent / ".venv-bench" / "bin" / "python"))
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)

    rules = rummy_env.RummyRules.preset(args.ruleset, num_players=args.players)
    rows: list[tuple[str, float]] = []
    rows.append(("rummy_env AEC env() (wrapped)", aec_rate(lambda: rummy_env.env(rules), args.seconds, args.repeats)))
    rows.append(("rummy_env AEC raw_env()", aec_rate(lambda: rummy_env.raw_env(rules), args.seconds, args.repeats)))
    for batch in (int(b) for b in args.batches.split(",")):
        rows.append((f"rummy_env engine B={batch}", engine_rate(rules, batch, args.seconds, args.repeats)))
    anchor = anchors(args.bench_python, args.seconds, args.repeats)
    names = {"pettingzoo_gin_rummy_v4": "PettingZoo 1.26.1 gin_rummy_v4 (AEC)",
             "rlcard_gin_rummy": "RLCard 1.2.0 gin-rummy",
             "openspiel_gin_rummy_obs": "OpenSpiel 2.0.2 gin_rummy + obs tensor",
             "openspiel_gin_rummy_noobs": "OpenSpiel 2.0.2 gin_rummy, no obs"}
    anchor_rates = {key: value["steps_per_s"] for key, value in anchor.items() if "steps_per_s" in value}
    pz, spiel = anchor_rates.get("pettingzoo_gin_rummy_v4"), anchor_rates.get("openspiel_gin_rummy_obs")

    print(f"\nrandom legal play, {args.ruleset}, {args.players} players, one process; median of {args.repeats} x {args.seconds:g} s\n")
    print(f"| {'system':<42} | {'steps/s':>12} | {'vs PettingZoo':>13} | {'vs OpenSpiel+obs':>16} |")
    print(f"|{'-' * 44}|{'-' * 14}|{'-' * 15}|{'-' * 18}|")
    for label, rate in rows + [(names[key], rate) for key, rate in anchor_rates.items()]:
        ratio_pz = f"{rate / pz:.1f}x" if pz else "n/a"
        ratio_spiel = f"{rate / spiel:.2f}x" if spiel else "n/a"
        print(f"| {label:<42} | {rate:>12,.0f} | {ratio_pz:>13} | {ratio_spiel:>16} |")

    record_bytes = rummy_env.RummyEngine(rules, batch_size=1).state.dtype.itemsize
    import_s, first_step_s = import_seconds()
    print(f"\nbatched state: {record_bytes} bytes per game; {record_bytes * 4096 / 2**20:.1f} MiB at B=4096 (without observations)")
    print(f"import rummy_env: {import_s:.2f} s; import + first reset/mask/observe/step (cached kernels): {first_step_s:.2f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "anchors": anchor, "bytes_per_game": record_bytes,
                                               "import_s": import_s, "first_step_s": first_step_s}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

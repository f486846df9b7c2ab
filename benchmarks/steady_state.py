"""Steady-state throughput of the batched engine: random legal play over whole hands, the mask's share and its tail.

The loop is a training loop's: legal-action mask, observation of the player to act, a uniformly random legal
action per row (``rummy_env.sampling``), step, reset of finished rows; one thread, ``B`` rows (256). The clock
starts only once every row has finished one whole hand, so the figures cover whole hands, not the cheap first
moves after a deal. Printed per configuration:

* **steps/s** (one step per row) and **hands/s** (hands finished per second), with the steps a hand took;
* the share of the time spent in the mask, and the slowest and the 99th-percentile batch mask (one call for all
  ``B`` rows), by the wall clock and by the thread's CPU time (``time.thread_time``): a slowest wall time far
  above the slowest CPU time is time the process was not running (another process, or the virtual machine's
  host, held the core), not work of the mask;
* how the hands ended (``out``: a player went out; ``turn cap``: ``max_turns_per_round`` turns were played) and
  the take-backs per hand (rami51 with ``dead_ends="take_back"``, R25);
* the give-ups of the measured part (``"prevent"``: look-ahead searches cut at their budget, each masking a
  play out unproven; ``RummyEngine.search_stats``).

Run it quiet, and beside a busy process (``--busy``: one core kept busy by a matrix-multiply loop, as a learner
beside the env would):

    python benchmarks/steady_state.py --preset rami51 --players 2 --dead-ends take_back --seconds 60
    python benchmarks/steady_state.py --table --seconds 60 [--busy]    # rami51 and lebanese14, 2-5 players, both modes

``--table`` prints the README's table. ``--heuristic`` adds, per configuration, the compiled heuristic playing
every seat (``rummy_env.engine.search.rollout``'s ``play_out_rows``, hands from fresh deals to their end, one thread):
steps/s and hands/s of a player that plays to go out, beside random play's. A configuration whose rows do not all finish a hand within
``--warmup-limit`` seconds is reported as such and measured from then on (its figures then include cheap
early moves).
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import time
from collections import Counter

import numpy as np

import rummy_env
from rummy_env.actions import ActionLayout
from rummy_env.sampling import pick_legal_actions

BUSY = "import numpy as np\na = np.random.rand(400, 400)\nwhile True:\n    a = a @ a\n    a /= np.abs(a).max()\n"
PRESETS = ("rami51", "lebanese14")
MODES = ("take_back", "prevent")


def measure(rules: rummy_env.RummyRules, batch: int, seconds: float, warmup_limit: float, seed: int = 0) -> dict:
    """Run the loop; returns the figures of the measured part (see the module docstring)."""
    engine = rummy_env.RummyEngine(rules, batch_size=batch, parallel=False)
    engine.reset(seed=seed)
    generator = np.random.default_rng(seed)
    actions = np.zeros(batch, dtype=np.int64)
    take_back = ActionLayout.for_rules(rules).special("take_back") if rules.ruleset == "rami51" else -1
    finished = np.zeros(batch, dtype=np.bool_)
    warm, start_wait = False, time.perf_counter()
    mask_times: list[float] = []
    mask_cpu: list[float] = []
    steps = hands = take_backs = 0
    ends: Counter = Counter()
    clock = 0.0
    while True:
        begin, begin_cpu = time.perf_counter(), time.thread_time()
        mask = engine.legal_action_mask()
        masked, masked_cpu = time.perf_counter(), time.thread_time()
        engine.observe()
        pick_legal_actions(mask, generator.random(batch), actions)
        engine.step(actions)
        done = engine.done
        end = time.perf_counter()
        if warm:
            clock += end - begin
            mask_times.append(masked - begin)
            mask_cpu.append(masked_cpu - begin_cpu)
            steps += batch
            take_backs += int((actions == take_back).sum())
            for reason in engine.state["end_reason"][done]:
                ends[rummy_env.END_NAMES[reason]] += 1
            hands += int(done.sum())
            if clock >= seconds:
                break
        else:
            finished |= done
            waited = end - start_wait
            if finished.all() or waited > warmup_limit:
                warm = True
                warm_seconds = waited
                gave_up_before = engine.search_stats()["gave_up"]
        if done.any():
            engine.reset(rows=done.copy())
    times, cpu = np.array(mask_times), np.array(mask_cpu)
    return {"steps_per_s": steps / clock, "hands_per_s": hands / clock, "steps_per_hand": steps / max(hands, 1),
            "mask_share": times.sum() / clock, "slowest_mask_s": times.max(), "p99_mask_s": np.percentile(times, 99),
            "slowest_mask_cpu_s": cpu.max(), "p99_mask_cpu_s": np.percentile(cpu, 99),
            "warm": bool(finished.all()), "warmup_s": warm_seconds, "unfinished_rows": int((~finished).sum()),
            "ends": dict(ends), "take_backs_per_hand": take_backs / max(hands, 1), "seconds": clock,
            "give_ups": engine.search_stats()["gave_up"] - gave_up_before}


def heuristic_hands(rules: rummy_env.RummyRules, batch: int, seconds: float) -> dict:
    """The compiled heuristic at every seat plays batches of ``batch`` fresh deals to the end of their hand."""
    from rummy_env.engine.families import policies  # a family's compiled rollouts
    from rummy_env.engine.search.rollout import POLICY_HEURISTIC

    kernels = policies(rules)
    engine = rummy_env.RummyEngine(rules, batch_size=batch, parallel=False)
    codes = np.full((batch, rules.num_players), POLICY_HEURISTIC, dtype=np.int64)
    steps = np.zeros(batch, dtype=np.int64)
    total_steps = hands = outs = seed = 0
    clock = 0.0
    while clock < seconds or seed < 2:
        engine.reset(seed=seed)
        state, undo = engine.state.copy(), engine.undo_copies.copy()
        streams = np.arange(1, batch + 1, dtype=np.uint64) + np.uint64(seed * batch)
        begin = time.perf_counter()
        kernels.play_out_rows(state, undo, codes, streams, engine._work, engine.tables, engine.cfgs, 1_000_000, steps)
        if seed > 0:  # the first batch compiles or loads the kernels
            clock += time.perf_counter() - begin
            total_steps += int(steps.sum())
            hands += batch
            outs += int((state["end_reason"] == rummy_env.END_NAMES.index("out")).sum())
        seed += 1
    return {"steps_per_s": total_steps / clock, "hands_per_s": hands / clock, "steps_per_hand": total_steps / hands,
            "out_share": outs / hands}


def row(label: str, figures: dict) -> str:
    ends = figures["ends"]
    total = max(sum(ends.values()), 1)
    out_share = ends.get("out", 0) / total
    cap_share = ends.get("dead_turn_cap", 0) / total
    warm = "" if figures["warm"] else f" (warm-up cut at {figures['warmup_s']:.0f} s, {figures['unfinished_rows']} rows unfinished)"
    return (f"| {label} | {figures['steps_per_s']:,.0f} | {figures['hands_per_s']:,.1f} | {figures['steps_per_hand']:,.0f} "
            f"| {figures['mask_share']:.0%} | {figures['slowest_mask_s'] * 1e3:,.1f} / {figures['slowest_mask_cpu_s'] * 1e3:,.1f} ms "
            f"| {figures['p99_mask_s'] * 1e3:,.2f} / {figures['p99_mask_cpu_s'] * 1e3:,.2f} ms "
            f"| {out_share:.0%} / {cap_share:.0%} | {figures['take_backs_per_hand']:.1f} | {figures['give_ups']:,} |{warm}")


HEADER = ("| configuration | steps/s | hands/s | steps per hand | time in the mask | slowest batch mask "
          "(wall / CPU) | p99 batch mask (wall / CPU) | hands out / turn cap | take-backs per hand "
          "| give-ups |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


@contextlib.contextmanager
def busy_process(on: bool):
    """One core kept busy beside the measurement (``--busy``), as a learner would."""
    if not on:
        yield
        return
    busy = subprocess.Popen([sys.executable, "-c", BUSY], env={"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                                                              "MKL_NUM_THREADS": "1"})
    try:
        yield
    finally:
        busy.kill()
        busy.wait()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     epilog="See the module docstring for what is measured.")
    parser.add_argument("--preset", default="rami51", help="a preset name (rami51, lebanese14, basic, gin, ...)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--dead-ends", choices=MODES, default=None, help="rami51 presets: R25's mode (default: the "
                                                                        "rules' default)")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=60.0, help="measured seconds per configuration")
    parser.add_argument("--warmup-limit", type=float, default=600.0, help="longest wait for every row to finish a hand")
    parser.add_argument("--busy", action="store_true", help="measure beside a busy process")
    parser.add_argument("--heuristic", action="store_true", help="also the compiled heuristic at every seat")
    parser.add_argument("--table", action="store_true", help="rami51 and lebanese14 at 2-5 players, both modes")
    parser.add_argument("--players-list", default="2,3,4,5", help="with --table: the player counts")
    parser.add_argument("--modes", default=",".join(MODES), help="with --table: the modes")
    args = parser.parse_args(argv)
    condition = "beside a busy process" if args.busy else "quiet"
    print(f"random legal play, B = {args.batch}, one thread, {args.seconds:g} s measured after every row finished a "
          f"hand, {condition}\n")
    print(HEADER)
    if args.table:
        configs = [(preset, players, mode) for preset in PRESETS for mode in args.modes.split(",")
                   for players in (int(p) for p in args.players_list.split(","))]
    else:
        configs = [(args.preset, args.players, args.dead_ends)]
    heuristic_rows: list[str] = []
    with busy_process(args.busy):
        for preset, players, mode in configs:
            knobs = {} if mode is None else {"dead_ends": mode}
            rules = rummy_env.RummyRules.preset(preset, num_players=players, **knobs)
            warm_up = rummy_env.RummyEngine(rules, batch_size=1)
            warm_up.reset(seed=0)
            warm_up.legal_action_mask()  # compile or load the kernels before timing
            figures = measure(rules, args.batch, args.seconds, args.warmup_limit)
            label = f"{preset} {players}p" + (f", {rules.dead_ends}" if rules.ruleset == "rami51" else "")
            print(row(label, figures), flush=True)
            if args.heuristic:
                played = heuristic_hands(rules, args.batch, args.seconds)
                heuristic_rows.append(f"| {label} | {played['steps_per_s']:,.0f} | {played['hands_per_s']:,.1f} "
                                      f"| {played['steps_per_hand']:,.0f} | {played['out_share']:.0%} |")
    if heuristic_rows:
        print("\nThe compiled heuristic at every seat, hands from fresh deals to their end:\n")
        print("| configuration | steps/s | hands/s | steps per hand | hands out |\n|---|---:|---:|---:|---:|")
        print("\n".join(heuristic_rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())

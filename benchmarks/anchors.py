#!/usr/bin/env python3
"""Throughput *anchors*: other projects' Gin Rummy environments, timed the same way.

This script is self-contained on purpose: it imports only the standard library,
numpy and the anchor packages, never ``rummy_env``, so that it can run in its own
virtual environment (``.venv-bench``, see ``benchmarks/ANCHORS.md``) with the
exact pinned anchor versions.

Every anchor is played with uniformly random *legal* actions drawn from a seeded
``random.Random`` (the same cheap picker ``benchmarks/throughput.py`` uses for rummy_env), resetting whenever a game ends, single process.
For each anchor we warm up briefly, then count decisions during ``--seconds``
of wall time, ``--repeats`` times, and report the median rate.

Anchors (keys of the JSON object printed on stdout):

``pettingzoo_gin_rummy_v4``
    PettingZoo ``classic.gin_rummy_v4.env()`` (AEC API, default wrappers, over
    RLCard), driven by the standard ``agent_iter()``/``last()``/``step()`` loop.
    A step counts when it is taken with a real action (not ``None``).
``rlcard_gin_rummy``
    ``rlcard.make("gin-rummy")`` driven by a manual ``reset``/``step`` loop;
    every ``env.step`` is one decision.
``openspiel_gin_rummy_obs`` / ``openspiel_gin_rummy_noobs``
    OpenSpiel ``pyspiel.load_game("gin_rummy")``; player decisions per second,
    with (``_obs``) or without (``_noobs``) fetching
    ``state.observation_tensor(player)`` before each decision.  Chance nodes are
    sampled from ``state.chance_outcomes()`` and are *not* counted as decisions;
    their rate is reported separately as ``chance_nodes_per_s``.

Each entry holds ``steps_per_s`` (median decisions/s), ``version``,
``episodes_per_s`` (median), the per-repeat rates and the settings used; an
anchor that cannot be imported or fails at run time holds ``{"error": ...}``.

Usage::

    .venv-bench/bin/python benchmarks/anchors.py [--seconds 5] [--repeats 3]
        [--warmup 1.0] [--seed 0] [--only NAME[,NAME]]
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import itertools
import json
import os
import random
import statistics
import sys
import time
import warnings
from importlib import metadata
from typing import Callable, Dict, Iterator

ANCHORS = (
    "pettingzoo_gin_rummy_v4",
    "rlcard_gin_rummy",
    "openspiel_gin_rummy_obs",
    "openspiel_gin_rummy_noobs",
)

# A "decision stream" is an endless generator that plays random legal moves and
# yields once per counted decision.  It bumps ``stats["episodes"]`` at each
# finished game and ``stats["chance_nodes"]`` at each sampled chance node.
Stats = Dict[str, int]
DecisionStream = Iterator[None]


def _dist_version(name: str) -> str:
    """Installed version of distribution ``name`` (or ``"unknown"``)."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


# --------------------------------------------------------------------------- #
# Anchors: each returns (decision stream, version string).
# --------------------------------------------------------------------------- #


def pettingzoo_gin_rummy_v4(rng, seed: int, stats: Stats):
    """PettingZoo ``gin_rummy_v4`` AEC env, standard ``agent_iter`` loop."""
    import numpy as np
    import pettingzoo
    from pettingzoo.classic import gin_rummy_v4

    env = gin_rummy_v4.env()

    def stream() -> DecisionStream:
        env.reset(seed=seed)
        while True:
            for _agent in env.agent_iter():
                obs, _rew, term, trunc, _info = env.last()
                if term or trunc:
                    action = None
                else:
                    action = rng.choice(np.flatnonzero(obs["action_mask"]))
                env.step(action)
                if action is not None:
                    yield
            stats["episodes"] += 1
            env.reset()

    return stream(), pettingzoo.__version__


def rlcard_gin_rummy(rng, seed: int, stats: Stats):
    """RLCard ``gin-rummy`` env, manual ``reset``/``step`` loop."""
    import rlcard

    env = rlcard.make("gin-rummy", config={"seed": seed})

    def stream() -> DecisionStream:
        state, _pid = env.reset()
        while True:
            action = rng.choice(list(state["legal_actions"].keys()))
            state, _pid = env.step(int(action))
            yield
            if env.is_over():
                stats["episodes"] += 1
                state, _pid = env.reset()

    return stream(), _dist_version("rlcard")


def _openspiel_gin_rummy(rng, stats: Stats, with_obs: bool):
    """OpenSpiel ``gin_rummy``; yields per player decision, samples chance nodes."""
    import pyspiel

    game = pyspiel.load_game("gin_rummy")

    def sample_chance(state) -> int:
        actions, probs = zip(*state.chance_outcomes())
        cum = list(itertools.accumulate(probs))
        i = bisect.bisect_right(cum, rng.random() * cum[-1])
        return actions[min(i, len(actions) - 1)]

    def stream() -> DecisionStream:
        state = game.new_initial_state()
        while True:
            if state.is_terminal():
                stats["episodes"] += 1
                state = game.new_initial_state()
            elif state.is_chance_node():
                state.apply_action(sample_chance(state))
                stats["chance_nodes"] += 1
            else:
                if with_obs:
                    state.observation_tensor(state.current_player())
                state.apply_action(int(rng.choice(state.legal_actions())))
                yield

    return stream(), _dist_version("open_spiel")


def openspiel_gin_rummy_obs(rng, seed: int, stats: Stats):
    """OpenSpiel ``gin_rummy`` with ``observation_tensor(player)`` per decision."""
    return _openspiel_gin_rummy(rng, stats, with_obs=True)


def openspiel_gin_rummy_noobs(rng, seed: int, stats: Stats):
    """OpenSpiel ``gin_rummy`` without fetching observations."""
    return _openspiel_gin_rummy(rng, stats, with_obs=False)


ANCHOR_FUNCS: Dict[str, Callable] = {
    "pettingzoo_gin_rummy_v4": pettingzoo_gin_rummy_v4,
    "rlcard_gin_rummy": rlcard_gin_rummy,
    "openspiel_gin_rummy_obs": openspiel_gin_rummy_obs,
    "openspiel_gin_rummy_noobs": openspiel_gin_rummy_noobs,
}


# --------------------------------------------------------------------------- #
# Timing harness.
# --------------------------------------------------------------------------- #


def run_for(stream: DecisionStream, stats: Stats, seconds: float) -> Dict[str, float]:
    """Advance ``stream`` for ``seconds`` of wall time; return per-second rates."""
    before = dict(stats)
    clock = time.perf_counter
    decisions = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        next(stream)
        decisions += 1
    elapsed = clock() - start
    return {
        "steps_per_s": decisions / elapsed,
        "episodes_per_s": (stats["episodes"] - before["episodes"]) / elapsed,
        "chance_nodes_per_s": (stats["chance_nodes"] - before["chance_nodes"]) / elapsed,
    }


def bench_anchor(name: str, seconds: float, repeats: int, warmup: float, seed: int) -> dict:
    """Build anchor ``name``, warm it up, time it ``repeats`` times, summarise."""
    rng = random.Random(seed)
    stats: Stats = {"episodes": 0, "chance_nodes": 0}
    stream, version = ANCHOR_FUNCS[name](rng, seed, stats)
    if warmup > 0:
        run_for(stream, stats, warmup)
    runs = [run_for(stream, stats, seconds) for _ in range(repeats)]

    def median(key: str) -> float:
        return round(statistics.median(r[key] for r in runs), 1)

    result = {
        "steps_per_s": median("steps_per_s"),
        "version": version,
        "episodes_per_s": median("episodes_per_s"),
        "runs_steps_per_s": [round(r["steps_per_s"], 1) for r in runs],
        "seconds": seconds,
        "repeats": repeats,
        "seed": seed,
    }
    if name.startswith("openspiel_"):
        result["chance_nodes_per_s"] = median("chance_nodes_per_s")
    return result


@contextlib.contextmanager
def stdout_to_stderr():
    """Send everything written to stdout (Python *and* C level) to stderr.

    Anchors may print banners or warnings; stdout must carry only the JSON.
    """
    sys.stdout.flush()
    saved_fd = os.dup(1)
    try:
        os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stdout.flush()
        os.dup2(saved_fd, 1)
        os.close(saved_fd)


def parse_args(argv=None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=5.0,
                   help="timed wall-clock seconds per repeat per anchor (default 5)")
    p.add_argument("--repeats", type=int, default=3,
                   help="timed repeats per anchor; the median is reported (default 3)")
    p.add_argument("--warmup", type=float, default=1.0,
                   help="untimed warm-up seconds per anchor (default 1)")
    p.add_argument("--seed", type=int, default=0, help="RNG / env seed (default 0)")
    p.add_argument("--show-warnings", action="store_true",
                   help="print the anchors' Python warnings on stderr (default: silenced)")
    p.add_argument("--only", default=None,
                   help="comma-separated subset of: " + ",".join(ANCHORS))
    args = p.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1 or args.warmup < 0:
        p.error("need --seconds > 0, --repeats >= 1, --warmup >= 0")
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in ANCHOR_FUNCS]
        if unknown:
            p.error(f"unknown anchor(s) {unknown}; choose from {list(ANCHORS)}")
        args.names = names
    else:
        args.names = list(ANCHORS)
    return args


def main(argv=None) -> int:
    """Run the selected anchors and print one JSON object on stdout."""
    args = parse_args(argv)
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    warnings.simplefilter("default" if args.show_warnings else "ignore")
    results = {}
    with stdout_to_stderr():
        for name in args.names:
            try:
                results[name] = bench_anchor(
                    name, args.seconds, args.repeats, args.warmup, args.seed)
            except Exception as exc:  # ImportError or a run-time failure
                results[name] = {"error": f"{type(exc).__name__}: {exc}"}
            print(f"[anchors] {name}: {results[name]}", file=sys.stderr, flush=True)
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

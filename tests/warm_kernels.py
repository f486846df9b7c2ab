"""Compile (or load from numba's on-disk cache) the kernels most tests use, one rule-family group per process.

``tests/conftest.py`` runs one process per group, side by side, before pytest-xdist starts its workers: a cold
cache (a fresh clone, or any edit under ``rummy_env/``) is then compiled once, split over the cores, instead of
once in every worker that meets a kernel first. A warm cache makes each process a load of a few seconds.

    python tests/warm_kernels.py rami51_prevent        # or others

The groups are balanced for two cores from a cold cache: rami51's kernels under ``dead_ends = "prevent"`` compile
its look-ahead search (most of the time); the other process compiles basic, gin and rami51 under ``"take_back"``
(no search), then their compiled policies. (Rami51's compiled policies and parallel kernels under ``"prevent"``,
about 3.5 minutes more, are left to ``make test-all``.)
"""

from __future__ import annotations

import sys

import numpy as np

ENGINE, POLICIES = "engine", "policies"
PREVENT = {"dead_ends": "prevent"}
GROUPS = {"rami51_prevent": (("rami51", PREVENT, ENGINE),),
          "others": (("basic", {}, ENGINE), ("gin", {}, ENGINE), ("rami51", {}, ENGINE), ("basic", {}, POLICIES),
                     ("rami51", {}, POLICIES), ("gin", {}, POLICIES))}


def warm(preset: str, knobs: dict, part: str) -> None:
    """Play a few random steps of ``preset`` (with ``knobs``) through what the tests call: the serial and parallel
    batch kernels, observations, explanations and positions (``ENGINE``), or its compiled rollouts, world
    sampling and the heuristic agent (``POLICIES``)."""
    from rummy_env import RummyEngine, RummyRules
    from rummy_env.agents.heuristic_agent import HeuristicAgent
    from rummy_env.beliefs import sample_worlds
    from rummy_env.engine.families import policies
    from rummy_env.engine.search.rollout import POLICY_CODES
    from rummy_env.sampling import pick_legal_actions

    rules = RummyRules.preset(preset, num_players=2, **knobs)
    rng = np.random.default_rng(0)
    for parallel in (False, True) if part == ENGINE and knobs != PREVENT else (False,):
        engine = RummyEngine(rules, 4, parallel=parallel)
        engine.reset(seed=0)
        actions = np.zeros(4, dtype=np.int64)
        for _ in range(40):
            mask = engine.legal_action_mask()
            engine.observe()
            engine.public_history()
            pick_legal_actions(mask, rng.random(4), actions)
            engine.step(actions)
            if engine.done.any():
                engine.reset(rows=engine.done.copy())
    if part == ENGINE:
        engine.state_tensor()
        engine.explain_illegal(0, 0)
        engine.load(1, engine.snapshot(0))
        return
    sample_worlds(rules, engine.state[0], int(engine.state[0]["current"]), 4, 0)
    HeuristicAgent(rules).act(engine.observe(), engine.legal_action_mask(), rng)  # rami51's plans with the planner
    kernels = policies(rules)
    for policy in POLICY_CODES.values():
        state, undo = engine.state.copy(), engine.undo_copies.copy()
        codes = np.full((4, rules.num_players), policy, dtype=np.int64)
        kernels.play_out_rows(state, undo, codes, np.arange(1, 5, dtype=np.uint64), engine._work, engine.tables,
                              engine.cfgs, 200, np.zeros(4, dtype=np.int64))


if __name__ == "__main__":
    import compile_once  # this script's folder, tests/, is on sys.path

    compile_once.install()  # a kernel the other warm-up process or a test worker is compiling is loaded, not compiled
    for name in sys.argv[1:]:
        if name not in GROUPS:
            sys.exit(f"unknown group {name!r}; groups: {', '.join(GROUPS)}")
        for preset, knobs, part in GROUPS[name]:
            warm(preset, knobs, part)

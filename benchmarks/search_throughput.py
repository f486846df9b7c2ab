"""Speed of what the search agents run on, one thread (``NUMBA_NUM_THREADS`` is not used: every kernel here
is serial): belief sampling (consistent worlds per second, uniform and weighted), compiled rollouts (steps per
second of the heuristic and the random policy playing hands to their end), and the search agents' time per
decision at their default budgets.

    python benchmarks/search_throughput.py                     # basic, 2 players, mid-game positions
    python benchmarks/search_throughput.py --ruleset rami51
    python benchmarks/search_throughput.py --ruleset gin     # no belief model: the uniform sampler only

Positions: ``--positions`` hands played by the heuristic for 10 to 30 steps (mid-game); each figure is the
median of ``--repeats`` timed runs after a warm-up that compiles or loads the kernels.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rummy_env import RummyEngine
from rummy_env.agents.heuristic_agent import HeuristicAgent
from rummy_env.agents.registry import make_agent
from rummy_env.beliefs import BeliefModel, sample_worlds
from rummy_env.engine.families import policies
from rummy_env.engine.search.rollout import POLICY_CODES
from rummy_env.rules import make_rules


def mid_game(ruleset: str, players: int, rows: int, seed: int) -> RummyEngine:
    rules = make_rules(ruleset, players)
    engine = RummyEngine(rules, rows, parallel=False)
    engine.reset(seed=seed)
    agent, rng = HeuristicAgent(rules), np.random.default_rng(seed)
    stop = rng.integers(10, 31, size=rows)
    for step in range(31):
        live = ~engine.done & (step < stop)
        if not live.any():
            break
        actions = np.zeros(rows, dtype=np.int64)
        actions[live] = agent.act(engine.observe()[live], engine.legal_action_mask()[live], rng)
        engine.step(actions, rows=live)
    return engine


def median_rate(run, repeats: int) -> float:
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        count = run()
        rates.append(count / (time.perf_counter() - start))
    return float(np.median(rates))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="basic")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--positions", type=int, default=64)
    parser.add_argument("--worlds", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--decisions", type=int, default=40, help="search decisions timed per agent")
    args = parser.parse_args()
    engine = mid_game(args.ruleset, args.players, args.positions, 0)
    rules = engine.rules
    live = np.flatnonzero(~engine.done)
    try:
        model = BeliefModel.default(rules)
    except ValueError as error:  # gin has no fitted opponent model: its weighted figures are left out
        print(f"({error})")
        model = None

    def sampling(weighted: bool):
        def run() -> int:
            for row in live:
                sample_worlds(rules, engine.state[row], int(engine.state[row]["current"]), args.worlds, int(row),
                              model=model if weighted else None)
            return len(live) * args.worlds
        return run

    kernels = policies(rules)

    def rollouts(policy: str):
        def run() -> int:
            state, undo = engine.state[live].copy(), engine.undo_copies[live].copy()
            codes = np.full((len(live), rules.num_players), POLICY_CODES[policy], dtype=np.int64)
            streams = np.arange(1, len(live) + 1, dtype=np.uint64)
            steps = np.zeros(len(live), dtype=np.int64)
            kernels.play_out_rows(state, undo, codes, streams, engine._work, engine.tables, engine.cfgs, 100_000, steps)
            return int(steps.sum())
        return run

    print(f"{rules.ruleset}, {rules.num_players} players, {len(live)} mid-game positions, one thread")
    figures = [("uniform worlds/s", sampling(False)), ("weighted worlds/s (chain)", sampling(True)),
               ("heuristic rollout steps/s", rollouts("heuristic")), ("random rollout steps/s", rollouts("random"))]
    for name, run in figures if model is not None else figures[:1] + figures[2:]:
        run()  # warm-up: compile or load the kernels
        print(f"  {name:>28}: {median_rate(run, args.repeats):>12,.0f}")
    for spec in ("pimc", "pimc:belief=model", "ismcts", "pimc-oracle") if model is not None else ("pimc", "ismcts",
                                                                                                  "pimc-oracle"):
        agent = make_agent(spec, rules)
        observation, mask = engine.observe(), engine.legal_action_mask()
        rows = live[: args.decisions]
        agent.act(observation[rows[:1]], mask[rows[:1]], np.random.default_rng(0), engine.state[rows[:1]],
                  engine.undo_copies[rows[:1]])
        start = time.perf_counter()
        agent.act(observation[rows], mask[rows], np.random.default_rng(0), engine.state[rows], engine.undo_copies[rows])
        print(f"  {spec:>28}: {(time.perf_counter() - start) / len(rows):.4f} s per decision")


if __name__ == "__main__":
    main()

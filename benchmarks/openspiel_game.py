"""The OpenSpiel games (``rummy_env.openspiel``) beside OpenSpiel's own C++ ``gin_rummy``: nodes/s and hands/s of
the same Python loop.

Each game is played whole hands at a time by one loop: chance nodes by their probabilities, decisions uniformly
among the legal actions, through ``pyspiel``'s state API (``legal_actions``, ``chance_outcomes``,
``apply_action``). A node is a decision or a chance outcome. The games alternate in ``--rounds`` windows of
``--seconds`` each (whole hands: a window ends with its hand), so that a change of load touches them all; the
anchor, OpenSpiel's ``gin_rummy`` (C++ behind the same Python calls), is timed the same way, and each line
gives the ratio to it. rami 51's uniformly random hands are long (they mostly end at the turn cap).

    python benchmarks/openspiel_game.py [--seconds 10] [--rounds 2] [--busy]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import pyspiel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rummy_env.openspiel  # noqa: E402,F401  (registers the games)
from steady_state import busy_process  # noqa: E402

GAMES = [("gin_rummy", {}), ("rummy_gin_openspiel", {}), ("rummy_basic", {"players": 2}),
         ("rummy_basic", {"players": 4}), ("rummy_rami51", {"players": 2}), ("rummy_rami51", {"players": 4})]


def play_for(game, seconds: float, rng: np.random.Generator) -> tuple[int, int, float]:
    """Whole hands until ``seconds`` have passed: (nodes, hands, seconds taken)."""
    nodes = hands = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
            nodes += 1
        hands += 1
    return nodes, hands, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--busy", action="store_true", help="a busy process on the other core, as a learner would be")
    args = parser.parse_args()
    games = [(name, params, pyspiel.load_game(name, params)) for name, params in GAMES]
    totals = {name + str(params): [0, 0, 0.0] for name, params, _ in games}
    rng = np.random.default_rng(0)
    with busy_process(args.busy):
        for name, params, game in games:  # a short warm-up: kernels loaded, caches filled
            play_for(game, 0.5, rng)
        for _ in range(args.rounds):
            for name, params, game in games:
                nodes, hands, seconds = play_for(game, args.seconds, rng)
                total = totals[name + str(params)]
                total[0] += nodes
                total[1] += hands
                total[2] += seconds
    anchor = totals["gin_rummy{}"]
    anchor_rate = anchor[0] / anchor[2]
    print(f"{'game':<22} {'params':<16} {'nodes/s':>9} {'hands/s':>8} {'vs gin_rummy':>13}"
          f"   ({'beside a busy process' if args.busy else 'quiet'})")
    for name, params, _ in games:
        nodes, hands, seconds = totals[name + str(params)]
        print(f"{name:<22} {str(params or ''):<16} {nodes / seconds:>9,.0f} {hands / seconds:>8.2f} "
              f"{nodes / seconds / anchor_rate:>12.0%}")


if __name__ == "__main__":
    main()

"""``make demo``: a seeded game of basic rummy between baseline agents (HeuristicAgent in seat 0,
GreedyAgent elsewhere), shown as text, then the batched engine's throughput on this machine.

``python -m rummy_env.agents.demo [--seed 7] [--players 2] [--seconds 3]``
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import rummy_env
from rummy_env.agents.greedy_agent import GreedyAgent
from rummy_env.agents.heuristic_agent import HeuristicAgent
from rummy_env.agents.random_agent import RandomAgent
from rummy_env.inputs import seed_type


def play_one_game(seed: int, players: int) -> None:
    """A whole game (hands until someone reaches 150), HeuristicAgent in seat 0, GreedyAgent elsewhere."""
    env = rummy_env.env(num_players=players, render_mode="ansi", episode="game", first_dealer=0)
    env.reset(seed=seed)
    rules = env.unwrapped.rules
    agents = {"player_0": HeuristicAgent(rules)} | {f"player_{s}": GreedyAgent(rules) for s in range(1, players)}
    names = {"player_0": "heuristic"} | {f"player_{s}": "greedy" for s in range(1, players)}
    print(f"Basic rummy, {players} players, seed {seed}: " + ", ".join(f"{a} = {n}" for a, n in names.items()))
    generator = np.random.default_rng(seed)
    hands_seen, shown_moves = 0, 0
    for agent in env.agent_iter():
        observation, _reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = int(agents[agent].act(observation["observation"][None], observation["action_mask"][None], generator)[0])
        if hands_seen == 0 and shown_moves < 24:
            print(f"  {agent:<9} {env.unwrapped.action_to_str(action)}")
            shown_moves += 1
        env.step(action)
        hands_played = env.unwrapped.engine.snapshot(0)["hands_played"]
        if hands_played > hands_seen:
            hands_seen = hands_played
            scores = env.unwrapped.infos[agent]
            print(f"hand {hands_played}: scores {scores['hand_scores']}, totals {scores['totals']} ({scores['end_reason']})")
    print()
    print(env.render())


def throughput(players: int, seconds: float) -> float:
    """Random-play steps/s of the batched engine at B = 1024 (mask + observation + step)."""
    engine = rummy_env.RummyEngine(rummy_env.RummyRules.preset("basic", num_players=players), batch_size=1024)
    engine.reset(seed=0)
    agent, generator, steps = RandomAgent(), np.random.default_rng(0), 0
    engine.step(agent.act(engine.observe(), engine.legal_action_mask(), generator))  # loads the compiled kernels
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = agent.act(engine.observe(), engine.legal_action_mask(), generator)
        engine.step(actions)
        steps += engine.batch_size
        done = engine.done
        if done.any():
            engine.reset(rows=done)
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=seed_type(), default=7)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    play_one_game(args.seed, args.players)
    rate = throughput(args.players, args.seconds)
    print(f"\nbatched engine, B=1024, random legal play with observation and mask: {rate:,.0f} steps/s")


if __name__ == "__main__":
    from rummy_env.cli import guarded

    sys.exit(guarded("python -m rummy_env.agents.demo", main))

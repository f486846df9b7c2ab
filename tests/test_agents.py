"""Baseline agents: they never act illegally, and HeuristicAgent beats RandomAgent."""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env.agents.greedy_agent import GreedyAgent
from rummy_env.agents.heuristic_agent import HeuristicAgent
from rummy_env.agents.random_agent import RandomAgent
from rummy_env import RummyEngine, RummyRules


def play_hands(rules: RummyRules, agent, hands: int, seed: int) -> RummyEngine:
    """``hands`` seeded hands, ``agent`` in seat ``row % P`` of row ``row``, random players elsewhere.
    Every action any player picks is checked against the mask before it is played."""
    engine = RummyEngine(rules, batch_size=hands, parallel=False)
    engine.reset(seed=seed)
    seats = np.arange(hands) % rules.num_players
    generator, random_agent = np.random.default_rng(seed), RandomAgent()
    while not engine.done.all():
        observation, mask = engine.observe().copy(), engine.legal_action_mask().copy()
        actions = random_agent.act(observation, mask, generator)
        mine = (engine.current_player == seats) & ~engine.done
        if mine.any():
            actions[mine] = agent.act(observation[mine], mask[mine], generator)
        live = ~engine.done
        assert mask[np.flatnonzero(live), actions[live]].all(), "an agent picked a masked-out action"
        engine.step(actions, rows=live)
    return engine


@pytest.mark.parametrize("players", [2, 3, 4, 6])
@pytest.mark.parametrize("make_agent", [HeuristicAgent, GreedyAgent, lambda rules: RandomAgent()],
                         ids=["heuristic", "greedy", "random"])
def test_agents_never_act_illegally(players, make_agent):
    rules = RummyRules.preset("basic", num_players=players, ace_high_or_low=players % 2 == 0,
                              must_discard_to_go_out=players == 3, max_turns_per_round=300)
    engine = play_hands(rules, make_agent(rules), hands=60, seed=players)
    assert engine.done.all()


@pytest.mark.parametrize("players", [2, 4])
def test_heuristic_beats_random(players):
    """The heuristic player wins at least 90% of 300 seeded hands against random players."""
    rules = RummyRules.preset("basic", num_players=players)
    engine = play_hands(rules, HeuristicAgent(rules), hands=300, seed=11)
    seats = np.arange(300) % players
    win_rate = (engine.state["winner"] == seats).mean()
    assert win_rate >= 0.90, f"HeuristicAgent won only {win_rate:.1%} of hands against random players"

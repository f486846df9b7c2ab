"""``HeuristicAgent.act`` (batched array operations) makes exactly the choices of ``act_row`` (the plain
per-row reference) over many states reached by mixed heuristic and random play."""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env.agents.heuristic_agent import HeuristicAgent
from rummy_env.agents.random_agent import RandomAgent
from rummy_env import RummyEngine, RummyRules


@pytest.mark.parametrize("players, knobs", [(2, {}), (3, {"must_discard_to_go_out": True}),
                                            (4, {"ace_high_or_low": True, "round_the_corner": True})])
def test_batched_heuristic_equals_per_row_reference(players, knobs):
    rules = RummyRules.preset("basic", num_players=players, **knobs)
    agent, random_agent = HeuristicAgent(rules), RandomAgent()
    engine = RummyEngine(rules, batch_size=64, parallel=False)
    engine.reset(seed=players)
    generator = np.random.default_rng(players)
    compared = 0
    for _ in range(100):
        observation, mask = engine.observe().copy(), engine.legal_action_mask().copy()
        live = np.flatnonzero(~engine.done)
        batched = agent.act(observation[live], mask[live], generator)
        reference = [agent.act_row(observation[row], mask[row]) for row in live]
        np.testing.assert_array_equal(batched, reference)
        compared += live.size
        actions = random_agent.act(observation, mask, generator)  # half the rows play the heuristic
        heuristic_rows = generator.random(live.size) < 0.5
        actions[live[heuristic_rows]] = batched[heuristic_rows]
        engine.step(actions, rows=~engine.done)
        engine.reset(rows=engine.done.copy())
    assert compared > 5_000

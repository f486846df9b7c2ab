"""The search agents (``PIMCAgent``, ``ISMCTSAgent`` and their oracles): they never act illegally in any
ruleset, are reproducible, read the game records they are given (and refuse to act without them or with
records of other rows), anchor on the blueprint, and play through the arena and the registry."""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env import RummyEngine, RummyRules
from rummy_env.agents.ismcts_agent import ISMCTSAgent
from rummy_env.agents.pimc_agent import PIMCAgent, anchored_choice
from rummy_env.agents.registry import agent_name, make_agent
from rummy_env.rules import make_rules
from rummy_env.training.arena import play_match

SMALL = {"pimc": "pimc:worlds=4", "pimc-oracle": "pimc-oracle:worlds=4", "ismcts": "ismcts:iterations=24,worlds=4",
         "ismcts-oracle": "ismcts-oracle:iterations=24,worlds=4", "pimc-model": "pimc:worlds=4,belief=model,burn=20,thin=2"}


@pytest.mark.parametrize("ruleset, players, kinds, steps", [
    ("basic", 2, ("pimc", "ismcts", "pimc-model"), 250),
    ("basic", 4, ("pimc-oracle", "ismcts-oracle"), 300),
    ("basic", 3, ("pimc", "ismcts"), 200),
    ("rami51", 2, ("pimc", "ismcts", "pimc-oracle", "pimc-model"), 24),
    pytest.param("rami51", 2, ("pimc", "ismcts", "pimc-oracle", "pimc-model"), 120, marks=pytest.mark.slow),
    pytest.param("lebanese14", 3, ("pimc", "ismcts-oracle"), 60, marks=pytest.mark.slow),
])
def test_search_agents_only_act_legally(ruleset, players, kinds, steps):
    """Every seat played by a search agent, many rows at once: each action must be in the mask (the engine's
    "raise" policy would also refuse it), and basic hands end."""
    rules = make_rules(ruleset, players)
    agents = [make_agent(SMALL[kind], rules) for kind in kinds]
    engine = RummyEngine(rules, 4, parallel=False)
    engine.reset(seed=players)
    rng = np.random.default_rng(0)
    finished = 0
    for step in range(steps):
        live = np.flatnonzero(~engine.done)
        observation, mask = engine.observe()[live], engine.legal_action_mask()[live]
        agent = agents[step % len(agents)]
        actions = agent.act(observation, mask, rng, records=engine.state[live], undo=engine.undo_copies[live])
        assert mask[np.arange(len(live)), actions].all()
        full = np.zeros(engine.batch_size, dtype=np.int64)
        full[live] = actions
        engine.step(full, rows=~engine.done)
        finished += int(engine.done.sum())
        engine.reset(rows=engine.done.copy())
    assert finished > 0 or ruleset != "basic"
    assert all(agent.stats["searched"] > 0 for agent in agents)


def test_search_agents_are_reproducible_and_need_the_records():
    rules = make_rules("basic", 2)
    engine = RummyEngine(rules, 3, parallel=False)
    engine.reset(seed=1)
    for _ in range(3):
        engine.step(engine.legal_action_mask().argmax(axis=1))
    observation, mask = engine.observe(), engine.legal_action_mask()
    for spec in ("pimc:worlds=8", "ismcts:iterations=40,worlds=8", "pimc:worlds=8,belief=model,burn=20"):
        first = make_agent(spec, rules).act(observation, mask, np.random.default_rng(5), engine.state, engine.undo_copies)
        second = make_agent(spec, rules).act(observation, mask, np.random.default_rng(5), engine.state, engine.undo_copies)
        np.testing.assert_array_equal(first, second)
    agent = make_agent("pimc:worlds=4", rules)
    with pytest.raises(ValueError, match="records"):
        agent.act(observation, mask, np.random.default_rng(0))
    with pytest.raises(ValueError, match="do not match the observations"):
        agent.act(observation, mask, np.random.default_rng(0), records=engine.state[::-1].copy())
    with pytest.raises(ValueError, match="3 game records"):
        agent.act(observation, mask, np.random.default_rng(0), records=engine.state[:2])


def test_anchored_choice_keeps_the_blueprint_unless_the_gain_is_significant():
    legal = np.array([10, 20, 30])
    noisy = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]], dtype=float)  # 30 looks best, by luck
    assert anchored_choice(noisy, legal, 10, z=2.0) == 10
    clear = np.tile([[0.0, 0.0, 1.0]], (30, 1))
    clear[::7, 2] = 0.0
    assert anchored_choice(clear, legal, 10, z=2.0) == 30
    assert anchored_choice(noisy, legal, 30, z=2.0) == 30  # the blueprint's own move is also the best


def test_options_and_bad_values():
    rules = make_rules("basic", 2)
    agent = make_agent("pimc:worlds=16,z=1.5,belief=model,rollout=random,seconds=0.05", rules)
    assert isinstance(agent, PIMCAgent) and agent.max_worlds == 16 and agent.z == 1.5 and agent.seconds == 0.05
    assert isinstance(make_agent("ismcts-oracle", rules), ISMCTSAgent) and make_agent("ismcts-oracle", rules).oracle
    assert agent_name("pimc:seconds=0.05") == "pimc:seconds=0.05"
    for spec, message in (("pimc:bogus=1", "not one of"), ("pimc:worlds=x", "expected int"),
                          ("pimc:worlds=1", "at least 2"), ("pimc:belief=psychic", "belief"),
                          ("ismcts:rollout=smart", "rollout"), ("pimc-oracle:belief=model", "oracle"),
                          ("ismcts:iterations=0", "iterations must be at least 1, got 0$"),
                          ("pimc:worlds", "'worlds' needs a value: worlds=VALUE"),
                          ("ismcts-oracle:belief=model", "leave belief out")):
        with pytest.raises(ValueError, match=message):
            make_agent(spec, rules)


@pytest.mark.parametrize("spec", ["pimc:worlds=8", "ismcts:iterations=40"])
def test_search_agents_play_gin_with_its_compiled_rollouts(spec):
    """Gin's compiled heuristic plays the search's rollouts: both searchers play whole gin hands (the knock, the
    lay-offs and the melds included) against the heuristic, every move legal, searching where there is a choice."""
    rules = RummyRules.preset("gin_openspiel")
    agent = make_agent(spec, rules)
    result = play_match(rules, (agent, make_agent("heuristic", rules)), (spec, "heuristic"), games=4, seed=2,
                        duplicate=True)
    assert result.games == 4 and result.decisions[0] > agent.stats["searched"] >= 20


def test_arena_plays_search_agents_with_duplicate_deals_and_time_per_move():
    rules = make_rules("basic", 2)
    result = play_match(rules, (make_agent("pimc:worlds=4", rules), make_agent("heuristic", rules)),
                        ("pimc", "heuristic"), games=6, seed=3, duplicate=True)
    assert result.games == 6 and result.decisions[0] > 0 and result.time_per_move(0) > 0
    summary = result.summary()
    assert summary["duplicate"] and summary["agent_s_per_move"] > summary["opponent_s_per_move"] > 0


def test_agent_spec_search_on_rami51_through_arena():
    rules = RummyRules.preset("rami51", num_players=2, max_turns_per_round=60)  # random play's hands run to the cap
    result = play_match(rules, (make_agent("ismcts:iterations=16,worlds=4", rules), make_agent("random", rules)),
                        ("ismcts", "random"), games=2, seed=0, duplicate=True)
    assert result.games == 2

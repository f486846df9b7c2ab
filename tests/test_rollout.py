"""Compiled rollout policies (``rummy_env.engine.search.rollout``) act exactly like their Python agents: decision by
decision on many states, and over whole play-outs (the random policy under the documented random number
convention)."""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env import RummyEngine, RummyRules
from rummy_env.agents.heuristic_agent import HeuristicAgent
from rummy_env.agents.random_agent import RandomAgent
from rummy_env.engine.families import policies
from rummy_env.engine.search.rollout import POLICY_HEURISTIC, POLICY_RANDOM

BASIC = [(2, {}), (3, {"must_discard_to_go_out": True}), (4, {"ace_high_or_low": True, "round_the_corner": True}),
         (6, {"forbid_discarding_card_taken_from_discard": False})]
RAMI = [(2, {}), (3, {"card_announcement": "manual"}),  # "prevent" has kernels of its own, minutes to compile:
        pytest.param(2, {"dead_ends": "prevent"}, marks=pytest.mark.slow)]  # the slow tier


class StreamUniforms:
    """A stand-in for ``np.random.Generator`` whose ``random()`` returns the rollout stream's uniforms
    (xorshift64*, the top 53 bits), as ``engine.search.rollout.next_uniform`` draws them."""

    def __init__(self, state: int):
        self.state = state

    def random(self, size=None):
        x = self.state
        x ^= x >> 12
        x ^= (x << 25) & (2**64 - 1)
        x ^= x >> 27
        self.state = x
        u = (((x * 2685821657736338717) & (2**64 - 1)) >> 11) / 2.0**53
        return np.array([u]) if size is not None else u


def compare_decisions(ruleset: str, players: int, knobs: dict, steps: int, rows: int = 32) -> int:
    rules = RummyRules.preset(ruleset, num_players=players, **knobs)
    kernels = policies(rules)
    engine = RummyEngine(rules, rows, parallel=False)
    engine.reset(seed=players)
    heuristic, random_agent = HeuristicAgent(rules), RandomAgent()
    rng = np.random.default_rng(players)
    out = np.zeros(rows, dtype=np.int64)
    compared = 0
    for _ in range(steps):
        observation, mask = engine.observe().copy(), engine.legal_action_mask().copy()
        live = ~engine.done
        python = heuristic.act(observation[live], mask[live], rng)
        kernels.choose_rows(engine.state, np.full(rows, POLICY_HEURISTIC), np.zeros(rows), engine._work, engine.tables,
                            engine.cfgs, out)
        np.testing.assert_array_equal(out[live], python)
        uniforms = rng.random(rows)
        kernels.choose_rows(engine.state, np.full(rows, POLICY_RANDOM), uniforms, engine._work, engine.tables,
                            engine.cfgs, out)
        for row in np.flatnonzero(live):
            expected = random_agent.act(observation[row:row + 1], mask[row:row + 1], StreamAt(uniforms[row]))[0]
            assert out[row] == expected
        compared += int(live.sum())
        actions = np.zeros(rows, dtype=np.int64)  # half the rows follow the heuristic, half play at random
        actions[live] = np.where(rng.random(int(live.sum())) < 0.5, python, out[live])
        engine.step(actions, rows=live)
        engine.reset(rows=engine.done.copy())
    return compared


class StreamAt:
    """A generator stand-in returning one given uniform."""

    def __init__(self, u: float):
        self.u = u

    def random(self, size=None):
        return np.array([self.u]) if size is not None else self.u


@pytest.mark.parametrize("players, knobs", BASIC)
def test_basic_policies_decide_like_the_python_agents(players, knobs):
    assert compare_decisions("basic", players, knobs, steps=150) > 3000


@pytest.mark.parametrize("players, knobs", RAMI)
def test_rami51_policies_decide_like_the_python_agents(players, knobs):
    assert compare_decisions("rami51", players, knobs, steps=60, rows=16) > 500


GIN = ["gin", "gin_openspiel", "gin_rlcard"]


@pytest.mark.parametrize("preset", GIN)
def test_gin_policies_decide_like_the_python_agents(preset):
    assert compare_decisions(preset, 2, {}, steps=150) > 3000


@pytest.mark.parametrize("ruleset, players", [("basic", 2), ("basic", 4), ("rami51", 2), ("gin", 2)])
def test_play_outs_equal_stepping_the_engine_with_the_agents(ruleset, players):
    """A compiled play-out of each row to the end of the hand ends in exactly the record that stepping the engine
    with ``HeuristicAgent`` (seats 0, 2, ...) and ``RandomAgent`` (the others, fed the row's stream) reaches."""
    rules = RummyRules.preset(ruleset, num_players=players)
    kernels = policies(rules)
    rows = 12 if ruleset == "basic" else 4
    engine = RummyEngine(rules, rows, parallel=False)
    engine.reset(seed=11)
    codes = np.tile(np.where(np.arange(players) % 2 == 0, POLICY_HEURISTIC, POLICY_RANDOM), (rows, 1))
    streams = np.arange(1, rows + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    compiled, undo = engine.state.copy(), engine.undo_copies.copy()
    steps = np.zeros(rows, dtype=np.int64)
    kernels.play_out_rows(compiled, undo, codes, streams.copy(), engine._work, engine.tables, engine.cfgs, 100_000, steps)
    heuristic, random_agent = HeuristicAgent(rules), RandomAgent()
    uniforms = [StreamUniforms(int(s)) for s in streams]
    taken = np.zeros(rows, dtype=np.int64)
    while not engine.done.all():
        live = ~engine.done
        observation, mask = engine.observe(), engine.legal_action_mask()
        actions = np.zeros(rows, dtype=np.int64)
        for row in np.flatnonzero(live):
            u = uniforms[row].random()  # drawn before every decision, whoever acts
            if codes[row, engine.current_player[row]] == POLICY_HEURISTIC:
                actions[row] = heuristic.act(observation[row:row + 1], mask[row:row + 1], None)[0]
            else:
                actions[row] = random_agent.act(observation[row:row + 1], mask[row:row + 1], StreamAt(u))[0]
        engine.step(actions, rows=live)
        taken += live
    np.testing.assert_array_equal(steps, taken)
    for name in engine.state.dtype.names:
        np.testing.assert_array_equal(compiled[name], engine.state[name], err_msg=name)

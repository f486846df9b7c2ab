"""The belief sampler (``rummy_env.beliefs``): every world is consistent with the seat's view, the sampler does
not peek, uniform worlds are uniform (chi-square on a small deal), the weighted chain has the model's law, and
the fitted opponent model knows more than the uniform sampler about the heuristic's hidden cards."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rummy_env import RummyEngine, RummyRules
from rummy_env.agents.heuristic_agent import HeuristicAgent
from rummy_env.agents.random_agent import RandomAgent
from rummy_env.beliefs import BeliefModel, log_likelihood_gain, sample_worlds

CONFIGS = [("basic", 2), ("basic", 4), ("rami51", 2), ("rami51", 3)]
UNIFORM_ONLY = [("gin", 2)]  # gin has uniform worlds; its belief model and search agents are not written yet


def positions(ruleset: str, players: int, rows: int, steps: int, seed: int, random_play: bool = True) -> RummyEngine:
    """An engine whose rows are hands played part-way by the heuristic and (every third step) random play."""
    rules = RummyRules.preset(ruleset, num_players=players)
    engine = RummyEngine(rules, rows, parallel=False)
    engine.reset(seed=seed)
    heuristic, random_agent, rng = HeuristicAgent(rules), RandomAgent(), np.random.default_rng(seed)
    for step in range(steps):
        live = ~engine.done
        if not live.any():
            break
        agent = random_agent if random_play and step % 3 == 0 else heuristic
        actions = np.zeros(rows, dtype=np.int64)
        actions[live] = agent.act(engine.observe()[live], engine.legal_action_mask()[live], rng)
        engine.step(actions, rows=live)
    return engine


def world_engine(rules: RummyRules, worlds) -> RummyEngine:
    engine = RummyEngine(rules, len(worlds), parallel=False)
    engine.state[:] = worlds.records
    engine.undo_copies[:] = worlds.undo
    engine._has_reset = True
    return engine


@pytest.mark.parametrize("ruleset, players, weighted", [(*config, weighted) for config in CONFIGS
                                                        for weighted in (False, True)] + [(*config, False)
                                                                                          for config in UNIFORM_ONLY])
def test_every_world_looks_the_same_to_the_seat(ruleset, players, weighted):
    engine = positions(ruleset, players, rows=3, steps=40 if ruleset != "rami51" else 25, seed=players)
    rules = engine.rules
    model = BeliefModel.default(rules) if weighted else None
    for row in np.flatnonzero(~engine.done):
        for seat in range(players):
            n = 16
            worlds = sample_worlds(rules, engine.state[row], seat, n, seed=row, undo=engine.undo_copies[row],
                                   model=model, burn=50, thin=2)
            seen = world_engine(rules, worlds)
            real = engine.observe(np.full(engine.batch_size, seat))[row]
            np.testing.assert_array_equal(seen.observe(np.full(n, seat)), np.broadcast_to(real, (n, real.size)))
            np.testing.assert_array_equal(seen.public_history(np.full(n, seat)),
                                          np.broadcast_to(engine.public_history(np.full(3, seat))[row],
                                                          (n,) + engine.public_history().shape[1:]))
            if seat == engine.state[row]["current"]:  # the player to act: the same legal actions everywhere
                real_mask = engine.legal_action_mask()[row]
                np.testing.assert_array_equal(seen.legal_action_mask(), np.broadcast_to(real_mask, (n, real_mask.size)))
            hidden = worlds.records["hand"][:, :players] - worlds.records["known"][:, :players]
            assert (hidden >= 0).all()
            np.testing.assert_array_equal(worlds.records["hand"][:, seat], np.broadcast_to(
                engine.state[row]["hand"][seat], worlds.records["hand"][:, seat].shape))


def hide_differently(engine: RummyEngine, row: int, seat: int, rng: np.random.Generator) -> np.ndarray:
    """A copy of ``row`` that differs only in what ``seat`` cannot see: another opponent's hidden card swapped
    with a stock card, the stock reshuffled, another generator state, garbage past the stock and pile ends
    and in an unused UNDO copy."""
    record = engine.state[row:row + 1].copy()
    r = record[0]
    others = [q for q in range(engine.rules.num_players) if q != seat and (r["hand"][q] > r["known"][q]).any()]
    if others and r["stock_n"] > 0:
        q = others[0]
        card = int(rng.choice(np.flatnonzero(r["hand"][q] > r["known"][q])))
        j = int(rng.integers(r["stock_n"]))
        r["hand"][q, card] -= 1
        r["hand"][q, r["stock"][j]] += 1
        r["stock"][j] = card
    r["stock"][: r["stock_n"]] = rng.permutation(r["stock"][: r["stock_n"]])
    r["stock"][r["stock_n"]:] = rng.integers(0, 52, size=r["stock"].shape[0] - r["stock_n"])
    r["rng"] = np.uint64(rng.integers(1, 2**63))
    return record


@pytest.mark.parametrize("ruleset, players", CONFIGS + UNIFORM_ONLY)
def test_no_peeking(ruleset, players):
    engine = positions(ruleset, players, rows=4, steps=30 if ruleset != "rami51" else 20, seed=7)
    rules, rng = engine.rules, np.random.default_rng(0)
    model = BeliefModel.default(rules) if (ruleset, players) not in UNIFORM_ONLY else None
    compared = 0
    for row in np.flatnonzero(~engine.done):
        if engine.state[row]["tentative"] > 0:
            continue
        for seat in range(players):
            other = hide_differently(engine, row, seat, rng)
            garbage = other.copy()
            garbage[0]["hand"][:] = rng.integers(0, 2, size=garbage[0]["hand"].shape)
            for weighted in (None, model) if model is not None else (None,):
                first = sample_worlds(rules, engine.state[row], seat, 16, seed=3, undo=engine.undo_copies[row],
                                      model=weighted, burn=30)
                second = sample_worlds(rules, other, seat, 16, seed=3, undo=garbage, model=weighted, burn=30)
                assert same_records(first.records, second.records)
                assert same_records(first.undo, second.undo)
                compared += 1
    assert compared >= 8
    different = sample_worlds(rules, engine.state[0], 0, 16, seed=4)
    assert not same_records(different.records, sample_worlds(rules, engine.state[0], 0, 16, seed=3).records)


def same_records(first: np.ndarray, second: np.ndarray) -> bool:
    """Every field equal (the bytes between fields, alignment padding, mean nothing)."""
    return all(np.array_equal(first[name], second[name]) for name in first.dtype.names)


def chi_square_critical(df: int, z: float = 3.09) -> float:
    """The chi-square quantile for an upper tail of about 0.001 (Wilson-Hilferty)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def small_deal(rules: RummyRules) -> dict:
    """Late in a basic hand: seat 1 hides 2 cards, 3 in the stock, everything else seen by seat 0."""
    unseen = [3, 17, 30, 42, 50]  # 4C 5D 5H 4S QS
    hand0 = [0, 13, 26]  # the three aces
    rest = [c for c in range(52) if c not in unseen + hand0 + [8]]
    return {"hands": [hand0, [8, 3, 17]], "known": [[], [8]], "stock": [30, 42, 50], "discard": rest,
            "current": 0, "dealer": 1, "phase": "draw"}


def test_uniform_worlds_are_uniform_chi_square():
    rules = RummyRules.preset("basic", num_players=2)
    engine = RummyEngine(rules, 1, parallel=False)
    engine.load(0, small_deal(rules))
    worlds = sample_worlds(rules, engine.state[0], 0, 60_000, seed=11)
    hidden = worlds.records["hand"][:, 1, :52] - worlds.records["known"][:, 1, :52]
    stock = worlds.records["stock"][:, :3]
    assert (hidden.sum(axis=1) == 2).all() and (worlds.records["hand"][:, 1, 8] == 1).all()
    # every outcome: which 2 of the 5 unseen cards seat 1 hides and the order of the other 3 in the stock
    keys = [tuple(np.flatnonzero(h)) + tuple(s) for h, s in zip(hidden, stock)]
    outcomes, counts = np.unique(np.array(keys), axis=0, return_counts=True)
    assert len(outcomes) == 10 * 6
    expected = len(keys) / 60
    statistic = ((counts - expected) ** 2 / expected).sum()
    assert statistic < chi_square_critical(59), statistic
    assert counts.min() > 0.8 * expected


def test_weighted_chain_has_the_model_law():
    """The chain's marginals (which cards the opponent holds) match importance-weighted uniform worlds."""
    engine = positions("basic", 2, rows=2, steps=31, seed=5)
    rules, row = engine.rules, int(np.flatnonzero(~engine.done)[0])
    seat = int(engine.state[row]["current"])
    model = BeliefModel.default(rules)
    chain = sample_worlds(rules, engine.state[row], seat, 4000, seed=1, model=model, burn=400, thin=4)
    uniform = sample_worlds(rules, engine.state[row], seat, 40_000, seed=2)
    log_weights = model.log_weights(uniform.records, seat)
    weights = np.exp(log_weights - log_weights.max())
    weights /= weights.sum()
    assert 1 / (weights ** 2).sum() > 200  # enough effective worlds for the comparison
    held_chain = (chain.records["hand"][:, 1 - seat, :52] > 0).mean(axis=0)
    held_weighted = weights @ (uniform.records["hand"][:, 1 - seat, :52] > 0)
    held_uniform = (uniform.records["hand"][:, 1 - seat, :52] > 0).mean(axis=0)
    assert np.abs(held_chain - held_weighted).max() < 0.1
    assert np.abs(held_weighted - held_uniform).max() > 0.2  # the model does move the beliefs
    assert 0 < chain.acceptance < 1


def test_the_fitted_model_knows_the_heuristic_better_than_uniform():
    """Belief quality: the log-likelihood of the true hidden cards, fitted model minus uniform (the figure
    the notebook reports), averaged over positions of heuristic play."""
    engine = positions("basic", 2, rows=40, steps=33, seed=3, random_play=False)
    rules = engine.rules
    model = BeliefModel.default(rules)
    gains = [log_likelihood_gain(model, engine.state[row], int(engine.state[row]["current"]), 1024, seed=row)
             for row in np.flatnonzero(~engine.done)]
    assert len(gains) >= 20
    assert np.mean(gains) > 0.5, gains


def test_oracle_keeps_the_other_hands():
    engine = positions("rami51", 2, rows=2, steps=20, seed=1)
    rules = engine.rules
    worlds = sample_worlds(rules, engine.state[0], 0, 8, seed=0, oracle=True)
    np.testing.assert_array_equal(worlds.records["hand"], np.broadcast_to(engine.state[0]["hand"], worlds.records["hand"].shape))
    stocks = {bytes(r["stock"][: r["stock_n"]]) for r in worlds.records}
    assert len(stocks) > 1


def test_bad_inputs_are_refused():
    engine = positions("basic", 2, rows=2, steps=5, seed=1)
    rules = engine.rules
    with pytest.raises(ValueError, match="seat"):
        sample_worlds(rules, engine.state[0], 2, 4)
    with pytest.raises(ValueError, match="n and thin"):
        sample_worlds(rules, engine.state[0], 0, 0)
    with pytest.raises(ValueError, match="one game record"):
        sample_worlds(rules, engine.state, 0, 4)
    with pytest.raises(ValueError, match="oracle"):
        sample_worlds(rules, engine.state[0], 0, 4, model=BeliefModel.default(rules), oracle=True)
    broken = engine.state[0:1].copy()
    broken[0]["hand"][1, 0] += 3
    broken[0]["hand_n"][1] += 3
    with pytest.raises(ValueError, match="inconsistent"):
        sample_worlds(rules, broken, 0, 4)
    with pytest.raises(ValueError, match="weights"):
        BeliefModel(rules, [1.0, 2.0])
    with pytest.raises(ValueError, match="game records of ruleset 'rami51'"):
        sample_worlds(RummyRules.preset("rami51"), engine.state[0], 0, 4)
    with pytest.raises(ValueError, match="belief models are written for the rule families .* not 'gin'"):
        BeliefModel.default(RummyRules.preset("gin"))

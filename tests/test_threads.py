"""The engine's thread policy (rummy_env/engine/threads.py): chunk sizes are checked, and every setting plays
the same games as one thread."""

import numpy as np
import pytest

from rummy_env import RummyEngine, RummyRules
from rummy_env.engine.threads import CHUNK_SIZE, PARALLEL
from rummy_env.sampling import pick_legal


@pytest.mark.parametrize("bad", [-1, 1.5, "64", True, np.bool_(True), np.int64(-2)])
def test_bad_chunk_size_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="chunk_size"):
        RummyEngine(RummyRules.preset("basic", num_players=2), 4, parallel=True, chunk_size=bad)


def test_numpy_values_are_accepted_as_plain_ones():
    engine = RummyEngine(RummyRules.preset("basic", num_players=2), 4, parallel=np.bool_(True), chunk_size=np.int64(8))
    assert (engine.parallel, engine.chunk_size) == (True, 8) and type(engine.chunk_size) is int


def test_defaults_are_the_documented_ones():
    engine = RummyEngine(RummyRules.preset("basic", num_players=2), 4096)
    assert (engine.parallel, engine.chunk_size, PARALLEL) == (PARALLEL, CHUNK_SIZE, False)


@pytest.mark.parametrize("bad", [1, "yes", np.int64(1)])
def test_bad_parallel_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="parallel"):
        RummyEngine(RummyRules.preset("basic", num_players=2), 4, parallel=bad)


@pytest.mark.parametrize("ruleset", ["basic", "rami51"])
@pytest.mark.parametrize("chunk_size", [0, 1, 7])
def test_every_chunk_size_plays_like_one_thread(ruleset, chunk_size):
    rules = RummyRules.preset(ruleset, num_players=3)
    serial = RummyEngine(rules, 40, parallel=False)
    threaded = RummyEngine(rules, 40, parallel=True, chunk_size=chunk_size)
    for engine in (serial, threaded):
        engine.reset(seed=5)
    rng = np.random.default_rng(1)
    actions = np.zeros(40, dtype=np.int64)
    for _ in range(60):
        mask = serial.legal_action_mask()
        np.testing.assert_array_equal(mask, threaded.legal_action_mask())
        np.testing.assert_array_equal(serial.observe(), threaded.observe())
        pick_legal(mask, rng.random(40), actions)
        a, b = serial.step(actions), threaded.step(actions)
        np.testing.assert_array_equal(a.rewards, b.rewards)
        assert serial.state.tobytes() == threaded.state.tobytes()


def test_scratch_is_held_for_the_threads_that_run():
    """One thread's share of the kernels' scratch when serial (rami51's search and opening bound take about 44 MB
    a share); switching ``parallel`` on makes one per numba thread, and the games play on the same."""
    import numba

    rules = RummyRules.preset("rami51", num_players=3)
    engine, serial = RummyEngine(rules, 40), RummyEngine(rules, 40)
    one_share = sum(buffer.nbytes for buffer in engine._work)
    assert 35 << 20 < one_share < 50 << 20
    engine.parallel = True
    assert sum(buffer.nbytes for buffer in engine._work) == numba.config.NUMBA_NUM_THREADS * one_share
    with pytest.raises(ValueError, match="parallel"):
        engine.parallel = "yes"
    rng = np.random.default_rng(2)
    actions = np.zeros(40, dtype=np.int64)
    for one in (engine, serial):
        one.reset(seed=9)
    for _ in range(30):
        mask = serial.legal_action_mask()
        np.testing.assert_array_equal(mask, engine.legal_action_mask())
        pick_legal(mask, rng.random(40), actions)
        serial.step(actions)
        engine.step(actions)
    assert serial.state.tobytes() == engine.state.tobytes()

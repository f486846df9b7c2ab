"""Property tests of the gin ruleset (docs/rules.md#gin, G1-G14), over knob combinations chosen by hypothesis.

Games are played by a seeded policy that often knocks, takes the upcard, discards to lower its deadwood and
lays off and melds (random gin play almost never reaches the knock). At every step:

1. the engine's mask equals the independent oracle's legal set (``tests/oracle_gin.py``);
2. cards are conserved (hands + stock + discard pile + table = the 52 cards once each), and the cards publicly
   known to be in a hand are in it;
3. every scored hand scores by G9 from the cards left in the two hands, hand scores and rewards are zero-sum,
   and a void hand scores nothing;
4. every hand ends within its turn cap; the same seed and actions give the same positions; a batch of rows
   equals one-row engines with the same row seeds (serial and parallel kernels).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from rummy_env import RummyEngine, RummyRules
from rummy_env.actions import DRAW_DISCARD, DRAW_STOCK, KNOCK, PASS
from rummy_env.engine.gin import deadwood
from test_properties import examples  # tests/ is on sys.path (conftest.py)

try:  # tests/ is put on sys.path by conftest.py
    import oracle_gin as G
except ImportError:  # pragma: no cover
    from tests import oracle_gin as G

UBUF, IBUF = (buf[0] for buf in deadwood.scratch(1))


@st.composite
def gin_knobs(draw) -> dict:
    """A valid set of gin knobs plus environment knobs."""
    knobs = {
        "knock_card": draw(st.sampled_from([10, 10, 0, 3, 7])),
        "gin_bonus": draw(st.sampled_from([25, 20])),
        "big_gin_bonus": draw(st.sampled_from([31, 0])),
        "undercut_bonus": draw(st.sampled_from([25, 10])),
        "tie_is_undercut": draw(st.booleans()),
        "forbid_discarding_taken_card": draw(st.booleans()),
        "opening": draw(st.sampled_from(["upcard", "upcard", "eleven_cards"])),
        "wall_rule": draw(st.sampled_from(["void", "openspiel", "pickup_or_dead"])),
        "knock_deadwood": draw(st.sampled_from(["exact", "openspiel_shortcut"])),
        "max_layoffs_per_run_end": draw(st.sampled_from([None, None, 1, 2])),
        "gin_forced": draw(st.booleans()),
        "repeated_discard_void": draw(st.booleans()),
        "upcard_draw_limit": draw(st.sampled_from([None, None, 3, 50])),
        "first_dealer": draw(st.sampled_from(["random", 0, 1])),
        "next_dealer": draw(st.sampled_from(["alternate", "winner", "loser"])),
        "reward": draw(st.sampled_from(["score", "win"])),
        "episode": draw(st.sampled_from(["hand", "hand", "game"])),
        "max_turns_per_round": draw(st.sampled_from([1000, 1000, 40, 3])),
    }
    knobs["oklahoma"] = knobs["opening"] == "upcard" and draw(st.booleans())
    knobs["auto_melds"] = draw(st.booleans())
    knobs["layoffs"] = not knobs["auto_melds"] and draw(st.sampled_from([True, True, False]))
    if knobs["episode"] == "game":
        knobs.update(target_score=draw(st.sampled_from([10, 40, 100])), max_hands=draw(st.integers(1, 3)),
                     box_bonus=draw(st.sampled_from([25, 0])), shutout_multiplier=draw(st.sampled_from([2, 1])))
    return knobs


def position_cards(snap: dict) -> list[int]:
    every = [c for hand in snap["hands"] for c in hand] + snap["stock"] + snap["discard"]
    return every + [c for meld in snap["table"] for c in meld["cards"]]


def choose(eng: RummyEngine, legal: np.ndarray, rng: np.random.Generator, eager: bool = True) -> int:
    """The test policy: knocks (``eager``: nearly always, else rarely, which reaches the wall), lays and lays
    off eagerly, discards to lower its deadwood."""
    r = eng.state[0]
    layout = eng.layout
    if KNOCK in legal and rng.random() < (0.9 if eager else 0.05):
        return KNOCK
    plays = legal[(legal >= layout.meld_offset) & (legal < layout.discard_offset)]
    if plays.size and rng.random() < 0.8:
        return int(rng.choice(plays))
    discards = legal[legal >= layout.discard_offset]
    if discards.size and rng.random() < 0.85:
        hand = deadwood.hand_mask(r["hand"][int(r["current"])])
        left = [deadwood.deadwood(hand & ~deadwood.bit(int(a - layout.discard_offset)), UBUF, IBUF) for a in discards]
        return int(discards[int(np.argmin(left))])
    if DRAW_DISCARD in legal and rng.random() < 0.4:
        return DRAW_DISCARD
    if DRAW_STOCK in legal and not eager:
        return DRAW_STOCK
    return int(rng.choice(legal))


def check_scores(before: dict, snap: dict, rules: RummyRules, rewards: np.ndarray) -> None:
    """Zero-sum rewards, totals grown by the hand's scores; G9 from the cards left in the hands, nothing for a
    void hand (when the position still shows the finished hand: a game deals the next one at once)."""
    scores = snap["hand_scores"]
    assert abs(float(np.sum(rewards))) < 1e-9
    assert [a - b for a, b in zip(snap["totals"], before["totals"])] == scores
    knocker = snap["gin"]["knocker"]
    if snap["phase"] != "hand_over":
        return
    if knocker is None:
        assert scores == [0, 0]
        return
    k = sum(map(G.value, snap["hands"][knocker]))
    d = sum(map(G.value, snap["hands"][1 - knocker]))
    if k == 0:
        big = snap["gin"]["knock_stage"] == 2
        expected = {knocker: d + (rules.big_gin_bonus if big else rules.gin_bonus)}
    elif k < d:
        expected = {knocker: d - k}
    elif d < k or rules.tie_is_undercut:
        expected = {1 - knocker: k - d + rules.undercut_bonus}
    else:
        expected = {}
    assert scores == [expected.get(seat, 0) for seat in range(2)], (scores, expected, k, d)


def play(rules: RummyRules, seed: int, steps: int = 2000, eager: bool = True) -> tuple[list[int], int]:
    """One episode, every property of the module docstring checked at each step; returns the actions and the
    phases seen (as a bit set)."""
    eng = RummyEngine(rules, 1, parallel=False)
    eng.reset(seed=seed)
    oracle = G.GinOracle(rules, eng.layout)
    rng = np.random.default_rng(seed)
    actions, seen = [], 0
    for step in range(steps):
        snap = eng.snapshot(0)
        seen |= 1 << int(eng.state[0]["phase"])
        assert sorted(position_cards(snap)) == list(range(52)), f"cards not conserved at step {step}"
        for seat in range(2):
            assert all(card in snap["hands"][seat] for card in snap["known"][seat])
        mask = eng.legal_action_mask()[0]
        if eng.done[0]:
            assert not mask.any()
            break
        legal = np.flatnonzero(mask)
        expected = oracle.legal(snap)
        assert set(legal.tolist()) == expected, (
            f"step {step}, phase {snap['phase']}: engine {sorted(set(legal.tolist()) - expected)} extra, "
            f"{sorted(expected - set(legal.tolist()))} missing\n{snap}")
        action = choose(eng, legal, rng, eager)
        actions.append(action)
        result = eng.step([action])
        if result.hand_ended[0]:
            check_scores(snap, eng.snapshot(0), rules, result.rewards[0])
    else:
        raise AssertionError(f"no end within {steps} steps")
    return actions, seen


@settings(max_examples=40, deadline=None)
@given(knobs=gin_knobs(), seed=st.integers(0, 2**32 - 1))
def test_mask_equals_oracle_and_games_keep_the_rules(knobs, seed):
    rules = RummyRules.preset("gin", **knobs)
    note(f"knobs {knobs} seed {seed}")
    play(rules, seed, eager=seed % 3 > 0)


@pytest.mark.parametrize("preset", ["gin", "gin_openspiel", "gin_rlcard"])
def test_presets_reach_every_phase_and_keep_the_rules(preset):
    """Enough seeded hands of each preset that every phase the preset has is visited."""
    rules = RummyRules.preset(preset)
    seen = 0
    for seed in range(examples(40, ci=12)):  # every phase is reached by seed 4
        seen |= play(rules, seed, eager=seed % 2 == 0)[1]
    phases = {"gin": "upcard draw play knock layoff defend",
              "gin_openspiel": "upcard draw play knock layoff defend wall", "gin_rlcard": "draw play knock"}[preset]
    from rummy_env.engine.state import PHASE_NAMES
    for name in phases.split():
        assert seen >> PHASE_NAMES.index(name) & 1, f"{preset}: phase {name} never reached"


def test_same_seed_and_actions_give_the_same_positions():
    rules = RummyRules.preset("gin", episode="game", target_score=40)
    actions, _ = play(rules, 5)
    snaps = []
    for _ in range(2):
        eng = RummyEngine(rules, 1, parallel=False)
        eng.reset(seed=5)
        trail = []
        for action in actions:
            eng.step([action])
            trail.append(eng.snapshot(0))
        snaps.append(trail)
    assert snaps[0] == snaps[1]


@pytest.mark.parametrize("parallel", [False, True])
def test_batch_rows_equal_single_row_engines(parallel):
    """Rows of a batch (serial and parallel kernels) play exactly like one-row engines with their row seeds."""
    rules = RummyRules.preset("gin_openspiel", episode="game")
    rows = 24
    batch = RummyEngine(rules, rows, parallel=parallel)
    seeds = np.arange(100, 100 + rows, dtype=np.uint64)
    batch.reset(row_seeds=seeds)
    singles = [RummyEngine(rules, 1, parallel=False) for _ in range(rows)]
    for single, seed in zip(singles, seeds):
        single.reset(row_seeds=[seed])
    rng = np.random.default_rng(0)
    for _ in range(300):
        mask = batch.legal_action_mask()
        live = ~batch.done
        if not live.any():
            break
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        for i, single in enumerate(singles):
            assert np.array_equal(single.legal_action_mask()[0], mask[i])
            assert np.array_equal(single.observe()[0], batch.observe()[i])
            if live[i]:
                single.step([actions[i]])
        batch.step(actions, rows=live)
        for i, single in enumerate(singles):
            assert single.state[0].tobytes() == batch.state[i].tobytes()


def test_pass_and_knock_ids():
    assert (PASS, KNOCK) == (2, 3)

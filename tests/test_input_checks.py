"""Bad input to the engine, the envs and the rules gets a clear error and changes nothing (the newcomer trial of
the 7th stop): row numbers and ``rows`` masks, integer seeds, dealers, decks and cards, knob values that would
truncate or overflow, the observation's counters, the AEC env's call order, observers, record seeds.
Each case here was accepted before (some crashed the process or moved other rows).
"""

from __future__ import annotations

import numpy as np
import pytest

import rummy_env
from rummy_env import RowIndexError, RummyEngine, RummyRules, RummyVectorEnv
from rummy_env.records import GameRecord, RecordError
from rummy_env.render import render_text


@pytest.fixture
def engine():
    e = RummyEngine(RummyRules.preset("basic"), 4)
    e.reset(seed=0)
    return e


def unchanged(engine, before) -> bool:
    return all(np.array_equal(engine.state[name], before[name]) for name in before.dtype.names)


@pytest.mark.parametrize("row", [4, 10, -1, 10**6])
def test_a_row_outside_the_batch_is_refused_before_the_kernels_read_it(engine, row):
    calls = [lambda: engine.legal_reason(row, 0), lambda: engine.is_legal(row, 0),
             lambda: engine.explain_illegal(row, 0), lambda: engine.snapshot(row),
             lambda: engine.load(row, engine.snapshot(0))]
    for call in calls:
        with pytest.raises(RowIndexError, match=f"row {row} is outside 0..3") as caught:
            call()
        assert isinstance(caught.value, ValueError) and isinstance(caught.value, IndexError)


@pytest.mark.parametrize("row", [1.5, True, "1", None])
def test_a_row_that_is_not_an_integer_is_refused(engine, row):
    with pytest.raises(RowIndexError, match="a row is an integer 0..3"):
        engine.legal_reason(row, 0)


@pytest.mark.parametrize("rows", [np.array([True, False]), [0, 2], [1, 2, 3, 0], np.ones(5, bool), [3, 3, 0, 0]],
                         ids=repr)
def test_rows_are_a_bool_array_of_the_batch_length_and_nothing_moves_otherwise(engine, rows):
    before = engine.state.copy()
    for call in (lambda: engine.step(np.zeros(4, np.int64), rows=rows), lambda: engine.reset(rows=rows),
                 lambda: engine.next_hand(rows=rows)):
        with pytest.raises(ValueError, match=r"rows must be a bool array of shape \(4,\)"):
            call()
        assert unchanged(engine, before)


@pytest.mark.parametrize("knob, value, message", [
    ("row_seeds", [1.5, 2, 3, 4], r"row_seeds must be integers"),
    ("row_seeds", [-1, 2, 3, 4], r"row_seeds must be integers 0\.\.18446744073709551615"),
    ("dealers", [0.7, 1, 0, 1], r"dealers must be integers 0\.\.1"),
    ("dealers", [0, 1], r"dealers must be one integer or 4 of them"),
    ("dealers", [0, 2, 0, 0], r"dealers must be integers 0\.\.1"),
    ("decks", np.arange(52) + 0.5, r"decks must hold card types \(integers\)"),
], ids=lambda value: repr(value)[:20])
def test_reset_refuses_seeds_dealers_and_decks_that_are_not_integers_and_keeps_the_games(engine, knob, value,
                                                                                         message):
    before = engine.state.copy()
    with pytest.raises(ValueError, match=message):
        engine.reset(**{knob: value})
    assert unchanged(engine, before)


def test_reset_takes_the_whole_seed_range_and_one_dealer_for_every_row(engine):
    engine.reset(row_seeds=[2**64 - 1, 0, 1, 2], dealers=1)
    one = RummyEngine(RummyRules.preset("basic"), 1)
    one.reset(row_seeds=[2**64 - 1], dealers=[1])
    assert all(np.array_equal(one.state[name][0], engine.state[name][0]) for name in one.state.dtype.names)
    assert (engine.state["dealer"] == 1).all()


@pytest.mark.parametrize("hands, message", [([[0.5, 1, 2], [3, 4, 5]], "0.5 is not allowed"),
                                            ([[52, 1, 2], [3, 4, 5]], "52 is not allowed")])
def test_load_refuses_fractional_cards_and_a_joker_in_basic(engine, hands, message):
    before = engine.state.copy()
    with pytest.raises(ValueError, match=f"hands\\[0\\]'?: {message}; expected a card type 0..51"):
        engine.load(1, {"hands": hands})
    assert unchanged(engine, before)


def test_the_engine_takes_a_preset_name_and_names_a_bad_batch_size():
    assert RummyEngine("rami51", 2).rules == RummyRules.preset("rami51")
    for size in (0, 2.5, True):
        with pytest.raises(ValueError, match="batch_size must be an integer >= 1"):
            RummyEngine("basic", size)
    for size in (0, 2.5):
        with pytest.raises(ValueError, match="num_envs must be an integer >= 1"):
            RummyVectorEnv(num_envs=size)


@pytest.mark.parametrize("sizes", [{2: 8.5}, {2: True}, {2.7: 8}, {2: "8"}, [10, 7, 7, 6, 9], {"two": 8}, 5],
                         ids=repr)
def test_hand_sizes_by_players_are_integers_not_converted(sizes):
    with pytest.raises(ValueError, match=r"hand_size_by_players=.* allowed a map \{players"):
        RummyRules.preset("basic", hand_size_by_players=sizes)


def test_hand_sizes_keep_toml_keys():
    rules = RummyRules.preset("basic", hand_size_by_players={"2": 8, 3: 7})
    assert rules.hand_size_by_players == ((2, 8), (3, 7))
    assert RummyRules.from_dict(rules.to_dict()) == rules


@pytest.mark.parametrize("knobs", [{"reward_scale": 1e-40}, {"reward_scale": 1e300},
                                   {"illegal_action_penalty": 1e300}, {"illegal_action_penalty": -1e7}], ids=repr)
def test_reward_knobs_that_would_overflow_or_vanish_in_float32_are_refused(knobs):
    with pytest.raises(ValueError, match=f"{next(iter(knobs))}=.* allowed"):
        RummyRules.preset("basic", **knobs)


@pytest.mark.parametrize("preset, knob", [("basic", "max_turns_per_round"), ("basic", "max_hands"),
                                          ("rami51", "max_turns_per_round"), ("rami51", "max_rounds"),
                                          ("gin", "max_turns_per_round"), ("gin", "max_hands")])
def test_turn_and_hand_caps_fit_the_observations_counters(preset, knob):
    RummyRules.preset(preset, **{knob: 16383})
    with pytest.raises(ValueError, match=f"{knob}=16384 .*16383"):
        RummyRules.preset(preset, **{knob: 16384})


@pytest.mark.parametrize("preset", ["basic", "rami51", "gin"])
def test_the_counters_read_back_exactly_at_their_largest(preset):
    engine = RummyEngine(RummyRules.preset(preset, max_turns_per_round=16383), 1)
    engine.reset(seed=0)
    position = engine.snapshot(0)
    position["turn"] = 16383
    position["hands_played"] = 16382
    engine.load(0, position)
    obs = engine.observe()[0]
    blocks = engine.observation_layout.split(obs)
    assert obs.min() >= 0
    assert 128 * int(blocks["turns"][0]) + int(blocks["turns"][1]) == 16383
    assert 128 * int(blocks["hands_played"][0]) + int(blocks["hands_played"][1]) == 16382
    position["turn"] = 16384
    with pytest.raises(ValueError, match="turn"):
        engine.load(0, position)


@pytest.mark.parametrize("make", [rummy_env.env, rummy_env.raw_env], ids=["env", "raw_env"])
def test_the_aec_env_raises_runtime_error_before_reset_wrapped_or_not(make):
    aec = make("basic", render_mode="ansi")
    for call in (lambda: aec.step(0), lambda: aec.last(), lambda: aec.observe("player_0"), aec.state, aec.render):
        with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
            call()


def test_the_wrapped_env_refuses_a_step_once_every_agent_has_left():
    aec = rummy_env.env("basic", max_turns_per_round=3)
    aec.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in aec.agent_iter():
        observation, _, terminated, truncated, _ = aec.last()
        aec.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    with pytest.raises(RuntimeError, match=r"episode is over.*call reset\(\)"):
        aec.step(0)


def test_observers_are_checked_where_they_are_given(engine):
    with pytest.raises(ValueError, match="render_observer must be None .* got 'player_5'"):
        rummy_env.env("basic", render_observer="player_5")
    for observer in (3, "player_1", 1.0):
        with pytest.raises(ValueError, match="observer must be None .* a seat 0..1"):
            render_text(engine, 0, observer=observer)
    assert "player_1" in render_text(engine, 0, observer=1)


@pytest.mark.parametrize("seed", [1.5, "7", True])
def test_a_record_seed_is_an_integer(seed):
    with pytest.raises(RecordError, match="seed is an integer"):
        GameRecord.new("basic", seed=seed)


def test_action_ids_are_not_truncated_or_overflowed():
    aec = rummy_env.env("basic")
    aec.reset(seed=0)
    with pytest.raises(ValueError, match="an action is an integer action id"):
        aec.unwrapped.action_to_str(1.5)
    with pytest.raises(ValueError, match="outside the action space"):
        aec.step(10**20)
    with pytest.raises(rummy_env.IllegalActionError) as caught:  # a one-game env names no row
        aec.step(1033)
    assert not str(caught.value).startswith("row")


def test_restore_game_and_unknown_knobs_name_what_differs():
    aec = rummy_env.env("basic")
    aec.reset(seed=0)
    other = rummy_env.env("basic", ace_high_or_low=True)
    with pytest.raises(ValueError, match="ace_high_or_low: saved False, env True"):
        other.restore_game(aec.save_game())
    with pytest.raises(ValueError, match="did you mean 'ace_high_or_low'"):
        RummyRules.preset("basic", ace_high_or_lo=True)


def test_a_rules_file_names_its_ruleset(tmp_path):
    path = tmp_path / "no_ruleset.toml"
    path.write_text("num_players = 3\n")
    with pytest.raises(ValueError, match="names no ruleset"):
        RummyRules.from_toml(path)
    path.write_text('ruleset = "basic"\nnum_players = 3\n')
    assert RummyRules.from_toml(path).num_players == 3


def test_a_batch_names_the_row_of_an_illegal_action():
    engine = RummyEngine("basic", 2)
    engine.reset(seed=0)
    actions = engine.legal_action_mask().argmax(axis=1)
    actions[1] = engine.num_actions - 1  # a discard before the draw
    with pytest.raises(rummy_env.IllegalActionError, match=r"^row 1: player_\d cannot discard"):
        engine.step(actions)


def test_array_likes_and_numpy_integers_are_taken_and_a_refused_reset_keeps_the_seed_stream(tmp_path):
    engine = RummyEngine("basic", 4)
    engine.reset(row_seeds=range(4), dealers=np.array([0, 1, 0, 1]))
    assert RummyRules.preset("basic", hand_size_by_players={np.int64(2): np.int64(9)}).hand_size_by_players == ((2, 9),)
    path = tmp_path / "no_ruleset.toml"
    path.write_text("num_players = 2\n")
    assert RummyRules.from_toml(path, ruleset="basic").ruleset == "basic"
    one, two = RummyEngine("basic", 2), RummyEngine("basic", 2)
    one.reset(seed=5)
    two.reset(seed=5)
    with pytest.raises(ValueError, match="decks"):
        one.reset(seed=9, decks=np.arange(52) + 0.5)
    one.reset()
    two.reset()
    assert unchanged(one, two.state)


def test_render_before_reset_raises_whatever_the_render_mode():
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        rummy_env.raw_env("basic").render()

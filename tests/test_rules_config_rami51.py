"""``RummyRules`` for ruleset ``rami51`` and the Lebanese "14" preset (docs/rules.md: R1-R25, AR1-AR27, AL1-AL7 and the knobs).

Configuration only: presets, per-ruleset defaults, the Lebanese sub-rule knobs, every validation error,
``to_dict``/``from_dict`` round trips, the TOML files, card values; basic keeps its behaviour.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from rummy_env import cards
from rummy_env.rules import BASIC_KNOBS, GIN_KNOBS, RAMI51_KNOBS, RULESETS, RummyRules

RULES_DIR = Path(__file__).resolve().parent.parent / "configs" / "rules"
ACE_H = cards.card_type(1, 2)
KING_S = cards.card_type(13, 3)
SEVEN_D = cards.card_type(7, 1)

RAMI51_DEFAULTS = {
    "hand_size": 13, "dealer_extra_cards": 1, "dealer_first_turn_may_meld": True, "discard_pickup_from_second_round": False,
    "opening_threshold": 51, "opening_requires_pure_run": True, "pure_run_hand_cards_only": True, "opening_may_use_table": True,
    "joker_opening_value": "represented", "max_jokers_per_run": 1, "max_jokers_per_set": 1, "joker_on_opponent_run": False,
    "joker_on_opponent_set": True, "joker_swap_requires_prior_opening": False, "freed_joker_use": "new_meld",
    "allow_take_from_meld": True, "take_from_own_melds": True, "allow_split_runs": False, "can_take_joker_from_meld": False,
    "circular_runs": False, "allow_ace_both_ends": True, "final_discard": "required", "card_announcement": "auto",
    "announcement_penalty_cards": 2, "ace_hand_value": 11, "joker_hand_value": 20, "non_opener_penalty": 100,
    "all_at_once_scoring": "multiplier", "all_at_once_multiplier": 2, "joker_finish_multiplier": 4,
    "all_at_once_requires_opening_criteria": True, "all_at_once_requires_pure_run": True, "all_at_once_may_use_table": True,
    "game_end_threshold": 1000, "num_rounds": None, "max_rounds": 100, "dead_ends": "take_back", "take_back_penalty_cards": 2, "lebanese": False, "ace_fixed_value": None,
    "joker_run_requires_burnt": False, "burnt_includes_discard_pile": False, "discard_pickup_min_lay": None,
    "discard_pickup_min_lay_scope": "opening_only", "all_at_once_joker_scaling": None, "half_point_rounding": "exact",
    # shared knobs with rami51 defaults
    "reshuffle_keep_top": False, "max_reshuffles": None, "max_turns_per_round": 1000, "max_undos_per_turn": 1,
    "dead_round_scoring": "none", "game_end_mode": "threshold", "first_dealer": "random",
}


def rami(**overrides):
    return RummyRules.preset("rami51", num_players=overrides.pop("num_players", 2), **overrides)


# ==================================================================================================== presets, defaults
def test_rulesets_and_presets():
    assert RULESETS == ("basic", "rami51", "gin")
    assert rami().ruleset == "rami51" and not rami().lebanese
    leb = RummyRules.preset("lebanese14", num_players=4)
    assert leb.ruleset == "rami51" and leb.lebanese and leb.num_players == 4
    assert RummyRules.preset("lebanese14", num_players=3, opening_threshold=71).opening_threshold == 71
    with pytest.raises(ValueError, match="unknown ruleset 'canasta'"):
        RummyRules.preset("canasta", num_players=2)
    with pytest.raises(ValueError, match="lebanese14"):
        RummyRules.preset("lebanese14", num_players=2, lebanese=False)
    with pytest.raises(ValueError, match="unknown ruleset 'lebanese14'"):
        RummyRules(num_players=2, ruleset="lebanese14")          # a preset name, not a ruleset


def test_every_rami51_knob_is_a_field_with_its_default():
    rules = rami()
    for knob, default in RAMI51_DEFAULTS.items():
        value = getattr(rules, knob)
        assert value == default and type(value) is type(default), knob
    # every knob of §3.2 (minus num_players) and nothing else is rami51-only or shared
    assert set(RAMI51_KNOBS) == set(RAMI51_DEFAULTS) - {"reshuffle_keep_top", "max_reshuffles", "max_turns_per_round",
                                                       "max_undos_per_turn", "dead_round_scoring", "game_end_mode",
                                                       "first_dealer"}


def test_ruleset_dependent_defaults_are_concrete():
    basic, r51 = RummyRules.preset("basic", num_players=2), rami()
    assert (basic.reshuffle_keep_top, r51.reshuffle_keep_top) == (True, False)
    assert (basic.game_end_mode, r51.game_end_mode) == ("target", "threshold")
    assert (basic.dead_round_scoring, r51.dead_round_scoring) == ("none", "none")
    assert rami(reshuffle_keep_top=True).reshuffle_keep_top is True
    assert rami(dead_round_scoring="hand_penalties").dead_round_scoring == "hand_penalties"
    assert rami(game_end_mode="rounds", num_rounds=5).num_rounds == 5
    for rules in (basic, r51):
        unset = ("max_reshuffles", "num_hands", "num_rounds", "ace_fixed_value", "discard_pickup_min_lay",
                 "all_at_once_joker_scaling", "max_layoffs_per_run_end", "upcard_draw_limit")  # None = no limit / off
        assert all(value is not None or field.name in unset
                   for field in dataclasses.fields(rules) for value in [getattr(rules, field.name)])


def test_derived_sizes():
    basic, r51 = RummyRules.preset("basic", num_players=2), rami()
    assert (basic.num_card_types, basic.deck_size, basic.num_slots, basic.deck_copies, basic.num_jokers) == (52, 52, 17, 1, 0)
    assert (r51.num_card_types, r51.deck_size, r51.num_slots, r51.deck_copies, r51.num_jokers) == (53, 108, 36, 2, 4)
    assert (basic.is_penalty_scoring, r51.is_penalty_scoring) == (False, True)
    assert r51.max_run_position == 14 and rami(circular_runs=True).max_run_position == 14
    assert r51.hand_size == 13 and rami(hand_size=7, num_players=5).hand_size == 7


# ==================================================================================================== Lebanese
def test_lebanese_turns_on_its_knobs():
    leb = RummyRules.preset("lebanese14", num_players=2)
    assert leb.ace_fixed_value == 10
    assert leb.joker_run_requires_burnt is True
    assert leb.discard_pickup_min_lay == 71
    assert leb.all_at_once_joker_scaling == ((0, 2.0), (1, 1.5), (2, 1.0))
    assert leb.all_at_once_may_use_table is True
    assert leb.burnt_includes_discard_pile is False and leb.discard_pickup_min_lay_scope == "opening_only"
    # what the seed does not change (R21.7)
    assert (leb.hand_size, leb.opening_threshold, leb.joker_hand_value, leb.non_opener_penalty) == (13, 51, 20, 100)
    assert [leb.joker_scaling_factor(j) for j in range(5)] == [2.0, 1.5, 1.0, 1.0, 1.0]
    hash(leb)


def test_lebanese_explicit_knobs_win():
    leb = RummyRules.preset("lebanese14", num_players=2, ace_fixed_value=None, joker_run_requires_burnt=False,
                            discard_pickup_min_lay=81, all_at_once_joker_scaling={"0": 1, "1": 1.5, "2": 2})
    assert leb.ace_fixed_value is None and leb.joker_run_requires_burnt is False and leb.discard_pickup_min_lay == 81
    assert leb.all_at_once_joker_scaling == ((0, 1.0), (1, 1.5), (2, 2.0))
    assert [leb.joker_scaling_factor(j) for j in range(4)] == [1.0, 1.5, 2.0, 2.0]
    assert RummyRules.from_dict(leb.to_dict()) == leb
    assert RummyRules.from_dict(json.loads(json.dumps(leb.to_dict()))) == leb


def test_lebanese_sub_rules_without_the_preset():
    rules = rami(ace_fixed_value=10, joker_run_requires_burnt=True, discard_pickup_min_lay=71,
                 all_at_once_joker_scaling={0: 2, 1: 1.5, 2: 1})
    assert not rules.lebanese and rules.ace_fixed_value == 10 and rules.joker_scaling_factor(7) == 1.0
    assert rules.card_value(ACE_H) == 10
    with pytest.raises(ValueError, match="all_at_once_joker_scaling is not set"):
        rami().joker_scaling_factor(0)


def test_lebanese_forces_all_at_once_may_use_table():
    assert RummyRules.preset("lebanese14", num_players=2, all_at_once_may_use_table=True).all_at_once_may_use_table
    with pytest.raises(ValueError, match=r"all_at_once_may_use_table=False .*lebanese.*\(R21\.4, AL4\)"):
        RummyRules.preset("lebanese14", num_players=2, all_at_once_may_use_table=False)
    assert rami(all_at_once_may_use_table=False).all_at_once_may_use_table is False


def test_replace_moves_lebanese_sub_rules_along():
    leb = RummyRules.preset("lebanese14", num_players=2)
    off = leb.replace(lebanese=False)
    assert off == rami()
    assert off.replace(lebanese=True) == leb


# ==================================================================================================== validation
RAMI_ERRORS = [
    ({"num_players": 6}, r"^num_players=6 is impossible for ruleset 'rami51': allowed 2\.\.5 \(R3\)$"),
    ({"num_players": 1}, r"num_players=1 .*2\.\.5 \(R3\)"),
    ({"hand_size": 6}, r"hand_size=6 .*7\.\.15.*\(R4\)"),
    ({"hand_size": 16}, r"hand_size=16 .*\(R4\)"),
    ({"hand_size": 13.0}, r"hand_size=13\.0 .*\(R4\)"),
    ({"dealer_extra_cards": 0}, r"dealer_extra_cards=0 .*only 1 \(fixed\) \(R4\)"),
    ({"dealer_first_turn_may_meld": 1}, r"dealer_first_turn_may_meld=1 .*true or false \(AR1\)"),
    ({"discard_pickup_from_second_round": "yes"}, r"discard_pickup_from_second_round=.*\(R20\)"),
    ({"opening_threshold": -1}, r"opening_threshold=-1 .*integer >= 0 \(R11\.1\)"),
    ({"opening_threshold": 51.5}, r"opening_threshold=51\.5 .*\(R11\.1\)"),
    ({"opening_requires_pure_run": None}, r"opening_requires_pure_run=None .*\(R11\.2\)"),
    ({"pure_run_hand_cards_only": 0}, r"pure_run_hand_cards_only=0 .*\(AR8\)"),
    ({"opening_may_use_table": "no"}, r"opening_may_use_table=.*\(AR9\)"),
    ({"joker_opening_value": "full"}, r"joker_opening_value='full' .*'represented' or 'zero' or an integer >= 0 \(R10, AR15\)"),
    ({"joker_opening_value": -5}, r"joker_opening_value=-5 .*\(R10, AR15\)"),
    ({"joker_opening_value": True}, r"joker_opening_value=True .*\(R10, AR15\)"),
    ({"max_jokers_per_run": 2}, r"max_jokers_per_run=2 .*only 1 \(fixed\) \(R9\)"),
    ({"max_jokers_per_set": 2}, r"max_jokers_per_set=2 .*only 1 \(fixed\) \(AR4\)"),
    ({"joker_on_opponent_run": True}, r"joker_on_opponent_run=True .*only False \(fixed\) \(R9\)"),
    ({"joker_on_opponent_set": 1}, r"joker_on_opponent_set=1 .*\(AR6\)"),
    ({"joker_swap_requires_prior_opening": "x"}, r"joker_swap_requires_prior_opening=.*\(AR13\)"),
    ({"freed_joker_use": "keep"}, r"freed_joker_use='keep' .*'new_meld' or 'new_meld_or_layoff' \(AR14\)"),
    ({"allow_take_from_meld": None}, r"allow_take_from_meld=None .*\(R13\)"),
    ({"take_from_own_melds": 2}, r"take_from_own_melds=2 .*\(AR7\)"),
    ({"allow_split_runs": True}, r"allow_split_runs=True .*only False: splitting a run .* not supported .*\(AR7\)"),
    ({"can_take_joker_from_meld": "no"}, r"can_take_joker_from_meld=.*\(AR7\)"),
    ({"circular_runs": 1}, r"circular_runs=1 .*\(R20\)"),
    ({"allow_ace_both_ends": None}, r"allow_ace_both_ends=None .*\(AR10\)"),
    ({"final_discard": "never"}, r"final_discard='never' .*'required' or 'optional' or 'forbidden' \(R15\)"),
    ({"card_announcement": "loud"}, r"card_announcement='loud' .*'auto' or 'manual' \(R7\)"),
    ({"announcement_penalty_cards": -1}, r"announcement_penalty_cards=-1 .*integer >= 0 \(R7\)"),
    ({"ace_hand_value": 0}, r"ace_hand_value=0 .*integer >= 1 \(R19\)"),
    ({"joker_hand_value": -20}, r"joker_hand_value=-20 .*integer >= 0 \(AR15\)"),
    ({"non_opener_penalty": -1}, r"non_opener_penalty=-1 .*\(R19\)"),
    ({"all_at_once_scoring": "triple"}, r"all_at_once_scoring='triple' .*'multiplier' or 'flat100' \(R19\)"),
    ({"all_at_once_multiplier": 0.5}, r"all_at_once_multiplier=0\.5 .*number >= 1 \(R19\)"),
    ({"joker_finish_multiplier": "4"}, r"joker_finish_multiplier='4' .*number >= 1 \(R19, AR16\)"),
    ({"all_at_once_requires_opening_criteria": 1}, r"all_at_once_requires_opening_criteria=1 .*\(R16\)"),
    ({"all_at_once_requires_pure_run": None}, r"all_at_once_requires_pure_run=None .*\(AR20\)"),
    ({"all_at_once_may_use_table": 0}, r"all_at_once_may_use_table=0 .*\(R16\)"),
    ({"game_end_threshold": 0}, r"game_end_threshold=0 .*integer >= 1 \(AR18\)"),
    ({"game_end_mode": "rounds"}, r"num_rounds=None .*game_end_mode='rounds' \(R22\)"),
    ({"num_rounds": 5}, r"num_rounds=5 .*unset unless game_end_mode='rounds' \(R22\)"),
    ({"game_end_mode": "rounds", "num_rounds": 0}, r"num_rounds=0 .*\(R22\)"),
    ({"max_rounds": 0}, r"max_rounds=0 .*integer >= 1 \(R22\)"),
    ({"max_rounds": 16384}, r"max_rounds=16384 .*at most 16383"),
    ({"lebanese": 1}, r"lebanese=1 .*true or false \(R21\)"),
    ({"ace_fixed_value": 0}, r"ace_fixed_value=0 .*None or an integer >= 1.*\(R21\.1\)"),
    ({"ace_fixed_value": "10"}, r"ace_fixed_value='10' .*\(R21\.1\)"),
    ({"joker_run_requires_burnt": "yes"}, r"joker_run_requires_burnt=.*\(R21\.2\)"),
    ({"burnt_includes_discard_pile": 1}, r"burnt_includes_discard_pile=1 .*\(AL2\)"),
    ({"discard_pickup_min_lay": -71}, r"discard_pickup_min_lay=-71 .*\(R21\.3, AL3\)"),
    ({"discard_pickup_min_lay_scope": "always"}, r"discard_pickup_min_lay_scope='always' .*'opening_only' or 'every_pickup' \(AL3\)"),
    ({"all_at_once_joker_scaling": {"1": 1.5}}, r"all_at_once_joker_scaling=.*including 0.*\(R21\.5, AL5\)"),
    ({"all_at_once_joker_scaling": {"0": 0}}, r"all_at_once_joker_scaling=.*factor \(number > 0\).*\(R21\.5, AL5\)"),
    ({"all_at_once_joker_scaling": {"x": 1}}, r"all_at_once_joker_scaling=.*\(R21\.5, AL5\)"),
    ({"all_at_once_joker_scaling": 2}, r"all_at_once_joker_scaling=2 .*\(R21\.5, AL5\)"),
    ({"all_at_once_joker_scaling": {}}, r"all_at_once_joker_scaling=.*\(R21\.5, AL5\)"),
    ({"half_point_rounding": "round"}, r"half_point_rounding='round' .*'exact' or 'ceil' or 'floor' \(R21\.5\)"),
    ({"reshuffle_keep_top": "no"}, r"reshuffle_keep_top=.*true or false \(AR17\)"),
    ({"max_reshuffles": -1}, r"max_reshuffles=-1 .*\(R17\)"),
    ({"max_turns_per_round": 0}, r"max_turns_per_round=0 .*integer >= 1 \(R17\)"),
    ({"max_undos_per_turn": -1}, r"max_undos_per_turn=-1 .*integer >= 0 \(R24\)"),
    ({"dead_round_scoring": "lowest_hand_wins"}, r"dead_round_scoring='lowest_hand_wins' .*'none' or 'hand_penalties' \(R17\)"),
    ({"game_end_mode": "target"}, r"game_end_mode='target' .*'threshold' or 'rounds' \(R22\)"),
    ({"first_dealer": 2}, r"first_dealer=2 .*seat 0\.\.1 \(R4\)"),
    ({"episode": "round"}, r"episode='round' .*'hand' or 'game'"),
    ({"reward_scale": 0}, r"reward_scale=0 .*positive number"),
    # knobs of ruleset basic
    ({"ace_high_or_low": True}, r"ace_high_or_low=True cannot be set for ruleset 'rami51': it is a knob of ruleset 'basic'"),
    ({"going_rummy_multiplier": 3}, r"going_rummy_multiplier=3 .*knob of ruleset 'basic'"),
    ({"target_score": 500}, r"target_score=500 .*knob of ruleset 'basic'"),
    ({"num_hands": 3}, r"num_hands=3 .*knob of ruleset 'basic'"),
    ({"max_hands": 5}, r"max_hands=5 .*knob of ruleset 'basic'"),
    ({"hand_size_by_players": {2: 13}}, r"hand_size_by_players=.*knob of ruleset 'basic'"),
    ({"two_player_winner_deals": True}, r"two_player_winner_deals=True .*knob of ruleset 'basic'"),
    ({"unknown_knob": 1}, r"unknown rules knob"),
]


@pytest.mark.parametrize("overrides, message", RAMI_ERRORS, ids=[next(iter(o)) + f"-{i}" for i, (o, _) in enumerate(RAMI_ERRORS)])
def test_rami51_validation_errors(overrides, message):
    with pytest.raises(ValueError, match=message):
        rami(**overrides)


BASIC_ERRORS = [
    ({"opening_threshold": 71}, r"opening_threshold=71 cannot be set for ruleset 'basic': it is a knob of ruleset 'rami51'"),
    ({"lebanese": True}, r"lebanese=True .*knob of ruleset 'rami51'"),
    ({"ace_fixed_value": 10}, r"ace_fixed_value=10 .*knob of ruleset 'rami51'"),
    ({"joker_run_requires_burnt": True}, r"joker_run_requires_burnt=True .*knob of ruleset 'rami51'"),
    ({"all_at_once_joker_scaling": {"0": 2}}, r"all_at_once_joker_scaling=.*knob of ruleset 'rami51'"),
    ({"circular_runs": True}, r"circular_runs=True .*knob of ruleset 'rami51'"),
    ({"game_end_threshold": 500}, r"game_end_threshold=500 .*knob of ruleset 'rami51'"),
    ({"num_rounds": 3}, r"num_rounds=3 .*knob of ruleset 'rami51'"),
    ({"hand_size": 8}, r"hand_size=8 cannot be set for ruleset 'basic'.*hand_size_by_players"),
    ({"allow_split_runs": True}, r"allow_split_runs=True .*knob of ruleset 'rami51'"),
    ({"num_players": 7}, r"^num_players=7 is impossible for ruleset 'basic': allowed 2\.\.6 \(B1\)$"),
    ({"dead_round_scoring": "hand_penalties"}, r"dead_round_scoring='hand_penalties' .*'none' or 'lowest_hand_wins'"),
    ({"game_end_mode": "threshold"}, r"game_end_mode='threshold' .*'target' or 'hands'"),
]


@pytest.mark.parametrize("overrides, message", BASIC_ERRORS, ids=[next(iter(o)) for o, _ in BASIC_ERRORS])
def test_basic_rejects_rami51_knobs(overrides, message):
    with pytest.raises(ValueError, match=message):
        RummyRules.preset("basic", **{"num_players": 2, **overrides})


def test_other_ruleset_knobs_at_their_default_are_accepted():
    """Passing a knob of the other ruleset at its default is harmless (e.g. dataclasses.asdict round trips)."""
    basic = RummyRules.preset("basic", num_players=3, opening_threshold=51, lebanese=False, ace_fixed_value=None,
                              all_at_once_joker_scaling=None, hand_size=7)
    assert basic == RummyRules.preset("basic", num_players=3)
    assert rami(ace_high_or_low=False, target_score=150, hand_size_by_players={"2": 10, "3": 7, "4": 7, "5": 6, "6": 6}) == rami()
    for rules in (basic, rami(), RummyRules.preset("lebanese14", num_players=5)):
        assert RummyRules.from_dict(dataclasses.asdict(rules)) == rules


def test_hand_size_bounds():
    for players in range(2, 6):
        for hand in (7, 13, 15):
            assert rami(num_players=players, hand_size=hand).hand_size == hand


# ==================================================================================================== round trips, TOML
ROUND_TRIP = [
    ("basic", {}), ("basic", {"ace_high_or_low": True, "round_the_corner": True, "game_end_mode": "hands", "num_hands": 3}),
    ("rami51", {}), ("rami51", {"opening_threshold": 81, "joker_opening_value": 35, "circular_runs": True,
                                "game_end_mode": "rounds", "num_rounds": 4, "max_reshuffles": 2, "first_dealer": 1,
                                "all_at_once_multiplier": 2.5, "final_discard": "optional"}),
    ("lebanese14", {}), ("lebanese14", {"burnt_includes_discard_pile": True, "discard_pickup_min_lay_scope": "every_pickup",
                                        "half_point_rounding": "ceil"}),
    ("rami51", {"all_at_once_joker_scaling": {0: 1, 2: 2}}),
]


@pytest.mark.parametrize("name, overrides", ROUND_TRIP)
def test_to_dict_from_dict_round_trip(name, overrides):
    rules = RummyRules.preset(name, num_players=3, **overrides)
    values = rules.to_dict()
    assert RummyRules.from_dict(values) == rules
    assert RummyRules.from_dict(json.loads(json.dumps(values))) == rules
    assert rules.replace() == rules
    own = RAMI51_KNOBS if rules.ruleset == "rami51" else BASIC_KNOBS
    other = set(BASIC_KNOBS + GIN_KNOBS + RAMI51_KNOBS) - set(own)
    assert not set(values) & set(other)                     # only the knobs of its own ruleset
    if rules.all_at_once_joker_scaling is not None and "all_at_once_joker_scaling" in values:
        assert all(isinstance(key, str) for key in values["all_at_once_joker_scaling"])


def test_to_dict_scaling_has_string_keys():
    values = rami(all_at_once_joker_scaling={0: 1, 1: 1.5, 2: 2}).to_dict()
    assert values["all_at_once_joker_scaling"] == {"0": 1.0, "1": 1.5, "2": 2.0}


@pytest.mark.parametrize("name, expected", [
    ("rami51", {}), ("lebanese14", {"lebanese": True}), ("rami51_71", {"opening_threshold": 71}),
    ("rami51_81", {"opening_threshold": 81}),
])
def test_toml_files_load(name, expected):
    rules = RummyRules.from_toml(RULES_DIR / f"{name}.toml")
    assert rules.ruleset == "rami51" and rules.num_players == 2
    preset = "lebanese14" if name == "lebanese14" else "rami51"
    assert rules == RummyRules.preset(preset, num_players=2, **{k: v for k, v in expected.items() if k != "lebanese"})
    assert RummyRules.from_toml(RULES_DIR / f"{name}.toml", num_players=5).num_players == 5


def test_rami51_toml_spells_out_every_knob():
    text = (RULES_DIR / "rami51.toml").read_text()
    for knob in RAMI51_KNOBS:
        assert f"{knob} " in text or f"# {knob}" in text, knob


# ==================================================================================================== card values
def test_rami51_card_values():
    values = rami().card_values
    assert len(values) == 53
    assert values[ACE_H] == 11 and values[KING_S] == 10 and values[SEVEN_D] == 7 and values[cards.JOKER] == 20
    assert [values[cards.card_type(rank, 0)] for rank in range(1, 14)] == [11, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    leb = RummyRules.preset("lebanese14", num_players=2).card_values
    assert leb[ACE_H] == 10 and leb[cards.JOKER] == 20
    for joker in (20, 35, 50):
        assert rami(joker_hand_value=joker).card_values[cards.JOKER] == joker
    assert rami(ace_hand_value=15).card_values[ACE_H] == 15
    assert rami(ace_hand_value=15, ace_fixed_value=10).card_values[ACE_H] == 10


# ==================================================================================================== basic unchanged
def test_basic_unchanged():
    basic = RummyRules.preset("basic", num_players=4, ace_high_or_low=True)
    assert basic.hand_size == 7 and basic.ace_high_or_low
    assert RummyRules.preset("basic", num_players=2).hand_size == 10
    assert RummyRules.preset("basic", num_players=3, hand_size_by_players={3: 17}).hand_size == 17
    assert len(basic.card_values) == 52 and basic.card_values[ACE_H] == 15
    assert RummyRules.preset("basic", num_players=2).card_values[ACE_H] == 1
    assert RummyRules.preset("basic", num_players=2).max_run_position == 13 and basic.max_run_position == 14
    values = RummyRules.preset("basic", num_players=2).to_dict()
    assert "hand_size" not in values and values["hand_size_by_players"] == {"2": 10, "3": 7, "4": 7, "5": 6, "6": 6}
    assert RummyRules.preset("basic", num_players=2).replace(num_players=5).hand_size == 6
    for name in ("basic", "basic_ace_high", "basic_game_to_150"):
        assert RummyRules.from_toml(RULES_DIR / f"{name}.toml").ruleset == "basic"

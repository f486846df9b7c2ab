"""Checks of a ruleset's knob values against the tables of ``rummy_env.knobs`` (B1-B19, R1-R24, G1-G14): each
knob's allowed values and the rule that sets them, the knobs of another ruleset left at their defaults, and
the Lebanese joker scaling (R21.5) as a table. ``RummyRules.__post_init__`` calls them; every refusal is a
``ValueError`` naming the knob, its value, what is allowed and the rule.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from rummy_env.inputs import is_integer
from rummy_env.knobs import (
    BOOLS_BASIC, BOOLS_GIN, BOOLS_RAMI, CHOICES_BASIC, CHOICES_ENV, CHOICES_GIN, CHOICES_RAMI, COUNTER_LIMIT, FIXED_RAMI,
    INTS_GIN,
    INTS_RAMI, LEBANESE_KNOBS, NUM_PLAYERS, is_int, is_number, same,
)


REWARD_SCALE = (1e-3, 1e6)  # the range of ``reward_scale``
PENALTY_LIMIT = 1e6         # the largest ``illegal_action_penalty`` either way


def normalise_hand_sizes(sizes: Any) -> Any:
    """``hand_size_by_players`` as a mapping ``{players: cards}`` (TOML and JSON keys are digit strings) or pairs ->
    sorted ``((players, cards), ...)``; anything but integers is refused (B4)."""
    def bad() -> ValueError:
        return ValueError(f"hand_size_by_players={sizes!r} is impossible for ruleset 'basic': allowed a map "
                          "{players (an integer): cards (an integer)}, e.g. {2: 10, 3: 7} (B4)")
    try:
        pairs = list(sizes.items()) if isinstance(sizes, Mapping) else [tuple(pair) for pair in sizes]
    except TypeError as error:
        raise bad() from error
    out = []
    for players, hand in pairs:
        if isinstance(players, str) and players.isdigit():
            players = int(players)
        if not (is_integer(players) and is_integer(hand)):
            raise bad()
        out.append((int(players), int(hand)))
    if len({players for players, _ in out}) != len(out):
        raise bad()
    return tuple(sorted(out))


def normalise_scaling(scaling: Any) -> Any:
    """A mapping ``{jokers: factor}`` (TOML keys are strings) or pairs -> sorted ``((jokers, factor), ...)``."""
    def bad() -> ValueError:
        return ValueError(f"all_at_once_joker_scaling={scaling!r} is impossible for ruleset 'rami51': allowed "
                          "None or a map {jokers (int >= 0, including 0): factor (number > 0)} (R21.5, AL5)")
    try:
        pairs = list(scaling.items()) if isinstance(scaling, Mapping) else [tuple(pair) for pair in scaling]
        out = []
        for jokers, factor in pairs:
            if isinstance(jokers, bool) or isinstance(factor, (bool, str)):
                raise bad()
            key = int(jokers)
            if isinstance(jokers, float) and jokers != key:
                raise bad()
            out.append((key, float(factor)))
    except (TypeError, ValueError) as error:
        raise bad() from error
    keys = [jokers for jokers, _ in out]
    if not out or len(set(keys)) != len(keys) or min(keys) != 0 \
            or any(not (math.isfinite(f) and f > 0) for _, f in out):
        raise bad()
    return tuple(sorted(out))


def check_other_ruleset_knobs(rules, own_knobs: dict[str, tuple[str, ...]]) -> None:
    """A knob of another ruleset (``own_knobs``: ruleset -> the knobs it owns) may only hold its default (or, for
    AUTO knobs, their 'off' value)."""
    own = own_knobs[rules.ruleset]
    defaults = {field.name: field.default for field in dataclasses.fields(rules)}
    for name in (name for knobs in own_knobs.values() for name in knobs if name not in own):
        owner = next(ruleset for ruleset, knobs in own_knobs.items() if name in knobs)
        value = getattr(rules, name)
        default = defaults[name]
        if same(value, default) or name in LEBANESE_KNOBS and same(value, LEBANESE_KNOBS[name][1]):
            continue
        if name == "target_score" and same(value, 150):
            continue          # rami51 resolves the knob it does not use to basic's default
        if name == "hand_size":   # only basic owns no hand_size: it deals hand_size_by_players
            sizes = dict(rules.hand_size_by_players)
            if value == sizes.get(rules.num_players) and is_int(value):
                continue          # e.g. a dict built from dataclasses.asdict: hand_size is derived in basic
            raise ValueError(f"hand_size={value!r} cannot be set for ruleset 'basic': it is a knob of ruleset "
                             "'rami51'; basic deals hand_size_by_players (B4)")
        raise ValueError(f"{name}={value!r} cannot be set for ruleset {rules.ruleset!r}: it is a knob of ruleset "
                         f"{owner!r} (docs/rules.md#{owner}-knobs); leave it at its "
                         f"default {LEBANESE_KNOBS[name][1] if name in LEBANESE_KNOBS else default!r}")


def _check_choices(rules, fail, table: dict[str, tuple[tuple[str, ...], str]]) -> None:
    """Each enum knob of ``table`` (knob -> (choices, rule)) holds one of its choices."""
    for knob, (choices, rule) in table.items():
        if getattr(rules, knob) not in choices:
            fail(knob, " or ".join(repr(choice) for choice in choices), rule)


def _check_bools(rules, fail, table: dict[str, str]) -> None:
    """Each knob of ``table`` (knob -> rule) is a bool."""
    for knob, rule in table.items():
        if not isinstance(getattr(rules, knob), bool):
            fail(knob, "true or false", rule)


def validate(rules) -> None:
    """Every knob of ``rules`` within what its ruleset allows (``RummyRules.__post_init__``), else a ``ValueError``."""
    def fail(knob: str, allowed: str, rule: str) -> None:
        raise ValueError(f"{knob}={getattr(rules, knob)!r} is impossible for ruleset {rules.ruleset!r}: allowed "
                         f"{allowed} ({rule})")

    low, high, rule = NUM_PLAYERS[rules.ruleset]
    if not is_int(rules.num_players):
        raise ValueError(f"num_players must be an integer, got {rules.num_players!r} ({type(rules.num_players).__name__}); "
                         f"ruleset {rules.ruleset!r} allows {low}..{high} ({rule})")
    if not low <= rules.num_players <= high:
        fail("num_players", f"{low}..{high}" if low < high else f"only {low}", rule)
    {"basic": _validate_basic, "rami51": _validate_rami51, "gin": _validate_gin}[rules.ruleset](rules, fail)
    _check_choices(rules, fail, {knob: (choices, "environment knob") for knob, choices in CHOICES_ENV.items()})
    if rules.max_reshuffles is not None and (not is_int(rules.max_reshuffles) or rules.max_reshuffles < 0):
        fail("max_reshuffles", "None (unlimited) or an integer >= 0", rules.traits.rule_ids["max_reshuffles"])
    if not (rules.first_dealer == "random" or (is_int(rules.first_dealer) and 0 <= rules.first_dealer < rules.num_players)):
        fail("first_dealer", f"'random' or a seat 0..{rules.num_players - 1}", rules.traits.rule_ids["first_dealer"])
    # rewards are float32: these bounds keep every reward finite and every score difference visible in it
    if not (is_number(rules.reward_scale) and REWARD_SCALE[0] <= rules.reward_scale <= REWARD_SCALE[1]):
        fail("reward_scale", f"a positive number {REWARD_SCALE[0]:g}..{REWARD_SCALE[1]:g}", "environment knob")
    if not (is_number(rules.illegal_action_penalty) and abs(rules.illegal_action_penalty) <= PENALTY_LIMIT):
        fail("illegal_action_penalty", f"a number -{PENALTY_LIMIT:g}..{PENALTY_LIMIT:g}", "environment knob")


def _validate_basic(rules, fail) -> None:
    sizes = dict(rules.hand_size_by_players)
    if rules.num_players not in sizes:
        fail("hand_size_by_players", f"an entry for {rules.num_players} players", "B4")
    hand = sizes[rules.num_players]
    if not is_int(hand) or hand < 1 or rules.num_players * hand + 1 > rules.deck_size:
        fail("hand_size_by_players", f"1..{(rules.deck_size - 1) // rules.num_players} cards for {rules.num_players} players (n*h+1 <= {rules.deck_size})", "B4")
    _check_choices(rules, fail, CHOICES_BASIC)
    _check_bools(rules, fail, BOOLS_BASIC)
    if rules.round_the_corner and not rules.ace_high_or_low:
        fail("round_the_corner", "only together with ace_high_or_low=true", "B15")
    for knob, low in (("ace_high_scoring_value", 1), ("going_rummy_multiplier", 1), ("max_turns_per_round", 1),
                      ("max_undos_per_turn", 0), ("target_score", 1), ("max_hands", 1)):
        value = getattr(rules, knob)
        if not is_int(value) or value < low:
            fail(knob, f"an integer >= {low}", "docs/rules.md#basic-knobs")
    for knob in ("max_turns_per_round", "max_hands"):
        if getattr(rules, knob) > COUNTER_LIMIT:
            fail(knob, f"at most {COUNTER_LIMIT} (the observation's counters)", "docs/rules.md#basic-knobs")
    if rules.game_end_mode == "hands":
        if not is_int(rules.num_hands) or rules.num_hands < 1:
            fail("num_hands", "an integer >= 1 when game_end_mode='hands'", "B14")
    elif rules.num_hands is not None:
        fail("num_hands", "unset unless game_end_mode='hands'", "B14")


def _validate_rami51(rules, fail) -> None:
    if not is_int(rules.hand_size) or not 7 <= rules.hand_size <= 15 \
            or rules.num_players * rules.hand_size + rules.dealer_extra_cards > rules.deck_size:
        fail("hand_size", f"7..15 with n*h + {rules.dealer_extra_cards} <= {rules.deck_size}", "R4")
    for knob, (value, rule) in FIXED_RAMI.items():
        if getattr(rules, knob) != value or type(getattr(rules, knob)) is not type(value):
            fail(knob, f"only {value!r} (fixed)", rule)
    if rules.allow_split_runs is not False:
        fail("allow_split_runs", "only False: splitting a run (R13) is not supported by this engine", "AR7")
    _check_choices(rules, fail, CHOICES_RAMI)
    _check_bools(rules, fail, BOOLS_RAMI)
    for knob, (low, rule) in INTS_RAMI.items():
        value = getattr(rules, knob)
        if not is_int(value) or value < low:
            fail(knob, f"an integer >= {low}", rule)
    for knob in ("max_turns_per_round", "max_rounds"):
        if getattr(rules, knob) > COUNTER_LIMIT:
            fail(knob, f"at most {COUNTER_LIMIT} (the observation's counters)", INTS_RAMI[knob][1])
    value = rules.joker_opening_value
    if not (value in ("represented", "zero") or (is_int(value) and value >= 0)):
        fail("joker_opening_value", "'represented' or 'zero' or an integer >= 0", "R10, AR15")
    for knob, rule in (("all_at_once_multiplier", "R19"), ("joker_finish_multiplier", "R19, AR16")):
        if not is_number(getattr(rules, knob)) or getattr(rules, knob) < 1:
            fail(knob, "a number >= 1", rule)
    if rules.game_end_mode == "rounds":
        if not is_int(rules.num_rounds) or rules.num_rounds < 1:
            fail("num_rounds", "an integer >= 1 when game_end_mode='rounds'", "R22")
    elif rules.num_rounds is not None:
        fail("num_rounds", "unset unless game_end_mode='rounds'", "R22")
    if rules.ace_fixed_value is not None and (not is_int(rules.ace_fixed_value) or rules.ace_fixed_value < 1):
        fail("ace_fixed_value", "None or an integer >= 1 (Lebanese: 10)", "R21.1")
    if rules.discard_pickup_min_lay is not None and (not is_int(rules.discard_pickup_min_lay) or rules.discard_pickup_min_lay < 0):
        fail("discard_pickup_min_lay", "None or an integer >= 0 (Lebanese: 71)", "R21.3, AL3")
    if rules.lebanese and rules.all_at_once_may_use_table is not True:
        fail("all_at_once_may_use_table", "only True when lebanese=true (the preset forces it)", "R21.4, AL4")


def _validate_gin(rules, fail) -> None:
    _check_choices(rules, fail, CHOICES_GIN)
    _check_bools(rules, fail, BOOLS_GIN)
    for knob, (low, high, rule) in INTS_GIN.items():
        value = getattr(rules, knob)
        if not is_int(value) or value < low or (high is not None and value > high):
            fail(knob, f"an integer {low}..{high}" if high is not None else f"an integer >= {low}", rule)
    for knob, rule in (("max_layoffs_per_run_end", "G8, G13"), ("upcard_draw_limit", "G13")):
        value = getattr(rules, knob)
        if value is not None and (not is_int(value) or value < 1):
            fail(knob, "None (no limit) or an integer >= 1", rule)
    if rules.reshuffle_keep_top is not False or rules.max_reshuffles is not None:
        fail("reshuffle_keep_top" if rules.reshuffle_keep_top is not False else "max_reshuffles",
             "its default: gin never rebuilds the stock, the wall ends the hand", "G10")
    if rules.auto_melds and rules.layoffs:
        fail("auto_melds", "true only together with layoffs=false (the engine lays each best arrangement and "
             "does not choose lay-offs)", "G14")
    if rules.oklahoma and rules.opening != "upcard":
        fail("oklahoma", "true only with opening='upcard' (the first upcard sets the knock card)", "G11")

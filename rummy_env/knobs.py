"""The knob tables of ``RummyRules`` (B1-B19, R1-R25, G1-G14): the presets, which knobs each ruleset owns,
the allowed values of every enum, bool and integer knob with the rule that sets it, the gin presets' values,
the Lebanese sub-rules' values, and how defaults left open are resolved. Every field of ``RummyRules`` that is
not shared, basic's or gin's is rami51's (``rummy_env.rules.RAMI51_KNOBS``). ``rummy_env.rules`` builds the
dataclass from them and ``rummy_env.rules_check`` checks a ruleset's values against them.
"""

from __future__ import annotations

import math
from typing import Any

RULESETS = ("basic", "rami51", "gin")
# "lebanese14" = ruleset "rami51" with lebanese=True (R21); "gin_openspiel" and "gin_rlcard" are ruleset "gin"
# with the knobs of GIN_PRESETS (G13, G14)
PRESETS = ("basic", "rami51", "lebanese14", "gin", "gin_openspiel", "gin_rlcard")

BASIC_HAND_SIZES = ((2, 10), (3, 7), (4, 7), (5, 6), (6, 6))
# the largest turn and hand count: the observation shows them as two int8 digits, 128 * high + low
COUNTER_LIMIT = 16383
NUM_PLAYERS = {"basic": (2, 6, "B1"), "rami51": (2, 5, "R3"), "gin": (2, 2, "G1")}
LEBANESE_SCALING = ((0, 2.0), (1, 1.5), (2, 1.0))


class _Auto:
    """Default of a Lebanese sub-rule knob: its Lebanese value when ``lebanese`` is on, else off (R21)."""

    def __repr__(self) -> str:
        return "<auto>"


AUTO = _Auto()

# knob -> (value when lebanese, value otherwise); every one of them can also be set on its own (R21)
LEBANESE_KNOBS: dict[str, tuple[Any, Any]] = {
    "ace_fixed_value": (10, None),
    "joker_run_requires_burnt": (True, False),
    "discard_pickup_min_lay": (71, None),
    "all_at_once_joker_scaling": (LEBANESE_SCALING, None),
}

# enum knobs: ruleset -> knob -> (choices, rule id)
CHOICES_BASIC = {
    "dead_round_scoring": (("none", "lowest_hand_wins"), "docs/rules.md#basic-knobs"),
    "game_end_mode": (("target", "hands"), "docs/rules.md#basic-knobs"),
}
CHOICES_RAMI = {
    "dead_round_scoring": (("none", "hand_penalties"), "R17"),
    "game_end_mode": (("threshold", "rounds"), "R22"),
    "freed_joker_use": (("new_meld", "new_meld_or_layoff"), "AR14"),
    "final_discard": (("required", "optional", "forbidden"), "R15"),
    "card_announcement": (("auto", "manual"), "R7"),
    "all_at_once_scoring": (("multiplier", "flat100"), "R19"),
    "discard_pickup_min_lay_scope": (("opening_only", "every_pickup"), "AL3"),
    "half_point_rounding": (("exact", "ceil", "floor"), "R21.5"),
    "dead_ends": (("take_back", "prevent"), "R25"),
}
CHOICES_GIN = {
    "dead_round_scoring": (("none",), "G10"),
    "game_end_mode": (("target",), "G12"),
    "opening": (("upcard", "eleven_cards"), "G2, G3, G14"),
    "wall_rule": (("void", "openspiel", "pickup_or_dead"), "G10, G14"),
    "knock_deadwood": (("exact", "openspiel_shortcut"), "G6, G13"),
    "next_dealer": (("alternate", "winner", "loser"), "G12"),
}
CHOICES_ENV = {
    "episode": ("hand", "game"),
    "reward": ("score", "win"),
    "illegal_action": ("raise", "penalty"),
}


CHOICES = {"basic": CHOICES_BASIC, "rami51": CHOICES_RAMI, "gin": CHOICES_GIN}


def knob_choices(ruleset: str) -> dict[str, tuple[str, ...]]:
    """The allowed values of every enum knob of ``ruleset`` (environment knobs included), in the order whose
    index the compiled kernels read (``rummy_env.engine.config``)."""
    merged: dict[str, tuple[str, ...]] = {}
    for name, table in CHOICES.items():
        if name != ruleset:
            merged.update({knob: choices for knob, (choices, _) in table.items()})
    return {**merged, **{knob: choices for knob, (choices, _) in CHOICES[ruleset].items()}, **CHOICES_ENV}


# bool knobs of basic -> where they are defined
BOOLS_BASIC = {knob: "docs/rules.md#basic-knobs" for knob in (
    "ace_high_or_low", "round_the_corner", "must_discard_to_go_out", "forbid_discarding_card_taken_from_discard",
    "must_meld_before_layoff", "reshuffle_keep_top", "two_player_winner_deals")}
# bool knobs of rami51 -> rule id
BOOLS_RAMI = {
    "dealer_first_turn_may_meld": "AR1", "discard_pickup_from_second_round": "R20",
    "opening_requires_pure_run": "R11.2", "pure_run_hand_cards_only": "AR8", "opening_may_use_table": "AR9",
    "joker_on_opponent_set": "AR6", "joker_swap_requires_prior_opening": "AR13",
    "allow_take_from_meld": "R13", "take_from_own_melds": "AR7", "can_take_joker_from_meld": "AR7",
    "circular_runs": "R20", "allow_ace_both_ends": "AR10", "all_at_once_requires_opening_criteria": "R16",
    "all_at_once_requires_pure_run": "AR20", "all_at_once_may_use_table": "R16", "reshuffle_keep_top": "AR17",
    "lebanese": "R21", "joker_run_requires_burnt": "R21.2", "burnt_includes_discard_pile": "AL2",
}
# integer knobs of rami51 -> (minimum, rule id)
INTS_RAMI = {
    "opening_threshold": (0, "R11.1"), "announcement_penalty_cards": (0, "R7"), "ace_hand_value": (1, "R19"),
    "joker_hand_value": (0, "AR15"), "non_opener_penalty": (0, "R19"), "game_end_threshold": (1, "AR18"),
    "max_rounds": (1, "R22"), "max_turns_per_round": (1, "R17"), "max_undos_per_turn": (0, "R24"),
    "take_back_penalty_cards": (0, "R25"),
}
# knobs with one allowed value (docs/rules.md#rami51-knobs, "fixed values") -> (value, rule id)
FIXED_RAMI = {
    "dealer_extra_cards": (1, "R4"), "max_jokers_per_run": (1, "R9"), "max_jokers_per_set": (1, "AR4"),
    "joker_on_opponent_run": (False, "R9"),
}


# bool knobs of gin -> rule id
BOOLS_GIN = {
    "oklahoma": "G11", "tie_is_undercut": "G9", "forbid_discarding_taken_card": "G4", "layoffs": "G8",
    "auto_melds": "G14", "gin_forced": "G14", "repeated_discard_void": "G13",
}
# integer knobs of gin -> (minimum, maximum or None, rule id)
INTS_GIN = {
    "knock_card": (0, 10, "G6"), "gin_bonus": (0, None, "G7"), "big_gin_bonus": (0, None, "G7"),
    "undercut_bonus": (0, None, "G9"), "box_bonus": (0, None, "G12"), "game_bonus": (0, None, "G12"),
    "shutout_multiplier": (1, None, "G12"), "target_score": (1, None, "G12"), "max_hands": (1, COUNTER_LIMIT, "G12"),
    "max_turns_per_round": (1, COUNTER_LIMIT, "G12"), "hand_size": (10, 10, "G2"),
}
# the knob values of the gin presets (G13, G14); the user may still override any knob
GIN_PRESETS: dict[str, dict[str, Any]] = {
    "gin": {},
    "gin_openspiel": {
        "forbid_discarding_taken_card": False, "tie_is_undercut": False, "big_gin_bonus": 0, "wall_rule": "openspiel",
        "first_dealer": 1, "repeated_discard_void": True, "upcard_draw_limit": 50,
        "knock_deadwood": "openspiel_shortcut", "max_layoffs_per_run_end": 2,
    },
    "gin_rlcard": {
        "opening": "eleven_cards", "forbid_discarding_taken_card": True, "gin_forced": True, "auto_melds": True,
        "layoffs": False, "wall_rule": "pickup_or_dead", "big_gin_bonus": 0,
    },
}


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def same(value: Any, default: Any) -> bool:
    """``value`` is ``default`` (a bool never equals an int here)."""
    return value is default or (isinstance(value, bool) == isinstance(default, bool) and value == default)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# knobs of the environment around the game (what an episode is, rewards, illegal actions), not rules of play
ENV_KNOBS = ("episode", "reward", "reward_scale", "illegal_action", "illegal_action_penalty")
SHARED_KNOBS = ("num_players", "ruleset", "reshuffle_keep_top", "max_reshuffles", "max_turns_per_round",
                "max_undos_per_turn", "dead_round_scoring", "game_end_mode", "first_dealer") + ENV_KNOBS
# the knobs only ruleset "basic" uses (docs/rules.md#basic-knobs minus the shared ones)
BASIC_KNOBS = ("hand_size_by_players", "ace_high_or_low", "ace_high_scoring_value", "round_the_corner",
               "must_discard_to_go_out", "forbid_discarding_card_taken_from_discard", "going_rummy_multiplier",
               "must_meld_before_layoff", "target_score", "num_hands", "max_hands", "two_player_winner_deals")
GIN_ONLY = ("knock_card", "oklahoma", "gin_bonus", "big_gin_bonus", "undercut_bonus", "tie_is_undercut",
            "forbid_discarding_taken_card", "opening", "wall_rule", "knock_deadwood", "max_layoffs_per_run_end",
            "layoffs", "auto_melds", "gin_forced", "repeated_discard_void", "upcard_draw_limit", "box_bonus",
            "game_bonus", "shutout_multiplier", "next_dealer")
# the knobs ruleset "gin" uses besides the shared ones (docs/rules.md#gin-knobs)
GIN_KNOBS = ("hand_size", "target_score", "max_hands") + GIN_ONLY


def resolve_defaults(rules) -> None:
    """Fill the knobs left at ``None`` or ``AUTO`` with their family's value (``RummyRules.__post_init__``;
    ``rummy_env.rulesets``: B11 keeps the pile's top when the stock is rebuilt, R17 does not, gin never rebuilds,
    G10)."""

    def set_(name: str, value: Any) -> None:
        object.__setattr__(rules, name, value)

    traits = rules.traits
    for name, value in traits.defaults.items():
        if getattr(rules, name) is None:
            set_(name, value)
    if rules.dead_round_scoring is None:
        set_("dead_round_scoring", "none")
    lebanese = rules.lebanese is True   # only rami51 may set it (check_other_ruleset_knobs)
    for name, (on, off) in LEBANESE_KNOBS.items():
        if getattr(rules, name) is AUTO:
            set_(name, on if lebanese else off)
    if rules.hand_size is None:
        set_("hand_size", traits.hand_size(rules))

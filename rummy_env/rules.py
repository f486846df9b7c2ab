"""``RummyRules``: every knob of a ruleset in one frozen, validated dataclass.

The rules knobs are those of the rules book, ``docs/rules.md`` (ruleset ``basic``: its knobs table
``docs/rules.md#basic-knobs``; ruleset ``rami51``: ``docs/rules.md#rami51-knobs``, with the
Lebanese "14" sub-rules of R21), with the seed defaults; the ids in brackets (B5, AB1, R11, AR7, AL3, …)
point into that file. A few *environment* knobs sit beside them (how an episode is cut, how rewards are
formed, what an illegal action does), because they too must be set through configuration and never by
patching the engine.

>>> rules = RummyRules.preset("basic", num_players=4, ace_high_or_low=True)
>>> rules.hand_size, rules.ace_high_or_low
(7, True)
>>> RummyRules.preset("basic", num_players=7)
Traceback (most recent call last):
...
ValueError: num_players=7 is impossible for ruleset 'basic': allowed 2..6 (B1)
>>> lebanese = RummyRules.preset("lebanese14", num_players=3)
>>> lebanese.ruleset, lebanese.hand_size, lebanese.ace_fixed_value, lebanese.joker_scaling_factor(1)
('rami51', 13, 10, 1.5)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomllib

import numpy as np

from rummy_env import cards

RULESETS = ("basic", "rami51")
PRESETS = ("basic", "rami51", "lebanese14")     # "lebanese14" = ruleset "rami51" with lebanese=True (R21)

_BASIC_HAND_SIZES = ((2, 10), (3, 7), (4, 7), (5, 6), (6, 6))
_NUM_PLAYERS = {"basic": (2, 6, "B1"), "rami51": (2, 5, "R3")}
_LEBANESE_SCALING = ((0, 2.0), (1, 1.5), (2, 1.0))


class _Auto:
    """Default of a Lebanese sub-rule knob: its Lebanese value when ``lebanese`` is on, else off (R21)."""

    def __repr__(self) -> str:
        return "<auto>"


AUTO = _Auto()

# knob -> (value when lebanese, value otherwise); every one of them can also be set on its own (R21)
_LEBANESE_KNOBS: dict[str, tuple[Any, Any]] = {
    "ace_fixed_value": (10, None),
    "joker_run_requires_burnt": (True, False),
    "discard_pickup_min_lay": (71, None),
    "all_at_once_joker_scaling": (_LEBANESE_SCALING, None),
}

# enum knobs: ruleset -> knob -> (choices, rule id)
_CHOICES_BASIC = {
    "dead_round_scoring": (("none", "lowest_hand_wins"), "docs/rules.md#basic-knobs"),
    "game_end_mode": (("target", "hands"), "docs/rules.md#basic-knobs"),
}
_CHOICES_RAMI = {
    "dead_round_scoring": (("none", "hand_penalties"), "R17"),
    "game_end_mode": (("threshold", "rounds"), "R22"),
    "freed_joker_use": (("new_meld", "new_meld_or_layoff"), "AR14"),
    "final_discard": (("required", "optional", "forbidden"), "R15"),
    "card_announcement": (("auto", "manual"), "R7"),
    "all_at_once_scoring": (("multiplier", "flat100"), "R19"),
    "discard_pickup_min_lay_scope": (("opening_only", "every_pickup"), "AL3"),
    "half_point_rounding": (("exact", "ceil", "floor"), "R21.5"),
}
_CHOICES_ENV = {
    "episode": ("hand", "game"),
    "reward": ("score", "win"),
    "illegal_action": ("raise", "penalty"),
}


def knob_choices(ruleset: str) -> dict[str, tuple[str, ...]]:
    """The allowed values of every enum knob of ``ruleset`` (environment knobs included), in the order whose
    index the compiled kernels read (``rummy_env.engine.config``)."""
    own, other = (_CHOICES_RAMI, _CHOICES_BASIC) if ruleset == "rami51" else (_CHOICES_BASIC, _CHOICES_RAMI)
    return {**{knob: choices for knob, (choices, _) in other.items()},
            **{knob: choices for knob, (choices, _) in own.items()}, **_CHOICES_ENV}


# bool knobs of rami51 -> rule id
_BOOLS_RAMI = {
    "dealer_first_turn_may_meld": "AR1", "discard_pickup_from_second_round": "R20",
    "opening_requires_pure_run": "R11.2", "pure_run_hand_cards_only": "AR8", "opening_may_use_table": "AR9",
    "joker_on_opponent_set": "AR6", "joker_swap_requires_prior_opening": "AR13",
    "allow_take_from_meld": "R13", "take_from_own_melds": "AR7", "can_take_joker_from_meld": "AR7",
    "circular_runs": "R20", "allow_ace_both_ends": "AR10", "all_at_once_requires_opening_criteria": "R16",
    "all_at_once_requires_pure_run": "AR20", "all_at_once_may_use_table": "R16", "reshuffle_keep_top": "AR17",
    "lebanese": "R21", "joker_run_requires_burnt": "R21.2", "burnt_includes_discard_pile": "AL2",
}
# integer knobs of rami51 -> (minimum, rule id)
_INTS_RAMI = {
    "opening_threshold": (0, "R11.1"), "announcement_penalty_cards": (0, "R7"), "ace_hand_value": (1, "R19"),
    "joker_hand_value": (0, "AR15"), "non_opener_penalty": (0, "R19"), "game_end_threshold": (1, "AR18"),
    "max_rounds": (1, "R22"), "max_turns_per_round": (1, "R17"), "max_undos_per_turn": (0, "R24"),
}
# knobs with one allowed value (docs/rules.md#rami51-knobs, "fixed values") -> (value, rule id)
_FIXED_RAMI = {
    "dealer_extra_cards": (1, "R4"), "max_jokers_per_run": (1, "R9"), "max_jokers_per_set": (1, "AR4"),
    "joker_on_opponent_run": (False, "R9"),
}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _same(value: Any, default: Any) -> bool:
    """``value`` is ``default`` (a bool never equals an int here)."""
    return value is default or (isinstance(value, bool) == isinstance(default, bool) and value == default)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclasses.dataclass(frozen=True)
class RummyRules:
    """All knobs of one ruleset (docs/rules.md#basic-knobs, docs/rules.md#rami51-knobs) plus the environment knobs.

    A knob of the other ruleset must stay at its default (a ``ValueError`` names it and its ruleset).
    Defaults shown as ``basic / rami51`` are resolved in ``__post_init__`` from a ``None`` sentinel.

    Shared knobs:

    ============================================  ===================  ======================================
    knob                                          default              meaning
    ============================================  ===================  ======================================
    ``num_players``                               (required)           basic 2..6 (B1); rami51 2..5 (R3)
    ``ruleset``                                   "basic"              or "rami51"
    ``reshuffle_keep_top``                        True / False         the discard top stays out of a
                                                                       rebuild (B11 / AR17)
    ``max_reshuffles``                            None                 a rebuild beyond it: dead (B17, R17)
    ``max_turns_per_round``                       1000                 dead after this many turns (B17, R17)
    ``max_undos_per_turn``                        1                    undo budget per turn (B19, R24)
    ``dead_round_scoring``                        "none"               or "lowest_hand_wins" (basic) /
                                                                       "hand_penalties" (rami51)
    ``game_end_mode``                             "target" /           or "hands" / "rounds" (B14 / R22)
                                                  "threshold"
    ``first_dealer``                              "random"             or a seat index (B4, R4)
    ============================================  ===================  ======================================

    Rules knobs (basic only):

    ==============================================  =========  ===============================================
    ``hand_size_by_players``                        (B4)       cards dealt per player count, 10/7/7/6/6; ``n*h+1 <= 52``
                                                               (``hand_size`` is resolved from it)
    ``ace_high_or_low``                             False      an ace may also sit above the king (B15)
    ``ace_high_scoring_value``                      15         value of an ace in hand when aces may be high
    ``round_the_corner``                            False      runs wrap K-A-2 (needs ``ace_high_or_low``)
    ``must_discard_to_go_out``                      False      the last card must be discarded (B10)
    ``forbid_discarding_card_taken_from_discard``   True       B7 / AB1
    ``going_rummy_multiplier``                      2          B13
    ``must_meld_before_layoff``                     False      lay off only after one's own first meld (B9)
    ``target_score``                                150        game ends when a total reaches it
    ``num_hands``                                   None       number of hands in "hands" mode
    ``max_hands``                                   100        the game ends after this many hands anyway
    ``two_player_winner_deals``                     False      2 players: the hand's winner deals next (B5)
    ==============================================  =========  ===============================================

    Rules knobs (rami51 only; values in brackets are those the ``lebanese`` preset turns on):

    ==========================================  =============  =============================================
    ``hand_size``                               13             7..15, ``n*h+1 <= 108`` (R4); dealer +1
    ``dealer_extra_cards``                      1              fixed (R4)
    ``dealer_first_turn_may_meld``              True           AR1
    ``discard_pickup_from_second_round``        False          R20
    ``opening_threshold``                       51             int >= 0 (R11.1; variants 71, 81)
    ``opening_requires_pure_run``               True           R11.2
    ``pure_run_hand_cards_only``                True           AR8
    ``opening_may_use_table``                   True           AR9
    ``joker_opening_value``                     "represented"  or "zero" or an int >= 0 (AR15)
    ``max_jokers_per_run`` / ``_per_set``       1              fixed (R9, AR4)
    ``joker_on_opponent_run``                   False          fixed (R9)
    ``joker_on_opponent_set``                   True           AR6
    ``joker_swap_requires_prior_opening``       False          AR13
    ``freed_joker_use``                         "new_meld"     or "new_meld_or_layoff" (AR14)
    ``allow_take_from_meld``                    True           R13
    ``take_from_own_melds``                     True           AR7
    ``allow_split_runs``                        False          fixed: splitting is not implemented (AR7)
    ``can_take_joker_from_meld``                False          AR7
    ``circular_runs``                           False          R20, AR11
    ``allow_ace_both_ends``                     True           AR10
    ``final_discard``                           "required"     or "optional" / "forbidden" (R15)
    ``card_announcement``                       "auto"         or "manual" (R7, AR22)
    ``announcement_penalty_cards``              2              R7
    ``ace_hand_value`` / ``joker_hand_value``   11 / 20        hand penalties (R19, AR15)
    ``non_opener_penalty``                      100            R19
    ``all_at_once_scoring``                     "multiplier"   or "flat100" (R19)
    ``all_at_once_multiplier``                  2              number >= 1 (R19)
    ``joker_finish_multiplier``                 4              number >= 1 (R19, AR16)
    ``all_at_once_requires_opening_criteria``   True           threshold only (R16)
    ``all_at_once_requires_pure_run``           True           AR20
    ``all_at_once_may_use_table``               True           forced True by ``lebanese`` (R16, R21.4)
    ``game_end_threshold``                      1000           lowest total wins (AR18)
    ``num_rounds``                              None           required in "rounds" mode (R22)
    ``max_rounds``                              100            R22
    ``lebanese``                                False          the Lebanese "14" preset (R21)
    ``ace_fixed_value``                         None [10]      ace value everywhere (R21.1)
    ``joker_run_requires_burnt``                False [True]   R21.2, AL2
    ``burnt_includes_discard_pile``             False          AL2
    ``discard_pickup_min_lay``                  None [71]      R21.3, AL3
    ``discard_pickup_min_lay_scope``            opening_only   or "every_pickup" (AL3)
    ``all_at_once_joker_scaling``               None [0:2,     ((jokers, factor), ...) replacing the
                                                1:1.5, 2:1]    all-at-once rule of R19 (R21.5, AL5)
    ``half_point_rounding``                     "exact"        or "ceil" / "floor" (R21.5)
    ==========================================  =============  =============================================

    Environment knobs:

    ============================  ==========  ==============================================================
    ``episode``                   "hand"      one episode = one hand, or "game" = hands until the game ends
    ``reward``                    "score"     zero-sum score difference of each scored hand / "win": +1 to
                                              the winner(s), the rest share -1, at the episode's end
    ``reward_scale``              100.0       hand scores are divided by this in "score" mode
    ``illegal_action``            "raise"     batched engine: raise ``ValueError``, or "penalty": end that
                                              game with ``illegal_action_penalty`` for the offender
    ``illegal_action_penalty``    -1.0        the offender's reward; the others share its negation
    ============================  ==========  ==============================================================
    """

    num_players: int
    ruleset: str = "basic"
    # ---- basic only (§3.1)
    hand_size_by_players: tuple[tuple[int, int], ...] = _BASIC_HAND_SIZES
    ace_high_or_low: bool = False
    ace_high_scoring_value: int = 15
    round_the_corner: bool = False
    must_discard_to_go_out: bool = False
    forbid_discarding_card_taken_from_discard: bool = True
    going_rummy_multiplier: int = 2
    must_meld_before_layoff: bool = False
    # ---- shared (ruleset-dependent defaults resolved in __post_init__)
    reshuffle_keep_top: bool | None = None
    max_reshuffles: int | None = None
    max_turns_per_round: int = 1000
    max_undos_per_turn: int = 1
    dead_round_scoring: str | None = None
    game_end_mode: str | None = None
    # ---- basic only (§3.1)
    target_score: int = 150
    num_hands: int | None = None
    max_hands: int = 100
    two_player_winner_deals: bool = False
    # ---- shared
    first_dealer: str | int = "random"
    # ---- rami51 only (§3.2)
    hand_size: int | None = None
    dealer_extra_cards: int = 1
    dealer_first_turn_may_meld: bool = True
    discard_pickup_from_second_round: bool = False
    opening_threshold: int = 51
    opening_requires_pure_run: bool = True
    pure_run_hand_cards_only: bool = True
    opening_may_use_table: bool = True
    joker_opening_value: str | int = "represented"
    max_jokers_per_run: int = 1
    max_jokers_per_set: int = 1
    joker_on_opponent_run: bool = False
    joker_on_opponent_set: bool = True
    joker_swap_requires_prior_opening: bool = False
    freed_joker_use: str = "new_meld"
    allow_take_from_meld: bool = True
    take_from_own_melds: bool = True
    allow_split_runs: bool = False
    can_take_joker_from_meld: bool = False
    circular_runs: bool = False
    allow_ace_both_ends: bool = True
    final_discard: str = "required"
    card_announcement: str = "auto"
    announcement_penalty_cards: int = 2
    ace_hand_value: int = 11
    joker_hand_value: int = 20
    non_opener_penalty: int = 100
    all_at_once_scoring: str = "multiplier"
    all_at_once_multiplier: int | float = 2
    joker_finish_multiplier: int | float = 4
    all_at_once_requires_opening_criteria: bool = True
    all_at_once_requires_pure_run: bool = True
    all_at_once_may_use_table: bool = True
    game_end_threshold: int = 1000
    num_rounds: int | None = None
    max_rounds: int = 100
    # ---- rami51 only: Lebanese "14" (R21)
    lebanese: bool = False
    ace_fixed_value: int | None = AUTO            # type: ignore[assignment]
    joker_run_requires_burnt: bool = AUTO         # type: ignore[assignment]
    burnt_includes_discard_pile: bool = False
    discard_pickup_min_lay: int | None = AUTO     # type: ignore[assignment]
    discard_pickup_min_lay_scope: str = "opening_only"
    all_at_once_joker_scaling: tuple[tuple[int, float], ...] | None = AUTO  # type: ignore[assignment]
    half_point_rounding: str = "exact"
    # ---- environment
    episode: str = "hand"
    reward: str = "score"
    reward_scale: float = 100.0
    illegal_action: str = "raise"
    illegal_action_penalty: float = -1.0

    # ------------------------------------------------------------------ construction
    @classmethod
    def preset(cls, name: str = "basic", num_players: int = 2, **overrides: Any) -> RummyRules:
        """The named ruleset (``PRESETS``) for ``num_players`` players with knobs overridden by keyword.

        ``"lebanese14"`` is ruleset ``"rami51"`` with ``lebanese=True`` (R21).
        """
        if name not in PRESETS:
            raise ValueError(f"unknown ruleset {name!r}; available: {PRESETS}")
        if name == "lebanese14":
            if overrides.get("lebanese", True) is not True or overrides.get("ruleset", "rami51") != "rami51":
                raise ValueError("preset 'lebanese14' is ruleset 'rami51' with lebanese=True; do not override them")
            return cls.from_dict({**overrides, "ruleset": "rami51", "lebanese": True, "num_players": num_players})
        if "ruleset" in overrides and overrides["ruleset"] != name:
            raise ValueError(f"preset {name!r} cannot be given ruleset={overrides['ruleset']!r}")
        return cls.from_dict({**overrides, "ruleset": name, "num_players": num_players})

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> RummyRules:
        """Build from a mapping of knob names; an unknown knob is a ``ValueError`` naming it."""
        known = {field.name for field in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown rules knob(s) {unknown}; known knobs: {sorted(known)}")
        if "num_players" not in values:
            raise ValueError("the knob 'num_players' is required")
        return cls(**dict(values))

    @classmethod
    def from_toml(cls, path: str | Path, **overrides: Any) -> RummyRules:
        """Load a rules file such as ``configs/rules/basic.toml`` (a flat table of knobs)."""
        with open(path, "rb") as handle:
            values = tomllib.load(handle)
        return cls.from_dict({**values, **overrides})

    def replace(self, **overrides: Any) -> RummyRules:
        """A copy with some knobs changed (validated again)."""
        return RummyRules.from_dict({**self.to_dict(), **overrides})

    def to_dict(self) -> dict[str, Any]:
        """The knobs of this ruleset as a plain dict (JSON friendly; TOML friendly unless a Lebanese sub-rule
        was explicitly switched off with ``None``); ``from_dict(rules.to_dict()) == rules``.

        Knobs of the other ruleset (always at their defaults) are left out, and so are Lebanese sub-rule knobs
        at the value ``lebanese`` gives them, so that ``replace(lebanese=...)`` moves them along.
        """
        values = {}
        for name in _SHARED_KNOBS + (_BASIC_KNOBS if self.ruleset == "basic" else _RAMI_KNOBS):
            value = getattr(self, name)
            if name in _LEBANESE_KNOBS:
                if value == _LEBANESE_KNOBS[name][0 if self.lebanese else 1]:
                    continue
                values[name] = self._scaling_dict() if name == "all_at_once_joker_scaling" and value is not None else value
            elif name == "hand_size_by_players":
                values[name] = {str(n): h for n, h in value}
            elif value is not None:
                values[name] = value
        return values

    def _scaling_dict(self) -> dict[str, float]:
        return {str(jokers): factor for jokers, factor in self.all_at_once_joker_scaling}

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):  # numpy scalars (np.int64(3), np.bool_) as Python values
            value = getattr(self, field.name)
            if isinstance(value, np.generic):
                object.__setattr__(self, field.name, plain(value))
        sizes = self.hand_size_by_players
        if isinstance(sizes, Mapping):
            sizes = tuple(sorted((int(n), int(h)) for n, h in sizes.items()))
            object.__setattr__(self, "hand_size_by_players", sizes)
        if isinstance(self.first_dealer, str) and self.first_dealer.isdigit():
            object.__setattr__(self, "first_dealer", int(self.first_dealer))
        scaling = self.all_at_once_joker_scaling
        if scaling is not AUTO and scaling is not None:
            object.__setattr__(self, "all_at_once_joker_scaling", self._normalise_scaling(scaling))
        if self.ruleset not in RULESETS:
            raise ValueError(f"unknown ruleset {self.ruleset!r}; available: {RULESETS}")
        self._check_other_ruleset_knobs()
        self._resolve_defaults()
        self._validate()

    @staticmethod
    def _normalise_scaling(scaling: Any) -> Any:
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

    def _check_other_ruleset_knobs(self) -> None:
        """A knob of the other ruleset may only hold its default (or, for AUTO knobs, their 'off' value)."""
        other, owner = (_RAMI_KNOBS, "rami51") if self.ruleset == "basic" else (_BASIC_KNOBS, "basic")
        for name in other:
            value = getattr(self, name)
            default = _DEFAULTS[name]
            if _same(value, default) or name in _LEBANESE_KNOBS and _same(value, _LEBANESE_KNOBS[name][1]):
                continue
            if name == "hand_size" and self.ruleset == "basic":
                sizes = dict(self.hand_size_by_players)
                if value == sizes.get(self.num_players) and _is_int(value):
                    continue          # e.g. a dict built from dataclasses.asdict: hand_size is derived in basic
                raise ValueError(f"hand_size={value!r} cannot be set for ruleset 'basic': it is a knob of ruleset "
                                 "'rami51'; basic deals hand_size_by_players (B4)")
            raise ValueError(f"{name}={value!r} cannot be set for ruleset {self.ruleset!r}: it is a knob of ruleset "
                             f"{owner!r} (docs/rules.md#{owner}-knobs); leave it at its "
                             f"default {_LEBANESE_KNOBS[name][1] if name in _LEBANESE_KNOBS else default!r}")

    def _resolve_defaults(self) -> None:
        rami = self.ruleset == "rami51"

        def set_(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        if self.reshuffle_keep_top is None:
            set_("reshuffle_keep_top", not rami)                       # B11 keeps the top; AR17 does not
        if self.dead_round_scoring is None:
            set_("dead_round_scoring", "none")
        if self.game_end_mode is None:
            set_("game_end_mode", "threshold" if rami else "target")
        lebanese = rami and self.lebanese is True
        for name, (on, off) in _LEBANESE_KNOBS.items():
            if getattr(self, name) is AUTO:
                set_(name, on if lebanese else off)
        if not rami and self.hand_size is None:
            set_("hand_size", dict(self.hand_size_by_players).get(self.num_players))
        elif rami and self.hand_size is None:
            set_("hand_size", 13)

    # ------------------------------------------------------------------ derived sizes
    @property
    def deck_copies(self) -> int:
        """Physical copies of every natural card: 1 (basic) or 2 (rami51, R1)."""
        return 2 if self.ruleset == "rami51" else 1

    @property
    def num_jokers(self) -> int:
        """Jokers in the deck: 0 (basic) or 4 (rami51, R1)."""
        return 4 if self.ruleset == "rami51" else 0

    @property
    def num_card_types(self) -> int:
        """Length of the card-type axis: 52 naturals, plus the joker (type 52) in rami51."""
        return cards.NUM_NATURAL_TYPES + (1 if self.num_jokers else 0)

    @property
    def deck_size(self) -> int:
        """Physical cards in play: 52 (basic) or 108 (rami51)."""
        return cards.NUM_NATURAL_TYPES * self.deck_copies + self.num_jokers

    @property
    def num_slots(self) -> int:
        """Table meld slots: every meld holds at least 3 cards."""
        return self.deck_size // 3

    @property
    def max_run_position(self) -> int:
        """Highest run position without wrapping: basic 13 (K) or 14 (a high ace); rami51 14 (R2).

        With rami51 ``circular_runs`` the engine handles the wrap itself (positions up to 25)."""
        if self.ruleset == "rami51":
            return 14
        return 14 if self.ace_high_or_low else 13

    @property
    def wraps_runs(self) -> bool:
        """Runs may wrap K-A-2: basic ``round_the_corner`` (B15), rami51 ``circular_runs`` (R20)."""
        return self.circular_runs if self.ruleset == "rami51" else self.round_the_corner

    @property
    def is_penalty_scoring(self) -> bool:
        """True when points are penalties and the lowest total wins (rami51); False for basic."""
        return self.ruleset == "rami51"

    @property
    def card_values(self) -> tuple[int, ...]:
        """Value in hand of every card type, indexed by card type."""
        return tuple(self.card_value(card) for card in range(self.num_card_types))

    def card_value(self, card: int) -> int:
        """Value of a card left in hand (basic B12, B15; rami51 R19, R21.1)."""
        if self.ruleset == "rami51":
            if card == cards.JOKER:
                return self.joker_hand_value
            if cards.rank_of(card) == 1:
                return self.ace_fixed_value if self.ace_fixed_value is not None else self.ace_hand_value
            return min(cards.rank_of(card), 10)
        rank = cards.rank_of(card)
        if rank == 1:
            return self.ace_high_scoring_value if self.ace_high_or_low else 1
        return min(rank, 10)

    def opening_points_needed(self, took_discard_top: bool) -> int:
        """Points a rami51 opening must count (R11.1): ``opening_threshold``, or, in a turn that took the discard
        top, ``discard_pickup_min_lay`` when it is set (the Lebanese 71, R21.3, AL3)."""
        if took_discard_top and self.discard_pickup_min_lay is not None:
            return self.discard_pickup_min_lay
        return self.opening_threshold

    def joker_scaling_factor(self, jokers: int) -> float:
        """All-at-once factor for a winner who laid ``jokers`` jokers (R21.5): the factor of the largest key
        ``<= jokers`` of ``all_at_once_joker_scaling``."""
        if self.all_at_once_joker_scaling is None:
            raise ValueError("all_at_once_joker_scaling is not set (it is set by lebanese=True, R21.5)")
        if jokers < 0:
            raise ValueError(f"jokers={jokers} must be >= 0")
        factor = self.all_at_once_joker_scaling[0][1]
        for key, value in self.all_at_once_joker_scaling:
            if key <= jokers:
                factor = value
        return factor

    # ------------------------------------------------------------------ validation
    def _fail(self, knob: str, allowed: str, rule: str) -> None:
        raise ValueError(f"{knob}={getattr(self, knob)!r} is impossible for ruleset {self.ruleset!r}: allowed {allowed} ({rule})")

    def _validate(self) -> None:
        fail = self._fail
        low, high, rule = _NUM_PLAYERS[self.ruleset]
        if not _is_int(self.num_players) or not low <= self.num_players <= high:
            fail("num_players", f"{low}..{high}", rule)
        if self.ruleset == "basic":
            self._validate_basic()
        else:
            self._validate_rami51()
        for knob, choices in _CHOICES_ENV.items():
            if getattr(self, knob) not in choices:
                fail(knob, " or ".join(repr(choice) for choice in choices), "environment knob")
        if self.max_reshuffles is not None and (not _is_int(self.max_reshuffles) or self.max_reshuffles < 0):
            fail("max_reshuffles", "None (unlimited) or an integer >= 0", "B11" if self.ruleset == "basic" else "R17")
        if not (self.first_dealer == "random" or (_is_int(self.first_dealer) and 0 <= self.first_dealer < self.num_players)):
            fail("first_dealer", f"'random' or a seat 0..{self.num_players - 1}", "B4" if self.ruleset == "basic" else "R4")
        if not (_is_number(self.reward_scale) and self.reward_scale > 0):
            fail("reward_scale", "a positive number", "environment knob")
        if not _is_number(self.illegal_action_penalty):
            fail("illegal_action_penalty", "a number", "environment knob")

    def _validate_basic(self) -> None:
        fail = self._fail
        sizes = dict(self.hand_size_by_players)
        if self.num_players not in sizes:
            fail("hand_size_by_players", f"an entry for {self.num_players} players", "B4")
        hand = sizes[self.num_players]
        if not _is_int(hand) or hand < 1 or self.num_players * hand + 1 > self.deck_size:
            fail("hand_size_by_players", f"1..{(self.deck_size - 1) // self.num_players} cards for {self.num_players} players (n*h+1 <= {self.deck_size})", "B4")
        for knob, (choices, rule) in _CHOICES_BASIC.items():
            if getattr(self, knob) not in choices:
                fail(knob, " or ".join(repr(choice) for choice in choices), rule)
        for knob in ("ace_high_or_low", "round_the_corner", "must_discard_to_go_out", "forbid_discarding_card_taken_from_discard",
                     "must_meld_before_layoff", "reshuffle_keep_top", "two_player_winner_deals"):
            if not isinstance(getattr(self, knob), bool):
                fail(knob, "true or false", "docs/rules.md#basic-knobs")
        if self.round_the_corner and not self.ace_high_or_low:
            fail("round_the_corner", "only together with ace_high_or_low=true", "B15")
        for knob, low in (("ace_high_scoring_value", 1), ("going_rummy_multiplier", 1), ("max_turns_per_round", 1),
                          ("max_undos_per_turn", 0), ("target_score", 1), ("max_hands", 1)):
            value = getattr(self, knob)
            if not _is_int(value) or value < low:
                fail(knob, f"an integer >= {low}", "docs/rules.md#basic-knobs")
        if self.max_turns_per_round > 30000 or self.max_hands > 30000:
            raise ValueError("max_turns_per_round and max_hands are limited to 30000 by the engine's counters")
        if self.game_end_mode == "hands":
            if not _is_int(self.num_hands) or self.num_hands < 1:
                fail("num_hands", "an integer >= 1 when game_end_mode='hands'", "B14")
        elif self.num_hands is not None:
            fail("num_hands", "unset unless game_end_mode='hands'", "B14")

    def _validate_rami51(self) -> None:
        fail = self._fail
        if not _is_int(self.hand_size) or not 7 <= self.hand_size <= 15 \
                or self.num_players * self.hand_size + self.dealer_extra_cards > self.deck_size:
            fail("hand_size", f"7..15 with n*h + {self.dealer_extra_cards} <= {self.deck_size}", "R4")
        for knob, (value, rule) in _FIXED_RAMI.items():
            if getattr(self, knob) != value or type(getattr(self, knob)) is not type(value):
                fail(knob, f"only {value!r} (fixed)", rule)
        if self.allow_split_runs is not False:
            fail("allow_split_runs", "only False: splitting a run (R13) is not supported by this engine", "AR7")
        for knob, (choices, rule) in _CHOICES_RAMI.items():
            if getattr(self, knob) not in choices:
                fail(knob, " or ".join(repr(choice) for choice in choices), rule)
        for knob, rule in _BOOLS_RAMI.items():
            if not isinstance(getattr(self, knob), bool):
                fail(knob, "true or false", rule)
        for knob, (low, rule) in _INTS_RAMI.items():
            value = getattr(self, knob)
            if not _is_int(value) or value < low:
                fail(knob, f"an integer >= {low}", rule)
        if self.max_turns_per_round > 30000 or self.max_rounds > 30000:
            raise ValueError("max_turns_per_round and max_rounds are limited to 30000 by the engine's counters")
        value = self.joker_opening_value
        if not (value in ("represented", "zero") or (_is_int(value) and value >= 0)):
            fail("joker_opening_value", "'represented' or 'zero' or an integer >= 0", "R10, AR15")
        for knob, rule in (("all_at_once_multiplier", "R19"), ("joker_finish_multiplier", "R19, AR16")):
            if not _is_number(getattr(self, knob)) or getattr(self, knob) < 1:
                fail(knob, "a number >= 1", rule)
        if self.game_end_mode == "rounds":
            if not _is_int(self.num_rounds) or self.num_rounds < 1:
                fail("num_rounds", "an integer >= 1 when game_end_mode='rounds'", "R22")
        elif self.num_rounds is not None:
            fail("num_rounds", "unset unless game_end_mode='rounds'", "R22")
        if self.ace_fixed_value is not None and (not _is_int(self.ace_fixed_value) or self.ace_fixed_value < 1):
            fail("ace_fixed_value", "None or an integer >= 1 (Lebanese: 10)", "R21.1")
        if self.discard_pickup_min_lay is not None and (not _is_int(self.discard_pickup_min_lay) or self.discard_pickup_min_lay < 0):
            fail("discard_pickup_min_lay", "None or an integer >= 0 (Lebanese: 71)", "R21.3, AL3")
        if self.lebanese and self.all_at_once_may_use_table is not True:
            fail("all_at_once_may_use_table", "only True when lebanese=true (the preset forces it)", "R21.4, AL4")


def make_rules(rules: str | Path | RummyRules = "basic", num_players: int | None = None,
               **overrides: Any) -> RummyRules:
    """The ``RummyRules`` every env and tool builds its game from.

    ``rules`` is a preset name (``PRESETS``; ``num_players`` defaults to 2 there), the path of a rules
    file (``*.toml``, e.g. ``configs/rules/basic_game_to_150.toml``; the arguments override its values,
    as in ``RummyRules.from_toml``) or a ``RummyRules``. A ``RummyRules`` is complete: it keeps every
    value, its player count and episode setting included, and an argument that contradicts one of
    them is refused with a ``ValueError`` (change it with ``rules.replace(...)``). Arguments left out
    (``num_players=None``) never replace a value a file or a ``RummyRules`` sets.

    >>> make_rules(RummyRules.preset("basic", num_players=4)).num_players
    4
    >>> make_rules(RummyRules.preset("basic", num_players=4), num_players=2)
    Traceback (most recent call last):
    ...
    ValueError: num_players=2 contradicts the given rules, which set num_players=4; change it with rules.replace(num_players=2)
    """
    if num_players is not None:
        overrides["num_players"] = num_players
    overrides = {name: plain(value) for name, value in overrides.items()}
    if isinstance(rules, RummyRules):
        changed = rules.replace(**overrides) if overrides else rules
        for name, value in overrides.items():
            if not _same(getattr(changed, name), getattr(rules, name)):
                raise ValueError(f"{name}={value!r} contradicts the given rules, which set {name}="
                                 f"{getattr(rules, name)!r}; change it with rules.replace({name}={value!r})")
        return rules
    if isinstance(rules, Path) or (isinstance(rules, str) and rules.endswith(".toml")):
        return RummyRules.from_toml(rules, **overrides)
    if not isinstance(rules, str):
        raise TypeError(f"rules must be a preset name {PRESETS}, a RummyRules or the path of a .toml rules file, "
                        f"got {type(rules).__name__}")
    return RummyRules.preset(rules, **overrides)


def plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (``np.int64(3)`` -> ``3``, ``np.bool_`` -> ``bool``);
    anything else unchanged. Knob values go through it, so numpy integers are accepted like ints."""
    return value.item() if isinstance(value, np.generic) else value


_DEFAULTS = {field.name: field.default for field in dataclasses.fields(RummyRules)}
# knobs of the environment around the game (what an episode is, rewards, illegal actions), not rules of play
ENV_KNOBS = ("episode", "reward", "reward_scale", "illegal_action", "illegal_action_penalty")
_SHARED_KNOBS = ("num_players", "ruleset", "reshuffle_keep_top", "max_reshuffles", "max_turns_per_round",
                 "max_undos_per_turn", "dead_round_scoring", "game_end_mode", "first_dealer") + ENV_KNOBS
_BASIC_KNOBS = ("hand_size_by_players", "ace_high_or_low", "ace_high_scoring_value", "round_the_corner",
                "must_discard_to_go_out", "forbid_discarding_card_taken_from_discard", "going_rummy_multiplier",
                "must_meld_before_layoff", "target_score", "num_hands", "max_hands", "two_player_winner_deals")
_RAMI_KNOBS = tuple(name for name in _DEFAULTS if name not in _SHARED_KNOBS + _BASIC_KNOBS)
RAMI51_KNOBS = _RAMI_KNOBS          # the knobs only ruleset "rami51" uses (docs/rules.md#rami51-knobs minus the shared ones)
BASIC_KNOBS = _BASIC_KNOBS          # the knobs only ruleset "basic" uses (docs/rules.md#basic-knobs minus the shared ones)

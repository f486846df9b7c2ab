"""``RummyRules``: every knob of a ruleset in one frozen, validated dataclass.

The rules knobs are those of the rules book, ``docs/rules.md`` (ruleset ``basic``: its knobs table
``docs/rules.md#basic-knobs``; ruleset ``rami51``: ``docs/rules.md#rami51-knobs``, with the
Lebanese "14" sub-rules of R21), with the seed defaults; the ids in brackets (B5, AB1, R11, AR7, AL3, …)
point into that file. A few *environment* knobs sit beside them (how an episode is cut, how rewards are
formed, what an illegal action does), because they too must be set through configuration and never by
patching the engine. The knob tables (allowed values, rule ids, presets) live in ``rummy_env.knobs``, the
checks of a ruleset's values in ``rummy_env.rules_check``.

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
import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomllib

import numpy as np

from rummy_env import assets, cards
from rummy_env.knobs import (
    AUTO, BASIC_HAND_SIZES, BASIC_KNOBS, ENV_KNOBS, GIN_KNOBS, GIN_ONLY, GIN_PRESETS, LEBANESE_KNOBS, PRESETS, RULESETS,
    SHARED_KNOBS, knob_choices, resolve_defaults, same,
)
from rummy_env.rulesets import TRAITS, Traits
from rummy_env.rules_check import check_other_ruleset_knobs, normalise_hand_sizes, normalise_scaling, validate

__all__ = ["RummyRules", "make_rules", "plain", "AUTO", "PRESETS", "RULESETS", "GIN_PRESETS", "ENV_KNOBS", "BASIC_KNOBS",
           "RAMI51_KNOBS", "GIN_KNOBS", "knob_choices"]


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
    ``target_score``                                150        game ends when a total reaches it (gin: 100)
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
    ``dead_ends``                               "take_back"    a turn that cannot be finished is taken back
                                                               with a penalty (TAKE_BACK); or "prevent": a
                                                               look-ahead mask hides every dead end (R25)
    ``take_back_penalty_cards``                 2              cards drawn after a take-back (R25)
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

    Rules knobs (gin only, ``docs/rules.md#gin-knobs``; two players, 10 cards each, ``hand_size`` fixed at 10;
    ``target_score`` (100 for gin) and ``max_hands`` are shared with basic; values in brackets are those of the
    presets ``gin_openspiel`` / ``gin_rlcard``, ``GIN_PRESETS``):

    ================================  ================  =========================================================
    ``knock_card``                    10                knock when deadwood <= it, 0..10 (G6)
    ``oklahoma``                      False             the first upcard's value is the knock card; an ace: gin
                                                        only (G11)
    ``gin_bonus``                     25                G7
    ``big_gin_bonus``                 31 [0 / 0]        all 11 cards melded without a discard; 0 = no big gin (G7)
    ``undercut_bonus``                25                G9
    ``tie_is_undercut``               True [False / .]  a defender equal to the knocker undercuts (G9, EG2)
    ``forbid_discarding_taken_card``  True [False / .]  the card taken from the discard pile stays this turn (G4)
    ``opening``                       "upcard"          or "eleven_cards": no upcard, the non-dealer gets 11 cards
                                      [. / eleven]      and opens by discarding (G2, G3, G14)
    ``wall_rule``                     "void"            2 cards left in the stock after a discard: the hand is void;
                                      [openspiel /      "openspiel": the next player may knock with the upcard or
                                      pickup_or_dead]   pass; "pickup_or_dead": below 3 stock cards a player may
                                                        only take the discard or declare the hand dead (G10, G14)
    ``knock_deadwood``                "exact"           or "openspiel_shortcut": OpenSpiel's 11-card deadwood
                                      [shortcut / .]    (its best meld group, then the highest leftover card
                                                        dropped), which sometimes refuses a legal knock (G13, EG9)
    ``max_layoffs_per_run_end``       None [2 / .]      lay-offs per end of a knocker's run; None = no limit (G13)
    ``layoffs``                       True [. / False]  the defender may lay off (G8)
    ``auto_melds``                    False [. / True]  the engine lays each player's best arrangement; needs
                                                        ``layoffs=False`` (G14)
    ``gin_forced``                    False [. / True]  when a discard can leave gin, only the gin knock is
                                                        allowed (G14)
    ``repeated_discard_void``         False [True / .]  two players in a row take the upcard and discard it: the
                                                        hand is void (G13)
    ``upcard_draw_limit``             None [50 / .]     the hand is void at this draw of the upcard (G13)
    ``box_bonus``                     25                ``episode="game"``: per hand won (G12)
    ``game_bonus``                    100               ``episode="game"``: to the winner (G12)
    ``shutout_multiplier``            2                 ``episode="game"``: the winner's score when the loser won
                                                        no hand (G12)
    ``next_dealer``                   "alternate"       or "winner" / "loser" of the last hand (G12)
    ================================  ================  =========================================================

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
    hand_size_by_players: tuple[tuple[int, int], ...] = BASIC_HAND_SIZES
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
    target_score: int | None = None               # 150 (basic) / 100 (gin)
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
    dead_ends: str = "take_back"
    take_back_penalty_cards: int = 2
    # ---- rami51 only: Lebanese "14" (R21)
    lebanese: bool = False
    ace_fixed_value: int | None = AUTO            # type: ignore[assignment]
    joker_run_requires_burnt: bool = AUTO         # type: ignore[assignment]
    burnt_includes_discard_pile: bool = False
    discard_pickup_min_lay: int | None = AUTO     # type: ignore[assignment]
    discard_pickup_min_lay_scope: str = "opening_only"
    all_at_once_joker_scaling: tuple[tuple[int, float], ...] | None = AUTO  # type: ignore[assignment]
    half_point_rounding: str = "exact"
    # ---- gin only (G1-G14)
    knock_card: int = 10
    oklahoma: bool = False
    gin_bonus: int = 25
    big_gin_bonus: int = 31
    undercut_bonus: int = 25
    tie_is_undercut: bool = True
    forbid_discarding_taken_card: bool = True
    opening: str = "upcard"
    wall_rule: str = "void"
    knock_deadwood: str = "exact"
    max_layoffs_per_run_end: int | None = None
    layoffs: bool = True
    auto_melds: bool = False
    gin_forced: bool = False
    repeated_discard_void: bool = False
    upcard_draw_limit: int | None = None
    box_bonus: int = 25
    game_bonus: int = 100
    shutout_multiplier: int = 2
    next_dealer: str = "alternate"
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

        ``"lebanese14"`` is ruleset ``"rami51"`` with ``lebanese=True`` (R21); ``"gin_openspiel"`` and
        ``"gin_rlcard"`` are ruleset ``"gin"`` with the knobs of ``GIN_PRESETS`` (G13, G14), which ``overrides``
        may still change.
        """
        if name not in PRESETS:
            raise ValueError(f"unknown ruleset {name!r}; available: {PRESETS} (make_rules and the command line also "
                             f"take the shipped rules files {assets.names('rules')} and paths of .toml files)")
        if name in GIN_PRESETS:
            if overrides.get("ruleset", "gin") != "gin":
                raise ValueError(f"preset {name!r} is ruleset 'gin'; it cannot be given ruleset={overrides['ruleset']!r}")
            return cls.from_dict({**GIN_PRESETS[name], **overrides, "ruleset": "gin", "num_players": num_players})
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
        unknown = sorted(set(values) - known, key=str)
        if unknown:
            hints = [f"{name!r}: did you mean {close[0]!r}?" for name in unknown
                     if (close := difflib.get_close_matches(str(name), known, n=1))]
            raise ValueError(f"unknown rules knob(s) {unknown}" + (f" ({'; '.join(hints)})" if hints else "")
                             + f"; known knobs: {sorted(known)}")
        for required in ("ruleset", "num_players"):
            if required not in values:
                raise ValueError(f"the knob {required!r} is required")
        return cls(**dict(values))

    @classmethod
    def from_toml(cls, path: str | Path, **overrides: Any) -> RummyRules:
        """Load a rules file such as ``configs/rules/basic.toml`` (a flat table of knobs, ``ruleset`` among them: a
        file without it is refused rather than read as basic)."""
        with open(path, "rb") as handle:
            values = tomllib.load(handle)
        if "ruleset" not in values and "ruleset" not in overrides:
            raise ValueError(f"the rules file {path} names no ruleset: add a line such as ruleset = \"basic\" "
                             f"(one of {RULESETS})")
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
        for name in SHARED_KNOBS + OWN_KNOBS[self.ruleset]:
            value = getattr(self, name)
            if name in LEBANESE_KNOBS:
                if value == LEBANESE_KNOBS[name][0 if self.lebanese else 1]:
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
        if self.hand_size_by_players is not BASIC_HAND_SIZES:
            object.__setattr__(self, "hand_size_by_players", normalise_hand_sizes(self.hand_size_by_players))
        if isinstance(self.first_dealer, str) and self.first_dealer.isdigit():
            object.__setattr__(self, "first_dealer", int(self.first_dealer))
        scaling = self.all_at_once_joker_scaling
        if scaling is not AUTO and scaling is not None:
            object.__setattr__(self, "all_at_once_joker_scaling", normalise_scaling(scaling))
        if self.ruleset not in RULESETS:
            raise ValueError(f"unknown ruleset {self.ruleset!r}; available: {RULESETS}")
        check_other_ruleset_knobs(self, OWN_KNOBS)
        resolve_defaults(self)
        validate(self)

    # ------------------------------------------------------------------ derived sizes
    @property
    def traits(self) -> Traits:
        """The traits of this ruleset's family (``rummy_env.rulesets``)."""
        return TRAITS[self.ruleset]

    @property
    def deck_copies(self) -> int:
        """Physical copies of every natural card: 1 (basic, gin) or 2 (rami51, R1)."""
        return self.traits.deck_copies

    @property
    def num_jokers(self) -> int:
        """Jokers in the deck: 0 (basic, gin) or 4 (rami51, R1)."""
        return self.traits.num_jokers

    @property
    def num_card_types(self) -> int:
        """Length of the card-type axis: 52 naturals, plus the joker (type 52) in rami51."""
        return cards.NUM_NATURAL_TYPES + (1 if self.num_jokers else 0)

    @property
    def deck_size(self) -> int:
        """Physical cards in play: 52 (basic, gin) or 108 (rami51)."""
        return cards.NUM_NATURAL_TYPES * self.deck_copies + self.num_jokers

    @property
    def num_slots(self) -> int:
        """Table meld slots: every meld holds at least 3 cards."""
        return self.deck_size // 3

    @property
    def max_run_position(self) -> int:
        """Highest run position without wrapping: basic and gin 13 (K) or 14 (a high ace); rami51 14 (R2).

        With rami51 ``circular_runs`` the engine handles the wrap itself (positions up to 25)."""
        return self.traits.run_top(self)

    @property
    def wraps_runs(self) -> bool:
        """Runs may wrap K-A-2: basic ``round_the_corner`` (B15), rami51 ``circular_runs`` (R20)."""
        return getattr(self, self.traits.wrap_knob)

    @property
    def is_penalty_scoring(self) -> bool:
        """True when points are penalties and the lowest total wins (rami51); False for basic and gin."""
        return self.traits.penalty_scoring

    @property
    def card_values(self) -> tuple[int, ...]:
        """Value in hand of every card type, indexed by card type."""
        return tuple(self.card_value(card) for card in range(self.num_card_types))

    def card_value(self, card: int) -> int:
        """Value of a card left in hand (basic B12, B15; rami51 R19, R21.1)."""
        return self.traits.card_value(self, card)

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

def make_rules(rules: str | Path | RummyRules = "basic", num_players: int | None = None,
               **overrides: Any) -> RummyRules:
    """The ``RummyRules`` every env and tool builds its game from.

    ``rules`` is a preset name (``PRESETS``; ``num_players`` defaults to 2 there), the path of a rules
    file (``*.toml``, e.g. ``configs/rules/basic_game_to_150.toml``; the arguments override its values,
    as in ``RummyRules.from_toml``), the name of a rules file shipped with the package
    (``rummy_env.assets.names("rules")``, e.g. ``"basic_game_to_150"``) or a ``RummyRules``. A ``RummyRules`` is complete: it keeps every
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
            if not same(getattr(changed, name), getattr(rules, name)):
                raise ValueError(f"{name}={value!r} contradicts the given rules, which set {name}="
                                 f"{getattr(rules, name)!r}; change it with rules.replace({name}={value!r})")
        return rules
    if isinstance(rules, Path) or (isinstance(rules, str) and rules.endswith(".toml")):
        return RummyRules.from_toml(rules, **overrides)
    if not isinstance(rules, str):
        raise TypeError(f"rules must be a preset name {PRESETS}, a RummyRules or the path of a .toml rules file, "
                        f"got {type(rules).__name__}")
    if rules not in PRESETS and rules in assets.names("rules"):  # a shipped rules file by name, e.g. basic_ace_high
        return RummyRules.from_toml(assets.rules_config(rules), **overrides)
    return RummyRules.preset(rules, **overrides)


def rules_differences(mine: RummyRules, theirs: RummyRules, labels: tuple[str, str]) -> list[str]:
    """Each knob in which two rules differ, as ``"knob: <labels[0]> value, <labels[1]> value"`` (only ``ruleset`` and
    ``num_players`` when the rulesets differ: their other knobs are not comparable)."""
    a, b = mine.to_dict(), theirs.to_dict()
    knobs = sorted(set(a) | set(b))
    if a["ruleset"] != b["ruleset"]:
        knobs = ["ruleset", "num_players"]
    return [f"{knob}: {labels[0]} {a.get(knob, '(default)')!r}, {labels[1]} {b.get(knob, '(default)')!r}"
            for knob in knobs if a.get(knob) != b.get(knob)]


def plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (``np.int64(3)`` -> ``3``, ``np.bool_`` -> ``bool``);
    anything else unchanged. Knob values go through it, so numpy integers are accepted like ints."""
    return value.item() if isinstance(value, np.generic) else value


# the knobs only ruleset "rami51" uses (docs/rules.md#rami51-knobs minus the shared ones): every other field
RAMI51_KNOBS = tuple(field.name for field in dataclasses.fields(RummyRules)
                     if field.name not in SHARED_KNOBS + BASIC_KNOBS + GIN_ONLY)
OWN_KNOBS = {"basic": BASIC_KNOBS, "rami51": RAMI51_KNOBS, "gin": GIN_KNOBS}

"""``RummyRules``: every knob of a ruleset in one frozen, validated dataclass.

The rules knobs are those of ``RULES.md`` §3.1 (ruleset ``basic``), with the seed defaults; the ids in
brackets (B5, AB1, …) point into that file. A few *environment* knobs sit beside them (how an episode
is cut, how rewards are formed, what an illegal action does), because they too must be set through
configuration and never by patching the engine.

>>> rules = RummyRules.preset("basic", num_players=4, ace_high_or_low=True)
>>> rules.hand_size, rules.ace_high_or_low
(7, True)
>>> RummyRules.preset("basic", num_players=7)
Traceback (most recent call last):
...
ValueError: num_players=7 is impossible for ruleset 'basic': allowed 2..6 (B1)
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any, Mapping

from rummy_env import cards

RULESETS = ("basic",)
PLANNED_RULESETS = ("rami51", "lebanese14")

_BASIC_HAND_SIZES = ((2, 10), (3, 7), (4, 7), (5, 6), (6, 6))
_CHOICES = {
    "dead_round_scoring": ("none", "lowest_hand_wins"),
    "game_end_mode": ("target", "hands"),
    "episode": ("hand", "game"),
    "reward": ("score", "win"),
    "illegal_action": ("raise", "penalty"),
}


@dataclasses.dataclass(frozen=True)
class RummyRules:
    """All knobs of one ruleset (RULES.md §3.1) plus the environment knobs.

    Rules knobs (basic):

    ============================================  =========  ===============================================
    knob                                          default    meaning
    ============================================  =========  ===============================================
    ``num_players``                               (required) 2..6 (B1)
    ``hand_size_by_players``                      10/7/7/6/6 cards dealt per player count (B4); ``n*h+1 <= 52``
    ``ace_high_or_low``                           False      an ace may also sit above the king (B15)
    ``ace_high_scoring_value``                    15         value of an ace in hand when aces may be high
    ``round_the_corner``                          False      runs wrap K-A-2 (needs ``ace_high_or_low``)
    ``must_discard_to_go_out``                    False      the last card must be discarded (B10)
    ``forbid_discarding_card_taken_from_discard`` True       B7 / AB1
    ``going_rummy_multiplier``                    2          B13
    ``must_meld_before_layoff``                   False      lay off only after one's own first meld (B9)
    ``reshuffle_keep_top``                        True       the discard top stays out of a rebuild (B11)
    ``max_reshuffles``                            None       a rebuild beyond it ends the hand dead (B17)
    ``max_turns_per_round``                       1000       the hand ends dead after this many turns (B17)
    ``max_undos_per_turn``                        1          undo budget of tentative sub-steps (B19)
    ``dead_round_scoring``                        "none"     or "lowest_hand_wins" (B17)
    ``game_end_mode``                             "target"   or "hands" (B14)
    ``target_score``                              150        game ends when a total reaches it
    ``num_hands``                                 None       number of hands in "hands" mode
    ``max_hands``                                 100        the game ends after this many hands anyway
    ``two_player_winner_deals``                   False      2 players: the hand's winner deals next (B5)
    ``first_dealer``                              "random"   or a seat index (B4)
    ============================================  =========  ===============================================

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
    hand_size_by_players: tuple[tuple[int, int], ...] = _BASIC_HAND_SIZES
    ace_high_or_low: bool = False
    ace_high_scoring_value: int = 15
    round_the_corner: bool = False
    must_discard_to_go_out: bool = False
    forbid_discarding_card_taken_from_discard: bool = True
    going_rummy_multiplier: int = 2
    must_meld_before_layoff: bool = False
    reshuffle_keep_top: bool = True
    max_reshuffles: int | None = None
    max_turns_per_round: int = 1000
    max_undos_per_turn: int = 1
    dead_round_scoring: str = "none"
    game_end_mode: str = "target"
    target_score: int = 150
    num_hands: int | None = None
    max_hands: int = 100
    two_player_winner_deals: bool = False
    first_dealer: str | int = "random"
    episode: str = "hand"
    reward: str = "score"
    reward_scale: float = 100.0
    illegal_action: str = "raise"
    illegal_action_penalty: float = -1.0

    # ------------------------------------------------------------------ construction
    @classmethod
    def preset(cls, name: str = "basic", num_players: int = 2, **overrides: Any) -> "RummyRules":
        """The named ruleset for ``num_players`` players with knobs overridden by keyword."""
        if name in PLANNED_RULESETS:
            raise ValueError(f"ruleset {name!r} is specified (RULES.md §2) but not implemented yet; available: {RULESETS}")
        if name not in RULESETS:
            raise ValueError(f"unknown ruleset {name!r}; available: {RULESETS}")
        return cls.from_dict({"ruleset": name, "num_players": num_players, **overrides})

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> "RummyRules":
        """Build from a mapping of knob names; an unknown knob is a ``ValueError`` naming it."""
        known = {field.name for field in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown rules knob(s) {unknown}; known knobs: {sorted(known)}")
        if "num_players" not in values:
            raise ValueError("the knob 'num_players' is required")
        return cls(**dict(values))

    @classmethod
    def from_toml(cls, path: str | Path, **overrides: Any) -> "RummyRules":
        """Load a rules file such as ``configs/rules/basic.toml`` (a flat table of knobs)."""
        with open(path, "rb") as handle:
            values = tomllib.load(handle)
        return cls.from_dict({**values, **overrides})

    def replace(self, **overrides: Any) -> "RummyRules":
        """A copy with some knobs changed (validated again)."""
        return RummyRules.from_dict({**self.to_dict(), **overrides})

    def to_dict(self) -> dict[str, Any]:
        """The knobs as a plain dict (TOML/JSON friendly)."""
        values = dataclasses.asdict(self)
        values["hand_size_by_players"] = {str(n): h for n, h in self.hand_size_by_players}
        return {key: value for key, value in values.items() if value is not None}

    def __post_init__(self) -> None:
        sizes = self.hand_size_by_players
        if isinstance(sizes, Mapping):
            sizes = tuple(sorted((int(n), int(h)) for n, h in sizes.items()))
            object.__setattr__(self, "hand_size_by_players", sizes)
        if isinstance(self.first_dealer, str) and self.first_dealer.isdigit():
            object.__setattr__(self, "first_dealer", int(self.first_dealer))
        self._validate()

    # ------------------------------------------------------------------ derived sizes
    @property
    def hand_size(self) -> int:
        """Cards dealt to each player at this player count."""
        return dict(self.hand_size_by_players)[self.num_players]

    @property
    def num_card_types(self) -> int:
        """Length of the card-type axis (52 naturals; rulesets with jokers add one)."""
        return cards.NUM_NATURAL_TYPES

    @property
    def deck_size(self) -> int:
        """Physical cards in play."""
        return cards.NUM_NATURAL_TYPES

    @property
    def num_slots(self) -> int:
        """Table meld slots: every meld holds at least 3 cards."""
        return self.deck_size // 3

    @property
    def max_run_position(self) -> int:
        """Highest position a run may reach without wrapping: 13 (K) or 14 (a high ace)."""
        return 14 if self.ace_high_or_low else 13

    @property
    def card_values(self) -> tuple[int, ...]:
        """Value in hand of every card type, indexed by card type."""
        return tuple(self.card_value(card) for card in range(self.num_card_types))

    def card_value(self, card: int) -> int:
        """Value of a card left in hand (B12, B15)."""
        rank = cards.rank_of(card)
        if rank == 1:
            return self.ace_high_scoring_value if self.ace_high_or_low else 1
        return min(rank, 10)

    # ------------------------------------------------------------------ validation
    def _validate(self) -> None:
        def fail(knob: str, allowed: str, rule: str) -> None:
            raise ValueError(f"{knob}={getattr(self, knob)!r} is impossible for ruleset {self.ruleset!r}: allowed {allowed} ({rule})")

        if self.ruleset not in RULESETS:
            raise ValueError(f"unknown ruleset {self.ruleset!r}; available: {RULESETS}")
        if not isinstance(self.num_players, int) or not 2 <= self.num_players <= 6:
            fail("num_players", "2..6", "B1")
        sizes = dict(self.hand_size_by_players)
        if self.num_players not in sizes:
            fail("hand_size_by_players", f"an entry for {self.num_players} players", "B4")
        hand = sizes[self.num_players]
        if not isinstance(hand, int) or hand < 1 or self.num_players * hand + 1 > self.deck_size:
            fail("hand_size_by_players", f"1..{(self.deck_size - 1) // self.num_players} cards for {self.num_players} players (n*h+1 <= {self.deck_size})", "B4")
        for knob, choices in _CHOICES.items():
            if getattr(self, knob) not in choices:
                fail(knob, " or ".join(repr(choice) for choice in choices), "RULES.md §3.1")
        for knob in ("ace_high_or_low", "round_the_corner", "must_discard_to_go_out", "forbid_discarding_card_taken_from_discard",
                     "must_meld_before_layoff", "reshuffle_keep_top", "two_player_winner_deals"):
            if not isinstance(getattr(self, knob), bool):
                fail(knob, "true or false", "RULES.md §3.1")
        if self.round_the_corner and not self.ace_high_or_low:
            fail("round_the_corner", "only together with ace_high_or_low=true", "B15")
        for knob, low in (("ace_high_scoring_value", 1), ("going_rummy_multiplier", 1), ("max_turns_per_round", 1),
                          ("max_undos_per_turn", 0), ("target_score", 1), ("max_hands", 1)):
            value = getattr(self, knob)
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                fail(knob, f"an integer >= {low}", "RULES.md §3.1")
        if self.max_turns_per_round > 30000 or self.max_hands > 30000:
            raise ValueError("max_turns_per_round and max_hands are limited to 30000 by the engine's counters")
        if self.max_reshuffles is not None and (not isinstance(self.max_reshuffles, int) or self.max_reshuffles < 0):
            fail("max_reshuffles", "None (unlimited) or an integer >= 0", "B11")
        if self.game_end_mode == "hands":
            if not isinstance(self.num_hands, int) or self.num_hands < 1:
                fail("num_hands", "an integer >= 1 when game_end_mode='hands'", "B14")
        elif self.num_hands is not None:
            fail("num_hands", "unset unless game_end_mode='hands'", "B14")
        if not (self.first_dealer == "random" or (isinstance(self.first_dealer, int) and 0 <= self.first_dealer < self.num_players)):
            fail("first_dealer", f"'random' or a seat 0..{self.num_players - 1}", "B4")
        if not (isinstance(self.reward_scale, (int, float)) and self.reward_scale > 0):
            fail("reward_scale", "a positive number", "environment knob")

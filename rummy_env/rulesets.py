"""What sets the rule families apart below the engine (B1, B4, B11-B13, R1-R4, R16-R21, G1-G14), declared once per
family in a ``Traits`` record: the deck, the direction of the scores, the defaults a family gives the knobs it
leaves open, its meld catalogue and action blocks, and the words of its hands' bonuses. ``RummyRules``, the knob
checks, the action layout, the meld catalogue and the replay page read a family's traits (``TRAITS[ruleset]``)
instead of testing the ruleset's name. The engine's hooks of a family (kernels, compiled policies, positions,
explanations) are in its package (``rummy_env.engine.families``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from rummy_env import cards


def _high_ace_knob(rules) -> int:
    """Basic and gin: a run ends at K, or at a high ace with ``ace_high_or_low`` (B15)."""
    return 14 if rules.ace_high_or_low else 13


def _basic_card_value(rules, card: int) -> int:
    """B12, B15: an ace counts 1, or ``ace_high_scoring_value`` with ``ace_high_or_low``; court cards 10."""
    rank = cards.rank_of(card)
    if rank == 1:
        return rules.ace_high_scoring_value if rules.ace_high_or_low else 1
    return min(rank, 10)


def _rami_card_value(rules, card: int) -> int:
    """R19, R21.1: the joker counts ``joker_hand_value``; an ace ``ace_hand_value`` (or the Lebanese fixed value)."""
    if card == cards.JOKER:
        return rules.joker_hand_value
    if cards.rank_of(card) == 1:
        return rules.ace_fixed_value if rules.ace_fixed_value is not None else rules.ace_hand_value
    return min(cards.rank_of(card), 10)


def _basic_bonuses(snap: dict[str, Any], rules) -> list[str]:
    """B13: going rummy multiplies the hand's score."""
    return [f"rummy ×{rules.going_rummy_multiplier:g}"] if snap["rummy"] else []


def _gin_bonuses(snap: dict[str, Any], rules) -> list[str]:
    """G7, G9, G12: the gin, big gin and undercut bonuses, and the game's bonuses in its last hand."""
    words = []
    bonus = {"gin": ("gin bonus", rules.gin_bonus), "big_gin": ("big gin bonus", rules.big_gin_bonus),
             "undercut": ("undercut bonus", rules.undercut_bonus)}.get(snap["end_reason"])
    if bonus:
        words.append(f"{bonus[0]} +{bonus[1]:g}")
    if snap["phase"] == "game_over":
        words.append("the game's box, game and shutout bonuses included")
    return words


def _rami_bonuses(snap: dict[str, Any], rules) -> list[str]:
    """R16, R19, R21.5: an all-at-once out and its multiplier (or flat score, or joker scaling)."""
    if snap["end_reason"] != "out" or not snap["turn_state"].get("all_at_once"):
        return []
    if rules.all_at_once_joker_scaling is not None:
        return ["all at once, scaled by the jokers laid"]
    if rules.all_at_once_scoring == "flat100":
        return ["all at once: a flat 100"]
    if snap["turn_state"].get("joker_finish"):
        return [f"all at once with a joker as final discard ×{rules.joker_finish_multiplier:g}"]
    return [f"all at once ×{rules.all_at_once_multiplier:g}"]


@dataclasses.dataclass(frozen=True)
class Traits:
    """One rule family's traits, as the layers below the engine use them."""

    deck_copies: int                     # copies of every natural card (R1: two decks)
    num_jokers: int                      # jokers in the deck (R1)
    penalty_scoring: bool                # points are penalties and the lowest total wins (R19)
    wrap_knob: str                       # the knob that lets runs wrap K-A-2 (B15, R20)
    run_top: Callable[[Any], int]        # the highest run position without wrapping (B15, R2)
    card_value: Callable[[Any, int], int]  # a card's value left in hand
    hand_size: Callable[[Any], int]      # the deal's size when the knob is left open (B4, R4, G2)
    defaults: dict[str, Any]             # the family's values of shared knobs left at None
    rule_ids: dict[str, str]             # the rule that sets a shared knob, for error messages
    tentative: bool                      # TAKE and SWAP blocks, a joker's second lay-off end (R11.5, R13, R14)
    one_layoff_target: bool              # a lay-off names no slot: the knocker's melds are one target (G8)
    catalogue: str                       # which meld catalogue it plays (``rummy_env.melds.build_catalogue``)
    round_word: str                      # what one deal is called: a "hand" or a "round"
    bonuses: Callable[[dict, Any], list[str]]  # the words of a finished hand's bonuses (replay page)


TRAITS = {
    "basic": Traits(deck_copies=1, num_jokers=0, penalty_scoring=False, wrap_knob="round_the_corner",
                    run_top=_high_ace_knob, card_value=_basic_card_value,
                    hand_size=lambda rules: dict(rules.hand_size_by_players).get(rules.num_players),
                    defaults={"reshuffle_keep_top": True, "game_end_mode": "target", "target_score": 150},
                    rule_ids={"max_reshuffles": "B11", "first_dealer": "B4"}, tentative=False,
                    one_layoff_target=False, catalogue="standard", round_word="hand", bonuses=_basic_bonuses),
    "rami51": Traits(deck_copies=2, num_jokers=4, penalty_scoring=True, wrap_knob="circular_runs",
                     run_top=lambda rules: 14, card_value=_rami_card_value, hand_size=lambda rules: 13,
                     defaults={"reshuffle_keep_top": False, "game_end_mode": "threshold", "target_score": 150},
                     rule_ids={"max_reshuffles": "R17", "first_dealer": "R4"}, tentative=True,
                     one_layoff_target=False, catalogue="standard", round_word="round", bonuses=_rami_bonuses),
    "gin": Traits(deck_copies=1, num_jokers=0, penalty_scoring=False, wrap_knob="round_the_corner",
                  run_top=_high_ace_knob, card_value=_basic_card_value, hand_size=lambda rules: 10,
                  defaults={"reshuffle_keep_top": False, "game_end_mode": "target", "target_score": 100},
                  rule_ids={"max_reshuffles": "G10", "first_dealer": "G2"}, tentative=False,
                  one_layoff_target=True, catalogue="gin", round_word="hand", bonuses=_gin_bonuses),
}

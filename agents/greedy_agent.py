"""``GreedyAgent``: a simple rule-based baseline acting on the action mask alone.

Per row: draw from the stock (the discard top only when the stock is empty); then, in rami51,
COMMIT a tentative opening as soon as the mask allows it, in gin KNOCK as soon as it may (PASS comes last,
so it takes the first upcard and lays everything it can); then lay the first legal play (a new meld,
else a lay-off, else — rami51 — a TAKE or a SWAP); when none is left, discard the legal card worth
the most points. UNDO, then TAKE_BACK (rami51), and discards without announcing
(``card_announcement="manual"``) come last, when nothing else is legal.

Every action gets a fixed preference and the agent picks the masked-in action preferred most, so
it never acts illegally in any ruleset. In rami51 UNDO has a budget per turn (R24); under
``dead_ends="prevent"`` the mask has no dead ends (R23), under ``"take_back"`` a turn it cannot finish is
taken back (R25): either way laying a tentative opening that cannot be committed and taking it back ends
after a few steps, in a discard.
"""

from __future__ import annotations

import numpy as np

from rummy_env.agents.base import InputCheck
from rummy_env.actions import COMMIT, DRAW_DISCARD, DRAW_STOCK, TAKE_BACK, UNDO, ActionLayout
from rummy_env.rules import RummyRules

# preference tiers, most preferred first; within a tier the order is set in ``action_preferences``
TIER_DRAW_STOCK, TIER_DRAW_DISCARD, TIER_COMMIT, TIER_PLAY, TIER_DISCARD, TIER_LAST = 5, 4, 3, 2, 1, 0


def action_preferences(rules: RummyRules) -> np.ndarray:
    """``float64[A]``: how much the agent prefers each action (module docstring); higher is better."""
    layout = ActionLayout.for_rules(rules)
    preference = np.full(layout.num_actions, float(TIER_LAST))
    preference[DRAW_STOCK], preference[DRAW_DISCARD] = TIER_DRAW_STOCK, TIER_DRAW_DISCARD
    if layout.tentative:
        preference[COMMIT], preference[UNDO], preference[TAKE_BACK] = TIER_COMMIT, TIER_LAST + 0.5, TIER_LAST
    if "knock" in layout.specials:
        preference[layout.special("knock")] = TIER_COMMIT
    plays = np.arange(layout.meld_offset, layout.discard_offset)
    preference[plays] = TIER_PLAY + 0.5 * (1 - (plays - plays[0]) / len(plays))  # the first play first
    values = np.array(rules.card_values, dtype=np.float64)
    ranked = values + np.arange(rules.num_card_types) * 1e-3  # the costliest card; deterministic ties
    discards = slice(layout.discard_offset, layout.discard_offset + rules.num_card_types)
    preference[discards] = TIER_DISCARD + 0.5 * ranked / (ranked.max() + 1)
    return preference


class GreedyAgent:
    """Melds and lays off whenever it can, and sheds its most valuable card otherwise."""

    def __init__(self, rules: RummyRules):
        self.rules = rules
        self.preference = action_preferences(rules)
        self.check_inputs = InputCheck(rules)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        mask = self.check_inputs(observation, action_mask)[1].astype(bool)
        return np.where(mask, self.preference, -np.inf).argmax(axis=1).astype(np.int64)

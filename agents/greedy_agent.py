"""``GreedyAgent``: a simple rule-based baseline acting on the action mask alone.

Per row: draw from the stock (the discard top only when the stock is empty); then lay any legal new
meld, then any legal lay-off; when none is left, discard the legal card worth the most points.
It never acts illegally: it only ever picks masked-in actions.
"""

from __future__ import annotations

import numpy as np

from rummy_env.actions import DRAW_DISCARD, DRAW_STOCK, ActionLayout
from rummy_env.rules import RummyRules


class GreedyAgent:
    """Melds and lays off whenever it can, and sheds its most valuable card otherwise."""

    def __init__(self, rules: RummyRules):
        layout = ActionLayout.for_rules(rules)
        self.plays = slice(layout.meld_offset, layout.discard_offset)
        self.discards = slice(layout.discard_offset, layout.num_actions)
        values = np.array(rules.card_values, dtype=np.float64)
        self.discard_preference = values + np.arange(rules.num_card_types) * 1e-3  # deterministic tie-break
        self.discard_offset = layout.discard_offset

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        mask = np.atleast_2d(action_mask).astype(bool)
        actions = np.where(mask[:, DRAW_STOCK], DRAW_STOCK, DRAW_DISCARD).astype(np.int64)
        plays = mask[:, self.plays]
        can_play = plays.any(axis=1)
        actions[can_play] = self.plays.start + plays[can_play].argmax(axis=1)
        discards = mask[:, self.discards]
        must_discard = ~can_play & discards.any(axis=1)
        scores = np.where(discards[must_discard], self.discard_preference, -np.inf)
        actions[must_discard] = self.discard_offset + scores.argmax(axis=1)
        return actions

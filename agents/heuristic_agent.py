"""``HeuristicAgent``: a rule-based player for the basic ruleset, acting on observation and mask.

Per row, from the player's own observation only:

* **draw**: take the discard top when it would make a new meld with two cards of the hand (a set
  of its rank, or a run with its suit neighbours) or can be laid off on a table meld; otherwise
  draw from the stock;
* **play**: lay the legal new meld worth the most points, else the legal lay-off of the most
  valuable card (melding early sheds points that would count against it);
* **discard**: the legal discard that helps least — the fewest partners for a future meld (cards of
  the same rank, suit neighbours one or two apart) — and, among those, the one worth most.

It only ever picks actions that the mask allows.
"""

from __future__ import annotations

import numpy as np

from agents.rami_heuristic_agent import RamiHeuristicAgent
from rummy_env import cards
from rummy_env.actions import DRAW_DISCARD, DRAW_STOCK, ActionLayout
from rummy_env.engine.observation import ObservationLayout
from rummy_env.melds import describe_meld
from rummy_env.rules import RummyRules


class HeuristicAgent:
    """See the module docstring; ``act(observation, action_mask, rng) -> actions`` over a batch.
    For ruleset ``rami51`` (presets ``rami51``, ``lebanese14``) it builds a ``RamiHeuristicAgent``."""

    def __new__(cls, rules: RummyRules):
        if rules.ruleset == "rami51":
            return RamiHeuristicAgent(rules)
        return super().__new__(cls)

    def __init__(self, rules: RummyRules):
        self.rules = rules
        self.layout = ActionLayout.for_rules(rules)
        self.observation_layout = ObservationLayout(rules)
        self.values = np.array(rules.card_values, dtype=np.float64)
        catalogue = self.layout.catalogue
        self.meld_values = self.values[catalogue.cards].sum(axis=1)
        self.partners = self._partner_matrix(rules.num_card_types)

    @staticmethod
    def _partner_matrix(types: int) -> np.ndarray:
        """``partners[a, b] = 1`` when ``b`` could join ``a`` in a meld: same rank, or same suit and
        one or two ranks apart."""
        partners = np.zeros((types, types), dtype=np.float64)
        for a in range(types):
            for b in range(types):
                if a == b:
                    continue
                same_rank = cards.rank_of(a) == cards.rank_of(b)
                close_run = cards.suit_of(a) == cards.suit_of(b) and abs(cards.rank_of(a) - cards.rank_of(b)) <= 2
                partners[a, b] = 1.0 if (same_rank or close_run) else 0.0
        return partners

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        observations, masks = np.atleast_2d(observation), np.atleast_2d(action_mask)
        return np.array([self._act_row(obs, mask) for obs, mask in zip(observations, masks, strict=True)], dtype=np.int64)

    def _act_row(self, observation: np.ndarray, mask: np.ndarray) -> int:
        blocks = self.observation_layout.split(observation)
        hand = blocks["hand"].astype(np.float64)
        layout = self.layout
        if mask[DRAW_STOCK] or mask[DRAW_DISCARD]:
            top = np.flatnonzero(blocks["discard_top"])
            wanted = top.size and mask[DRAW_DISCARD] and self._wants(int(top[0]), hand, blocks)
            return DRAW_DISCARD if wanted or not mask[DRAW_STOCK] else DRAW_STOCK
        melds = np.flatnonzero(mask[layout.meld_offset:layout.layoff_offset])
        if melds.size:
            return layout.meld_offset + int(melds[np.argmax(self.meld_values[melds])])
        layoffs = np.flatnonzero(mask[layout.layoff_offset:layout.discard_offset])
        if layoffs.size:
            card_of = layoffs % layout.num_card_types
            return layout.layoff_offset + int(layoffs[np.argmax(self.values[card_of])])
        discards = np.flatnonzero(mask[layout.discard_offset:])
        usefulness = self.partners[discards] @ hand
        order = np.lexsort((-self.values[discards], usefulness))  # least useful first, then most points
        return layout.discard_offset + int(discards[order[0]])

    def _wants(self, top: int, hand: np.ndarray, blocks: dict[str, np.ndarray]) -> bool:
        """Whether the discard top would make a meld with two hand cards or fits a table meld."""
        catalogue = self.layout.catalogue
        holds = hand > 0
        for members in catalogue.cards:
            if top in members and sum(holds[c] for c in members if c != top) == 2:
                return True
        for members in blocks["slot_cards"][np.flatnonzero(blocks["slot_kind"])]:
            try:  # the table meld with the top card added is still a meld under these rules
                describe_meld(np.flatnonzero(members).tolist() + [top], self.rules)
                return True
            except ValueError:
                continue
        return False

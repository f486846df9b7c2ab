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

from rummy_env.agents.base import InputCheck
from rummy_env.agents.gin_heuristic_agent import GinHeuristicAgent
from rummy_env.agents.rami_heuristic_agent import RamiHeuristicAgent
from rummy_env import cards
from rummy_env.actions import DRAW_DISCARD, DRAW_STOCK, ActionLayout
from rummy_env.observations import ObservationLayout
from rummy_env.melds import describe_meld
from rummy_env.rules import RummyRules


# the heuristics of the other families, which HeuristicAgent(rules) builds for their rules
FAMILY_HEURISTICS = {"rami51": RamiHeuristicAgent, "gin": GinHeuristicAgent}


class HeuristicAgent:
    """See the module docstring; ``act(observation, action_mask, rng) -> actions`` over a batch.
    For ruleset ``rami51`` (presets ``rami51``, ``lebanese14``) it builds a ``RamiHeuristicAgent``, for ``gin`` a
    ``GinHeuristicAgent``."""

    def __new__(cls, rules: RummyRules):
        family_agent = FAMILY_HEURISTICS.get(rules.ruleset)
        return family_agent(rules) if family_agent is not None else super().__new__(cls)

    def __init__(self, rules: RummyRules):
        self.rules = rules
        self.check_inputs = InputCheck(rules)
        self.layout = ActionLayout.for_rules(rules)
        self.observation_layout = ObservationLayout(rules)
        self.values = np.array(rules.card_values, dtype=np.float64)
        catalogue = self.layout.catalogue
        self.meld_values = self.values[catalogue.cards].sum(axis=1)
        self.partners = self._partner_matrix(rules.num_card_types)
        self.meld_members = np.zeros((len(catalogue), rules.num_card_types), dtype=np.float64)
        np.put_along_axis(self.meld_members, catalogue.cards.astype(np.int64), 1.0, axis=1)
        layoff_codes = np.arange(self.layout.discard_offset - self.layout.layoff_offset)
        self.layoff_values = self.values[layoff_codes % self.layout.num_card_types]
        self._extends_cache: dict[tuple[bytes, int], bool] = {}

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
        """The batched decision: the same choices as ``act_row`` on every row, as array operations."""
        observations, masks = self.check_inputs(observation, action_mask)
        masks = masks.astype(bool)
        blocks = self.observation_layout.split(observations)
        hand = blocks["hand"].astype(np.float64)
        layout = self.layout
        rows = np.arange(masks.shape[0])
        # play: the most valuable legal new meld, else the lay-off of the most valuable card
        meld_scores = np.where(masks[:, layout.meld_offset:layout.layoff_offset], self.meld_values, -np.inf)
        layoff_scores = np.where(masks[:, layout.layoff_offset:layout.discard_offset], self.layoff_values, -np.inf)
        # discard: fewest partners in hand first, then most points (usefulness is a whole number)
        usefulness = hand @ self.partners.T
        discard_scores = np.where(masks[:, layout.discard_offset:], usefulness * 1000.0 - self.values, np.inf)
        actions = np.where(np.isfinite(meld_scores).any(axis=1), layout.meld_offset + meld_scores.argmax(axis=1),
                           np.where(np.isfinite(layoff_scores).any(axis=1),
                                    layout.layoff_offset + layoff_scores.argmax(axis=1),
                                    layout.discard_offset + discard_scores.argmin(axis=1)))
        drawing = masks[:, DRAW_STOCK] | masks[:, DRAW_DISCARD]
        if drawing.any():
            draw_rows = rows[drawing]
            wanted = masks[draw_rows, DRAW_DISCARD] & self._wants_batch(
                hand[draw_rows], blocks["discard_top"][draw_rows], blocks["slot_cards"][draw_rows],
                blocks["slot_kind"][draw_rows])
            take_top = wanted | ~masks[draw_rows, DRAW_STOCK]
            actions[draw_rows] = np.where(take_top, DRAW_DISCARD, DRAW_STOCK)
        return actions.astype(np.int64)

    def _wants_batch(self, hand: np.ndarray, discard_top: np.ndarray, slot_cards: np.ndarray,
                     slot_kind: np.ndarray) -> np.ndarray:
        """``_wants`` for a batch of rows: the discard top makes a catalogue meld with two hand
        cards, or fits a table meld (``describe_meld`` answers, memoised per meld and card)."""
        has_top = discard_top.any(axis=1)
        top = discard_top.argmax(axis=1)
        holds = (hand > 0).astype(np.float64)
        held_others = holds @ self.meld_members.T - self.meld_members[:, top].T * holds[np.arange(len(top)), top, None]
        makes_meld = ((self.meld_members[:, top].T > 0) & (held_others == 2)).any(axis=1)
        fits_table = np.zeros(len(top), dtype=bool)
        occupied_rows, occupied_slots = np.nonzero(slot_kind)
        for row, slot in zip(occupied_rows.tolist(), occupied_slots.tolist()):
            if not fits_table[row]:
                fits_table[row] = self._extends(slot_cards[row, slot].tobytes(), int(top[row]))
        return has_top & (makes_meld | fits_table)

    def _extends(self, slot_key: bytes, top: int) -> bool:
        """Whether the table meld with card planes ``slot_key`` plus ``top`` is still a meld (memoised)."""
        key = (slot_key, top)
        if key not in self._extends_cache:
            members = np.flatnonzero(np.frombuffer(slot_key, dtype=np.int8)).tolist()
            try:
                describe_meld(members + [top], self.rules)
                self._extends_cache[key] = True
            except ValueError:
                self._extends_cache[key] = False
        return self._extends_cache[key]

    def act_row(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The reference decision for one row, written plainly (``act`` must agree with it)."""
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

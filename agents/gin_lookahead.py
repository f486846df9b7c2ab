"""``GinLookaheadAgent``: the gin heuristic with a one-draw look-ahead (docs/rules.md#gin).

Where ``GinHeuristicAgent`` discards the card leaving the least deadwood now, this agent looks one draw ahead:
for each allowed discard it averages, over every card it has not seen (the stock and the opponent's unknown
cards, each equally likely to come next), the least deadwood after drawing that card and discarding again,
and counts how often that would let it knock. It discards the card with the best such future (most knocks,
then least expected deadwood), keeping the opponent's known cards and discards in mind, and takes the upcard
only when the hand with it is better than the average hand after a draw from the stock. Everything else
(knocking at once, laying the best arrangement, laying off) is the heuristic's.

The averages are compiled (``future_of_discards``): about 300 meld scans per decision.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.agents.gin_heuristic_agent import GinHeuristicAgent
from rummy_env.engine.gin import deadwood as D
from rummy_env.engine.jit import JIT
from rummy_env.rules import RummyRules


@nb.njit(**JIT)
def future_of_discards(hand: np.uint64, candidates, unseen: np.uint64, limit: int, ubuf, ibuf, out) -> None:
    """For each card of ``candidates``: ``out[k] = (knock share, mean deadwood)`` after discarding it, drawing
    one of the ``unseen`` cards at random and discarding the best card again."""
    draws = 0
    for card in range(52):
        if unseen >> np.uint64(card) & np.uint64(1):
            draws += 1
    for k in range(candidates.shape[0]):
        rest = hand & ~D.bit(candidates[k])
        knocks, total = 0.0, 0.0
        for card in range(52):
            if unseen >> np.uint64(card) & np.uint64(1):
                after = D.knock_figures(rest | D.bit(card), np.uint64(0), ubuf, ibuf)[0]
                total += after
                knocks += after <= limit
        out[k, 0] = knocks / max(draws, 1)
        out[k, 1] = total / max(draws, 1)


class GinLookaheadAgent(GinHeuristicAgent):
    """See the module docstring; ``act(observation, action_mask, rng) -> actions`` over a batch."""

    def __init__(self, rules: RummyRules, knock_weight: float = 20.0):
        super().__init__(rules)
        self.knock_weight = knock_weight

    def unseen(self, view: dict, hand: int) -> int:
        """Cards this player has not seen: not in its hand, the discard pile, the table or known to the opponent."""
        seen = hand
        for block in ("discard_age", "slot_cards", "known"):
            for card in np.flatnonzero(view[block].reshape(-1, 52).any(axis=0)):
                seen |= 1 << int(card)
        return ((1 << 52) - 1) & ~seen

    def future(self, hand: int, cards_: list[int], unseen: int, limit: int) -> np.ndarray:
        out = np.zeros((len(cards_), 2))
        future_of_discards(np.uint64(hand), np.array(cards_, dtype=np.int64), np.uint64(unseen), limit, self.ubuf,
                           self.ibuf, out)
        return out

    def takes(self, view: dict, hand: int, upcard: int, after: int) -> bool:
        """Take the upcard when the hand with it (``after``: its least deadwood after a discard) beats the mean
        hand after a draw from the stock by ``take_gain / 2``."""
        unseen = self.unseen(view, hand) & ~(1 << upcard)
        if not unseen:
            return False
        stock = np.mean([D.knock_figures(np.uint64(hand | 1 << c), np.uint64(0), self.ubuf, self.ibuf)[0]
                         for c in range(52) if unseen >> c & 1])
        return after < stock - self.take_gain / 2

    def discard(self, view: dict, discards: np.ndarray, hand: int) -> int:
        unseen = self.unseen(view, hand)
        if not unseen or not (view["gin_phase"].sum() == 0):  # the knock discard: the heuristic's choice
            return super().discard(view, discards, hand)
        limit = int(view["knock_limit"][0])
        cards_ = [int(a - self.layout.discard_offset) for a in discards]
        future = self.future(hand, cards_, unseen, limit)
        wanted = sum(1 << int(c) for c in np.flatnonzero(view["known"].reshape(-1, 52).any(axis=0)))
        scores = [future[k, 1] - self.knock_weight * future[k, 0] + 0.5 * self.partners(card, wanted)
                  for k, card in enumerate(cards_)]
        return int(discards[int(np.argmin(scores))])

"""``GinHeuristicAgent``: the rule-based gin player (docs/rules.md#gin), acting on observation and mask.

Per row, from the player's own observation only (its hand, the upcard, the discard pile, the cards the
opponent took face up, the table):

* **upcard** (the first upcard and every draw): take it when, after the best discard, the hand could knock,
  or the card joins a meld and lowers the deadwood by at least ``take_gain`` points; otherwise pass / draw
  from the stock;
* **discard**: the card leaving the least deadwood; among equals, the one with the fewest live partners
  (cards of its rank, suit neighbours one or two away, not yet dead in the pile or on the table), then the
  one the opponent is least likely to want (no partner among the cards he took face up), then the highest;
* **knock** as soon as it may (gin, big gin first when offered);
* **knocker's melds**: its best arrangement, meld by meld, then pass;
* **defender**: lay off every card whose removal lowers its deadwood (again after each lay-off), then its
  best arrangement, then pass;
* **the wall** (OpenSpiel's rule): knock when it may, else pass; below 3 stock cards (``pickup_or_dead``):
  take the discard as at any draw (when it lets it knock, or joins a meld and lowers the deadwood by
  ``take_gain``), else declare the hand dead.

It only ever picks actions the mask allows.
"""

from __future__ import annotations

import numpy as np

from rummy_env.actions import DRAW_DISCARD, DRAW_STOCK, ActionLayout
from rummy_env.agents.base import InputCheck
from rummy_env.engine.gin import deadwood as D
from rummy_env.observations import ObservationLayout
from rummy_env.rules import RummyRules

UPCARD, KNOCKING, LAYOFF, DEFEND, WALL = range(5)  # the gin_phase block


class GinHeuristicAgent:
    """See the module docstring; ``act(observation, action_mask, rng) -> actions`` over a batch."""

    def __init__(self, rules: RummyRules, take_gain: int = 4):
        if rules.ruleset != "gin":
            raise ValueError(f"{type(self).__name__} plays ruleset 'gin', not {rules.ruleset!r}")
        self.rules = rules
        self.take_gain = take_gain
        self.check_inputs = InputCheck(rules)
        self.layout = ActionLayout.for_rules(rules)
        self.blocks = ObservationLayout(rules)
        self.pass_, self.knock = self.layout.special("pass"), self.layout.special("knock")
        self.meld_bits = np.array([sum(1 << c for c in self.layout.catalogue.members(e))
                                   for e in range(len(self.layout.catalogue))], dtype=np.uint64)
        self.ubuf, self.ibuf = (buf[0] for buf in D.scratch(1))

    # ------------------------------------------------------------------ evaluation
    def deadwood(self, hand: int) -> int:
        return D.deadwood(np.uint64(hand), self.ubuf, self.ibuf)

    def best_discard(self, hand: int, allowed: list[int]) -> tuple[int, int]:
        """``(deadwood, card)`` of the allowed discard leaving the least deadwood."""
        return min((self.deadwood(hand & ~(1 << card)), card) for card in allowed)

    def best_group(self, hand: int) -> list[int]:
        """The cards (as bits) of each meld of the hand's best arrangement."""
        groups = np.zeros(D.MAX_DEPTH, dtype=np.uint64)
        return [int(group) for group in groups[:D.best_arrangement(np.uint64(hand), self.ubuf, self.ibuf, groups)]]

    @staticmethod
    def partners(card: int, pool: int) -> int:
        """Cards of ``pool`` (bits) that could share a meld with ``card``: its rank, suit neighbours 1-2 away."""
        rank, suit = card % 13, card // 13
        near = 0
        for other_suit in range(4):
            if other_suit != suit:
                near |= 1 << (other_suit * 13 + rank)
        for step in (-2, -1, 1, 2):
            if 0 <= rank + step < 13:
                near |= 1 << (suit * 13 + rank + step)
        return bin(near & pool).count("1")

    # ------------------------------------------------------------------ decisions
    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        observation, action_mask = self.check_inputs(observation, action_mask)
        return np.array([self.act_row(obs, mask) for obs, mask in zip(observation, action_mask)], dtype=np.int64)

    def act_row(self, obs: np.ndarray, mask: np.ndarray) -> int:
        view = self.blocks.split(obs)
        legal = np.flatnonzero(mask)
        hand = sum(1 << int(c) for c in np.flatnonzero(view["hand"]))
        phase = int(np.argmax(view["gin_phase"])) if view["gin_phase"].any() else -1
        limit = int(view["knock_limit"][0])
        if self.knock in legal and phase != WALL:
            return self.knock
        if phase == WALL:
            return self.knock if self.knock in legal else self.pass_
        if DRAW_DISCARD in legal or DRAW_STOCK in legal:
            return self.draw(view, legal, hand, limit)
        if phase == LAYOFF:
            return self.lay_off(legal, hand)
        if phase in (KNOCKING, DEFEND):
            discards = legal[legal >= self.layout.discard_offset]
            if discards.size:  # the knocker's discard
                return self.discard(view, discards, hand)
            return self.lay_melds(legal, hand)
        discards = legal[legal >= self.layout.discard_offset]
        return self.discard(view, discards, hand) if discards.size else int(legal[0])

    def draw(self, view: dict, legal: np.ndarray, hand: int, limit: int) -> int:
        top = np.flatnonzero(view["discard_top"])
        if DRAW_DISCARD in legal and top.size:
            upcard = int(top[0])
            with_it = hand | 1 << upcard
            allowed = [c for c in range(52) if with_it >> c & 1 and
                       (c != upcard or not self.rules.forbid_discarding_taken_card)]
            after, _ = self.best_discard(with_it, allowed)
            if after <= limit or self.takes(view, hand, upcard, after):
                return DRAW_DISCARD
        for choice in (DRAW_STOCK, self.pass_):
            if choice in legal:
                return choice
        return int(legal[0])

    def takes(self, view: dict, hand: int, upcard: int, after: int) -> bool:
        """Take the upcard (that does not let it knock at once) when it joins a meld and lowers the deadwood
        (``after``: the least after taking it and discarding) by ``take_gain``."""
        melded = any(group >> upcard & 1 for group in self.best_group(hand | 1 << upcard))
        return melded and after <= self.deadwood(hand) - self.take_gain

    def discard(self, view: dict, discards: np.ndarray, hand: int) -> int:
        dead = 0
        for block in ("discard_age", "slot_cards"):
            for card in np.flatnonzero(view[block].reshape(-1, 52).any(axis=0)):
                dead |= 1 << int(card)
        wanted = sum(1 << int(c) for c in np.flatnonzero(view["known"].reshape(-1, 52).any(axis=0)))
        best = None
        for action in discards:
            card = int(action - self.layout.discard_offset)
            rest = hand & ~(1 << card)
            key = (self.deadwood(rest), self.partners(card, rest & ~dead), self.partners(card, wanted),
                   -D.card_value(card))
            if best is None or key < best[0]:
                best = (key, int(action))
        return best[1]

    def lay_melds(self, legal: np.ndarray, hand: int) -> int:
        for group in self.best_group(hand):
            for entry in np.flatnonzero(self.meld_bits == np.uint64(group)):
                action = self.layout.meld(int(entry))
                if action in legal:
                    return action
        return self.pass_ if self.pass_ in legal else int(legal[0])

    def lay_off(self, legal: np.ndarray, hand: int) -> int:
        now = self.deadwood(hand)
        for action in legal[(legal >= self.layout.layoff_offset) & (legal < self.layout.discard_offset)]:
            card = int(action - self.layout.layoff_offset)
            if self.deadwood(hand & ~(1 << card)) < now:
                return int(action)
        return self.pass_

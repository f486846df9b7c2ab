"""An independent, slow and obviously correct gin oracle (docs/rules.md#gin, G1-G14), for tests only.

It shares no code with the engine's kernels: it reads a position (``RummyEngine.snapshot``) and the rules and
lists the legal actions by the rules' words, with brute-force deadwood (every arrangement of the hand into
melds of any length, found by recursion on the lowest card) and a literal re-implementation of OpenSpiel's
11-card deadwood (its meld list, its depth-first search over ordered paths, its first best group, the highest
leftover dropped).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

from rummy_env import cards

DRAW_STOCK, DRAW_DISCARD, PASS, KNOCK = 0, 1, 2, 3


def value(card: int) -> int:
    return min(cards.rank_of(card), 10)


def is_meld(group: tuple[int, ...]) -> bool:
    """A set of 3 or 4 cards of one rank, or a run of 3+ of one suit, ace low only (G1, G5)."""
    if len(group) < 3:
        return False
    ranks = sorted(cards.rank_of(c) for c in group)
    suits = {cards.suit_of(c) for c in group}
    if len(set(ranks)) == 1:
        return len(group) <= 4
    return len(suits) == 1 and ranks == list(range(ranks[0], ranks[0] + len(group)))


@lru_cache(maxsize=200_000)
def min_deadwood(hand: frozenset) -> int:
    """The least deadwood over every arrangement (recursion on the lowest card: deadwood, or in a meld)."""
    if not hand:
        return 0
    low = min(hand)
    rest = hand - {low}
    best = value(low) + min_deadwood(rest)
    others = sorted(rest)
    for size in range(2, len(others) + 1):
        for partners in combinations(others, size):
            if is_meld((low,) + partners):
                best = min(best, min_deadwood(rest - set(partners)))
    return best


def best_after_discard(hand: frozenset, avoid: set) -> int | None:
    """The least deadwood after discarding a card not in ``avoid``; None if none may be discarded."""
    options = [min_deadwood(hand - {card}) for card in hand if card not in avoid]
    return min(options) if options else None


# ---------------------------------------------------------------------------------------- OpenSpiel, literally
def _os(card: int) -> int:
    return (cards.suit_of(card) + 1) % 4 * 13 + card % 13


def openspiel_melds(hand: list[int]) -> list[tuple[int, ...]]:
    """OpenSpiel's AllMelds of a hand, in its order (its card ids: suits s c d h)."""
    ids = [_os(card) for card in hand]
    by_rank = sorted(ids, key=lambda c: (c % 13, c))
    melds = []
    for i in range(len(by_rank) - 3):
        if by_rank[i] % 13 == by_rank[i + 3] % 13:
            a, b, c, d = by_rank[i:i + 4]
            melds += [(a, b, c, d), (a, b, d), (a, c, d)]
    for i in range(len(by_rank) - 2):
        if by_rank[i] % 13 == by_rank[i + 2] % 13:
            melds.append(tuple(by_rank[i:i + 3]))
    by_suit = sorted(ids)
    for length in (5, 4, 3):
        for i in range(len(by_suit) - length + 1):
            if by_suit[i] == by_suit[i + length - 1] - length + 1 and by_suit[i] // 13 == by_suit[i + length - 1] // 13:
                melds.append(tuple(by_suit[i:i + length]))
    return melds


def openspiel_shortcut(hand: list[int]) -> int:
    """OpenSpiel's deadwood of 11 cards: its first best meld group (DFS over ordered paths), then the
    highest-ranked leftover dropped."""
    melds = openspiel_melds(hand)
    best_value, best_cards = 0, set()

    def value_os(group):
        return sum(min(c % 13 + 1, 10) for meld in group for c in meld)

    def paths(meld, candidates, path):
        nonlocal best_value, best_cards
        path = path + [meld]
        children = [m for m in candidates if not set(m) & set(meld)]
        if not children:
            total = value_os(path)
            if total > best_value:
                best_value, best_cards = total, {c for m in path for c in m}
            return
        for child in children:
            paths(child, children, path)

    for meld in melds:
        paths(meld, melds, [])
    left = sorted((c for c in map(_os, hand) if c not in best_cards), key=lambda c: (c % 13, c))
    if left:
        left.pop()
    return sum(min(c % 13 + 1, 10) for c in left)


# ---------------------------------------------------------------------------------------- legality
class GinOracle:
    """The legal actions of a gin position, by the rules (see the module docstring)."""

    def __init__(self, rules, layout):
        self.rules = rules
        self.layout = layout
        self.melds = [tuple(layout.catalogue.members(entry)) for entry in range(len(layout.catalogue))]

    def knock_allowed(self, hand: frozenset, avoid: set, limit: int) -> bool:
        rules = self.rules
        if rules.big_gin_bonus > 0 and min_deadwood(hand) == 0:
            return True
        best = best_after_discard(hand, avoid)
        if best is None or best > limit:
            return False
        return rules.knock_deadwood != "openspiel_shortcut" or openspiel_shortcut(sorted(hand)) <= limit

    def gin_possible(self, hand: frozenset, avoid: set) -> bool:
        return best_after_discard(hand, avoid) == 0

    def fits(self, position: dict, card: int) -> bool:
        """Card ``card`` may be laid off onto one of the knocker's melds (G8, G13)."""
        knocker = position["gin"]["knocker"]
        cap = self.rules.max_layoffs_per_run_end
        for meld in position["table"]:
            if meld["owner"] != knocker:
                continue
            if meld["kind"] == "set":
                if len(meld["cards"]) == 3 and cards.rank_of(meld["cards"][0]) == cards.rank_of(card):
                    return True
                continue
            if cards.suit_of(meld["cards"][0]) != cards.suit_of(card):
                continue
            low, high = min(cards.rank_of(c) for c in meld["cards"]), max(cards.rank_of(c) for c in meld["cards"])
            if cards.rank_of(card) == high + 1 and (cap is None or meld["high_layoffs"] < cap):
                return True
            if cards.rank_of(card) == low - 1 and (cap is None or meld["low_layoffs"] < cap):
                return True
        return False

    def legal(self, position: dict) -> set[int]:
        rules, layout = self.rules, self.layout
        phase = position["phase"]
        if phase in ("hand_over", "game_over"):
            return set()
        seat = position["current"]
        hand = frozenset(position["hands"][seat])
        gin = position["gin"]
        taken = position["taken"]
        avoid = {taken} if rules.forbid_discarding_taken_card and taken is not None else set()
        limit = gin["knock_limit"]
        out: set[int] = set()
        if phase == "upcard":
            return {DRAW_STOCK} if gin["upcard_passes"] >= 2 else {DRAW_DISCARD, PASS}
        if phase == "draw":
            if rules.wall_rule == "pickup_or_dead" and len(position["stock"]) <= 2:
                return {PASS} | ({DRAW_DISCARD} if position["discard"] else set())
            return ({DRAW_STOCK} if position["stock"] else set()) | ({DRAW_DISCARD} if position["discard"] else set())
        if phase == "play":
            if self.knock_allowed(hand, avoid, limit):
                out.add(KNOCK)
            if not (rules.gin_forced and self.gin_possible(hand, avoid)):
                out |= {layout.discard(card) for card in hand if card not in avoid}
            return out
        if phase == "wall":
            top = position["discard"][-1]
            wall_avoid = {top} if rules.forbid_discarding_taken_card else set()
            return {PASS} | ({KNOCK} if self.knock_allowed(hand | {top}, wall_avoid, limit) else set())
        if phase == "knock" and gin["knock_stage"] == 0:
            if rules.big_gin_bonus > 0 and min_deadwood(hand) == 0:
                out.add(KNOCK)
            forced = rules.gin_forced and self.gin_possible(hand, avoid)
            for card in hand - avoid:
                left = min_deadwood(hand - {card})
                if left <= limit and (left == 0 or not forced):
                    out.add(layout.discard(card))
            return out
        if phase == "knock":
            bound = 0 if gin["knock_stage"] == 2 else limit
            if sum(map(value, hand)) <= bound:
                out.add(PASS)
            for entry, meld in enumerate(self.melds):
                if set(meld) <= hand and min_deadwood(hand - set(meld)) <= bound:
                    out.add(layout.meld(entry))
            return out
        if phase == "layoff":
            return {PASS} | {layout.lay_off(0, card) for card in hand if self.fits(position, card)}
        if phase == "defend":
            return {PASS} | {layout.meld(entry) for entry, meld in enumerate(self.melds) if set(meld) <= hand}
        raise AssertionError(f"unknown phase {phase}")

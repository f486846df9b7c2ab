"""Meld planning for ``RamiHeuristicAgent``: which hand cards to lay this turn, and by which action.

A *piece* is one thing the hand can put on the table:

* a **new meld** from the hand: a set of 3–4 suits (or two naturals and a joker), or a run of 3–13
  positions with at most one joker (a joker only fills a gap, or completes a two-card run);
* an **extension** of a table meld: naturals laid off at one end of a run, or the missing suit of a
  set (at most one piece per meld end);
* a **take**: a new meld of two hand cards around a card taken from a table meld of 4+ cards (R13,
  once opened; at most one per meld).

``MeldPlanner.plan`` searches the disjoint combinations of pieces (card counts respected, one piece
per meld end, ``keep`` cards left for the final discard) for the one that removes the most hand
value, among those that reach the opening's missing points, hold a pure run when one is still
needed (R11.2), and lay the cards the turn owes (the discard top taken, a freed joker). Each piece
names the action that starts laying it: the MELD of its first three cards, the LAY_OFF of its
card next to the meld, or the TAKE; the agent replans after every action, so the rest of a long meld becomes an
extension of the slot just laid.

Points are the R10 values the engine counts for an opening (ace 1 low, 11 high or in a set, the
Lebanese fixed ace, a joker as the card it stands for or per ``joker_opening_value``); the value
removed is the R19 penalty of the cards (``rules.card_values``). Runs round the corner
(``circular_runs``) are left to the action mask.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from rummy_env import cards
from rummy_env.actions import ActionLayout
from rummy_env.melds import KIND_SET
from rummy_env.rules import RummyRules

JOKER = cards.JOKER
MAX_NODES = 2000  # combinations tried per plan; hands are small, this bounds the rare wide ones
LONGEST_RUN = 13


def card_at(suit: int, position: int) -> int:
    """The natural card of ``suit`` at run position ``position`` (14 is the high ace)."""
    return suit * cards.NUM_RANKS + (position - 1) % cards.NUM_RANKS


@dataclasses.dataclass(frozen=True)
class Piece:
    """One new meld or one extension of a table meld, laid from the hand."""

    cards: tuple[int, ...]  # card types taken from the hand (a joker is ``JOKER``)
    points: int             # R10 opening points
    value: int              # R19 hand value removed
    pure: bool              # a new run without a joker (R11.2)
    action: int             # the action that starts laying it
    end: int = -1           # the table meld end it extends (slot * 3 + end), 1000 + slot for a TAKE


@dataclasses.dataclass(frozen=True)
class Goal:
    """What a plan must achieve this turn."""

    need: int = 0                   # opening points still missing (0 once opened)
    need_pure: bool = False         # a pure run is still missing from the opening
    required: tuple[int, ...] = ()  # cards that must be laid (with repeats for several copies)
    keep: int = 1                   # cards left in hand for the final discard


@dataclasses.dataclass(frozen=True)
class TableMeld:
    """A table meld the hand may extend: a set of ``rank``, or a run of ``suit`` over ``lo..hi``."""

    slot: int
    kind: int
    key: int      # rank of a set, suit of a run
    lo: int = 0
    hi: int = 0
    suits: tuple[int, ...] = ()  # suits a set holds
    count: int = 0


class MeldPlanner:
    """Enumerates the pieces of a hand and picks the best combination (module docstring)."""

    def __init__(self, rules: RummyRules, layout: ActionLayout):
        self.rules, self.layout = rules, layout
        self.values = [int(v) for v in rules.card_values]
        self.burnt_rule = bool(rules.joker_run_requires_burnt)
        catalogue = layout.catalogue
        self.set_entries: dict[tuple[int, ...], int] = {}
        self.run_entries: dict[tuple[int, int, int], int] = {}
        for entry in range(len(catalogue)):
            if catalogue.kind[entry] == KIND_SET:
                self.set_entries[tuple(sorted(int(c) for c in catalogue.cards[entry]))] = entry
            else:
                key = (int(catalogue.key[entry]), int(catalogue.lo[entry]), int(catalogue.joker_at[entry]))
                self.run_entries[key] = entry

    # ------------------------------------------------------------------ points
    def points(self, card: int, position: int) -> int:
        """R10 value of natural ``card`` laid at run ``position`` (0: in a set)."""
        rank = cards.rank_of(card)
        if rank == 1:
            if self.rules.ace_fixed_value is not None:
                return self.rules.ace_fixed_value
            return 1 if position == 1 else 11
        return min(rank, 10)

    def joker_points(self, represented: int, position: int) -> int:
        """R10 value of a joker standing for ``represented`` (AR12, AR15)."""
        mode = self.rules.joker_opening_value
        if mode == "zero":
            return 0
        if mode == "represented":
            return self.points(represented, position)
        return int(mode)

    # ------------------------------------------------------------------ pieces
    def pieces(self, hand: np.ndarray, pending: np.ndarray, table: list[TableMeld], on_table: np.ndarray,
               takes: list[tuple[int, int, int]]) -> list[Piece]:
        """Every piece of ``hand`` (counts per card type): new melds, extensions of ``table`` (own
        copies only: ``pending`` cards taken from melds must go into new melds, R13), and new melds
        of two hand cards around a card of ``takes`` (``(slot, choice, card)``, R13).
        ``on_table`` counts the cards in table melds (a Lebanese joker run needs its card burnt)."""
        have = [int(n) for n in hand]
        own = [int(n) for n in hand - pending]
        found = self._sets(have) + self._runs(have, on_table)
        for meld in table:
            found += self._extensions(own, meld)
        for slot, choice, card in takes:
            found += self._around(own, slot, choice, card)
        return found

    def _sets(self, have: list[int]) -> list[Piece]:
        found = []
        jokers = have[JOKER] > 0
        for rank in range(1, cards.NUM_RANKS + 1):
            naturals = [card_at(suit, rank) for suit in range(cards.NUM_SUITS) if have[card_at(suit, rank)]]
            points = self.points(naturals[0], 0) if naturals else 0
            if len(naturals) >= 3:
                for size in range(3, len(naturals) + 1):
                    for members in itertools.combinations(naturals, size):
                        entry = self.set_entries[members[:3]]
                        found.append(Piece(members, points * size, sum(self.values[c] for c in members), False,
                                           self.layout.meld(entry)))
            elif len(naturals) == 2 and jokers:
                members = (naturals[0], naturals[1], JOKER)
                found.append(Piece(members, 2 * points + self.joker_points(naturals[0], 0),
                                   sum(self.values[c] for c in members), False, self.layout.meld(self.set_entries[members])))
        return found

    def _runs(self, have: list[int], on_table: np.ndarray) -> list[Piece]:
        found = []
        jokers = have[JOKER] > 0
        for suit in range(cards.NUM_SUITS):
            present = [False] + [have[card_at(suit, p)] > 0 for p in range(1, 15)]
            for lo in range(1, 13):
                gap, naturals = 0, 0
                for hi in range(lo, min(lo + LONGEST_RUN, 15)):
                    if present[hi]:
                        naturals += 1
                    elif gap or not jokers or (self.burnt_rule and on_table[card_at(suit, hi)] < 2):
                        break
                    else:
                        gap = hi
                    if hi - lo < 2:
                        continue
                    if not gap:
                        found.append(self._run(suit, lo, hi, 0))
                    elif naturals >= 2 and (lo < gap < hi or naturals == 2):
                        found.append(self._run(suit, lo, hi, gap))
        return found

    def _run(self, suit: int, lo: int, hi: int, gap: int) -> Piece:
        """The run ``lo..hi`` of ``suit``, with a joker at ``gap`` (0: none)."""
        members, points = [], 0
        for position in range(lo, hi + 1):
            card = card_at(suit, position)
            if position == gap:
                members.append(JOKER)
                points += self.joker_points(card, position)
            else:
                members.append(card)
                points += self.points(card, position)
        start = min(max(lo, gap - 2), hi - 2) if gap else lo
        entry = self.run_entries[(suit, start, gap if gap else -1)]
        return Piece(tuple(members), points, sum(self.values[c] for c in members), not gap, self.layout.meld(entry))

    def _extensions(self, have: list[int], meld: TableMeld) -> list[Piece]:
        found = []
        lay_off = self.layout.lay_off
        if meld.kind == KIND_SET:
            if meld.count < 4:
                for suit in range(cards.NUM_SUITS):
                    card = card_at(suit, meld.key)
                    if suit not in meld.suits and have[card]:
                        found.append(Piece((card,), self.points(card, 0), self.values[card], False,
                                           lay_off(meld.slot, card), meld.slot * 3))
            return found
        for step, end in ((-1, 1), (1, 2)):
            edge = meld.lo if step < 0 else meld.hi
            members, points = [], 0
            position = edge + step
            while 1 <= position <= 14 and len(members) + meld.hi - meld.lo + 1 < LONGEST_RUN:
                card = card_at(meld.key, position)
                if not have[card] or members.count(card) >= have[card]:
                    break
                members.append(card)
                points += self.points(card, position)
                found.append(Piece(tuple(members), points, sum(self.values[c] for c in members), False,
                                   lay_off(meld.slot, members[0]), meld.slot * 3 + end))
                position += step
        return found

    def _around(self, have: list[int], slot: int, choice: int, taken: int) -> list[Piece]:
        """New melds of ``taken`` (to be taken from ``slot``) and two natural hand cards: the set of
        its rank, or a run with it at either end or in the middle; the first action is the TAKE."""
        rank, suit = cards.rank_of(taken), cards.suit_of(taken)
        groups = [tuple(card_at(other, rank) for other in pair)
                  for pair in itertools.combinations([s for s in range(cards.NUM_SUITS) if s != suit], 2)]
        position = rank if rank > 1 else None
        for start in ((position - 2, position - 1, position) if position else (1, 12)):
            if 1 <= start and start + 2 <= 14:
                groups.append(tuple(card_at(suit, p) for p in range(start, start + 3) if card_at(suit, p) != taken))
        action = self.layout.take(slot, choice)
        return [Piece(group, 0, sum(self.values[c] for c in group), False, action, 1000 + slot)
                for group in groups if len(group) == 2 and all(have[c] for c in group) and group[0] != group[1]]

    # ------------------------------------------------------------------ search
    def plan(self, pieces: list[Piece], hand: np.ndarray, goal: Goal) -> list[Piece] | None:
        """The best combination of ``pieces`` for ``goal`` (module docstring), in the order to lay
        them (a needed pure run first); ``None`` if no combination meets the goal."""
        order = sorted(pieces, key=lambda piece: -piece.value)
        have = [int(n) for n in hand]
        room = sum(have) - goal.keep
        if goal.need > 0 and sum(piece.points for piece in order) < goal.need:
            return None
        suffix = list(itertools.accumulate(piece.value for piece in reversed(order)))[::-1] + [0]
        used = [0] * len(have)
        required = {card: goal.required.count(card) for card in set(goal.required)}
        best: list = [None, -1]
        chosen: list[Piece] = []
        ends: set[int] = set()
        nodes = 0

        def meets(points: int, pure: bool) -> bool:
            return (points >= goal.need and (pure or not goal.need_pure)
                    and all(used[card] >= n for card, n in required.items()))

        def search(start: int, points: int, value: int, laid: int, pure: bool) -> None:
            nonlocal nodes
            nodes += 1
            if value > best[1] and meets(points, pure):
                best[0], best[1] = list(chosen), value
            for k in range(start, len(order)):
                if nodes > MAX_NODES or value + suffix[k] <= best[1]:
                    return
                piece = order[k]
                if laid + len(piece.cards) > room or (piece.end >= 0 and piece.end in ends):
                    continue
                if any(used[card] + piece.cards.count(card) > have[card] for card in piece.cards):
                    continue
                for card in piece.cards:
                    used[card] += 1
                chosen.append(piece)
                if piece.end >= 0:
                    ends.add(piece.end)
                search(k + 1, points + piece.points, value + piece.value, laid + len(piece.cards), pure or piece.pure)
                if piece.end >= 0:
                    ends.discard(piece.end)
                chosen.pop()
                for card in piece.cards:
                    used[card] -= 1

        search(0, 0, 0, 0, False)
        if best[0] is None:
            return None
        return sorted(best[0], key=lambda piece: not (piece.pure and goal.need_pure))

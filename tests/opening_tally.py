"""An independent tally of the rami51 opening count (R10, R11.1, R13, R14, R16), for the property tests.

It follows one turn from the actions and the public snapshots only (never the engine's ``turn_points``):
which own cards the player to act has laid on which meld this turn, dropping a card that a TAKE brings back
or a SWAP frees, and values them with R10 where they sit on the table now. Cards taken from melds (pending,
R13) and freed jokers (R14) are not own cards and never count; an UNDO (R24) or a TAKE_BACK (R25) clears the tally.

``OpeningTally.points(table)`` is the count that a COMMIT and an all-at-once out must be judged on.
"""

from __future__ import annotations

from collections import Counter

JOKER = 52


def _cards(meld: dict) -> Counter:
    return Counter(int(c) for c in meld["cards"])


class OpeningTally:
    """Own cards laid this turn: entries ``[slot, card, position]`` (``position`` a run position, else None)."""

    def __init__(self, rules, layout):
        self.rules, self.layout = rules, layout
        self.entries: list[list] = []

    # ------------------------------------------------------------------ following the turn
    def apply(self, action: int, pre: dict, post: dict) -> None:
        """Book ``action`` of the player to act, taken from snapshot ``pre`` to snapshot ``post``."""
        kind = self.layout.decode(action)
        name = kind[0]
        turn = pre.get("turn_state", {})
        if name in ("undo", "take_back"):          # R24, R25: the turn's plays go back
            self.entries = []
        elif name == "meld":
            slot = len(pre["table"])
            pending = Counter(int(c) for c in turn.get("pending", []))
            freed = int(turn.get("freed_jokers", 0))
            for card in self.layout.catalogue[kind[1]][0]:
                card = int(card)
                if card == JOKER and freed > 0:
                    freed -= 1
                elif pending[card] > 0:
                    pending[card] -= 1
                else:
                    self._add(post, slot, card)
        elif name == "lay":
            slot, code = kind[1], kind[2]
            card = min(code, JOKER)
            freed = int(turn.get("freed_jokers", 0))
            if not (card == JOKER and self.rules.freed_joker_use == "new_meld_or_layoff" and freed > 0):
                self._add(post, slot, card, pre["table"][slot])
        elif name == "take":
            slot = kind[1]
            gone = _cards(pre["table"][slot]) - _cards(post["table"][slot])
            card = next(iter(gone))
            before = pre["table"][slot]
            end = (before["lo"] if kind[2] == 0 else before["hi"]) if before["kind"] == "run" else None
            self._remove(slot, card, end)
        elif name == "swap":
            slot = kind[1]
            before = pre["table"][slot]
            natural = next(iter(_cards(post["table"][slot]) - _cards(before)))
            self._remove(slot, JOKER, None)
            position = before["joker_at"] if before["kind"] == "run" else None
            self.entries.append([slot, natural, position if not self.rules.circular_runs else None])

    def _add(self, post: dict, slot: int, card: int, before: dict | None = None) -> None:
        meld = post["table"][slot]
        position = None
        if meld["kind"] == "run" and card != JOKER and not self.rules.circular_runs:
            if before is None:        # a new run: the card's one position in it
                position = next(p for p in range(meld["lo"], meld["hi"] + 1)
                                if p != meld["joker_at"] and self._at(meld, p) == card)
            else:                     # a lay-off: the end that moved
                position = meld["lo"] if meld["lo"] < before["lo"] else meld["hi"]
        self.entries.append([slot, card, position])

    def _remove(self, slot: int, card: int, end: int | None) -> None:
        for k, (s, c, position) in enumerate(self.entries):
            if s == slot and c == card and (card == JOKER or position is None or end is None or position == end):
                del self.entries[k]
                return

    # ------------------------------------------------------------------ R10 from the table
    @staticmethod
    def _at(meld: dict, position: int) -> int:
        suit = next(int(c) for c in meld["cards"] if c != JOKER) // 13
        return suit * 13 + (position - 1) % 13

    def _natural(self, card: int, ace_high: bool) -> int:
        rank = card % 13 + 1
        if rank == 1:
            if self.rules.ace_fixed_value is not None:
                return self.rules.ace_fixed_value
            return 11 if ace_high else 1
        return min(rank, 10)

    def _joker(self, represented_value: int) -> int:
        mode = self.rules.joker_opening_value
        if mode == "zero":
            return 0
        if isinstance(mode, int):
            return mode
        return represented_value

    def value(self, meld: dict, card: int, position: int | None) -> int:
        """R10 value of ``card`` where it sits in ``meld`` (a joker: the card it represents, AR12, AR15)."""
        if meld["kind"] == "set":
            rank_card = next(int(c) for c in meld["cards"] if c != JOKER)
            return self._joker(self._natural(rank_card, True)) if card == JOKER else self._natural(card, True)
        if card == JOKER:
            p = meld["joker_at"]
            return self._joker(self._natural(self._at(meld, p), p > meld["lo"] if self.rules.circular_runs else p == 14))
        if position is None:          # circular: the card's one position; an ace is high right after a king
            position = next(p for p in range(meld["lo"], meld["hi"] + 1)
                            if p != meld["joker_at"] and self._at(meld, p) == card)
            return self._natural(card, position > meld["lo"])
        return self._natural(card, position == 14)

    def points(self, table: list[dict]) -> int:
        return sum(self.value(table[slot], card, position) for slot, card, position in self.entries)

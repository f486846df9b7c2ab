"""The flat action layout: one ``Discrete(A)`` space whose blocks are derived from the rules.

A turn is a few sub-steps taken by the same player: draw, then any number of plays, then a discard
(or going out by a play). For ruleset ``basic`` with ``S`` table slots, ``T`` card types and a meld
catalogue of ``M`` entries (``rummy_env.melds``):

=============================  ==============================================================
action id                      meaning
=============================  ==============================================================
``0``                          DRAW_STOCK: take the top card of the stock
``1``                          DRAW_DISCARD: take the top card of the discard pile
``2 .. 2+M-1``                 MELD ``m``: lay catalogue meld ``m`` (3 cards) into the first empty slot
``2+M + s*T + t``              LAY_OFF card ``t`` onto the meld in table slot ``s``
``2+M+S*T + t``                DISCARD card ``t`` (ends the turn, or goes out with the last card)
=============================  ==============================================================

Defaults (basic, any player count): ``M = 96`` (52 sets + 44 runs), ``S = 17``, ``T = 52``,
``A = 1034``. ``ace_high_or_low`` adds the four Q-K-A runs (``M = 100``) and ``round_the_corner``
the four K-A-2 runs (``M = 104``).
"""

from __future__ import annotations

import dataclasses

from rummy_env import cards
from rummy_env.melds import KIND_SET, MeldCatalogue, build_catalogue
from rummy_env.rules import RummyRules

DRAW_STOCK = 0
DRAW_DISCARD = 1


@dataclasses.dataclass(frozen=True)
class ActionLayout:
    """Offsets of the action blocks for one rules config, with encode/decode helpers."""

    catalogue: MeldCatalogue
    num_slots: int
    num_card_types: int

    @classmethod
    def for_rules(cls, rules: RummyRules) -> "ActionLayout":
        return cls(build_catalogue(rules), rules.num_slots, rules.num_card_types)

    @property
    def meld_offset(self) -> int:
        return 2

    @property
    def layoff_offset(self) -> int:
        return self.meld_offset + len(self.catalogue)

    @property
    def discard_offset(self) -> int:
        return self.layoff_offset + self.num_slots * self.num_card_types

    @property
    def num_actions(self) -> int:
        return self.discard_offset + self.num_card_types

    def meld(self, entry: int) -> int:
        return self.meld_offset + entry

    def lay_off(self, slot: int, card: int) -> int:
        return self.layoff_offset + slot * self.num_card_types + card

    def discard(self, card: int) -> int:
        return self.discard_offset + card

    def meld_entry(self, meld_cards: list[int] | tuple[int, ...]) -> int:
        """Catalogue entry holding exactly these three cards (``ValueError`` if there is none)."""
        wanted = sorted(int(card) for card in meld_cards)
        for entry, members in enumerate(self.catalogue.cards):
            if sorted(members.tolist()) == wanted:
                return entry
        raise ValueError(f"{cards.names(wanted)} is not a 3-card meld of the catalogue under these rules")

    def decode(self, action: int) -> tuple[str, int, int]:
        """``(kind, a, b)``: ("draw_stock"|"draw_discard", -1, -1), ("meld", entry, -1),
        ("lay_off", slot, card) or ("discard", card, -1)."""
        action = int(action)
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is outside the action space 0..{self.num_actions - 1}")
        if action == DRAW_STOCK:
            return "draw_stock", -1, -1
        if action == DRAW_DISCARD:
            return "draw_discard", -1, -1
        if action < self.layoff_offset:
            return "meld", action - self.meld_offset, -1
        if action < self.discard_offset:
            slot, card = divmod(action - self.layoff_offset, self.num_card_types)
            return "lay_off", slot, card
        return "discard", action - self.discard_offset, -1

    def to_str(self, action: int) -> str:
        """The action in words, e.g. ``"lay off 7♥ on slot 2"``."""
        kind, a, b = self.decode(action)
        if kind == "draw_stock":
            return "draw from the stock"
        if kind == "draw_discard":
            return "take the discard top"
        if kind == "meld":
            members = " ".join(cards.symbol(int(card)) for card in self.catalogue.cards[a])
            what = "set" if self.catalogue.kind[a] == KIND_SET else "run"
            return f"meld {what} {members}"
        if kind == "lay_off":
            return f"lay off {cards.symbol(b)} on slot {a}"
        return f"discard {cards.symbol(a)}"

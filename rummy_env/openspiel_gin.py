"""Gin between this package and OpenSpiel 2.0.2's ``gin_rummy``: cards, melds, actions and deals mapped both
ways (preset ``gin_openspiel``, G13). Plain Python: it does not import OpenSpiel.

=====================  ======================================  =========================================
                       rummy_env (``rummy_env.actions``)       OpenSpiel ``gin_rummy``
=====================  ======================================  =========================================
card                   ``suit * 13 + rank0``, suits C D H S    ``suit * 13 + rank0``, suits s c d h
take the upcard        DRAW_DISCARD (1)                        52
draw from the stock    DRAW_STOCK (0)                          53, then a chance outcome: the card
pass                   PASS (2)                                54
knock                  KNOCK (3)                               55
meld                   MELD ``m`` (4 + m)                      56 + OpenSpiel's meld id (185 melds)
lay off / discard      LAY_OFF ``t`` / DISCARD ``t``           the card (OpenSpiel's lay-off phase /
                                                               otherwise a discard)
=====================  ======================================  =========================================

A deal: OpenSpiel deals 10 cards to its player 0, 10 to player 1, the upcard, and each later draw from the
stock is a chance outcome. The same deal in ``RummyEngine``: seat ``p`` is OpenSpiel's player ``p``, seat 1
deals (OpenSpiel's player 0 always starts), and the deck of ``RummyEngine.reset(decks=...)`` is the two
hands dealt alternately, then the upcard, then the stock from the top (``engine_deck``).
"""

from __future__ import annotations

from typing import Sequence

from rummy_env import cards
from rummy_env.actions import DRAW_DISCARD, DRAW_STOCK, ActionLayout

OS_DRAW_UPCARD, OS_DRAW_STOCK, OS_PASS, OS_KNOCK, OS_MELD_BASE = 52, 53, 54, 55, 56
OS_NUM_MELDS = 185
DEALER = 1  # our seat that deals when OpenSpiel's player 0 starts


def to_openspiel_card(card: int) -> int:
    """Our card type -> OpenSpiel's card id."""
    return cards.card_type(cards.rank_of(card), (cards.suit_of(card) + 1) % 4)


def from_openspiel_card(card: int) -> int:
    """OpenSpiel's card id -> our card type."""
    return cards.card_type(cards.rank_of(card), (cards.suit_of(card) + 3) % 4)


def openspiel_meld_id(meld_cards: Sequence[int]) -> int:
    """OpenSpiel's id (0..184) of a meld given by our card types: sets by rank (the four 3-card sets by the
    suit they lack, s c d h, then the 4-card set), then runs of 3, 4 and 5 by suit (s c d h) and lowest rank."""
    theirs = sorted(to_openspiel_card(card) for card in meld_cards)
    ranks = {card % 13 for card in theirs}
    if len(ranks) == 1:
        rank = theirs[0] % 13
        if len(theirs) == 4:
            return rank * 5 + 4
        missing = ({0, 1, 2, 3} - {card // 13 for card in theirs}).pop()
        return rank * 5 + missing
    suit, low, size = theirs[0] // 13, theirs[0] % 13, len(theirs)
    offset = 65 + (0, 0, 0, 0, 44, 84)[size]
    return offset + suit * (14 - size) + low


class ActionMap:
    """Our gin actions <-> OpenSpiel's, for one ``ActionLayout`` (see the module docstring)."""

    def __init__(self, layout: ActionLayout):
        self.layout = layout
        catalogue = layout.catalogue
        self.meld_to_os = [openspiel_meld_id(catalogue.members(entry)) for entry in range(len(catalogue))]
        self.os_to_meld = {os_id: entry for entry, os_id in enumerate(self.meld_to_os)}
        if sorted(self.os_to_meld) != list(range(OS_NUM_MELDS)):
            raise ValueError("this layout's meld catalogue is not OpenSpiel's: use ruleset 'gin'")

    def to_openspiel(self, action: int) -> int:
        kind, a, b = self.layout.decode(action)
        if kind == "draw_stock":
            return OS_DRAW_STOCK
        if kind == "draw_discard":
            return OS_DRAW_UPCARD
        if kind == "pass":
            return OS_PASS
        if kind == "knock":
            return OS_KNOCK
        if kind == "meld":
            return OS_MELD_BASE + self.meld_to_os[a]
        if kind == "lay_off":
            return to_openspiel_card(b)
        return to_openspiel_card(a)

    def from_openspiel(self, action: int, laying_off: bool) -> int:
        """Our action for OpenSpiel's ``action``; ``laying_off``: the defender is laying off (OpenSpiel's card
        actions are then lay-offs, otherwise discards)."""
        if action < 52:
            card = from_openspiel_card(action)
            return self.layout.lay_off(0, card) if laying_off else self.layout.discard(card)
        if action >= OS_MELD_BASE:
            return self.layout.meld(self.os_to_meld[action - OS_MELD_BASE])
        return {OS_DRAW_UPCARD: DRAW_DISCARD, OS_DRAW_STOCK: DRAW_STOCK, OS_PASS: self.layout.special("pass"),
                OS_KNOCK: self.layout.special("knock")}[action]

    def mask_to_openspiel(self, mask) -> list[int]:
        """Our legal mask as OpenSpiel's sorted legal actions."""
        return sorted(self.to_openspiel(int(action)) for action in mask.nonzero()[0])


def engine_deck(player0: Sequence[int], player1: Sequence[int], upcard: int, stock: Sequence[int]) -> list[int]:
    """Our deck (card types) for OpenSpiel's deal: player 0's and player 1's 10 cards dealt alternately (seat 1
    dealing), the upcard, then the stock from the top (each later chance outcome in order)."""
    dealt = [card for pair in zip(player0, player1) for card in pair]
    return dealt + [upcard] + list(stock)

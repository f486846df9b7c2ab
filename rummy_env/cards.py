"""Card identities, names and point values.

A *card type* is what the rules care about: ``t = suit * 13 + (rank - 1)`` for the 52 naturals,
with suits in the order clubs, diamonds, hearts, spades (``C D H S``) and ranks ``1 = A`` …
``11 = J, 12 = Q, 13 = K``. Rulesets with jokers (rami51) add one more type, ``JOKER = 52``.
Two physical cards of the same type (two packs) are identical for the rules, so every table in the
engine is indexed by card type and holds a *count*.

Names are ``rank + suit``: ``"AS"``, ``"10H"`` (``"TH"`` is accepted when parsing), ``"KD"``,
``"JK"`` for the joker. ``symbol()`` gives the display form with suit symbols (``"10♥"``).
"""

from __future__ import annotations

from typing import Iterable

NUM_SUITS = 4
NUM_RANKS = 13
NUM_NATURAL_TYPES = NUM_SUITS * NUM_RANKS
JOKER = NUM_NATURAL_TYPES

SUIT_LETTERS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def card_type(rank: int, suit: int) -> int:
    """The card type of a natural card; ``rank`` in 1..13, ``suit`` in 0..3."""
    if not (1 <= rank <= NUM_RANKS and 0 <= suit < NUM_SUITS):
        raise ValueError(f"no natural card with rank {rank} and suit {suit}")
    return suit * NUM_RANKS + rank - 1


def rank_of(card: int) -> int:
    """Rank 1..13 of a natural card type."""
    return card % NUM_RANKS + 1


def suit_of(card: int) -> int:
    """Suit 0..3 of a natural card type."""
    return card // NUM_RANKS


def name(card: int) -> str:
    """``"10H"``-style name of a card type."""
    if card == JOKER:
        return "JK"
    if not 0 <= card < NUM_NATURAL_TYPES:
        raise ValueError(f"{card} is not a card type")
    return RANK_NAMES[rank_of(card) - 1] + SUIT_LETTERS[suit_of(card)]


def symbol(card: int) -> str:
    """``"10♥"``-style display form of a card type."""
    if card == JOKER:
        return "🃏"
    return RANK_NAMES[rank_of(card) - 1] + SUIT_SYMBOLS[suit_of(card)]


def parse(text: str) -> int:
    """Card type of a name such as ``"AS"``, ``"10h"``, ``"TD"``, ``"7♥"`` or ``"JK"``."""
    token = text.strip().upper()
    if token in ("JK", "JOKER"):
        return JOKER
    if len(token) < 2:
        raise ValueError(f"cannot parse card {text!r}: expected rank then suit, e.g. '7H' or '10S'")
    rank_text, suit_text = token[:-1], token[-1]
    rank_text = "10" if rank_text == "T" else rank_text
    suit_text = SUIT_LETTERS[SUIT_SYMBOLS.index(suit_text)] if suit_text in SUIT_SYMBOLS else suit_text
    if rank_text not in RANK_NAMES or suit_text not in SUIT_LETTERS:
        raise ValueError(f"cannot parse card {text!r}: ranks are {', '.join(RANK_NAMES)}; suits are C D H S")
    return card_type(RANK_NAMES.index(rank_text) + 1, SUIT_LETTERS.index(suit_text))


def parse_many(text: str | Iterable[str]) -> list[int]:
    """Card types of a space-separated string (``"AS 2S 3S"``) or of an iterable of names."""
    tokens = text.split() if isinstance(text, str) else list(text)
    return [parse(token) for token in tokens]


def names(cards: Iterable[int]) -> str:
    """Space-separated names of card types."""
    return " ".join(name(int(card)) for card in cards)

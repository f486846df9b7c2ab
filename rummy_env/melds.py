"""Meld validity and the catalogue of new 3-card melds, built once per rules config.

Every longer meld is a 3-card meld plus lay-offs, so a new meld is chosen from a catalogue of
3-card sets and runs (DESIGN.md, Actions). A run is described by its suit and the *positions* of its
ends: position ``p`` holds rank ``(p - 1) % 13 + 1``, so an ace is position 1 (low) or 14 (high,
B15) and a round-the-corner run K-A-2 is positions 13..15.

Catalogue order (the action layout depends on it):

1. sets: for rank 1..13, for the omitted suit 0..3, the three cards of that rank in the other suits;
2. (rami51) joker sets: for rank 1..13, for suits ``a < b``, the two naturals and a joker (R9);
3. runs: for suit 0..3, for start in ``run_starts(rules)``, positions start, start+1, start+2, and
   (rami51) after each the three variants with the joker at offset 0, 1, 2 standing for that card
   (the joker's represented card is fixed by the entry, AR5).

Gin lays whole melds of 3 to 5 cards (G5, like OpenSpiel: a run of 6 or more is laid as two), so its catalogue
(``M = 185``) is, in this order: for rank 1..13, its four 3-card sets (by omitted suit 0..3) then its 4-card set;
runs of 3 (for suit 0..3, for start A..J), runs of 4 (start A..10), runs of 5 (start A..9). ``cards`` then has
5 columns, padded with -1 (``members`` gives an entry's cards).

``joker_at`` of an entry is the run position its joker occupies, or -1 (no joker, or a 3-card joker
set, whose joker represents one of two missing suits: undetermined, R9).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from rummy_env import cards
from rummy_env.rules import RummyRules

KIND_EMPTY, KIND_SET, KIND_RUN = 0, 1, 2


def rank_at(position: int) -> int:
    """Rank held by a run position (14 is the high ace; positions past 14 wrap round the corner)."""
    return (position - 1) % cards.NUM_RANKS + 1


def run_starts(rules: RummyRules) -> range:
    """First positions of the catalogue's 3-card runs: A23..JQK, plus QKA (ace high), plus KA2 (corner)."""
    if rules.wraps_runs:
        return range(1, 14)
    return range(1, rules.max_run_position - 1)


@dataclasses.dataclass(frozen=True)
class MeldCatalogue:
    """The 3-card melds a player may lay as a new meld, as parallel arrays of length ``M``."""

    cards: np.ndarray  # (M, W) card types, W the longest meld (3; gin 5), padded with -1
    kind: np.ndarray   # (M,) KIND_SET or KIND_RUN
    key: np.ndarray    # (M,) rank of a set, suit of a run
    lo: np.ndarray     # (M,) lowest position (a set: its rank)
    hi: np.ndarray     # (M,) highest position (a set: its rank)
    joker_at: np.ndarray  # (M,) run position of the entry's joker, or -1

    def __len__(self) -> int:
        return len(self.kind)

    def members(self, entry: int) -> list[int]:
        """The cards of catalogue meld ``entry`` (sorted as laid out in the catalogue)."""
        return [int(card) for card in self.cards[entry] if card >= 0]

    @property
    def sizes(self) -> np.ndarray:
        """(M,) cards per meld."""
        return (self.cards >= 0).sum(axis=1)


def build_catalogue(rules: RummyRules) -> MeldCatalogue:
    """The catalogue for ``rules`` in the documented order (its family's, ``Traits.catalogue``)."""
    return _standard_catalogue(rules) if rules.traits.catalogue == "standard" else _gin_catalogue()


def _standard_catalogue(rules: RummyRules) -> MeldCatalogue:
    """Sets of three ranks and three-card runs (B8, R8), with a joker in each place where the deck has jokers."""
    jokers = rules.num_jokers > 0
    rows: list[tuple[tuple[int, int, int], int, int, int, int, int]] = []
    for rank in range(1, cards.NUM_RANKS + 1):
        for omitted in range(cards.NUM_SUITS):
            members = tuple(cards.card_type(rank, suit) for suit in range(cards.NUM_SUITS) if suit != omitted)
            rows.append((members, KIND_SET, rank, rank, rank, -1))
    if jokers:
        for rank in range(1, cards.NUM_RANKS + 1):
            for low in range(cards.NUM_SUITS):
                for high in range(low + 1, cards.NUM_SUITS):
                    members = (cards.card_type(rank, low), cards.card_type(rank, high), cards.JOKER)
                    rows.append((members, KIND_SET, rank, rank, rank, -1))
    for suit in range(cards.NUM_SUITS):
        for start in run_starts(rules):
            positions = range(start, start + 3)
            members = tuple(cards.card_type(rank_at(p), suit) for p in positions)
            rows.append((members, KIND_RUN, suit, start, start + 2, -1))
            if jokers:
                for offset in range(3):
                    with_joker = tuple(cards.JOKER if k == offset else card for k, card in enumerate(members))
                    rows.append((with_joker, KIND_RUN, suit, start, start + 2, start + offset))
    return MeldCatalogue(
        cards=np.array([row[0] for row in rows], dtype=np.int16),
        kind=np.array([row[1] for row in rows], dtype=np.int8),
        key=np.array([row[2] for row in rows], dtype=np.int8),
        lo=np.array([row[3] for row in rows], dtype=np.int8),
        hi=np.array([row[4] for row in rows], dtype=np.int8),
        joker_at=np.array([row[5] for row in rows], dtype=np.int8),
    )


def _gin_catalogue() -> MeldCatalogue:
    """Whole gin melds of 3 to 5 cards (G5) in the documented order."""
    rows = []
    for rank in range(1, cards.NUM_RANKS + 1):
        for omitted in range(cards.NUM_SUITS + 1):  # omitted suit 4: the 4-card set
            members = tuple(cards.card_type(rank, suit) for suit in range(cards.NUM_SUITS) if suit != omitted)
            rows.append((members, KIND_SET, rank, rank, rank))
    for length in (3, 4, 5):
        for suit in range(cards.NUM_SUITS):
            for start in range(1, cards.NUM_RANKS - length + 2):
                members = tuple(cards.card_type(start + k, suit) for k in range(length))
                rows.append((members, KIND_RUN, suit, start, start + length - 1))
    padded = np.full((len(rows), 5), -1, dtype=np.int16)
    for entry, row in enumerate(rows):
        padded[entry, :len(row[0])] = row[0]
    return MeldCatalogue(
        cards=padded, kind=np.array([row[1] for row in rows], dtype=np.int8),
        key=np.array([row[2] for row in rows], dtype=np.int8), lo=np.array([row[3] for row in rows], dtype=np.int8),
        hi=np.array([row[4] for row in rows], dtype=np.int8), joker_at=np.full(len(rows), -1, dtype=np.int8))


def describe_meld(meld_cards: list[int], rules: RummyRules, joker_at: int | None = None) -> tuple[int, int, int, int, int]:
    """``(kind, key, lo, hi, joker_at)`` of a valid meld given by its cards; ``ValueError`` if it is none.

    ``joker_at`` (rami51) is the run position of the meld's joker (asked for when the joker could stand
    at more than one place), a 4-card set's missing suit, else -1. Used to load positions written by
    hand; the engine itself grows melds one card at a time."""
    members = sorted(int(card) for card in meld_cards)
    jokers = members.count(cards.JOKER)
    naturals = [card for card in members if card != cards.JOKER]
    ranks = [cards.rank_of(card) for card in naturals]
    suits = [cards.suit_of(card) for card in naturals]
    if len(members) < 3 or jokers > min(1, rules.num_jokers) or len(set(naturals)) != len(naturals) and len(members) < 14:
        raise ValueError(f"{cards.names(members)} is not a meld: at least 3 cards, distinct naturals, at most one joker")
    if len(set(ranks)) == 1 and len(members) <= 4 and len(set(suits)) == len(suits):
        missing = [suit for suit in range(cards.NUM_SUITS) if suit not in suits]
        return KIND_SET, ranks[0], ranks[0], ranks[0], missing[0] if jokers and len(members) == 4 else -1
    if len(set(suits)) == 1:
        for lo, hi, position in _run_spans(sorted(ranks), jokers, rules):
            if joker_at is None or position == joker_at:
                return KIND_RUN, suits[0], lo, hi, position
    raise ValueError(f"{cards.names(members)} is not a set or a run under these rules")


def _run_spans(ranks: list[int], jokers: int, rules: RummyRules):
    """``(lo, hi, joker position or -1)`` under which ``ranks`` (sorted) and ``jokers`` form one run."""
    length = len(ranks) + jokers
    if rules.wraps_runs:
        starts, longest = range(1, 14), 13
    else:
        starts, longest = range(1, rules.max_run_position - length + 2), rules.max_run_position
        if not rules.allow_ace_both_ends:   # a rami51 knob (AR10): basic's and gin's ace ends by run_top
            longest = 13
    if length > longest:
        return
    for start in starts:
        positions = range(start, start + length)
        for position in (positions if jokers else [-1]):
            if sorted(rank_at(p) for p in positions if p != position) == ranks:
                yield start, start + length - 1, position

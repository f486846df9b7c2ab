"""Meld validity and the catalogue of new 3-card melds, built once per rules config.

Every longer meld is a 3-card meld plus lay-offs, so a new meld is chosen from a catalogue of
3-card sets and runs (DESIGN.md, Actions). A run is described by its suit and the *positions* of its
ends: position ``p`` holds rank ``(p - 1) % 13 + 1``, so an ace is position 1 (low) or 14 (high,
B15) and a round-the-corner run K-A-2 is positions 13..15.

Catalogue order (the action layout depends on it):

1. sets: for rank 1..13, for the omitted suit 0..3, the three cards of that rank in the other suits;
2. runs: for suit 0..3, for start in ``run_starts(rules)``, positions start, start+1, start+2.
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
    if rules.round_the_corner:
        return range(1, 14)
    return range(1, rules.max_run_position - 1)


@dataclasses.dataclass(frozen=True)
class MeldCatalogue:
    """The 3-card melds a player may lay as a new meld, as parallel arrays of length ``M``."""

    cards: np.ndarray  # (M, 3) card types
    kind: np.ndarray   # (M,) KIND_SET or KIND_RUN
    key: np.ndarray    # (M,) rank of a set, suit of a run
    lo: np.ndarray     # (M,) lowest position (a set: its rank)
    hi: np.ndarray     # (M,) highest position (a set: its rank)

    def __len__(self) -> int:
        return len(self.kind)


def build_catalogue(rules: RummyRules) -> MeldCatalogue:
    """The catalogue for ``rules`` in the documented order."""
    rows: list[tuple[tuple[int, int, int], int, int, int, int]] = []
    for rank in range(1, cards.NUM_RANKS + 1):
        for omitted in range(cards.NUM_SUITS):
            members = tuple(cards.card_type(rank, suit) for suit in range(cards.NUM_SUITS) if suit != omitted)
            rows.append((members, KIND_SET, rank, rank, rank))
    for suit in range(cards.NUM_SUITS):
        for start in run_starts(rules):
            members = tuple(cards.card_type(rank_at(p), suit) for p in range(start, start + 3))
            rows.append((members, KIND_RUN, suit, start, start + 2))
    return MeldCatalogue(
        cards=np.array([row[0] for row in rows], dtype=np.int16),
        kind=np.array([row[1] for row in rows], dtype=np.int8),
        key=np.array([row[2] for row in rows], dtype=np.int8),
        lo=np.array([row[3] for row in rows], dtype=np.int8),
        hi=np.array([row[4] for row in rows], dtype=np.int8),
    )


def describe_meld(meld_cards: list[int], rules: RummyRules) -> tuple[int, int, int, int]:
    """``(kind, key, lo, hi)`` of a valid meld given by its cards; ``ValueError`` if it is none.

    Used to load positions written by hand; the engine itself grows melds one card at a time."""
    members = sorted(int(card) for card in meld_cards)
    ranks = [cards.rank_of(card) for card in members]
    suits = [cards.suit_of(card) for card in members]
    if len(members) < 3 or len(set(members)) != len(members):
        raise ValueError(f"{cards.names(members)} is not a meld: a meld has at least 3 distinct cards")
    if len(set(ranks)) == 1 and len(members) <= 4:
        return KIND_SET, ranks[0], ranks[0], ranks[0]
    if len(set(suits)) == 1:
        for lo, hi in _run_spans(sorted(ranks), rules):
            return KIND_RUN, suits[0], lo, hi
    raise ValueError(f"{cards.names(members)} is not a set or a run under these rules")


def _run_spans(ranks: list[int], rules: RummyRules):
    """Position spans ``(lo, hi)`` under which ``ranks`` (sorted) form one run."""
    length = len(ranks)
    starts = range(1, 14) if rules.round_the_corner else range(1, rules.max_run_position - length + 2)
    if length > 13:
        return
    for start in starts:
        if sorted(rank_at(p) for p in range(start, start + length)) == ranks:
            yield start, start + length - 1

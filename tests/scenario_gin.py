"""Helpers for the scripted gin scenarios (tests/test_rules_gin.py), through the public engine API only.

Positions are written by hand (``RummyEngine.load``), actions are named in words (``"take"``, ``"draw"``,
``"pass"``, ``"knock"``, ``"discard 7S"``, ``"meld 5S 6S 7S"``, ``"layoff 8S"``), and every step is checked
against the mask before it is taken.
"""

from __future__ import annotations

import re
from typing import Sequence

import pytest

from rummy_env import IllegalActionError, RummyEngine, RummyRules, cards
from rummy_env.actions import DRAW_DISCARD, DRAW_STOCK


def ids(text: str) -> list[int]:
    return sorted(cards.parse_many(text)) if text else []


def gin(preset: str = "gin", **knobs) -> RummyEngine:
    """A one-row gin engine; seat 1 deals (seat 0 acts first) unless ``first_dealer`` says otherwise."""
    knobs.setdefault("first_dealer", 1)
    return RummyEngine(RummyRules.preset(preset, **knobs), batch_size=1)


def load(eng: RummyEngine, hands: Sequence[str], *, discard: str = "", stock_next: str = "", phase: str = "play",
         current: int = 0, table: Sequence[tuple[int, str]] = (), taken: str | None = None,
         stock_size: int | None = None,
         **gin_fields) -> None:
    """Load a gin position: ``discard`` bottom to top (its last card is the upcard), ``stock_next`` the cards drawn
    next (first named first); every other card goes to the bottom of the stock (``stock_size``: only that many
    cards in the stock in all, the rest added to the bottom of the discard pile)."""
    hand_lists = [ids(h) for h in hands]
    melds = [{"owner": owner, "cards": ids(c)} for owner, c in table]
    pile = cards.parse_many(discard) if discard else []
    upcoming = cards.parse_many(stock_next) if stock_next else []
    placed = [c for h in hand_lists for c in h] + [c for m in melds for c in m["cards"]] + pile + upcoming
    twice = sorted({cards.name(c) for c in placed if placed.count(c) > 1})
    assert not twice, f"cards placed twice in the scenario: {twice}"
    rest = [c for c in range(52) if c not in placed]
    if stock_size is not None:
        keep = stock_size - len(upcoming)
        pile = rest[keep:] + pile
        rest = rest[:keep]
    position = {"hands": hand_lists, "table": melds, "discard": pile, "stock": rest + upcoming[::-1], "phase": phase,
                "current": current, "dealer": 1 - current, "gin": gin_fields,
                "taken": cards.parse(taken) if taken else None}
    eng.load(0, position)


def knock_defend(eng: RummyEngine, knocker_melds: str, knocker_left: str, defender: str, discard: str = "",
                 **gin_fields) -> None:
    """Seat 0 knocked (its discard ``discard``, by default a card nobody holds), laid ``knocker_melds``
    (``|``-separated) and keeps ``knocker_left``; it passes, and seat 1 is to lay off or meld."""
    used = set(cards.parse_many(" ".join([knocker_melds.replace("|", " "), knocker_left, defender])))
    discard = discard or cards.name(next(c for c in range(52) if c not in used))
    table = [(0, meld) for meld in knocker_melds.split("|")]
    load(eng, [knocker_left, defender], table=table, discard=discard, phase="knock", current=0,
         **{"knocker": 0, "knock_stage": 1, **gin_fields})
    step(eng, "pass")


def deck_with_upcard(deck: list[int], upcard: str) -> list[int]:
    """``deck`` with ``upcard`` swapped into the upcard's place (index 20)."""
    out = list(deck)
    where = out.index(cards.parse(upcard))
    out[20], out[where] = out[where], out[20]
    return out


def action(eng: RummyEngine, words: str) -> int:
    verb, _, rest = words.partition(" ")
    layout = eng.layout
    if verb in ("draw", "take"):
        return DRAW_STOCK if verb == "draw" else DRAW_DISCARD
    if verb in ("pass", "knock"):
        return layout.special(verb)
    if verb == "discard":
        return layout.discard(cards.parse(rest))
    if verb == "layoff":
        return layout.lay_off(0, cards.parse(rest))
    if verb == "meld":
        return layout.meld(layout.meld_entry(cards.parse_many(rest)))
    raise ValueError(words)


def legal(eng: RummyEngine) -> set[int]:
    return set(eng.legal_action_mask()[0].nonzero()[0].tolist())


def allows(eng: RummyEngine, words: str) -> bool:
    return action(eng, words) in legal(eng)


def step(eng: RummyEngine, *moves: str) -> None:
    """Take each move in turn, each one checked against the mask first."""
    for words in moves:
        assert allows(eng, words), f"{words!r} is not legal: {eng.explain_illegal(0, action(eng, words))}"
        eng.step([action(eng, words)])


def refused(eng: RummyEngine, words: str, reason: str) -> None:
    """The move is masked out, explained with ``reason`` and refused by ``step``."""
    move = action(eng, words)
    assert move not in legal(eng), f"{words!r} should be illegal"
    assert reason in eng.explain_illegal(0, move), eng.explain_illegal(0, move)
    with pytest.raises(IllegalActionError, match=re.escape(reason)):
        eng.step([move])


def snap(eng: RummyEngine) -> dict:
    return eng.snapshot(0)


def layoffs(eng: RummyEngine) -> set[str]:
    """The cards the mask lets the defender lay off, by name."""
    start = eng.layout.layoff_offset
    return {cards.name(a - start) for a in legal(eng) if start <= a < eng.layout.discard_offset}


def melds(eng: RummyEngine) -> set[str]:
    """The melds the mask allows, as sorted names."""
    out = set()
    for a in legal(eng):
        kind, entry, _ = eng.layout.decode(a)
        if kind == "meld":
            out.add(cards.names(sorted(eng.layout.catalogue.members(entry))))
    return out


def discards(eng: RummyEngine) -> set[str]:
    start = eng.layout.discard_offset
    return {cards.name(a - start) for a in legal(eng) if a >= start}

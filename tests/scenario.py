"""Helpers for the scripted rule-scenario tests (tests/test_rules_basic.py).

Everything here goes through the public engine API (``RummyEngine.load/step/snapshot/legal_action_mask``):
positions are written by hand, actions are built from card names, and every step is checked against the
action mask before it is taken, so a scenario can never step through an action the mask forbids.

Conventions: card names as in ``rummy_env.cards`` (``"10H"``, ``"AS"``); one-row engines (row 0).
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import pytest

from rummy_env import IllegalActionError, RummyEngine, RummyRules, cards
from rummy_env.actions import DRAW_DISCARD, DRAW_STOCK

__all__ = [
    "DRAW_DISCARD", "DRAW_STOCK", "ids", "cid", "engine", "position", "load", "snap", "meld", "lay_off", "discard",
    "legal", "legal_names", "mask_names", "step", "assert_illegal", "draw_and_discard_drawn", "win_hand", "deck_with",
]

ALL_CARDS = frozenset(range(cards.NUM_NATURAL_TYPES))


# ------------------------------------------------------------------------------------------------ cards
def cid(name: str) -> int:
    """Card type of one name."""
    return cards.parse(name)


def ids(text: str | Iterable[str] | Iterable[int]) -> list[int]:
    """Sorted card types of ``"AS 2S 3S"`` (or of names / ints); sorted like ``snapshot()["hands"]``."""
    if isinstance(text, str):
        return sorted(cards.parse_many(text))
    return sorted(cards.parse(c) if isinstance(c, str) else int(c) for c in text)


def deck_with(fixed: dict[int, str], seed: int = 0) -> list[int]:
    """A 52-card deck (dealing order) with the named cards at the given deck indices, the rest shuffled."""
    placed = {index: cid(name) for index, name in fixed.items()}
    rest = [c for c in range(52) if c not in placed.values()]
    np.random.default_rng(seed).shuffle(rest)
    deck, it = [], iter(rest)
    for index in range(52):
        deck.append(placed[index] if index in placed else next(it))
    return deck


# ------------------------------------------------------------------------------------------------ engines, positions
def engine(num_players: int = 2, **knobs) -> RummyEngine:
    """A one-row engine for ruleset basic with the given knobs (``first_dealer`` fixed at 0 unless given)."""
    knobs.setdefault("first_dealer", 0)
    return RummyEngine(RummyRules.preset("basic", num_players=num_players, **knobs), batch_size=1)


def position(num_players: int, hands: Sequence[str], *, table: Sequence[tuple[int, str]] = (), discard: str = "",
             stock_next: str = "", leftover_to: int | None = None, **extra) -> dict:
    """A full position dict for ``RummyEngine.load``.

    ``table``: ``(owner, "cards")`` melds. ``stock_next``: the cards drawn next from the stock, first drawn first.
    Every card not placed anywhere goes to the bottom of the stock, or, with ``leftover_to = seat``, into that
    seat's hand (so that the stock holds exactly ``stock_next``)."""
    hands = [ids(h) for h in hands]
    assert len(hands) == num_players
    melds = [{"owner": owner, "cards": ids(c)} for owner, c in table]
    pile = cards.parse_many(discard) if discard else []
    nxt = cards.parse_many(stock_next) if stock_next else []
    placed = [c for h in hands for c in h] + [c for m in melds for c in m["cards"]] + pile + nxt
    assert len(placed) == len(set(placed)), "a card is placed twice in the scenario"
    rest = sorted(ALL_CARDS - set(placed))
    if leftover_to is not None:
        hands[leftover_to] = sorted(hands[leftover_to] + rest)
        rest = []
    pos = {"hands": hands, "table": melds, "discard": pile, "stock": rest + nxt[::-1]}
    if "taken" in extra and isinstance(extra["taken"], str):
        extra["taken"] = cid(extra["taken"])
    pos.update(extra)
    return pos


def load(eng: RummyEngine, hands: Sequence[str], **kw) -> dict:
    """Load ``position(...)`` into row 0 and return the snapshot."""
    eng.load(0, position(eng.rules.num_players, hands, **kw))
    return eng.snapshot(0)


def snap(eng: RummyEngine) -> dict:
    return eng.snapshot(0)


# ------------------------------------------------------------------------------------------------ actions
def meld(eng: RummyEngine, names: str) -> int:
    L = eng.layout
    return L.meld(L.meld_entry(cards.parse_many(names)))


def lay_off(eng: RummyEngine, slot: int, name: str) -> int:
    return eng.layout.lay_off(slot, cid(name))


def discard(eng: RummyEngine, name: str) -> int:
    return eng.layout.discard(cid(name))


def legal(eng: RummyEngine) -> set[int]:
    """Legal action ids of row 0 per the mask (checked against ``is_legal`` for each of them)."""
    mask = eng.legal_action_mask()[0].copy()
    found = {int(a) for a in np.flatnonzero(mask)}
    assert all(eng.is_legal(0, a) for a in found), "mask and is_legal disagree"
    return found


def legal_names(eng: RummyEngine) -> set[str]:
    return {eng.layout.to_str(a) for a in legal(eng)}


def mask_names(eng: RummyEngine, actions: Iterable[int]) -> set[str]:
    return {eng.layout.to_str(a) for a in actions}


def step(eng: RummyEngine, action: int):
    """Take a legal action (asserting the mask and ``is_legal`` allow it); returns ``(rewards[0], hand_ended)``
    copied out of the engine's reused buffers."""
    mask = eng.legal_action_mask()[0]
    assert mask[action] == 1, f"mask forbids {eng.layout.to_str(action)}: {eng.explain_illegal(0, action)}"
    assert eng.is_legal(0, action)
    result = eng.step([action])
    return result.rewards[0].copy(), bool(result.hand_ended[0])


def assert_illegal(eng: RummyEngine, action: int, reason: str | None = None) -> None:
    """The action is masked out, ``is_legal`` says no, and ``step`` raises without changing the position."""
    assert eng.legal_action_mask()[0][action] == 0, f"mask allows {eng.layout.to_str(action)}"
    assert not eng.is_legal(0, action)
    before = eng.snapshot(0)
    with pytest.raises(IllegalActionError, match=reason):
        eng.step([action])
    assert eng.snapshot(0) == before, "a rejected action changed the position"


def draw_and_discard_drawn(eng: RummyEngine):
    """One do-nothing turn: draw the stock top and discard that same card. Returns ``(rewards, hand_ended)``
    of the discard."""
    card = snap(eng)["stock"][-1]
    step(eng, DRAW_STOCK)
    return step(eng, eng.layout.discard(card))


def win_hand(eng: RummyEngine, winner: int, loser_hands: dict[int, str] | None = None, *, rummy: bool = False,
             last: str = "8S 9S 10S"):
    """End the current hand with ``winner`` going out by melding his last three cards ``last``.

    The dealer, totals and hands played are kept from the current position; the other seats hold
    ``loser_hands`` (default: nothing of value beyond one 2 each). Returns ``(rewards, hand_ended)``."""
    s = snap(eng)
    players = eng.rules.num_players
    default = ["2C", "2D", "2H", "3C", "3D", "3H"]
    hands = []
    for seat in range(players):
        if seat == winner:
            hands.append(last)
        else:
            hands.append((loser_hands or {}).get(seat, default[seat]))
    eng.load(0, position(players, hands, phase="play", current=winner, dealer=s["dealer"], totals=s["totals"],
                         hands_played=s["hands_played"], has_played=[not rummy] * players))
    return step(eng, meld(eng, last))

"""Helpers for the scripted rami51 / Lebanese "14" rule scenarios (tests/test_rules_rami51.py).

Same conventions as ``tests/scenario.py`` (which this module reuses for ``legal``, ``step`` and
``assert_illegal``): positions written by hand through ``RummyEngine.load``, actions built from card
names (``"9H"``, ``"10S"``, ``"JK"`` for a joker), every step checked against the mask and
``is_legal`` before it is taken, and every illegal action checked through the mask, ``is_legal``,
the raised ``IllegalActionError`` and an unchanged position. One-row engines (row 0), built once per
rules config (``rami``).

Rami51 positions hold the 108 cards of two packs: the builder puts every card that a scenario does
not place into the stock (or into one seat's hand with ``leftover_to``), under the named
``stock_next`` cards, which are drawn first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from rummy_env import RummyEngine, RummyRules, cards
from rummy_env.actions import COMMIT, DRAW_DISCARD, DRAW_STOCK, TAKE_BACK, UNDO

from scenario import assert_illegal, legal, snap, step

__all__ = [
    "COMMIT",
    "DRAW_DISCARD",
    "DRAW_STOCK",
    "JK",
    "TAKE_BACK",
    "UNDO",
    "assert_illegal",
    "assert_legal",
    "cid",
    "deck_copies",
    "discard",
    "ids",
    "lay_off",
    "legal",
    "legal_kinds",
    "load",
    "meld",
    "points",
    "position",
    "rami",
    "silent_discard",
    "snap",
    "step",
    "swap",
    "table_meld",
    "take",
]

JK = cards.JOKER
_ENGINES: dict[tuple, RummyEngine] = {}


# ------------------------------------------------------------------------------------------------ cards
def cid(name: str) -> int:
    return cards.parse(name)


def ids(text: str | Iterable[str] | Iterable[int]) -> list[int]:
    """Sorted card types (repeats kept) of ``"7H 7H JK"`` or of names / ints, as in ``snapshot()``."""
    if isinstance(text, str):
        return sorted(cards.parse_many(text))
    return sorted(cards.parse(c) if isinstance(c, str) else int(c) for c in text)


def deck_copies() -> np.ndarray:
    """Copies of each card type in the rami51 deck: every natural twice, 4 jokers."""
    copies = np.full(cards.JOKER + 1, 2, dtype=np.int64)
    copies[cards.JOKER] = 4
    return copies


# ------------------------------------------------------------------------------------------------ engines, positions
DEAD_ENDS = {"mode": "take_back"}  # the R25 mode of ``rami`` when a test names none (tests/test_rules_rami51.py sets both)


def rami(num_players: int = 2, preset: str = "rami51", **knobs) -> RummyEngine:
    """The one-row engine of a rules config (cached: one engine per config; ``first_dealer`` 0; ``dead_ends``
    from ``DEAD_ENDS`` unless given, R25)."""
    knobs.setdefault("first_dealer", 0)
    knobs.setdefault("dead_ends", DEAD_ENDS["mode"])
    key = (preset, num_players, tuple(sorted((k, repr(v)) for k, v in knobs.items())))
    if key not in _ENGINES:
        _ENGINES[key] = RummyEngine(RummyRules.preset(preset, num_players=num_players, **knobs), batch_size=1)
    return _ENGINES[key]


def _meld_dict(meld: Any) -> dict:
    if isinstance(meld, dict):
        return dict(meld, cards=ids(meld["cards"]))
    owner, names, *rest = meld
    out = {"owner": owner, "cards": ids(names)}
    if rest:
        out["joker_at"] = rest[0]
    return out


def position(num_players: int, hands: Sequence[str], *, table: Sequence[Any] = (), discard: str = "",
             stock_next: str = "", leftover_to: int | None = None, phase: str = "play", current: int = 0,
             **extra) -> dict:
    """A position dict for ``RummyEngine.load`` (default: phase "play" of seat 0, i.e. after the draw).

    ``table``: melds as ``(owner, "cards")``, ``(owner, "cards", joker_at)`` or dicts. ``discard``: the pile,
    bottom to top. ``stock_next``: the next stock cards, first drawn first. Every other card of the deck
    goes under them in the stock, or into seat ``leftover_to``'s hand (then the stock is exactly
    ``stock_next``). ``taken`` may be a card name; other keys are passed through."""
    hand_lists = [ids(h) for h in hands]
    assert len(hand_lists) == num_players
    melds = [_meld_dict(m) for m in table]
    pile = cards.parse_many(discard) if discard else []
    nxt = cards.parse_many(stock_next) if stock_next else []
    placed = [c for h in hand_lists for c in h] + [c for m in melds for c in m["cards"]] + pile + nxt
    left = deck_copies() - np.bincount(np.array(placed, dtype=np.int64), minlength=cards.JOKER + 1)
    assert (left >= 0).all(), f"cards placed too often: {cards.names(np.flatnonzero(left < 0))}"
    rest = [int(c) for c in np.repeat(np.arange(cards.JOKER + 1), left)]
    if leftover_to is not None:
        hand_lists[leftover_to] = sorted(hand_lists[leftover_to] + rest)
        rest = []
    pos = {"hands": hand_lists, "table": melds, "discard": pile, "stock": rest + nxt[::-1], "phase": phase,
           "current": current}
    if isinstance(extra.get("taken"), str):
        extra["taken"] = cid(extra["taken"])
    pos.update(extra)
    return pos


def load(eng: RummyEngine, hands: Sequence[str], **kw) -> dict:
    """Load ``position(...)`` into row 0 and return the snapshot."""
    eng.load(0, position(eng.rules.num_players, hands, **kw))
    return eng.snapshot(0)


def points(eng: RummyEngine) -> int:
    """R10 points laid from the hand this turn (the opening count)."""
    return snap(eng)["turn_state"]["turn_points"]


def table_meld(eng: RummyEngine, slot: int) -> dict:
    return snap(eng)["table"][slot]


# ------------------------------------------------------------------------------------------------ actions
def meld(eng: RummyEngine, names: str, joker_at: int | None = None) -> int:
    """MELD of the catalogue entry with these three cards (a joker run names its joker's position)."""
    members = cards.parse_many(names)
    if JK in members and joker_at is None:
        naturals = [c for c in members if c != JK]
        if len(naturals) == 2 and cards.suit_of(naturals[0]) == cards.suit_of(naturals[1]) and cards.rank_of(naturals[0]) != cards.rank_of(naturals[1]):
            raise ValueError("a joker run needs joker_at (the position its joker takes)")
    return eng.layout.meld(eng.layout.meld_entry(members, joker_at=joker_at))


def lay_off(eng: RummyEngine, slot: int, name: str, high: bool = False) -> int:
    """LAY_OFF onto ``slot``; a joker goes to the low end of a run / into a set, or (``high``) the high end."""
    card = cid(name)
    if card == JK:
        return eng.layout.lay_off(slot, 53 if high else 52)
    return eng.layout.lay_off(slot, card)


def take(eng: RummyEngine, slot: int, name: str) -> int:
    """TAKE ``name`` from ``slot`` (a run: its low or high end, whichever holds it; a set: that suit, or its joker)."""
    meld_ = table_meld(eng, slot)
    card = cid(name)
    if meld_["kind"] == "set":
        return eng.layout.take(slot, 4 if card == JK else cards.suit_of(card))
    suit = cards.suit_of(next(c for c in meld_["cards"] if c != JK))

    def at(pos: int) -> int:
        return JK if pos == meld_["joker_at"] else suit * 13 + (pos - 1) % 13

    if at(meld_["lo"]) == card:
        return eng.layout.take(slot, 0)
    if at(meld_["hi"]) == card:
        return eng.layout.take(slot, 1)
    raise ValueError(f"{name} is at neither end of the run in slot {slot}")


def swap(eng: RummyEngine, slot: int) -> int:
    return eng.layout.swap(slot)


def discard(eng: RummyEngine, name: str) -> int:
    return eng.layout.discard(cid(name))


def silent_discard(eng: RummyEngine, name: str) -> int:
    """DISCARD without announcing "carte" (``card_announcement = "manual"``, R7)."""
    return eng.layout.discard(cid(name), announce=False)


def assert_legal(eng: RummyEngine, action: int) -> None:
    """Legal per the mask and ``is_legal``, without taking it."""
    assert eng.legal_action_mask()[0][action] == 1, f"mask forbids {eng.layout.to_str(action)}"
    assert eng.is_legal(0, action)


def legal_kinds(eng: RummyEngine, kind: str) -> set[tuple[int, int]]:
    """Decoded ``(a, b)`` of the legal actions of one kind ("meld", "lay_off", "take", "swap", "discard", …)."""
    out = set()
    for action in legal(eng):
        k, a, b = eng.layout.decode(action)
        if k == kind:
            out.add((a, b))
    return out

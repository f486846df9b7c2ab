"""Positions as plain data: ``snapshot`` a row of the engine, ``load`` one back (save/restore).

A position is a JSON-able dict with card types as ints (``rummy_env.cards``):

=====================  ==============================================================
key                    value
=====================  ==============================================================
``phase``              "draw", "play", "hand_over" or "game_over"
``current``            seat to act; ``dealer``: seat that dealt
``hands``              one list of cards per seat
``stock``              cards bottom to top (``stock[-1]`` is drawn next)
``discard``            cards bottom to top (``discard[-1]`` is the top)
``taken``              card taken from the discard pile this turn, or None
``table``              list of melds: ``{"slot", "owner", "kind", "cards", "lo", "hi"}``
``table_by_seat``      one list of cards per seat: the table cards that seat laid
``known``              one list per seat: cards publicly known to be in that hand
``played_this_turn``   bool; ``has_played``, ``has_melded``: one bool per seat
``turn``               counters: ``turn``, ``reshuffles``, ``hands_played``, ``undos``
``totals``             ints per seat, with ``hand_scores``; ``winner``: seat or None; ``rummy``: bool
``end_reason``         "none", "out", "dead_no_draw", "dead_reshuffles", "dead_turn_cap", "illegal_action"
``game_winners``       seats; ``illegal_by``: seat or None; ``rng``: the row's generator state
=====================  ==============================================================

Ruleset ``rami51`` adds (card type 52 is the joker; cards appear once per copy):

=====================  ==============================================================
``first_turn``         bool: the dealer's first turn of the round (no draw, R5)
``opened``             one bool per seat (R11)
``table`` melds        also ``"joker_at"``: run position of the joker, a 4-card set's missing
                       suit, else None; ``"tentative"``, ``"pure"``: bools of this turn;
                       ``"pure_but_joker"``: a pure run of this turn holding a laid-off joker
                       (pure again if the joker is taken back)
``turn_state``         the turn's bookkeeping (pending cards, freed jokers, tentative plays,
                       points, ``own_laid``: per slot the own cards laid this turn, …) and
                       ``undo``, the position an UNDO returns to; restore-only
=====================  ==============================================================

``load`` accepts a partial position written by hand (only ``hands`` is required): cards it does not
place go to the stock, table melds may omit everything but ``cards`` (and ``owner``, default 0),
and ``table_by_seat`` defaults to the owners. It refuses a position that does not hold every card
exactly once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rummy_env import cards
from rummy_env.engine.rami import PURE, PURE_BUT_JOKER
from rummy_env.engine.state import END_NAMES, PHASE_NAMES
from rummy_env.melds import KIND_EMPTY, KIND_RUN, KIND_SET, describe_meld

if TYPE_CHECKING:
    from rummy_env.engine.core import RummyEngine

KIND_NAMES = {KIND_SET: "set", KIND_RUN: "run"}
MELD_KEYS = ("slot", "owner", "kind", "cards", "lo", "hi", "joker_at", "tentative", "pure", "pure_but_joker")


def _cards_of(counts: np.ndarray) -> list[int]:
    return [int(card) for card in np.repeat(np.arange(counts.shape[0]), np.maximum(counts, 0))]


def _number(value: float) -> int | float:
    """A score as an int when whole (halves arise only under the Lebanese scaling)."""
    return int(value) if float(value).is_integer() else float(value)


def _none_if_negative(value: int) -> int | None:
    return None if value < 0 else int(value)


def snapshot(engine: "RummyEngine", row: int) -> dict[str, Any]:
    r = engine.state[row]
    players = engine.rules.num_players
    table = []
    for slot in range(int(r["slot_n"])):
        table.append({
            "slot": slot, "owner": int(r["slot_owner"][slot]), "kind": KIND_NAMES[int(r["slot_kind"][slot])],
            "cards": _cards_of(r["slot_cards"][slot]), "lo": int(r["slot_lo"][slot]), "hi": int(r["slot_hi"][slot]),
        })
    return {
        "num_players": players,
        "phase": PHASE_NAMES[int(r["phase"])],
        "current": int(r["current"]),
        "dealer": int(r["dealer"]),
        "hands": [_cards_of(r["hand"][seat]) for seat in range(players)],
        "stock": [int(card) for card in r["stock"][: int(r["stock_n"])]],
        "discard": [int(card) for card in r["pile"][: int(r["pile_n"])]],
        "taken": _none_if_negative(int(r["taken"])),
        "table": table,
        "table_by_seat": [_cards_of(r["table_by_seat"][seat]) for seat in range(players)],
        "known": [_cards_of(r["known"][seat]) for seat in range(players)],
        "played_this_turn": bool(r["played_turn"]),
        "has_played": [bool(v) for v in r["has_played"][:players]],
        "has_melded": [bool(v) for v in r["has_melded"][:players]],
        "turn": int(r["turns"]),
        "reshuffles": int(r["reshuffles"]),
        "hands_played": int(r["hands_played"]),
        "undos": int(r["undos"]),
        "totals": [_number(v) for v in r["totals"][:players]],
        "hand_scores": [_number(v) for v in r["hand_scores"][:players]],
        "winner": _none_if_negative(int(r["winner"])),
        "rummy": bool(r["rummy"]),
        "end_reason": END_NAMES[int(r["end_reason"])],
        "game_winners": [seat for seat in range(players) if r["game_winners"][seat]],
        "illegal_by": _none_if_negative(int(r["illegal_by"])),
        "rng": int(r["rng"]),
    } | (_rami_snapshot(r, players, table) if engine.rami else {})


_TURN_SCALARS = ("opened_at_start", "taken_laid", "freed_jokers", "tentative", "touched_table", "start_slots", "doomed",
                 "all_at_once", "joker_finish", "turn_jokers", "turn_points", "search_gave_up")


def _rami_snapshot(r, players: int, table: list[dict[str, Any]]) -> dict[str, Any]:
    for meld in table:
        slot = meld["slot"]
        has_joker = r["slot_cards"][slot][cards.JOKER] > 0 and r["slot_joker"][slot] >= 0
        meld["joker_at"] = int(r["slot_joker"][slot]) if has_joker else None
        meld["tentative"] = bool(r["slot_tentative"][slot])
        meld["pure"] = bool(r["slot_pure"][slot] == PURE)
        meld["pure_but_joker"] = bool(r["slot_pure"][slot] == PURE_BUT_JOKER)
    turn = {name: int(r[name]) for name in _TURN_SCALARS}
    turn["pending"] = _cards_of(r["pending"])
    turn["own_laid"] = [int(v) for v in r["slot_mine"][: len(table)]]
    turn["undo"] = {name[2:]: r[name].tolist() for name in r.dtype.names if name.startswith("u_")}
    return {"ruleset": "rami51", "first_turn": bool(r["first_turn"]),
            "opened": [bool(v) for v in r["opened"][:players]], "turn_state": turn}


def load(engine: "RummyEngine", row: int, position: dict[str, Any]) -> None:
    """Check ``position`` whole, then write it into ``row``: a bad position raises a ``ValueError``
    naming the key at fault and leaves the engine as it was (the record is built in a copy)."""
    if not isinstance(position, dict):
        raise ValueError(f"a position is a dict of the keys {snapshot_keys()}, got {type(position).__name__}")
    unknown = set(position) - set(snapshot_keys())
    if unknown:
        raise ValueError(f"unknown position keys {sorted(unknown)}; known: {snapshot_keys()}")
    if "hands" not in position:
        raise ValueError("a position needs the key 'hands' (one list of cards per seat)")
    record = engine.state[row:row + 1].copy()
    with _key("num_players"):
        if position.get("num_players", engine.rules.num_players) != engine.rules.num_players:
            raise ValueError(f"the position is for {position['num_players']} players, these rules "
                             f"{engine.rules.num_players}")
    _write(engine, record[0], position)
    engine.state[row] = record[0]


class _key:
    """Context: a ``ValueError`` (or ``TypeError``, ``KeyError``, ``OverflowError``) raised inside
    becomes a ``ValueError`` that names the position key."""

    def __init__(self, name: str):
        self.name = name

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, error, trace) -> bool:
        if kind is not None and issubclass(kind, (ValueError, TypeError, KeyError, IndexError, OverflowError)):
            raise ValueError(f"position key {self.name!r}: {error}") from error
        return False


def _seat(value: Any, players: int, optional: bool = False) -> int:
    """A seat ``0..players-1`` (or ``None`` -> -1 when ``optional``)."""
    if value is None and optional:
        return -1
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not 0 <= value < players:
        raise ValueError(f"{value!r} is not a seat 0..{players - 1}{' or None' if optional else ''}")
    return int(value)


def _count(value: Any, top: int = 30000) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not 0 <= value <= top:
        raise ValueError(f"{value!r} is not a count 0..{top}")
    return int(value)


def _per_seat(values: Any, players: int, kind: type) -> list:
    """One ``bool`` or one number per seat."""
    if not isinstance(values, (list, tuple)) or len(values) != players:
        raise ValueError(f"{values!r} is not a list of {players} values, one per seat")
    for value in values:
        ok = isinstance(value, (bool, np.bool_)) if kind is bool else (
            isinstance(value, (int, float, np.number)) and not isinstance(value, (bool, np.bool_))
            and np.isfinite(value))
        if not ok:
            raise ValueError(f"{value!r} in {values!r} is not a {'bool' if kind is bool else 'finite number'}")
    return list(values)


def _name(value: Any, names: tuple[str, ...]) -> int:
    if value not in names:
        raise ValueError(f"{value!r} is not one of {names}")
    return names.index(value)


def _write(engine: "RummyEngine", r, position: dict[str, Any]) -> None:
    rules = engine.rules
    players, types = rules.num_players, rules.num_card_types
    get = position.get
    with _key("hands"):
        hands = [_parse_cards(hand, types) for hand in position["hands"]]
        if len(hands) != players:
            raise ValueError(f"position has {len(hands)} hands for {players} players")
    with _key("table"):
        table = [dict(meld, cards=_parse_cards(meld["cards"], types)) for meld in get("table", [])]
        for slot, meld in enumerate(table):
            if set(meld) - set(MELD_KEYS):
                raise ValueError(f"meld {slot} has unknown keys {sorted(set(meld) - set(MELD_KEYS))}; known: "
                                 f"{list(MELD_KEYS)}")
    with _key("discard"):
        discard = _parse_cards(get("discard", []), types)
    placed = [card for hand in hands for card in hand] + discard + [card for meld in table for card in meld["cards"]]
    copies = np.bincount(np.r_[np.tile(np.arange(cards.NUM_NATURAL_TYPES), rules.deck_copies),
                               np.full(rules.num_jokers, cards.JOKER)].astype(np.int64), minlength=types)
    with _key("stock"):
        if "stock" in position:
            stock = _parse_cards(position["stock"], types)
        else:
            left = copies - np.bincount(np.array(placed, dtype=np.int64), minlength=types)
            stock = [int(card) for card in np.repeat(np.arange(types), np.maximum(left, 0))][::-1]
    every = np.bincount(np.array(placed + stock, dtype=np.int64), minlength=types)
    if (every != copies).any():
        missing = [cards.name(c) for c in range(types) if every[c] < copies[c]]
        extra = [cards.name(c) for c in range(types) if every[c] > copies[c]]
        raise ValueError("a position must hold every card of the deck exactly once (keys 'hands', 'stock', "
                         f"'discard', 'table'); missing {missing}, too many {extra}")

    with _key("phase"):
        r["phase"] = _name(get("phase", "draw"), PHASE_NAMES)
    with _key("current"):
        r["current"] = _seat(get("current", 0), players)
    with _key("dealer"):
        r["dealer"] = _seat(get("dealer", (int(r["current"]) - 1) % players), players)
    r["hand"][:] = 0
    for seat, hand in enumerate(hands):
        np.add.at(r["hand"][seat], hand, 1)
    r["hand_n"][:] = 0
    r["hand_n"][:players] = [len(hand) for hand in hands]
    r["stock"][:] = 0
    r["stock"][: len(stock)] = stock
    r["stock_n"] = len(stock)
    r["pile"][:] = 0
    r["pile"][: len(discard)] = discard
    r["pile_n"] = len(discard)
    taken = get("taken")
    with _key("taken"):
        r["taken"] = -1 if taken is None else _parse_cards([taken], types)[0]
    with _key("table"):
        _load_table(engine, r, table)
    r["table_by_seat"][:] = 0
    with _key("table_by_seat"):
        if "table_by_seat" in position:
            for seat, laid in enumerate(_per_seat_lists(position["table_by_seat"], players)):
                np.add.at(r["table_by_seat"][seat], _parse_cards(laid, types), 1)
        else:
            for meld in table:
                np.add.at(r["table_by_seat"][meld.get("owner", 0)], meld["cards"], 1)
    r["known"][:] = 0
    with _key("known"):
        if "known" in position:
            for seat, known in enumerate(_per_seat_lists(position["known"], players)):
                np.add.at(r["known"][seat], _parse_cards(known, types), 1)
        elif taken is not None:
            r["known"][int(r["current"]), int(r["taken"])] = 1
    default_melded = [any(m.get("owner", 0) == seat for m in table) for seat in range(players)]
    for key, field, default in (("has_played", "has_played", [False] * players),
                                ("has_melded", "has_melded", default_melded),
                                ("game_winners", None, [])):
        with _key(key):
            if field is not None:
                r[field][:players] = _per_seat(get(key, default), players, bool)
            else:
                winners = [_seat(seat, players) for seat in get(key, default)]
                r["game_winners"][:players] = [seat in winners for seat in range(players)]
    for key, field, top in (("turn", "turns", 30000), ("reshuffles", "reshuffles", 30000),
                            ("hands_played", "hands_played", 30000), ("undos", "undos", 127)):
        with _key(key):
            r[field] = _count(get(key, 0), top)
    for key in ("totals", "hand_scores"):
        with _key(key):
            r[key][:players] = _per_seat(get(key, [0] * players), players, float)
    for key in ("played_this_turn", "rummy"):
        with _key(key):
            if not isinstance(get(key, False), (bool, np.bool_)):
                raise ValueError(f"{get(key)!r} is not a bool")
    r["played_turn"] = get("played_this_turn", False)
    r["rummy"] = get("rummy", False)
    with _key("winner"):
        r["winner"] = _seat(get("winner"), players, optional=True)
    with _key("end_reason"):
        r["end_reason"] = _name(get("end_reason", "none"), END_NAMES)
    with _key("illegal_by"):
        r["illegal_by"] = _seat(get("illegal_by"), players, optional=True)
    with _key("rng"):
        r["rng"] = _count(get("rng", int(r["rng"]) or 0x9E3779B97F4A7C15), 2**64 - 1)
    if engine.rami:
        _load_rami(r, position, players, table, types)


def _per_seat_lists(values: Any, players: int) -> list:
    if not isinstance(values, (list, tuple)) or len(values) != players:
        raise ValueError(f"expected one list of cards per seat ({players}), got {values!r}")
    return list(values)


def _load_rami(r, position: dict[str, Any], players: int, table: list[dict[str, Any]], types: int) -> None:
    """The rami51 fields; a hand-written position starts a clean turn (nothing tentative or pending)."""
    with _key("first_turn"):
        if not isinstance(position.get("first_turn", False), (bool, np.bool_)):
            raise ValueError(f"{position['first_turn']!r} is not a bool")
        r["first_turn"] = position.get("first_turn", False)
    r["opened"][:] = 0
    with _key("opened"):
        r["opened"][:players] = _per_seat(position.get("opened", [False] * players), players, bool)
    for slot, meld in enumerate(table):
        r["slot_tentative"][slot] = meld.get("tentative", False)
        r["slot_pure"][slot] = PURE_BUT_JOKER if meld.get("pure_but_joker") else bool(meld.get("pure", False))
    with _key("turn_state"):
        turn = position.get("turn_state", {})
        unknown = set(turn) - set(_TURN_SCALARS) - {"pending", "own_laid", "undo"}
        if unknown:
            raise ValueError(f"unknown entries {sorted(unknown)}")
        for name in _TURN_SCALARS:
            r[name] = turn.get(name, 0)
        if "start_slots" not in turn:
            r["start_slots"] = len(table)
        if "opened_at_start" not in turn:
            r["opened_at_start"] = r["opened"][int(r["current"])]
        r["pending"][:] = 0
        np.add.at(r["pending"], _parse_cards(turn.get("pending", []), types), 1)
        r["slot_mine"][:] = 0
        own_laid = turn.get("own_laid", [])
        r["slot_mine"][: len(own_laid)] = own_laid
        if position.get("taken") is not None and "taken_laid" not in turn:
            r["taken_laid"] = 0
        for name, value in turn.get("undo", {}).items():
            r["u_" + name] = value


def _load_table(engine: "RummyEngine", r, table: list[dict[str, Any]]) -> None:
    slots = engine.rules.num_slots
    if len(table) > slots:
        raise ValueError(f"a table holds at most {slots} melds, got {len(table)}")
    r["slot_n"] = len(table)
    for field, empty in (("slot_kind", KIND_EMPTY), ("slot_owner", -1), ("slot_key", 0), ("slot_lo", 0),
                         ("slot_hi", 0), ("slot_count", 0), ("slot_joker", -1), ("slot_tentative", 0)):
        r[field][:] = empty
    r["slot_cards"][:] = 0
    for slot, meld in enumerate(table):
        kind, key, lo, hi, joker_at = describe_meld(meld["cards"], engine.rules, meld.get("joker_at"))
        if "lo" in meld and kind == KIND_RUN:
            lo, hi = meld["lo"], meld["hi"]
        r["slot_kind"][slot], r["slot_key"][slot], r["slot_lo"][slot], r["slot_hi"][slot] = kind, key, lo, hi
        r["slot_joker"][slot] = joker_at
        r["slot_owner"][slot] = _seat(meld.get("owner", 0), engine.rules.num_players)
        r["slot_count"][slot] = len(meld["cards"])
        np.add.at(r["slot_cards"][slot], meld["cards"], 1)


def _parse_cards(values, types: int) -> list[int]:
    """Card types from names (``"AS 10H"``, ``["AS", "10H"]``) or ints, each checked to be ``0..types-1``."""
    if isinstance(values, str):
        parsed = cards.parse_many(values)
    elif isinstance(values, (list, tuple)):
        parsed = [cards.parse(value) if isinstance(value, str) else value for value in values]
    else:
        raise ValueError(f"{values!r} is not a list of cards")
    for card in parsed:
        if isinstance(card, (bool, np.bool_)) or not isinstance(card, (int, np.integer)) or not 0 <= card < types:
            raise ValueError(f"{card!r} is not a card type 0..{types - 1} nor a card name")
    return [int(card) for card in parsed]


def snapshot_keys() -> list[str]:
    return ["num_players", "phase", "current", "dealer", "hands", "stock", "discard", "taken", "table", "table_by_seat",
            "known", "played_this_turn", "has_played", "has_melded", "turn", "reshuffles", "hands_played", "undos",
            "totals", "hand_scores", "winner", "rummy", "end_reason", "game_winners", "illegal_by", "rng",
            "ruleset", "first_turn", "opened", "turn_state"]

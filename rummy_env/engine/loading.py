"""Loading a position (``rummy_env.engine.positions``) into a game record: checked first, written after.

The position is written into a scratch record; any problem raises ``ValueError`` naming the key and what
is allowed, and the row (and its UNDO copy) stay as they were. Only then is the scratch record copied in.
A hand-written position may give just ``hands``: cards it does not place go to the stock, melds may omit
everything but ``cards`` (and ``owner``, default 0), and ``table_by_seat`` defaults to the owners.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env import cards
from rummy_env.engine.families import family
from rummy_env.engine.positions import MELD_KEYS, snapshot_keys
from rummy_env.engine.state import END_NAMES, PHASE_NAMES
from rummy_env.knobs import COUNTER_LIMIT
from rummy_env.melds import KIND_EMPTY, KIND_SET, describe_meld
from rummy_env.observations import HISTORY_KINDS
from rummy_env.rules import RummyRules


def load(rules: RummyRules, rows: np.ndarray, undo_rows: np.ndarray, position: dict[str, Any]) -> None:
    """Write ``position`` into ``rows[0]`` (and, for a turn that has played, its ``undo``, into ``undo_rows[0]``),
    after checking all of it."""
    record = rows.copy()
    undo = undo_rows.copy()
    _fill(rules, record[0], position)
    turn_undo = position.get("turn_state", {}).get("undo") if isinstance(position.get("turn_state"), dict) else None
    if turn_undo is not None:
        _fill(rules, undo[0], turn_undo)
    else:
        family(rules.ruleset).position.check_no_turn_copy(rules, record[0])
    rows[0] = record[0]
    undo_rows[0] = undo[0]


def bad_value(key: str, value: Any, allowed: str) -> ValueError:
    return ValueError(f"position key {key!r}: {value!r} is not allowed; expected {allowed}")


def card_list(key: str, values, types: int) -> list[int]:
    """Card types ``0..types - 1`` (the joker, 52, only in rami51), given as ints or names such as '7H'."""
    if isinstance(values, str):
        values = values.split()
    if not isinstance(values, (list, tuple)):
        raise bad_value(key, values, "a list of cards (card types or names such as '7H')")
    out = []
    for value in values:
        try:
            card = cards.parse(value) if isinstance(value, str) else int(value)
        except (TypeError, ValueError) as error:
            raise bad_value(key, value, "a card type or a card name such as '7H'") from error
        if not isinstance(value, (str, int, np.integer)) or isinstance(value, bool) or not 0 <= card < types:
            raise bad_value(key, value, f"a card type 0..{types - 1} or a card name such as '7H'")
        out.append(card)
    return out


def seat_of(key: str, value: Any, players: int, none_ok: bool = False) -> int:
    if value is None and none_ok:
        return -1
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= int(value) < players:
        raise ValueError(f"position key {key!r}: {value!r} is not a seat 0..{players - 1}" + (" or None" if none_ok else ""))
    return int(value)


def count_of(key: str, value: Any, low: int = 0, high: int = 30000) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= int(value) <= high:
        raise bad_value(key, value, f"an integer {low}..{high}")
    return int(value)


def per_seat(key: str, values: Any, players: int) -> list:
    if not isinstance(values, (list, tuple)) or len(values) != players:
        raise bad_value(key, values, f"one entry per seat ({players})")
    return list(values)


def bools_of(key: str, values: Any, players: int) -> list[bool]:
    values = per_seat(key, values, players)
    if not all(isinstance(value, (bool, np.bool_)) for value in values):
        raise bad_value(key, values, "one bool per seat")
    return [bool(value) for value in values]


def bool_of(key: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise bad_value(key, value, "true or false")
    return bool(value)


def _fill(rules: RummyRules, r, position: dict[str, Any]) -> None:
    if not isinstance(position, dict):
        raise ValueError(f"a position is a dict, got {type(position).__name__}")
    unknown = set(position) - set(snapshot_keys())
    if unknown:
        raise ValueError(f"unknown position keys {sorted(unknown)}; known: {snapshot_keys()}")
    players, types = rules.num_players, rules.num_card_types
    if position.get("ruleset", rules.ruleset) != rules.ruleset:
        raise bad_value("ruleset", position["ruleset"], f"{rules.ruleset!r}, the ruleset of these rules")
    if position.get("num_players", players) != players:
        raise bad_value("num_players", position["num_players"], f"{players}, the player count of these rules")
    if "hands" not in position:
        raise ValueError("position key 'hands' is required: one list of cards per seat")
    hands = [card_list(f"hands[{seat}]", hand, types) for seat, hand in enumerate(per_seat("hands", position["hands"], players))]
    melds = _melds(rules, position.get("table", []))
    discard = card_list("discard", position.get("discard", []), types)
    placed = [card for hand in hands for card in hand] + discard + [card for meld in melds for card in meld["cards"]]
    stock = _stock(rules, position, placed)
    if max(len(hand) for hand in hands) > 127:
        raise bad_value("hands", [len(hand) for hand in hands], "at most 127 cards per hand")
    phase = position.get("phase", "draw")
    phases = family(rules.ruleset).position.PHASES
    if phase not in phases:
        raise bad_value("phase", phase, f"one of {phases}")
    r["phase"] = PHASE_NAMES.index(phase)
    r["current"] = seat_of("current", position.get("current", 0), players)
    r["dealer"] = seat_of("dealer", position.get("dealer", (int(r["current"]) - 1) % players), players)
    r["hand"][:] = 0
    r["hand_n"][:] = 0
    for seat, hand in enumerate(hands):
        np.add.at(r["hand"][seat], hand, 1)
        r["hand_n"][seat] = len(hand)
    r["stock"][:] = 0
    r["stock"][: len(stock)] = stock
    r["stock_n"] = len(stock)
    r["pile"][:] = 0
    r["pile"][: len(discard)] = discard
    r["pile_n"] = len(discard)
    taken = position.get("taken")
    r["taken"] = -1 if taken is None else card_list("taken", [taken], types)[0]
    _fill_table(rules, r, melds)
    _fill_seat_cards(rules, r, position, melds, hands)
    r["played_turn"] = bool_of("played_this_turn", position.get("played_this_turn", False))
    r["has_played"][:] = 0
    r["has_played"][:players] = bools_of("has_played", position.get("has_played", [False] * players), players)
    r["has_melded"][:] = 0
    default_melded = [any(m.get("owner", 0) == seat for m in melds) for seat in range(players)]
    r["has_melded"][:players] = bools_of("has_melded", position.get("has_melded", default_melded), players)
    r["turns"] = count_of("turn", position.get("turn", 0), 0, COUNTER_LIMIT)
    r["reshuffles"] = count_of("reshuffles", position.get("reshuffles", 0))
    r["hands_played"] = count_of("hands_played", position.get("hands_played", 0), 0, COUNTER_LIMIT)
    r["undos"] = count_of("undos", position.get("undos", 0), 0, 127)
    for key in ("totals", "hand_scores"):
        values = per_seat(key, position.get(key, [0] * players), players)
        if not all(isinstance(v, (int, float, np.integer, np.floating)) and np.isfinite(v) for v in values):
            raise bad_value(key, values, "finite numbers")
        r[key][:] = 0
        r[key][:players] = values
    r["winner"] = seat_of("winner", position.get("winner"), players, none_ok=True)
    r["rummy"] = bool_of("rummy", position.get("rummy", False))
    end = position.get("end_reason", "none")
    if end not in END_NAMES:
        raise bad_value("end_reason", end, f"one of {END_NAMES}")
    r["end_reason"] = END_NAMES.index(end)
    winners = position.get("game_winners", [])
    r["game_winners"][:] = 0
    for seat in winners:
        r["game_winners"][seat_of("game_winners", seat, players)] = 1
    r["illegal_by"] = seat_of("illegal_by", position.get("illegal_by"), players, none_ok=True)
    rng = position.get("rng", int(r["rng"]) or 0x9E3779B97F4A7C15)
    if isinstance(rng, bool) or not isinstance(rng, (int, np.integer)) or not 0 < int(rng) < 2**64:
        raise bad_value("rng", rng, "a non-zero 64-bit generator state")
    r["rng"] = rng
    _fill_history(r, position.get("history", {}), players, types)
    family(rules.ruleset).position.fill(rules, r, position, melds)


def _melds(rules: RummyRules, table: Any) -> list[dict[str, Any]]:
    """The ``table`` key's melds, each checked (its keys, cards, owner, and a meld of these rules), cards as types."""
    players, types = rules.num_players, rules.num_card_types
    if not isinstance(table, (list, tuple)) or len(table) > rules.num_slots:
        raise bad_value("table", table, f"a list of at most {rules.num_slots} melds")
    melds = []
    for k, meld in enumerate(table):
        if not isinstance(meld, dict) or "cards" not in meld:
            raise ValueError(f"position key 'table': meld {k} {meld!r} is not a dict with 'cards' (and 'owner', "
                             "'joker_at', ...)")
        if set(meld) - set(MELD_KEYS):
            raise ValueError(f"position key 'table': meld {k} has unknown keys {sorted(set(meld) - set(MELD_KEYS))}; "
                             f"known: {list(MELD_KEYS)}")
        meld = dict(meld, cards=card_list("table", meld["cards"], types))
        seat_of("table", meld.get("owner", 0), players)
        try:
            describe_meld(meld["cards"], rules, meld.get("joker_at"))
        except ValueError as error:
            raise ValueError(f"position key 'table': meld {k}: {error}") from error
        melds.append(meld)
    return melds


def _stock(rules: RummyRules, position: dict[str, Any], placed: list[int]) -> list[int]:
    """The stock, given or made of the cards ``placed`` leaves out (top last), once every card of the deck is
    checked to be in the position exactly once."""
    types = rules.num_card_types
    copies = np.bincount(np.r_[np.tile(np.arange(cards.NUM_NATURAL_TYPES), rules.deck_copies),
                               np.full(rules.num_jokers, cards.JOKER)].astype(np.int64), minlength=types)
    if "stock" in position:
        stock = card_list("stock", position["stock"], types)
    else:
        left = copies - np.bincount(np.array(placed, dtype=np.int64), minlength=types)[:types]
        stock = [int(card) for card in np.repeat(np.arange(types), np.maximum(left, 0))][::-1]
    every = np.bincount(np.array(placed + stock, dtype=np.int64), minlength=types)
    if every.shape[0] != types or (every != copies).any():
        missing = [cards.name(c) for c in range(types) if every[c] < copies[c]]
        extra = [cards.name(c) for c in range(min(types, every.shape[0])) if every[c] > copies[c]]
        raise ValueError(f"a position must hold every card of the deck exactly once; missing {missing}, too many {extra}")
    return stock


def _fill_history(r, history: Any, players: int, types: int) -> None:
    if not isinstance(history, dict) or set(history) - set(HISTORY_KINDS) - {"last_discard"}:
        raise bad_value("history", history, f"a dict with keys among {list(HISTORY_KINDS) + ['last_discard']}")
    r["history"][:] = 0
    r["last_discard"][:] = -1
    for seat, card in enumerate(per_seat("history.last_discard", history.get("last_discard", [None] * players),
                                         players)):
        r["last_discard"][seat] = -1 if card is None else card_list(f"history.last_discard[{seat}]", [card], types)[0]
    for kind, by_seat in history.items():
        if kind == "last_discard":
            continue
        for seat, concerned in enumerate(per_seat(f"history.{kind}", by_seat, players)):
            counts = np.bincount(np.array(card_list(f"history.{kind}[{seat}]", concerned, types), dtype=np.int64),
                                 minlength=r["history"].shape[-1])
            r["history"][seat, HISTORY_KINDS.index(kind)] = np.minimum(counts, 127)


def _fill_table(rules: RummyRules, r, melds: list[dict[str, Any]]) -> None:
    r["slot_n"] = len(melds)
    for field, empty in (("slot_kind", KIND_EMPTY), ("slot_owner", -1), ("slot_key", 0), ("slot_lo", 0),
                         ("slot_hi", 0), ("slot_suits", 0), ("slot_jokers", 0), ("slot_joker", -1),
                         ("slot_tentative", 0), ("slot_pure", 0), ("slot_mine", 0)):
        r[field][:] = empty
    for slot, meld in enumerate(melds):
        kind, key, lo, hi, joker_at = describe_meld(meld["cards"], rules, meld.get("joker_at"))  # checked in _fill
        if "lo" in meld and kind != KIND_SET:
            lo, hi = count_of(f"table[{slot}].lo", meld["lo"], -13, 27), count_of(f"table[{slot}].hi", meld["hi"], -13, 27)
            if hi - lo + 1 != len(meld["cards"]):
                raise bad_value(f"table[{slot}].lo/hi", (lo, hi), f"a span of {len(meld['cards'])} positions")
        r["slot_kind"][slot], r["slot_key"][slot], r["slot_lo"][slot], r["slot_hi"][slot] = kind, key, lo, hi
        r["slot_joker"][slot] = joker_at
        r["slot_jokers"][slot] = meld["cards"].count(cards.JOKER)
        if kind == KIND_SET:
            r["slot_suits"][slot] = sum(1 << cards.suit_of(c) for c in meld["cards"] if c != cards.JOKER)
        r["slot_owner"][slot] = int(meld.get("owner", 0))


def _fill_seat_cards(rules: RummyRules, r, position: dict[str, Any], melds, hands) -> None:
    players, types = rules.num_players, rules.num_card_types
    r["table_by_seat"][:] = 0
    if "table_by_seat" in position:
        for seat, laid in enumerate(per_seat("table_by_seat", position["table_by_seat"], players)):
            np.add.at(r["table_by_seat"][seat], card_list(f"table_by_seat[{seat}]", laid, types), 1)
    else:
        for meld in melds:
            np.add.at(r["table_by_seat"][int(meld.get("owner", 0))], meld["cards"], 1)
    r["known"][:] = 0
    if "known" in position:
        for seat, known in enumerate(per_seat("known", position["known"], players)):
            np.add.at(r["known"][seat], card_list(f"known[{seat}]", known, types), 1)
            if (r["known"][seat] > r["hand"][seat]).any():
                raise bad_value(f"known[{seat}]", known, f"cards held by seat {seat}")
    elif int(r["taken"]) >= 0:
        r["known"][int(r["current"]), int(r["taken"])] = 1

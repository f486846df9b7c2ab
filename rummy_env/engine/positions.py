"""Positions as plain data: ``snapshot`` a row of the engine, ``load`` one back (save/restore).

A position is a JSON-able dict with card types as ints (``rummy_env.cards``):

=====================  ==============================================================
key                    value
=====================  ==============================================================
``ruleset``            the rule family: "basic", "rami51" or "gin"
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
``history``            the hand's public history: for each kind of ``HISTORY_KINDS``
                       (``rummy_env.observations``), one list of cards per seat, a card
                       repeated as often as it was concerned, and ``last_discard``: per
                       seat the card it discarded last, or None; optional in ``load`` (empty)
=====================  ==============================================================

Ruleset ``rami51`` adds (card type 52 is the joker; cards appear once per copy):

=====================  ==============================================================
``first_turn``         bool: the dealer's first turn of the round (no draw, R5)
``opened``             one bool per seat (R11)
``take_backs``         take-backs of each seat this round (R25)
``table`` melds        also ``"joker_at"``: run position of the joker, a 4-card set's missing
                       suit, else None; ``"tentative"``, ``"pure"``: bools of this turn;
                       ``"pure_but_joker"``: a pure run of this turn holding a laid-off joker
                       (pure again if the joker is taken back)
``turn_state``         the turn's bookkeeping (pending cards, freed jokers, tentative plays,
                       points, ``own_laid``: per slot the own cards laid this turn, ``took_back``,
                       …) and, once the turn has played, ``undo``: the position UNDO and
                       TAKE_BACK return to (a position of its own); restore-only
=====================  ==============================================================

Ruleset ``gin`` adds:

=====================  ==============================================================
``gin``                ``knocker`` (seat or None), ``knock_limit``, ``knock_stage``,
                       ``upcard_passes``, ``repeated``, ``upcard_draws``, ``boxes`` (hands
                       won per seat); see ``rummy_env.engine.state``
``table`` melds        also ``"low_layoffs"``, ``"high_layoffs"``: cards laid off below and
                       above the run the knocker laid
=====================  ==============================================================

``load`` accepts a partial position written by hand (only ``hands`` is required): cards it does not
place go to the stock, table melds may omit everything but ``cards`` (and ``owner``, default 0),
and ``table_by_seat`` defaults to the owners. It refuses, naming what is wrong and changing nothing,
a position that does not hold every card exactly once, an unknown key, or a value out of range.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.engine.families import family
from rummy_env.engine.state import END_NAMES, PHASE_NAMES
from rummy_env.engine.table import slot_cards
from rummy_env.melds import KIND_RUN, KIND_SET
from rummy_env.observations import HISTORY_KINDS
from rummy_env.rules import RummyRules

KIND_NAMES = {KIND_SET: "set", KIND_RUN: "run"}
MELD_KEYS = ("slot", "owner", "kind", "cards", "lo", "hi", "joker_at", "tentative", "pure", "pure_but_joker",
             "low_layoffs", "high_layoffs")


def cards_of(counts: np.ndarray) -> list[int]:
    return [int(card) for card in np.repeat(np.arange(counts.shape[0]), np.maximum(counts, 0))]


def _number(value: float) -> int | float:
    """A score as an int when whole (halves arise only under the Lebanese scaling)."""
    return int(value) if float(value).is_integer() else float(value)


def none_if_negative(value: int) -> int | None:
    return None if value < 0 else int(value)


def meld_cards(rules: RummyRules, r, slot: int) -> list[int]:
    """The cards of the meld in ``slot`` of record ``r``, sorted by card type."""
    counts = np.zeros(rules.num_card_types, dtype=np.int8)
    slot_cards(r, slot, counts)
    return cards_of(counts)


def snapshot(rules: RummyRules, r, undo=None) -> dict[str, Any]:
    """The position held by record ``r`` (with ``undo``, the row's UNDO copy) as plain data."""
    players = rules.num_players
    table = []
    for slot in range(int(r["slot_n"])):
        table.append({
            "slot": slot, "owner": int(r["slot_owner"][slot]), "kind": KIND_NAMES[int(r["slot_kind"][slot])],
            "cards": meld_cards(rules, r, slot), "lo": int(r["slot_lo"][slot]), "hi": int(r["slot_hi"][slot]),
        })
    position = {
        "ruleset": rules.ruleset,
        "num_players": players,
        "phase": PHASE_NAMES[int(r["phase"])],
        "current": int(r["current"]),
        "dealer": int(r["dealer"]),
        "hands": [cards_of(r["hand"][seat]) for seat in range(players)],
        "stock": [int(card) for card in r["stock"][: int(r["stock_n"])]],
        "discard": [int(card) for card in r["pile"][: int(r["pile_n"])]],
        "taken": none_if_negative(int(r["taken"])),
        "table": table,
        "table_by_seat": [cards_of(r["table_by_seat"][seat]) for seat in range(players)],
        "known": [cards_of(r["known"][seat]) for seat in range(players)],
        "played_this_turn": bool(r["played_turn"]),
        "has_played": [bool(v) for v in r["has_played"][:players]],
        "has_melded": [bool(v) for v in r["has_melded"][:players]],
        "turn": int(r["turns"]),
        "reshuffles": int(r["reshuffles"]),
        "hands_played": int(r["hands_played"]),
        "undos": int(r["undos"]),
        "totals": [_number(v) for v in r["totals"][:players]],
        "hand_scores": [_number(v) for v in r["hand_scores"][:players]],
        "winner": none_if_negative(int(r["winner"])),
        "rummy": bool(r["rummy"]),
        "end_reason": END_NAMES[int(r["end_reason"])],
        "game_winners": [seat for seat in range(players) if r["game_winners"][seat]],
        "illegal_by": none_if_negative(int(r["illegal_by"])),
        "rng": int(r["rng"]),
        "history": {kind: [cards_of(r["history"][seat, k]) for seat in range(players)]
                    for k, kind in enumerate(HISTORY_KINDS)} | {"last_discard": [
                        none_if_negative(int(card)) for card in r["last_discard"][:players]]},
    }
    position |= family(rules.ruleset).position.snapshot(rules, r, undo, table)
    return position


def snapshot_keys() -> list[str]:
    return ["num_players", "phase", "current", "dealer", "hands", "stock", "discard", "taken", "table", "table_by_seat",
            "known", "played_this_turn", "has_played", "has_melded", "turn", "reshuffles", "hands_played", "undos",
            "totals", "hand_scores", "winner", "rummy", "end_reason", "game_winners", "illegal_by", "rng",
            "ruleset", "first_turn", "opened", "take_backs", "turn_state", "gin", "history"]

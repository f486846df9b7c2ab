"""The rami51 keys of a position (``rummy_env.engine.positions`` lists them): the dealer's first turn (R5), who has
opened (R11), the take-backs (R25), the melds' jokers and purity (R9, R11.2) and the turn's bookkeeping with its UNDO
copy (R11.5, R24, R25); written into a record by ``fill``, read back by ``snapshot``."""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.engine import positions
from rummy_env.engine.loading import bad_value, bool_of, bools_of, card_list, count_of, per_seat
from rummy_env.engine.positions import cards_of
from rummy_env.engine.state import PHASE_NAMES, PURE, PURE_BUT_JOKER

PHASES = PHASE_NAMES[:4]
TURN_SCALARS = ("opened_at_start", "taken_laid", "freed_jokers", "tentative", "touched_table", "start_slots", "doomed",
                "all_at_once", "joker_finish", "turn_jokers", "turn_points", "took_back")


def fill(rules, r, position: dict[str, Any], melds: list[dict[str, Any]]) -> None:
    """The rami51 fields; a hand-written position starts a clean turn (nothing tentative or pending)."""
    players = rules.num_players
    r["first_turn"] = bool_of("first_turn", position.get("first_turn", False))
    r["opened"][:] = 0
    r["opened"][:players] = bools_of("opened", position.get("opened", [False] * players), players)
    r["take_backs"][:] = 0
    r["take_backs"][:players] = [count_of("take_backs", v, 0, 127)
                                 for v in per_seat("take_backs", position.get("take_backs", [0] * players), players)]
    for slot, meld in enumerate(melds):
        r["slot_tentative"][slot] = bool(meld.get("tentative", False))
        r["slot_pure"][slot] = PURE_BUT_JOKER if meld.get("pure_but_joker") else PURE if meld.get("pure") else 0
    turn = position.get("turn_state", {})
    if not isinstance(turn, dict):
        raise bad_value("turn_state", turn, "a dict of the turn's bookkeeping")
    unknown = set(turn) - set(TURN_SCALARS) - {"pending", "own_laid", "undo"}
    if unknown:
        raise ValueError(f"position key 'turn_state': unknown entries {sorted(unknown)}")
    for name in TURN_SCALARS:
        r[name] = count_of(f"turn_state.{name}", turn.get(name, 0), -30000)
    if "start_slots" not in turn:
        r["start_slots"] = len(melds)
    if "opened_at_start" not in turn:
        r["opened_at_start"] = r["opened"][int(r["current"])]
    r["pending"][:] = 0
    np.add.at(r["pending"], card_list("turn_state.pending", turn.get("pending", []), rules.num_card_types), 1)
    if (r["pending"] > r["hand"][int(r["current"])]).any():
        raise bad_value("turn_state.pending", turn.get("pending"), "cards in the hand of the player to act")
    own_laid = turn.get("own_laid", [])
    if not isinstance(own_laid, (list, tuple)) or len(own_laid) > len(melds):
        raise bad_value("turn_state.own_laid", own_laid, "one bit mask per table meld")
    r["slot_mine"][: len(own_laid)] = own_laid
    if position.get("taken") is not None and "taken_laid" not in turn:
        r["taken_laid"] = 0


def check_no_turn_copy(rules, r) -> None:
    """A position without ``turn_state.undo`` must not need one (R24, R25)."""
    if int(r["tentative"]) > 0 or int(r["played_turn"]) > 0 and rules.dead_ends == "take_back":
        raise ValueError("position key 'turn_state': a turn with tentative plays, or with plays under dead_ends = "
                         "'take_back', needs 'undo', the position UNDO and TAKE_BACK return to")


def snapshot(rules, r, undo, table: list[dict[str, Any]]) -> dict[str, Any]:
    """The rami51 keys of the position in ``r`` (and its melds' joker, tentative and purity marks), the turn's
    bookkeeping with, once the turn has played, ``undo``: the position UNDO and TAKE_BACK return to."""
    players = rules.num_players
    for meld in table:
        slot = meld["slot"]
        has_joker = r["slot_jokers"][slot] > 0 and r["slot_joker"][slot] >= 0
        meld["joker_at"] = int(r["slot_joker"][slot]) if has_joker else None
        meld["tentative"] = bool(r["slot_tentative"][slot])
        meld["pure"] = bool(r["slot_pure"][slot] == PURE)
        meld["pure_but_joker"] = bool(r["slot_pure"][slot] == PURE_BUT_JOKER)
    turn: dict[str, Any] = {name: int(r[name]) for name in TURN_SCALARS}
    turn["pending"] = cards_of(r["pending"])
    turn["own_laid"] = [int(v) for v in r["slot_mine"][: len(table)]]
    if int(r["played_turn"]) > 0 and undo is not None:
        turn["undo"] = positions.snapshot(rules, undo)
    return {"first_turn": bool(r["first_turn"]), "opened": [bool(v) for v in r["opened"][:players]],
            "take_backs": [int(v) for v in r["take_backs"][:players]], "turn_state": turn}

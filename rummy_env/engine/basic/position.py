"""A basic position has no keys beyond the shared ones (``rummy_env.engine.positions``): its phases are the draw,
the play and the ends of the hand and the game (B6-B12), and nothing of a turn is taken back."""

from __future__ import annotations

from typing import Any

from rummy_env.engine.state import PHASE_NAMES

PHASES = PHASE_NAMES[:4]


def fill(rules, r, position: dict[str, Any], melds: list[dict[str, Any]]) -> None:
    """Basic adds nothing to the shared keys."""


def check_no_turn_copy(rules, r) -> None:
    """Basic keeps no UNDO copy: no position needs one."""


def snapshot(rules, r, undo, table: list[dict[str, Any]]) -> dict[str, Any]:
    """Basic adds nothing to the shared keys."""
    return {}

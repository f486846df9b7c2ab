"""The gin keys of a position (``rummy_env.engine.positions`` lists them): the knock and its limit (G6, G13), the
first upcard's passes (G3), the boxes (G12) and the cards laid off at each end of the knocker's runs (G8); written
into a record by ``fill``, read back by ``snapshot``. Every gin phase may be loaded, the wall's included (G10)."""

from __future__ import annotations

from typing import Any

from rummy_env.engine.loading import bad_value, count_of, per_seat, seat_of
from rummy_env.engine.positions import none_if_negative
from rummy_env.engine.state import PHASE_NAMES

PHASES = PHASE_NAMES
GIN_SCALARS = ("knock_limit", "knock_stage", "upcard_passes", "repeated", "upcard_draws")


def fill(rules, r, position: dict[str, Any], melds: list[dict[str, Any]]) -> None:
    """The gin fields (G6, G12, G13); a hand-written position defaults to no knock and ``knock_card`` as the
    knock limit."""
    players = rules.num_players
    state = position.get("gin", {})
    if not isinstance(state, dict):
        raise bad_value("gin", state, "a dict of the gin hand's fields")
    unknown = set(state) - set(GIN_SCALARS) - {"knocker", "boxes"}
    if unknown:
        raise ValueError(f"position key 'gin': unknown entries {sorted(unknown)}")
    r["knocker"] = seat_of("gin.knocker", state.get("knocker"), players, none_ok=True)
    limits = {"knock_limit": (0, 10), "knock_stage": (0, 2), "upcard_passes": (0, 2), "repeated": (0, 1),
              "upcard_draws": (0, 30000)}
    defaults = {"knock_limit": rules.knock_card}
    for name in GIN_SCALARS:
        r[name] = count_of(f"gin.{name}", state.get(name, defaults.get(name, 0)), *limits[name])
    r["boxes"][:] = 0
    r["boxes"][:players] = [count_of("gin.boxes", v) for v in per_seat("gin.boxes", state.get("boxes", [0] * players),
                                                                       players)]
    r["slot_low_layoffs"][:] = 0
    r["slot_high_layoffs"][:] = 0
    for slot, meld in enumerate(melds):
        r["slot_low_layoffs"][slot] = count_of(f"table[{slot}].low_layoffs", meld.get("low_layoffs", 0), 0, 13)
        r["slot_high_layoffs"][slot] = count_of(f"table[{slot}].high_layoffs", meld.get("high_layoffs", 0), 0, 13)


def check_no_turn_copy(rules, r) -> None:
    """Nothing of a gin turn is taken back: no position needs an UNDO copy."""


def snapshot(rules, r, undo, table: list[dict[str, Any]]) -> dict[str, Any]:
    """The gin keys of the position in ``r``, and the lay-offs at each end of the table's melds."""
    for meld in table:
        meld["low_layoffs"] = int(r["slot_low_layoffs"][meld["slot"]])
        meld["high_layoffs"] = int(r["slot_high_layoffs"][meld["slot"]])
    return {"gin": {"knocker": none_if_negative(int(r["knocker"])), **{name: int(r[name]) for name in GIN_SCALARS},
                     "boxes": [int(v) for v in r["boxes"][:rules.num_players]]}}

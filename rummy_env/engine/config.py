"""The rules as one named record that the compiled kernels read: ``cfg.opening_threshold``, ``cfg.final_discard``.

Every knob of ``RummyRules`` becomes a field of the same name, so a knob travels unchanged from the
dataclass to the kernel: adding one touches its field (with its doc), its validation and its use.
Translation is generic:

* a bool or int knob is stored as is; ``None`` (unset, unlimited) as ``-1``;
* an enum knob as the index of its value in ``rules.knob_choices(ruleset)[knob]`` (``choice(knob, value)``
  gives the code a kernel compares with);
* a float knob as a float.

A few fields are derived from the rules rather than copied (see ``DERIVED``): sizes, the action layout's
block offsets, the two forms of ``joker_opening_value`` and ``first_dealer``, and the joker scaling factors.
Besides the record, the kernels read ``values`` (each card type's value in hand) and the meld catalogue
(``catalogue``: one row per meld, its first three cards (all of a 3-card meld) then kind, key, lo, hi, joker
position; ``catalogue_bits``: every card of the meld as one bit each).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, NamedTuple

import numpy as np

from rummy_env.actions import KIND_NAMES, ActionLayout
from rummy_env.rules import RummyRules, knob_choices

# catalogue columns after the three cards
CAT_KIND, CAT_KEY, CAT_LO, CAT_HI, CAT_JOKER = 3, 4, 5, 6, 7

# knobs whose value is not one number: replaced by the derived fields below
_NOT_SCALAR = ("ruleset", "hand_size_by_players", "joker_opening_value", "first_dealer", "all_at_once_joker_scaling")
MAX_JOKERS_SCALED = 5  # joker_scaling[k]: the all-at-once factor for k laid jokers (k >= 4 uses the last)

DERIVED: dict[str, Any] = {
    "num_card_types": np.int64, "deck_size": np.int64, "num_slots": np.int64, "num_melds": np.int64,
    "max_run_position": np.int64, "wraps_runs": np.int64, "penalty_scoring": np.int64,
    "meld_offset": np.int64, "layoff_offset": np.int64, "layoff_codes": np.int64, "take_offset": np.int64,
    "swap_offset": np.int64, "discard_offset": np.int64, "num_actions": np.int64,
    "joker_opening_mode": np.int64,      # JOKER_REPRESENTED, JOKER_ZERO or JOKER_FIXED (R10, AR15)
    "joker_opening_points": np.int64,    # the fixed value, with JOKER_FIXED
    "first_dealer": np.int64,            # a seat, or -1 for "random"
    "joker_scaling_on": np.int64,        # all_at_once_joker_scaling is set (R21.5)
    "special_kind": np.int64,            # the action kind of id 2 (A_COMMIT in rami51, A_PASS in gin)
}
JOKER_REPRESENTED, JOKER_ZERO, JOKER_FIXED = 0, 1, 2


def choice(knob: str, value: str, ruleset: str = "rami51") -> int:
    """The code of an enum knob's value, as the kernels see it."""
    return knob_choices(ruleset)[knob].index(value)


# the codes the kernels compare enum knobs with
EPISODE_GAME = choice("episode", "game")
REWARD_SCORE = choice("reward", "score")
GAME_END_HANDS = choice("game_end_mode", "hands", "basic")
GAME_END_ROUNDS = choice("game_end_mode", "rounds")
DEAD_LOWEST_WINS = choice("dead_round_scoring", "lowest_hand_wins", "basic")
DEAD_HAND_PENALTIES = choice("dead_round_scoring", "hand_penalties")
FINAL_REQUIRED, FINAL_OPTIONAL, FINAL_FORBIDDEN = (choice("final_discard", v) for v in ("required", "optional", "forbidden"))
ANNOUNCE_MANUAL = choice("card_announcement", "manual")
FREED_NEW_MELD_OR_LAYOFF = choice("freed_joker_use", "new_meld_or_layoff")
FLAT100 = choice("all_at_once_scoring", "flat100")
EVERY_PICKUP = choice("discard_pickup_min_lay_scope", "every_pickup")
ROUND_CEIL, ROUND_FLOOR = choice("half_point_rounding", "ceil"), choice("half_point_rounding", "floor")
PREVENT_DEAD_ENDS = choice("dead_ends", "prevent")
WALL_OPENSPIEL, WALL_PICKUP_OR_DEAD = (choice("wall_rule", v, "gin") for v in ("openspiel", "pickup_or_dead"))
OPENING_ELEVEN = choice("opening", "eleven_cards", "gin")
KNOCK_SHORTCUT = choice("knock_deadwood", "openspiel_shortcut", "gin")
NEXT_WINNER, NEXT_LOSER = choice("next_dealer", "winner", "gin"), choice("next_dealer", "loser", "gin")


def _knob_fields() -> list[tuple[str, Any]]:
    fields = []
    for field in dataclasses.fields(RummyRules):
        if field.name in _NOT_SCALAR:
            continue
        kind = np.float64 if field.type in ("float", "int | float") else np.int64
        fields.append((field.name, kind))
    return fields


@functools.lru_cache(maxsize=None)
def config_dtype() -> np.dtype:
    """One dtype object for every rules config (numba recognises a record type by its dtype object)."""
    fields = _knob_fields() + list(DERIVED.items()) + [("joker_scaling", np.float64, (MAX_JOKERS_SCALED,))]
    return np.dtype(fields, align=True)


class Tables(NamedTuple):
    """The tables every kernel reads beside the config record (``tabs``): the meld catalogue's rows (their first three
    cards, then the ``CAT_*`` columns), each row's cards as bits, and the hand value of every card type."""

    catalogue: np.ndarray
    catalogue_bits: np.ndarray
    values: np.ndarray


def kernel_config(rules: RummyRules, layout: ActionLayout) -> tuple[np.ndarray, Tables]:
    """``(cfgs, tables)`` for ``rules``: the config record in a one-element array (``cfgs[0]``) and the
    ``Tables``."""
    record = np.zeros(1, dtype=config_dtype())
    choices = knob_choices(rules.ruleset)
    for name, _ in _knob_fields():
        value = getattr(rules, name)
        if name in choices:
            value = choices[name].index(value)
        record[name] = -1 if value is None else value
    catalogue = layout.catalogue
    derived = {
        "num_card_types": rules.num_card_types, "deck_size": rules.deck_size, "num_slots": rules.num_slots,
        "num_melds": len(catalogue), "max_run_position": rules.max_run_position, "wraps_runs": rules.wraps_runs,
        "penalty_scoring": rules.is_penalty_scoring, "meld_offset": layout.meld_offset,
        "layoff_offset": layout.layoff_offset, "layoff_codes": layout.layoff_codes, "take_offset": layout.take_offset,
        "swap_offset": layout.swap_offset, "discard_offset": layout.discard_offset, "num_actions": layout.num_actions,
        "first_dealer": -1 if rules.first_dealer == "random" else int(rules.first_dealer),
        "joker_scaling_on": rules.all_at_once_joker_scaling is not None,
        "special_kind": KIND_NAMES.index(layout.specials[0]) if layout.specials else -1,
    }
    opening = rules.joker_opening_value
    derived["joker_opening_mode"] = {"represented": JOKER_REPRESENTED, "zero": JOKER_ZERO}.get(opening, JOKER_FIXED)
    derived["joker_opening_points"] = opening if isinstance(opening, int) else 0
    for name, value in derived.items():
        record[name] = value
    if rules.all_at_once_joker_scaling is not None:
        record["joker_scaling"] = [rules.joker_scaling_factor(k) for k in range(MAX_JOKERS_SCALED)]
    values = np.array(rules.card_values, dtype=np.int64)
    table = np.concatenate([catalogue.cards[:, :3].astype(np.int64), catalogue.kind[:, None], catalogue.key[:, None],
                            catalogue.lo[:, None], catalogue.hi[:, None], catalogue.joker_at[:, None]], axis=1)
    bits = np.zeros(len(catalogue), dtype=np.uint64)
    for entry in range(len(catalogue)):
        for card in catalogue.members(entry):
            bits[entry] |= np.uint64(1) << np.uint64(card)
    return record, Tables(np.ascontiguousarray(table, dtype=np.int64), bits, values)

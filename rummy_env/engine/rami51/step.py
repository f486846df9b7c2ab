"""Applying a legal rami51 action (R5-R7, R11.5, R15, R18, R24, R25) and the rami51 batch drivers, one set per
``dead_ends`` mode (R25).

UNDO (R24) and TAKE_BACK (R25) return to the copy of the record kept just before the turn's first play
(``takeback``); that copy lives outside the record (``undo``, one per row) so that the no-dead-end search never
copies it.
"""

from __future__ import annotations

import threading
from typing import NamedTuple

import numba as nb

from rummy_env.actions import A_COMMIT, A_DISCARD, A_DRAW_DISCARD, A_DRAW_STOCK, A_TAKE_BACK, A_UNDO
from rummy_env.cards import JOKER
from rummy_env.engine.common import decode, to_pile
from rummy_env.engine.drivers import Drivers, make_drivers
from rummy_env.engine.jit import JIT
from rummy_env.engine.rami51.mask import make_mask
from rummy_env.engine.rami51.moves import apply_play, draw, penalty_draws
from rummy_env.engine.rami51.round import make_round
from rummy_env.engine.rami51.scoring import end_round_out
from rummy_env.engine.rami51.search import worker_buffers
from rummy_env.engine.rami51.takeback import apply_take_back, keep_turn_start, restore
from rummy_env.rules import knob_choices

DEAD_ENDS = knob_choices("rami51")["dead_ends"]
KERNELS: dict = {}  # dead_ends -> Kernels, made on first use (``kernels``)
MADE_LOCK = threading.RLock()  # reentrant: the compiled policies make their mode's kernels under it


class Kernels(NamedTuple):
    """The compiled rami51 rules of one ``dead_ends`` mode: the batch drivers, and the row functions the compiled
    policies call."""

    drivers: Drivers
    mask_row: object
    legal_reason: object


def made_once(made: dict, dead_ends: str, make):
    """``made[dead_ends]``, made by ``make(dead_ends)`` on first use, once per process: under one lock, as two
    threads making the first engines would otherwise make two sets, whose kernel identities clash."""
    if dead_ends not in DEAD_ENDS:
        raise ValueError(f"dead_ends must be one of {DEAD_ENDS}, not {dead_ends!r}")
    with MADE_LOCK:
        if dead_ends not in made:
            made[dead_ends] = make(dead_ends)
        return made[dead_ends]


def kernels(dead_ends: str) -> Kernels:
    """The kernels of ``dead_ends`` (``"take_back"`` or ``"prevent"``, R25), made once per process. The mode is fixed
    when they compile, so that a ``"take_back"`` build never compiles the no-dead-end search (most of rami51's
    compile time)."""
    return made_once(KERNELS, dead_ends, make_kernels)


def make_kernels(dead_ends: str) -> Kernels:
    """The kernels of ``dead_ends``, made afresh (``kernels`` keeps them)."""
    can_pick_up, mask_row, legal_reason = make_mask(dead_ends == "prevent")
    new_game_row, next_hand_row, end_turn = make_round(can_pick_up)

    @nb.njit(**JIT)
    def apply_row(rows, undo, action: int, work, tabs, cfg) -> None:
        """Apply a legal ``action`` of the player to act in ``rows[0]`` (``undo[0]``: the record kept before the
        turn's first play)."""
        r = rows[0]
        p = r.current
        kind, a, b = decode(action, cfg)
        if kind == A_DRAW_STOCK or kind == A_DRAW_DISCARD:
            draw(r, kind == A_DRAW_DISCARD)
            return
        if kind == A_UNDO:  # back to the position before the turn's first (tentative) play, one undo spent (R24)
            undos = r.undos
            restore(rows, undo)
            r.undos = undos + 1
            return
        if kind == A_TAKE_BACK:
            apply_take_back(rows, undo, cfg)
            return
        if kind == A_DISCARD:
            to_pile(r, p, a)
            if r.hand_n[p] == 0:
                end_round_out(r, a == JOKER, tabs.values, cfg)
                return
            if b == 0:  # "carte" not announced (R7)
                penalty_draws(r, cfg.announcement_penalty_cards, cfg)
            end_turn(r, work, tabs, cfg)
            return
        keep_turn_start(r, undo, kind != A_COMMIT)
        apply_play(r, kind, a, b, tabs.catalogue, cfg)
        if r.hand_n[p] == 0:
            end_round_out(r, False, tabs.values, cfg)

    drivers = make_drivers(new_game_row, next_hand_row, mask_row, legal_reason, apply_row, worker_buffers,
                           f"rami51.{dead_ends}")
    return Kernels(drivers, mask_row, legal_reason)


def drivers(rules) -> Drivers:
    """The batch drivers of ``rules`` (a ``RummyRules``), for its ``dead_ends`` mode."""
    return kernels(rules.dead_ends).drivers

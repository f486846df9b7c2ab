"""Applying a legal rami51 action (R5-R7, R11.5, R15, R18, R24, R25) and the rami51 batch drivers.

UNDO (R24) and TAKE_BACK (R25) return to the copy of the record kept just before the turn's first play
(``takeback``); that copy lives outside the record (``undo``, one per row) so that the no-dead-end search never
copies it.
"""

from __future__ import annotations

import numba as nb

from rummy_env.actions import A_COMMIT, A_DISCARD, A_DRAW_DISCARD, A_DRAW_STOCK, A_TAKE_BACK, A_UNDO
from rummy_env.cards import JOKER
from rummy_env.engine.common import decode, to_pile
from rummy_env.engine.drivers import make_drivers
from rummy_env.engine.jit import JIT
from rummy_env.engine.rami51.mask import legal_reason, mask_row
from rummy_env.engine.rami51.moves import apply_play, draw, penalty_draws
from rummy_env.engine.rami51.round import end_turn, new_game_row, next_hand_row
from rummy_env.engine.rami51.scoring import end_round_out
from rummy_env.engine.rami51.search import worker_buffers
from rummy_env.engine.rami51.takeback import apply_take_back, keep_turn_start, restore


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
            end_round_out(r, a == JOKER, tabs[2], cfg)
            return
        if b == 0:  # "carte" not announced (R7)
            penalty_draws(r, cfg.announcement_penalty_cards, cfg)
        end_turn(r, work, tabs, cfg)
        return
    keep_turn_start(r, undo, kind != A_COMMIT)
    apply_play(r, kind, a, b, tabs[0], cfg)
    if r.hand_n[p] == 0:
        end_round_out(r, False, tabs[2], cfg)


DRIVERS = make_drivers(new_game_row, next_hand_row, mask_row, legal_reason, apply_row, worker_buffers)

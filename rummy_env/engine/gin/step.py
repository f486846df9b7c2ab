"""Applying a legal gin action (G3-G10, G14) and the gin batch drivers: the knock hands the turn to the
knocker's discard and melds, then to the defender's lay-offs and melds, and the defender's last PASS scores
the hand. With ``auto_melds`` the engine lays both best arrangements right after the knock discard (G14).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.actions import A_DISCARD, A_DRAW_DISCARD, A_DRAW_STOCK, A_KNOCK, A_LAY_OFF, A_MELD, A_PASS
from rummy_env.engine.common import decode, draw_pile, to_pile
from rummy_env.engine.drivers import Drivers, make_drivers
from rummy_env.engine.gin import deadwood
from rummy_env.engine.gin.knock import STAGE_BIG_GIN, STAGE_DISCARD, STAGE_LAYING
from rummy_env.engine.gin.mask import legal_reason, mask_row
from rummy_env.engine.gin.scoring import score_knock
from rummy_env.engine.gin.table import lay_best, lay_entry, lay_off, reveal
from rummy_env.engine.gin.turn import declare_dead, discard, draw, new_game_row, next_hand_row, pass_upcard
from rummy_env.engine.jit import JIT
from rummy_env.engine.state import PHASE_DEFEND, PHASE_DRAW, PHASE_KNOCK, PHASE_LAYOFF, PHASE_PLAY, PHASE_UPCARD, PHASE_WALL


@nb.njit(**JIT)
def knock(r, p: int) -> None:
    """``p`` knocks (G6): he discards next (or declares big gin, G7), then lays his melds."""
    r.knocker = p
    r.knock_stage = STAGE_DISCARD
    r.phase = PHASE_KNOCK


@nb.njit(**JIT)
def knocker_done(r, tabs, cfg, ubuf, ibuf) -> None:
    """The knocker has laid his hand: his deadwood is shown; the defender lays off (unless the knocker has
    gin, EG3, or lay-offs are off) and melds (G8). With ``auto_melds`` the defender's best arrangement is laid
    and the hand scored at once (G14)."""
    reveal(r, r.knocker)
    r.current = 1 - r.knocker
    if cfg.auto_melds:
        lay_best(r, r.current, tabs.catalogue, tabs.catalogue_bits, ubuf, ibuf)
        score_knock(r, cfg)
        return
    gin = deadwood.cards_value(deadwood.hand_mask(r.hand[r.knocker])) == 0
    r.phase = PHASE_LAYOFF if cfg.layoffs and not gin else PHASE_DEFEND


@nb.njit(**JIT)
def after_knock_discard(r, tabs, cfg, ubuf, ibuf) -> None:
    """After the knock discard or the big-gin declaration: the knocker lays his melds himself, or the engine
    lays his best arrangement (``auto_melds``)."""
    if cfg.auto_melds:
        lay_best(r, r.knocker, tabs.catalogue, tabs.catalogue_bits, ubuf, ibuf)
        knocker_done(r, tabs, cfg, ubuf, ibuf)


@nb.njit(**JIT)
def apply_row(rows, undo, action: int, work, tabs, cfg) -> None:
    """Apply a legal ``action`` of the player to act in ``rows[0]`` (gin keeps no UNDO copy)."""
    r = rows[0]
    p = r.current
    ubuf, ibuf = work
    kind, a, b = decode(action, cfg)
    phase = r.phase
    if kind == A_DRAW_STOCK or kind == A_DRAW_DISCARD:
        draw(r, kind == A_DRAW_DISCARD, cfg)
    elif phase == PHASE_UPCARD:
        pass_upcard(r)
    elif phase == PHASE_DRAW or phase == PHASE_WALL and kind == A_PASS:
        declare_dead(r, cfg)
    elif phase == PHASE_PLAY:
        if kind == A_KNOCK:
            knock(r, p)
        else:
            discard(r, a, cfg)
    elif phase == PHASE_WALL:  # knock with the upcard (G10)
        r.taken = draw_pile(r, p)
        knock(r, p)
    elif phase == PHASE_KNOCK:
        if kind == A_DISCARD:
            to_pile(r, p, a)
            r.knock_stage = STAGE_LAYING
            after_knock_discard(r, tabs, cfg, ubuf, ibuf)
        elif kind == A_KNOCK:
            r.knock_stage = STAGE_BIG_GIN
            after_knock_discard(r, tabs, cfg, ubuf, ibuf)
        elif kind == A_MELD:
            lay_entry(r, p, a, tabs.catalogue, tabs.catalogue_bits)
        else:
            knocker_done(r, tabs, cfg, ubuf, ibuf)
    elif phase == PHASE_LAYOFF:
        if kind == A_LAY_OFF:
            lay_off(r, p, b, cfg)
        else:
            r.phase = PHASE_DEFEND
    elif kind == A_MELD:
        lay_entry(r, p, a, tabs.catalogue, tabs.catalogue_bits)
    else:
        score_knock(r, cfg)


def work_buffers(threads: int, record_dtype: np.dtype) -> tuple:
    """Each thread's scratch for the meld scans (``rummy_env.engine.gin.deadwood.scratch``)."""
    return deadwood.scratch(threads)


@nb.njit(**JIT)
def worker_buffers(work, thread: int):
    return work[0][thread], work[1][thread]


def search_stats(work) -> dict[str, int]:
    return {}


DRIVERS = make_drivers(new_game_row, next_hand_row, mask_row, legal_reason, apply_row, worker_buffers, "gin")


def drivers(rules) -> Drivers:
    """The batch drivers, one set for every gin rules."""
    return DRIVERS

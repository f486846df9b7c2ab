"""Gin legality by phase (G3-G8, G10, G13, G14): ``legal_reason`` for one action and the exact mask, both
made of the same checks (``rummy_env.engine.gin.knock``, ``rummy_env.engine.gin.table``).

=========  =====================================================================================
phase      legal actions
=========  =====================================================================================
upcard     take the first upcard (DRAW_DISCARD) or PASS; after both passed, DRAW_STOCK (G3, EG5)
draw       DRAW_STOCK, DRAW_DISCARD; with ``wall_rule="pickup_or_dead"`` and 2 stock cards or fewer,
           DRAW_DISCARD or PASS (a dead hand, G14)
play       DISCARD (not the card just taken, G4) or KNOCK (G6); only KNOCK when gin is forced (G14)
wall       KNOCK with the upcard or PASS (``wall_rule="openspiel"``, G10)
knock      the knocker's discard or, all 11 cards melding, KNOCK again for big gin (G7); then his
           MELDs and PASS once his deadwood is within the limit (G6, EG12)
layoff     the defender's LAY_OFFs and PASS (G8; skipped after gin, EG3, or with ``layoffs=False``)
defend     the defender's MELDs and PASS, which scores the hand (G8, G9)
=========  =====================================================================================
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.actions import (
    A_DISCARD, A_DRAW_DISCARD, A_DRAW_STOCK, A_KNOCK, A_LAY_OFF, A_MELD, A_PASS, DRAW_DISCARD, DRAW_STOCK, KNOCK, PASS,
)
from rummy_env.engine import reasons as why
from rummy_env.engine.common import closed_reason, decode, over
from rummy_env.engine.gin.deadwood import bit, hand_mask
from rummy_env.engine.gin.knock import (
    STAGE_DISCARD, avoid_bits, big_gin_check, gin_discard_possible, knock_check, knock_discard_check,
    knocker_meld_check, knocker_pass_check,
)
from rummy_env.engine.gin.table import layoff_slot
from rummy_env.engine.gin.turn import stock_at_wall
from rummy_env.engine.jit import JIT
from rummy_env.engine.state import (
    PHASE_DEFEND, PHASE_DRAW, PHASE_KNOCK, PHASE_LAYOFF, PHASE_PLAY, PHASE_UPCARD, PHASE_WALL,
)


@nb.njit(**JIT)
def wall_hand(r, cfg) -> tuple:
    """At the wall (G10): the hand with the upcard, and the upcard as the card that may not be discarded."""
    top = r.pile[r.pile_n - 1]
    avoid = bit(top) if cfg.forbid_discarding_taken_card else np.uint64(0)
    return hand_mask(r.hand[r.current]) | bit(top), avoid


@nb.njit(**JIT)
def draw_reason(r, kind: int, cfg) -> int:
    """The first upcard (G3, EG5) and an ordinary draw (G4, G14)."""
    if r.phase == PHASE_UPCARD:
        if r.upcard_passes >= 2:
            return why.LEGAL if kind == A_DRAW_STOCK else why.UPCARD_PASSED
        return why.LEGAL if kind == A_DRAW_DISCARD or kind == A_PASS else why.UPCARD_OFFER
    if kind == A_DRAW_STOCK:
        if stock_at_wall(r, cfg):
            return why.STOCK_AT_WALL
        return why.LEGAL if r.stock_n > 0 else why.STOCK_EMPTY
    if kind == A_DRAW_DISCARD:
        return why.LEGAL if r.pile_n > 0 else why.PILE_EMPTY
    if kind == A_PASS and stock_at_wall(r, cfg):
        return why.LEGAL
    return why.MUST_DRAW


@nb.njit(**JIT)
def discard_reason(r, p: int, card: int, gin_possible: bool, cfg) -> int:
    """An ordinary discard (G4, G14)."""
    if r.hand[p, card] == 0:
        return why.NOT_IN_HAND
    if card == r.taken and cfg.forbid_discarding_taken_card:
        return why.DISCARD_TAKEN
    return why.GIN_FORCED if gin_possible else why.LEGAL


@nb.njit(**JIT)
def gin_forced_now(r, p: int, cfg, ubuf, ibuf) -> bool:
    return cfg.gin_forced and gin_discard_possible(hand_mask(r.hand[p]), avoid_bits(r, cfg), ubuf, ibuf)


@nb.njit(**JIT)
def legal_reason(r, action: int, work, tabs, cfg) -> int:
    """0 if ``action`` is legal for the player to act in game ``r``, else why not."""
    kind, a, b = decode(action, cfg)
    closed = closed_reason(r, kind)
    if closed:
        return closed
    ubuf, ibuf = work
    p = r.current
    phase = r.phase
    if phase == PHASE_UPCARD or phase == PHASE_DRAW:
        return draw_reason(r, kind, cfg)
    if kind == A_DRAW_STOCK or kind == A_DRAW_DISCARD:
        return why.ALREADY_DREW
    if phase == PHASE_PLAY:
        if kind == A_KNOCK:
            return knock_check(hand_mask(r.hand[p]), avoid_bits(r, cfg), r, cfg, ubuf, ibuf)
        if kind == A_DISCARD:
            return discard_reason(r, p, a, gin_forced_now(r, p, cfg, ubuf, ibuf), cfg)
    elif phase == PHASE_WALL:
        if kind == A_PASS:
            return why.LEGAL
        if kind == A_KNOCK:
            h, avoid = wall_hand(r, cfg)
            return knock_check(h, avoid, r, cfg, ubuf, ibuf)
    elif phase == PHASE_KNOCK:
        if r.knock_stage == STAGE_DISCARD:
            if kind == A_DISCARD:
                return knock_discard_check(r, p, a, cfg, ubuf, ibuf)
            if kind == A_KNOCK:
                return big_gin_check(r, p, cfg, ubuf, ibuf)
        elif kind == A_MELD:
            return knocker_meld_check(r, p, tabs.catalogue_bits[a], cfg, ubuf, ibuf)
        elif kind == A_PASS:
            return knocker_pass_check(r, p)
    elif phase == PHASE_LAYOFF:
        if kind == A_PASS:
            return why.LEGAL
        if kind == A_LAY_OFF:
            if r.hand[p, b] == 0:
                return why.NOT_IN_HAND
            return why.LEGAL if layoff_slot(r, b, cfg) >= 0 else why.DOES_NOT_FIT
    elif phase == PHASE_DEFEND:
        if kind == A_PASS:
            return why.LEGAL
        if kind == A_MELD:
            return why.LEGAL if tabs.catalogue_bits[a] & ~hand_mask(r.hand[p]) == 0 else why.NOT_IN_HAND
        if kind == A_LAY_OFF:
            return why.LAYOFFS_OVER
    return why.NOT_NOW


@nb.njit(**JIT)
def mask_row(r, out, work, tabs, cfg) -> None:
    """The exact legal-action mask of game ``r`` (int8, zeroed here): each candidate decided by its check."""
    out[:] = 0
    if over(r):
        return
    ubuf, ibuf = work
    p = r.current
    phase = r.phase
    if phase == PHASE_UPCARD or phase == PHASE_DRAW:
        out[DRAW_STOCK] = draw_reason(r, A_DRAW_STOCK, cfg) == why.LEGAL
        out[DRAW_DISCARD] = draw_reason(r, A_DRAW_DISCARD, cfg) == why.LEGAL
        out[PASS] = draw_reason(r, A_PASS, cfg) == why.LEGAL
        return
    h = hand_mask(r.hand[p])
    if phase == PHASE_PLAY:
        out[KNOCK] = knock_check(h, avoid_bits(r, cfg), r, cfg, ubuf, ibuf) == why.LEGAL
        gin_possible = gin_forced_now(r, p, cfg, ubuf, ibuf)
        for card in range(52):
            if h & bit(card) and discard_reason(r, p, card, gin_possible, cfg) == why.LEGAL:
                out[cfg.discard_offset + card] = 1
    elif phase == PHASE_WALL:
        out[PASS] = 1
        wall, avoid = wall_hand(r, cfg)
        out[KNOCK] = knock_check(wall, avoid, r, cfg, ubuf, ibuf) == why.LEGAL
    elif phase == PHASE_KNOCK and r.knock_stage == STAGE_DISCARD:
        out[KNOCK] = big_gin_check(r, p, cfg, ubuf, ibuf) == why.LEGAL
        for card in range(52):
            if h & bit(card) and knock_discard_check(r, p, card, cfg, ubuf, ibuf) == why.LEGAL:
                out[cfg.discard_offset + card] = 1
    elif phase == PHASE_KNOCK:
        out[PASS] = knocker_pass_check(r, p) == why.LEGAL
        for entry in range(cfg.num_melds):
            cards = tabs.catalogue_bits[entry]
            if cards & ~h == 0 and knocker_meld_check(r, p, cards, cfg, ubuf, ibuf) == why.LEGAL:
                out[cfg.meld_offset + entry] = 1
    elif phase == PHASE_LAYOFF:
        out[PASS] = 1
        for card in range(52):
            if h & bit(card) and layoff_slot(r, card, cfg) >= 0:
                out[cfg.layoff_offset + card] = 1
    elif phase == PHASE_DEFEND:
        out[PASS] = 1
        for entry in range(cfg.num_melds):
            if tabs.catalogue_bits[entry] & ~h == 0:
                out[cfg.meld_offset + entry] = 1

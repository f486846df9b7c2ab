"""The rami51 mask and the legality of one action (R6, R7, R11.5, R15, R20, R23, R24, R25, AR2): local checks
(``moves``, ``plays``, ``opening``, ``takeback``), then, under ``dead_ends = "prevent"``, the no-dead-end search
(``search``) for plays, COMMIT and the discard-pile draw. Under ``"take_back"`` an action is legal on its own
(a play that empties the hand must be a legal out, R15), and TAKE_BACK puts a turn that cannot be finished back."""

from __future__ import annotations

import numba as nb

from rummy_env.actions import (
    A_COMMIT, A_DISCARD, A_DRAW_DISCARD, A_DRAW_STOCK, A_LAY_OFF, A_MELD, A_TAKE_BACK, A_UNDO, COMMIT, DRAW_DISCARD,
    DRAW_STOCK, TAKE_BACK, UNDO,
)
from rummy_env.cards import JOKER
from rummy_env.engine import reasons as why
from rummy_env.engine.common import decode, over
from rummy_env.engine.config import ANNOUNCE_MANUAL, PREVENT_DEAD_ENDS
from rummy_env.engine.jit import JIT
from rummy_env.engine.rami51.candidates import play_candidates
from rummy_env.engine.rami51.moves import apply_play, discard_check, draw, play_check, undo_check
from rummy_env.engine.rami51.opening import commit_check, out_check
from rummy_env.engine.rami51.search import SEARCH_DEPTH, begin_row_check, finishable, play_finishable, play_slot
from rummy_env.engine.rami51.takeback import take_back_check
from rummy_env.engine.state import PHASE_DRAW, PHASE_GAME_OVER, PHASE_PLAY


@nb.njit(**JIT)
def draw_discard_check(r, work, catalogue, catalogue_bits, cfg) -> int:
    """DRAW_DISCARD (R6, R7, R20, AR2): a top card, more than one card in hand, the first lap over if required,
    and, under ``dead_ends = "prevent"``, a finish of the turn that lays it, with no undo (R23, R25)."""
    if r.pile_n == 0:
        return why.PILE_EMPTY
    if r.hand_n[r.current] == 1:
        return why.ONE_CARD_NO_PICKUP
    if cfg.discard_pickup_from_second_round and r.turns < cfg.num_players:
        return why.PICKUP_FIRST_ROUND
    if cfg.dead_ends != PREVENT_DEAD_ENDS:
        return why.LEGAL
    scratch = work[0]
    top = SEARCH_DEPTH + 1
    scratch[top] = r
    child = scratch[top]
    draw(child, True)
    return why.LEGAL if finishable(child, False, work, catalogue, catalogue_bits, cfg) else why.PICKUP_UNUSABLE


@nb.njit(**JIT)
def commit_reason(r, work, catalogue, catalogue_bits, cfg) -> int:
    """COMMIT (R11.5) is never undone: under ``dead_ends = "prevent"``, afterwards the turn must be finishable
    without undo (R23)."""
    reason = commit_check(r, cfg)
    if reason != why.LEGAL or cfg.dead_ends != PREVENT_DEAD_ENDS:
        return reason
    scratch = work[0]
    top = SEARCH_DEPTH + 1
    scratch[top] = r
    child = scratch[top]
    apply_play(child, A_COMMIT, -1, -1, catalogue, cfg)
    return why.LEGAL if finishable(child, False, work, catalogue, catalogue_bits, cfg) else why.DEAD_END


@nb.njit(**JIT)
def play_reason(r, kind: int, a: int, b: int, work, catalogue, catalogue_bits, cfg) -> int:
    """Whether a locally legal play is legal, 0 or why not: under ``"prevent"``, the turn can be finished after it
    (R23, ``search.play_finishable``); under ``"take_back"``, it does not empty the hand unless that is a legal out
    (R15, R16; E70: never by a play onto an old meld of a player who has not opened, without
    ``all_at_once_may_use_table``). Only a MELD of the last three cards or a LAY_OFF of the last card empties it."""
    if cfg.dead_ends == PREVENT_DEAD_ENDS:
        return why.LEGAL if play_finishable(r, kind, a, b, work, catalogue, catalogue_bits, cfg) else why.DEAD_END
    p = r.current
    if not (kind == A_MELD and r.hand_n[p] == 3 or kind == A_LAY_OFF and r.hand_n[p] == 1):
        return why.LEGAL
    slot = play_slot(kind, a)
    if not cfg.all_at_once_may_use_table and not r.opened[p] and 0 <= slot < r.start_slots:
        return why.ALL_AT_ONCE_USED_TABLE
    scratch = work[0]
    top = SEARCH_DEPTH + 1
    scratch[top] = r
    child = scratch[top]
    apply_play(child, kind, a, b, catalogue, cfg)
    return why.LEGAL if child.hand_n[p] > 0 else out_check(child, cfg)


@nb.njit(**JIT)
def mask_row(r, out, work, tabs, cfg) -> None:
    """The exact legal-action mask of game ``r`` (zeroed here)."""
    catalogue, catalogue_bits = tabs[0], tabs[1]
    out[:] = 0
    begin_row_check(work)
    if r.phase == PHASE_DRAW:
        out[DRAW_STOCK] = r.stock_n > 0
        out[DRAW_DISCARD] = draw_discard_check(r, work, catalogue, catalogue_bits, cfg) == why.LEGAL
        return
    if r.phase != PHASE_PLAY:
        return
    candidates = work[1][SEARCH_DEPTH]  # the searches use the rows below
    for k in range(play_candidates(r, candidates, catalogue, catalogue_bits, cfg)):
        action = candidates[k]
        if action == COMMIT:
            out[COMMIT] = commit_reason(r, work, catalogue, catalogue_bits, cfg) == why.LEGAL
        else:
            kind, a, b = decode(action, cfg)
            out[action] = play_reason(r, kind, a, b, work, catalogue, catalogue_bits, cfg) == why.LEGAL
    out[UNDO] = undo_check(r, cfg) == why.LEGAL
    out[TAKE_BACK] = take_back_check(r, cfg) == why.LEGAL
    p = r.current
    for card in range(JOKER + 1):
        if r.hand[p, card] > 0:
            out[cfg.discard_offset + card] = discard_check(r, card, True, cfg) == why.LEGAL
            if cfg.card_announcement == ANNOUNCE_MANUAL:
                out[cfg.discard_offset + JOKER + 1 + card] = discard_check(r, card, False, cfg) == why.LEGAL


@nb.njit(**JIT)
def legal_reason(r, action: int, work, tabs, cfg) -> int:
    """0 if ``action`` is legal for the player to act (the mask's decision for one action), else why not."""
    catalogue, catalogue_bits = tabs[0], tabs[1]
    kind, a, b = decode(action, cfg)
    if kind < 0:
        return why.OUTSIDE_SPACE
    if over(r):
        return why.GAME_OVER if r.phase == PHASE_GAME_OVER else why.HAND_OVER
    begin_row_check(work)
    if r.phase == PHASE_DRAW:
        if kind == A_DRAW_STOCK:
            return why.LEGAL if r.stock_n > 0 else why.STOCK_EMPTY
        if kind == A_DRAW_DISCARD:
            return draw_discard_check(r, work, catalogue, catalogue_bits, cfg)
        return why.MUST_DRAW
    if kind == A_DRAW_STOCK or kind == A_DRAW_DISCARD:
        return why.ALREADY_DREW
    if kind == A_COMMIT:
        return commit_reason(r, work, catalogue, catalogue_bits, cfg)
    if kind == A_UNDO:
        return undo_check(r, cfg)
    if kind == A_TAKE_BACK:
        return take_back_check(r, cfg)
    if kind == A_DISCARD:
        return discard_check(r, a, b == 1, cfg)
    reason = play_check(r, kind, a, b, catalogue, cfg)
    if reason != why.LEGAL:
        return reason
    return play_reason(r, kind, a, b, work, catalogue, catalogue_bits, cfg)

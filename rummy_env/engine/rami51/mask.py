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
from rummy_env.engine.config import ANNOUNCE_MANUAL
from rummy_env.engine.jit import INLINE, JIT
from rummy_env.engine.rami51.candidates import play_candidates
from rummy_env.engine.rami51.moves import (
    apply_play, discard_card_check, discard_check, discard_turn_check, draw, play_check, undo_check,
)
from rummy_env.engine.rami51.opening import commit_check, out_check
from rummy_env.engine.rami51.search import SEARCH_DEPTH, begin_row_check, finishable, play_finishable, play_slot
from rummy_env.engine.rami51.takeback import take_back_check
from rummy_env.engine.state import PHASE_DRAW, PHASE_GAME_OVER, PHASE_PLAY


@nb.njit(**JIT)
def draw_discard_check(r, cfg) -> int:
    """DRAW_DISCARD on its own (R6, R7, R20): a top card, more than one card in hand, the first lap over if
    required."""
    if r.pile_n == 0:
        return why.PILE_EMPTY
    if r.hand_n[r.current] == 1:
        return why.ONE_CARD_NO_PICKUP
    if cfg.discard_pickup_from_second_round and r.turns < cfg.num_players:
        return why.PICKUP_FIRST_ROUND
    return why.LEGAL


@nb.njit(**JIT)
def may_empty_hand(r, kind: int) -> bool:
    """Only a MELD of the last three cards or a LAY_OFF of the last card can empty the hand."""
    n = r.hand_n[r.current]
    return kind == A_MELD and n == 3 or kind == A_LAY_OFF and n == 1


@nb.njit(**JIT)
def out_play_reason(r, kind: int, a: int, b: int, scratch, catalogue, cfg) -> int:
    """Under ``"take_back"`` a locally legal play is legal unless it empties the hand without a legal out (R15,
    R16; E70: never by a play onto an old meld of a player who has not opened, without
    ``all_at_once_may_use_table``); 0 or why not. ``scratch``: a record to try the play on."""
    if not may_empty_hand(r, kind):
        return why.LEGAL
    p = r.current
    slot = play_slot(kind, a)
    if not cfg.all_at_once_may_use_table and not r.opened[p] and 0 <= slot < r.start_slots:
        return why.ALL_AT_ONCE_USED_TABLE
    scratch[0] = r
    child = scratch[0]
    apply_play(child, kind, a, b, catalogue, cfg)
    return why.LEGAL if child.hand_n[p] > 0 else out_check(child, cfg)



def make_mask(prevent: bool) -> tuple:
    """``(can_pick_up, mask_row, legal_reason)`` for one ``dead_ends`` mode (``prevent``: ``"prevent"``), fixed when
    they compile: numba drops the other mode's branches before typing, so a ``"take_back"`` build never compiles the
    search. ``can_pick_up(r, work, tabs, cfg)``: whether DRAW_DISCARD is legal, as a row check of its own (for a
    turn that starts on an empty stock, ``round``)."""

    @nb.njit(**INLINE)
    def pickup_reason(r, work, catalogue, catalogue_bits, cfg) -> int:
        """DRAW_DISCARD (R6, R7, R20, AR2): legal on its own and, under ``"prevent"``, a finish of the turn that
        lays the card, with no undo (R23, R25)."""
        reason = draw_discard_check(r, cfg)
        if prevent:
            if reason == why.LEGAL:
                scratch = work[0]
                scratch[SEARCH_DEPTH + 1] = r  # the row above the search levels
                child = scratch[SEARCH_DEPTH + 1]
                draw(child, True)
                if not finishable(child, False, work, catalogue, catalogue_bits, cfg):
                    return why.PICKUP_UNUSABLE
        return reason

    @nb.njit(**INLINE)
    def commit_reason(r, work, catalogue, catalogue_bits, cfg) -> int:
        """COMMIT (R11.5) is never undone: under ``"prevent"``, afterwards the turn must be finishable without undo
        (R23)."""
        reason = commit_check(r, cfg)
        if prevent:
            if reason == why.LEGAL:
                scratch = work[0]
                scratch[SEARCH_DEPTH + 1] = r  # the row above the search levels
                child = scratch[SEARCH_DEPTH + 1]
                apply_play(child, A_COMMIT, -1, -1, catalogue, cfg)
                if not finishable(child, False, work, catalogue, catalogue_bits, cfg):
                    return why.DEAD_END
        return reason

    @nb.njit(**INLINE)
    def play_reason(r, kind: int, a: int, b: int, work, catalogue, catalogue_bits, cfg) -> int:
        """Whether a locally legal play is legal, 0 or why not: under ``"prevent"``, the turn can be finished after
        it (R23, ``search.play_finishable``); under ``"take_back"``, ``out_play_reason``."""
        if prevent:
            return why.LEGAL if play_finishable(r, kind, a, b, work, catalogue, catalogue_bits, cfg) else why.DEAD_END
        top = SEARCH_DEPTH + 1
        return out_play_reason(r, kind, a, b, work[0][top:top + 1], catalogue, cfg)

    @nb.njit(**JIT)
    def mask_row(r, out, work, tabs, cfg) -> None:
        """The exact legal-action mask of game ``r`` (zeroed here). Under ``"take_back"`` every play the candidates
        list is legal unless it may empty the hand; under ``"prevent"`` each is searched (``play_finishable``): the
        big ``work`` tuple is passed per candidate only then, as each call costs its reference counts."""
        catalogue, catalogue_bits = tabs.catalogue, tabs.catalogue_bits
        out[:] = 0
        if prevent:
            begin_row_check(work)
        if r.phase == PHASE_DRAW:
            out[DRAW_STOCK] = r.stock_n > 0
            out[DRAW_DISCARD] = pickup_reason(r, work, catalogue, catalogue_bits, cfg) == why.LEGAL
            return
        if r.phase != PHASE_PLAY:
            return
        candidates = work[1][SEARCH_DEPTH]  # the searches use the rows below
        top = SEARCH_DEPTH + 1
        scratch = work[0][top:top + 1]
        for k in range(play_candidates(r, candidates, catalogue, catalogue_bits, cfg)):
            action = candidates[k]
            if action == COMMIT:  # the candidates hold a COMMIT only when commit_check passed
                out[COMMIT] = not prevent or commit_reason(r, work, catalogue, catalogue_bits, cfg) == why.LEGAL
                continue
            kind, a, b = decode(action, cfg)
            if prevent:
                out[action] = play_finishable(r, kind, a, b, work, catalogue, catalogue_bits, cfg)
            else:
                out[action] = not may_empty_hand(r, kind) or out_play_reason(r, kind, a, b, scratch, catalogue,
                                                                              cfg) == why.LEGAL
        out[UNDO] = undo_check(r, cfg) == why.LEGAL
        out[TAKE_BACK] = take_back_check(r, cfg) == why.LEGAL
        announced = discard_turn_check(r, True, cfg) == why.LEGAL
        manual = cfg.card_announcement == ANNOUNCE_MANUAL  # the silent discards' block exists
        silent = manual and discard_turn_check(r, False, cfg) == why.LEGAL
        if announced or silent:
            for card in range(JOKER + 1):
                if discard_card_check(r, card) == why.LEGAL:
                    out[cfg.discard_offset + card] = announced
                    if manual:
                        out[cfg.discard_offset + JOKER + 1 + card] = silent

    @nb.njit(**JIT)
    def legal_reason(r, action: int, work, tabs, cfg) -> int:
        """0 if ``action`` is legal for the player to act (the mask's decision for one action), else why not."""
        catalogue, catalogue_bits = tabs.catalogue, tabs.catalogue_bits
        kind, a, b = decode(action, cfg)
        if kind < 0:
            return why.OUTSIDE_SPACE
        if over(r):
            return why.GAME_OVER if r.phase == PHASE_GAME_OVER else why.HAND_OVER
        if prevent:
            begin_row_check(work)
        if r.phase == PHASE_DRAW:
            if kind == A_DRAW_STOCK:
                return why.LEGAL if r.stock_n > 0 else why.STOCK_EMPTY
            if kind == A_DRAW_DISCARD:
                return pickup_reason(r, work, catalogue, catalogue_bits, cfg)
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

    @nb.njit(**INLINE)
    def can_pick_up(r, work, tabs, cfg) -> bool:
        """DRAW_DISCARD is legal, checked as a row check of its own (the search's memo started afresh)."""
        if prevent:
            begin_row_check(work)
        return pickup_reason(r, work, tabs.catalogue, tabs.catalogue_bits, cfg) == why.LEGAL

    return can_pick_up, mask_row, legal_reason

"""A rami51 round (R4, R5, R17, R23): the deal, the start and end of a turn (the stock rebuild, caps, a dead
round when no draw is possible)."""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.engine.common import clear_hand, deal_hands, rebuild_allowed, rebuild_stock, start_game, stock_from, to_hand
from rummy_env.engine.jit import INLINE, JIT
from rummy_env.engine.rami51.scoring import end_round_dead
from rummy_env.engine.state import END_DEAD_NO_DRAW, END_DEAD_RESHUFFLES, END_DEAD_TURN_CAP, PHASE_DRAW, PHASE_PLAY


@nb.njit(**JIT)
def clear_turn(r) -> None:
    """What a turn starts without (R23): nothing taken, laid, pending or tentative."""
    r.taken = -1
    r.taken_laid = 0
    r.pending[:] = 0
    r.freed_jokers = 0
    r.tentative = 0
    r.undos = 0
    r.turn_points = 0
    r.turn_jokers = 0
    r.touched_table = 0
    r.played_turn = 0
    r.start_slots = r.slot_n
    r.slot_pure[:] = 0
    r.slot_mine[:] = 0
    r.slot_tentative[:] = 0
    r.opened_at_start = r.opened[r.current]
    r.took_back = 0


def make_round(can_pick_up) -> tuple:
    """``(new_game_row, next_hand_row, end_turn)`` of one ``dead_ends`` mode: ``can_pick_up`` is that mode's
    DRAW_DISCARD check (``mask.make_mask``), which decides whether a turn starting on an empty stock can draw."""

    @nb.njit(**INLINE)
    def deal_row(r, deck, use_deck: bool, work, tabs, cfg) -> None:
        """Deal a round (R4): 13 cards one at a time clockwise from the dealer's left, one more to the dealer, no
        upcard; the dealer plays first without drawing (R5)."""
        clear_hand(r)
        k = deal_hands(r, deck, use_deck, cfg)
        to_hand(r, r.dealer, r.stock[k])
        stock_from(r, k + 1, cfg)
        r.current = r.dealer
        r.first_turn = 1
        start_turn(r, work, tabs, cfg)

    @nb.njit(**INLINE)
    def new_game_row(r, seed: np.uint64, deck, use_deck: bool, dealer: int, work, tabs, cfg) -> None:
        start_game(r, seed, dealer, cfg)
        deal_row(r, deck, use_deck, work, tabs, cfg)

    @nb.njit(**INLINE)
    def next_hand_row(r, work, tabs, cfg) -> None:
        """The next round: the next player clockwise deals (R4.1)."""
        r.dealer = (r.dealer + 1) % cfg.num_players
        deal_row(r, r.stock, False, work, tabs, cfg)

    @nb.njit(**INLINE)
    def start_turn(r, work, tabs, cfg) -> None:
        """Turn start (R23): caps, the stock rebuild (R17, AR17), the draw (none on the dealer's first turn,
        R5), or a dead round when no draw is possible."""
        clear_turn(r)
        values = tabs.values
        if r.turns >= cfg.max_turns_per_round:
            end_round_dead(r, END_DEAD_TURN_CAP, values, cfg)
            return
        if r.doomed:
            end_round_dead(r, END_DEAD_RESHUFFLES, values, cfg)
            return
        if r.first_turn:
            r.phase = PHASE_PLAY
            return
        if r.stock_n == 0 and r.pile_n - cfg.reshuffle_keep_top >= 1:
            if not rebuild_allowed(r, cfg):
                end_round_dead(r, END_DEAD_RESHUFFLES, values, cfg)
                return
            rebuild_stock(r, cfg.reshuffle_keep_top)
        r.phase = PHASE_DRAW
        if r.stock_n == 0 and not can_pick_up(r, work, tabs, cfg):
            end_round_dead(r, END_DEAD_NO_DRAW, values, cfg)

    @nb.njit(**INLINE)
    def end_turn(r, work, tabs, cfg) -> None:
        if r.played_turn:
            r.has_played[r.current] = 1
        r.first_turn = 0
        r.turns += 1
        r.current = (r.current + 1) % cfg.num_players
        start_turn(r, work, tabs, cfg)

    return new_game_row, next_hand_row, end_turn

"""Rami51 round scoring and the end of the game (R17, R18, R19, R21.5, R22, AR16, AR18): penalties for the
others when a player goes out (x2 / x4 / flat 100 for an all-at-once out; the Lebanese joker scaling),
base penalties or nothing for a dead round, and the lowest total winning."""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.cards import JOKER
from rummy_env.engine.common import mark_game_winners
from rummy_env.engine.config import DEAD_HAND_PENALTIES, FLAT100, GAME_END_ROUNDS, MAX_JOKERS_SCALED, ROUND_CEIL, ROUND_FLOOR
from rummy_env.engine.jit import JIT
from rummy_env.engine.state import END_OUT, PHASE_HAND_OVER


@nb.njit(**JIT)
def base_penalty(r, seat: int, values, cfg) -> float:
    """R19.1: ``non_opener_penalty`` for a player who has not opened, else his hand (ace 11, joker 20 …)."""
    if not r.opened[seat]:
        return float(cfg.non_opener_penalty)
    total = 0
    for card in range(JOKER + 1):
        total += r.hand[seat, card] * values[card]
    return float(total)


@nb.njit(**JIT)
def rounded(x: float, cfg) -> float:
    """``half_point_rounding`` of a scaled penalty (R21.5)."""
    if cfg.half_point_rounding == ROUND_CEIL:
        return np.ceil(x)
    if cfg.half_point_rounding == ROUND_FLOOR:
        return np.floor(x)
    return x


@nb.njit(**JIT)
def end_round_out(r, joker_discarded: bool, values, cfg) -> None:
    """The player to act went out (R18, R19): penalties for the others, multiplied for an all-at-once out
    (x2, x4 with a joker as final discard; flat 100; the Lebanese scaling by the jokers he laid)."""
    p = r.current
    all_at_once = not r.opened_at_start
    r.all_at_once = all_at_once
    r.joker_finish = all_at_once and joker_discarded
    r.hand_scores[:] = 0
    for q in range(cfg.num_players):
        if q == p:
            continue
        score = base_penalty(r, q, values, cfg)
        if all_at_once:
            if cfg.joker_scaling_on:
                score = rounded(score * cfg.joker_scaling[min(r.turn_jokers, MAX_JOKERS_SCALED - 1)], cfg)
            elif cfg.all_at_once_scoring == FLAT100:
                score = 100.0
            elif joker_discarded:
                score = score * cfg.joker_finish_multiplier
            else:
                score = score * cfg.all_at_once_multiplier
        r.hand_scores[q] = score
        r.totals[q] += score
    r.opened[p] = 1
    r.winner = p
    r.end_reason = END_OUT
    finish_round(r, cfg)


@nb.njit(**JIT)
def end_round_dead(r, reason: int, values, cfg) -> None:
    """A dead round (R17): nobody scores, or ("hand_penalties") everyone his base penalty."""
    r.hand_scores[:] = 0
    r.winner = -1
    r.all_at_once = 0
    r.joker_finish = 0
    r.end_reason = reason
    if cfg.dead_round_scoring == DEAD_HAND_PENALTIES:
        for q in range(cfg.num_players):
            score = base_penalty(r, q, values, cfg)
            r.hand_scores[q] = score
            r.totals[q] += score
    finish_round(r, cfg)


@nb.njit(**JIT)
def finish_round(r, cfg) -> None:
    """Count the round and decide whether the game is over (R22, AR18): a total reaching
    ``game_end_threshold``, the number of rounds, or the ``max_rounds`` cap; lowest totals win."""
    r.hands_played += 1
    r.phase = PHASE_HAND_OVER
    over_now = r.hands_played >= cfg.max_rounds
    if cfg.game_end_mode == GAME_END_ROUNDS:
        over_now = over_now or r.hands_played >= cfg.num_rounds
    else:
        for q in range(cfg.num_players):
            if r.totals[q] >= cfg.game_end_threshold:
                over_now = True
    if over_now:
        mark_game_winners(r, cfg)

"""Scoring the end of a basic hand (B12, B13, B14, B17): the winner credited with the others' hands (doubled
for going rummy), a dead hand's lowest-hand rule, and whether the game is over."""

from __future__ import annotations

import numba as nb

from rummy_env.engine.common import mark_game_winners
from rummy_env.engine.config import DEAD_LOWEST_WINS, GAME_END_HANDS
from rummy_env.engine.jit import JIT
from rummy_env.engine.state import END_OUT, PHASE_GAME_OVER, PHASE_HAND_OVER


@nb.njit(**JIT)
def hand_value(r, seat: int, values) -> int:
    total = 0
    for card in range(values.shape[0]):
        total += r.hand[seat, card] * values[card]
    return total


@nb.njit(**JIT)
def end_hand_out(r, values, cfg) -> None:
    """Seat ``current`` went out: credit it with the others' hands, doubled for going rummy (B12, B13)."""
    p = r.current
    score = 0
    for seat in range(cfg.num_players):
        if seat != p:
            score += hand_value(r, seat, values)
    r.rummy = 1 if r.has_played[p] == 0 else 0
    if r.rummy:
        score *= cfg.going_rummy_multiplier
    r.hand_scores[:] = 0
    r.hand_scores[p] = score
    r.totals[p] += score
    r.winner = p
    r.end_reason = END_OUT
    finish_hand(r, p, cfg)


@nb.njit(**JIT)
def end_hand_dead(r, reason: int, values, cfg) -> None:
    """A dead hand (B17): nobody scores ("none"), or ("lowest_hand_wins") the single lowest hand is
    credited with the sum of the others' hand values; a tie for lowest scores nothing."""
    r.hand_scores[:] = 0
    r.winner = -1
    r.rummy = 0
    r.end_reason = reason
    scorer = -1
    if cfg.dead_round_scoring == DEAD_LOWEST_WINS:
        lowest, ties, total = 1 << 30, 0, 0
        for seat in range(cfg.num_players):
            value = hand_value(r, seat, values)
            total += value
            if value < lowest:
                lowest, ties, scorer = value, 1, seat
            elif value == lowest:
                ties += 1
        if ties == 1:
            r.hand_scores[scorer] = total - lowest
            r.totals[scorer] += total - lowest
        else:
            scorer = -1
    finish_hand(r, scorer, cfg)


@nb.njit(**JIT)
def finish_hand(r, scorer: int, cfg) -> None:
    """Count the hand as played and decide whether the game is over (B14): a total reaching the target,
    the number of hands, or the ``max_hands`` cap. ``scorer`` is the one seat credited this hand, or -1."""
    r.hands_played += 1
    r.phase = PHASE_HAND_OVER
    if cfg.game_end_mode == GAME_END_HANDS:
        over_now = r.hands_played >= cfg.num_hands
    else:
        over_now = scorer >= 0 and r.totals[scorer] >= cfg.target_score
    if over_now and cfg.game_end_mode != GAME_END_HANDS:
        r.game_winners[:] = 0
        r.game_winners[scorer] = 1
        r.phase = PHASE_GAME_OVER
    elif over_now or r.hands_played >= cfg.max_hands:
        mark_game_winners(r, cfg)

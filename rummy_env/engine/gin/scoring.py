"""Scoring a gin hand and the game to 100 (G9, G10, G12, EG2): the knocker against the defender after
lay-offs, gin and big gin, the undercut, void hands, and (``episode="game"``) the box and game bonuses, the
shutout and the next dealer.

The game's bonuses are credited with its last hand (``hand_scores`` and ``totals``), so that the hands'
zero-sum rewards add up to the game's final difference.
"""

from __future__ import annotations

import numba as nb

from rummy_env.engine.common import mark_game_winners
from rummy_env.engine.config import EPISODE_GAME, NEXT_LOSER, NEXT_WINNER
from rummy_env.engine.gin.deadwood import cards_value, hand_mask
from rummy_env.engine.gin.knock import STAGE_BIG_GIN
from rummy_env.engine.gin.table import reveal
from rummy_env.engine.jit import JIT
from rummy_env.engine.state import END_BIG_GIN, END_GIN, END_KNOCK, END_UNDERCUT, PHASE_GAME_OVER, PHASE_HAND_OVER


@nb.njit(**JIT)
def score_knock(r, cfg) -> None:
    """The hand after a knock (G9): K the knocker's deadwood, D the defender's after lay-offs. Gin (K = 0)
    scores D + ``gin_bonus`` (``big_gin_bonus`` for big gin); K < D scores D - K to the knocker; otherwise the
    defender undercuts, K - D + ``undercut_bonus``, except a tie with ``tie_is_undercut=False``, which scores 0."""
    knocker = r.knocker
    defender = 1 - knocker
    reveal(r, defender)
    ko, de = cards_value(hand_mask(r.hand[knocker])), cards_value(hand_mask(r.hand[defender]))
    scorer, points, reason = knocker, de - ko, END_KNOCK
    if ko == 0:
        big = r.knock_stage == STAGE_BIG_GIN
        points += cfg.big_gin_bonus if big else cfg.gin_bonus
        reason = END_BIG_GIN if big else END_GIN
    elif de < ko or (de == ko and cfg.tie_is_undercut):
        scorer, points, reason = defender, ko - de + cfg.undercut_bonus, END_UNDERCUT
    elif de == ko:
        scorer, points = -1, 0
    r.hand_scores[:] = 0
    r.end_reason = reason
    r.winner = scorer
    if scorer >= 0:
        r.hand_scores[scorer] = points
        r.totals[scorer] += points
        r.boxes[scorer] += 1
    finish_hand(r, cfg)


@nb.njit(**JIT)
def end_void(r, reason: int, cfg) -> None:
    """A hand without a score (the wall, a hand declared dead, OpenSpiel's repeated discards and upcard draw
    limit, the turn cap; G10, G13)."""
    r.hand_scores[:] = 0
    r.winner = -1
    r.end_reason = reason
    finish_hand(r, cfg)


@nb.njit(**JIT)
def finish_hand(r, cfg) -> None:
    """Count the hand; in a game (``episode="game"``, G12) end it when a total reaches ``target_score``, with
    the bonuses, or at ``max_hands`` (the higher total wins, no bonus)."""
    r.hands_played += 1
    r.phase = PHASE_HAND_OVER
    if cfg.episode != EPISODE_GAME:
        return
    if r.winner >= 0 and r.totals[r.winner] >= cfg.target_score:
        add_game_bonuses(r, r.winner, cfg)
        r.game_winners[:] = 0
        r.game_winners[r.winner] = 1
        r.phase = PHASE_GAME_OVER
    elif r.hands_played >= cfg.max_hands:
        mark_game_winners(r, cfg)


@nb.njit(**JIT)
def add_game_bonuses(r, winner: int, cfg) -> None:
    """``box_bonus`` per hand won to each player, ``game_bonus`` to the winner, and the winner's whole score
    times ``shutout_multiplier`` when the loser won no hand (G12)."""
    loser = 1 - winner
    for seat in range(2):
        bonus = cfg.box_bonus * r.boxes[seat] + (cfg.game_bonus if seat == winner else 0)
        r.totals[seat] += bonus
        r.hand_scores[seat] += bonus
    if r.boxes[loser] == 0:
        extra = (cfg.shutout_multiplier - 1) * r.totals[winner]
        r.totals[winner] += extra
        r.hand_scores[winner] += extra


@nb.njit(**JIT)
def next_dealer(r, cfg) -> int:
    """The dealer of the next hand (G12): the other player, or the last hand's winner / loser when it had one."""
    if r.winner >= 0 and cfg.next_dealer == NEXT_WINNER:
        return r.winner
    if r.winner >= 0 and cfg.next_dealer == NEXT_LOSER:
        return 1 - r.winner
    return 1 - r.dealer

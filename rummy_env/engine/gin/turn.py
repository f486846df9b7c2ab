"""A gin hand's turns (G2, G3, G4, G10, G11, G13, G14, EG4, EG5, EG6, EG10): the deal and the upcard, the
first upcard offered to both players, drawing, discarding, the wall and the hands that end void.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.engine.common import clear_hand, deal_hands, draw_pile, draw_stock, start_game, stock_from, to_hand, to_pile
from rummy_env.engine.config import OPENING_ELEVEN, WALL_OPENSPIEL, WALL_PICKUP_OR_DEAD
from rummy_env.engine.gin.deadwood import card_value
from rummy_env.engine.gin.scoring import end_void, next_dealer
from rummy_env.engine.jit import JIT
from rummy_env.engine.state import (
    END_DEAD_TURN_CAP, END_REPEATED, END_UPCARD_LIMIT, END_WALL, PHASE_DRAW, PHASE_PLAY, PHASE_UPCARD, PHASE_WALL,
)

WALL_STOCK = 2  # cards left in the stock when the wall is reached (G10)


@nb.njit(**JIT)
def deal_row(r, deck, use_deck: bool, cfg) -> None:
    """Deal 10 cards each, the non-dealer first (G2), then the upcard, which the non-dealer is offered first
    (G3); with ``opening="eleven_cards"`` the non-dealer gets an eleventh card instead and opens by discarding
    (G14). With ``oklahoma`` the upcard's value is this hand's knock card, an ace allowing only gin (G11)."""
    clear_hand(r)
    k = deal_hands(r, deck, use_deck, cfg)
    r.current = 1 - r.dealer
    r.knock_limit = cfg.knock_card
    if cfg.opening == OPENING_ELEVEN:
        to_hand(r, r.current, r.stock[k])
        r.phase = PHASE_PLAY
    else:
        r.pile[0] = r.stock[k]
        r.pile_n = 1
        r.phase = PHASE_UPCARD
        if cfg.oklahoma:
            value = card_value(r.stock[k])
            r.knock_limit = 0 if value == 1 else value
    stock_from(r, k + 1, cfg)


@nb.njit(**JIT)
def new_game_row(r, seed: np.uint64, deck, use_deck: bool, dealer: int, work, tabs, cfg) -> None:
    start_game(r, seed, dealer, cfg)
    r.boxes[:] = 0
    deal_row(r, deck, use_deck, cfg)


@nb.njit(**JIT)
def next_hand_row(r, work, tabs, cfg) -> None:
    """The game's next hand (G12), dealt by ``next_dealer``."""
    r.dealer = next_dealer(r, cfg)
    deal_row(r, r.stock, False, cfg)


@nb.njit(**JIT)
def start_turn(r, cfg) -> None:
    """The next player's turn starts with a draw (G4), unless the turn cap ends the hand."""
    r.current = 1 - r.current
    r.taken = -1
    if r.turns >= cfg.max_turns_per_round:
        end_void(r, END_DEAD_TURN_CAP, cfg)
        return
    r.phase = PHASE_DRAW


@nb.njit(**JIT)
def stock_at_wall(r, cfg) -> bool:
    """``wall_rule="pickup_or_dead"``: with 2 cards or fewer in the stock a player may not draw from it (G14)."""
    return cfg.wall_rule == WALL_PICKUP_OR_DEAD and r.stock_n <= WALL_STOCK


@nb.njit(**JIT)
def draw(r, from_pile: bool, cfg) -> None:
    """Take the upcard / the discard top (public: the opponent knows the card, G3, G4), or the top of the
    stock. With ``upcard_draw_limit`` the hand ends void at that draw of the upcard in an ordinary turn (G13)."""
    p = r.current
    if not from_pile:
        draw_stock(r, p)
        r.taken = -1
        r.phase = PHASE_PLAY
        return
    if r.phase == PHASE_DRAW and cfg.upcard_draw_limit > 0:
        r.upcard_draws += 1
        if r.upcard_draws >= cfg.upcard_draw_limit:
            end_void(r, END_UPCARD_LIMIT, cfg)
            return
    r.taken = draw_pile(r, p)
    r.phase = PHASE_PLAY


@nb.njit(**JIT)
def pass_upcard(r) -> None:
    """Decline the first upcard (G3): the other player is offered it; after two passes the non-dealer draws
    from the stock (EG5)."""
    r.upcard_passes += 1
    r.current = 1 - r.current


@nb.njit(**JIT)
def discard(r, card: int, cfg) -> None:
    """Discard ``card`` and end the turn. With ``repeated_discard_void`` a second player in a row discarding
    the upcard he just took voids the hand (G13); a discard leaving 2 cards in the stock reaches the wall:
    the hand is void (G10), or (``wall_rule="openspiel"``) the next player may knock with the upcard or pass."""
    p = r.current
    to_pile(r, p, card)
    r.turns += 1
    if cfg.repeated_discard_void:
        if card == r.taken:
            if r.repeated:
                end_void(r, END_REPEATED, cfg)
                return
            r.repeated = 1
        else:
            r.repeated = 0
    if r.stock_n == WALL_STOCK and cfg.wall_rule != WALL_PICKUP_OR_DEAD:
        if cfg.wall_rule == WALL_OPENSPIEL:
            r.current = 1 - p
            r.taken = -1
            r.phase = PHASE_WALL
        else:
            end_void(r, END_WALL, cfg)
        return
    start_turn(r, cfg)


@nb.njit(**JIT)
def declare_dead(r, cfg) -> None:
    """Pass at the wall, or (``pickup_or_dead``) declare the hand dead: it ends void (G10, G14)."""
    end_void(r, END_WALL, cfg)

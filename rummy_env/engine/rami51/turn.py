"""What a rami51 turn owes and may do (R5, R6, R11.3, R13, R14, R25): own cards versus cards taken from melds
(pending) and freed jokers, the cards that must still reach the table, and whether plays are allowed."""

from __future__ import annotations

import numba as nb

from rummy_env.cards import JOKER
from rummy_env.engine.jit import JIT
from rummy_env.engine.state import PHASE_PLAY


@nb.njit(**JIT)
def own(r, p: int, card: int) -> int:
    """Own copies of ``card`` in seat ``p``'s hand: not taken from a meld this turn (R13), not a freed
    joker (R14)."""
    n = r.hand[p, card] - r.pending[card]
    if card == JOKER:
        n -= r.freed_jokers
    return n


@nb.njit(**JIT)
def pending_total(r) -> int:
    """Cards still owed to new melds: taken from melds (R13) and freed jokers (R14)."""
    n = r.freed_jokers
    for card in range(JOKER + 1):
        n += r.pending[card]
    return n


@nb.njit(**JIT)
def owes_cards(r) -> bool:
    """Some card must still be laid before the turn can end: the discard-pile card (R6), a card taken from
    a meld (R13), a freed joker (R14)."""
    return pending_total(r) > 0 or (r.taken >= 0 and not r.taken_laid)


@nb.njit(**JIT)
def may_play(r, cfg) -> bool:
    """Plays are allowed at all: not on the dealer's first turn with the knob off (R5, AR1), not after a
    take-back (R25)."""
    return r.phase == PHASE_PLAY and not r.took_back and not (r.first_turn and not cfg.dealer_first_turn_may_meld)


@nb.njit(**JIT)
def table_allowed(r, slot: int, cfg) -> bool:
    """A non-opened player may touch a meld that was on the table at turn start only with
    ``opening_may_use_table`` (R11.3, AR9)."""
    return r.opened[r.current] or slot >= r.start_slots or cfg.opening_may_use_table

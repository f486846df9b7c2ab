"""The hand's public history in the record (``history``, kinds ``rummy_env.observations.HISTORY_KINDS``):
what each seat took from the pile, passed, discarded, laid and took back, and the card each seat discarded
last (``last_discard``), noted by the step driver around every action, the same for every rule family.

Draws, discards and passes of the pile's top card (gin's upcard, G3) are noted from the action alone, before
it is applied. Every other action (melds, lay-offs, TAKE and SWAP, R13, R14, UNDO, R24, gin's knock, G6,
G10) is noted from the acting seat's hand before and after: cards that left it were laid, cards that came
into it were taken from the pile if the pile shrank, else taken back from the table. An UNDO restores the
record of the turn's first tentative play; the step driver (``engine.drivers``) keeps the history it held. Cards the engine lays for
a seat that is not acting (gin's ``auto_melds`` at the end of a hand, G14) are not noted: they are shown
on the table, and the hand is over.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.actions import A_DISCARD, A_DRAW_DISCARD, A_DRAW_STOCK, A_PASS
from rummy_env.engine.jit import JIT
from rummy_env.engine.state import PHASE_UPCARD
from rummy_env.observations import H_DISCARDED, H_LAID, H_PASSED, H_TOOK, H_TOOK_BACK


@nb.njit(**JIT)
def note(r, seat: int, kind: int, card: int, times: int = 1) -> None:
    """Count ``times`` events ``kind`` of ``seat`` with ``card`` (saturating at 127)."""
    r.history[seat, kind, card] = min(r.history[seat, kind, card] + times, 127)


@nb.njit(**JIT)
def noted_from_action(kind: int, phase: int) -> bool:
    """Whether an action is noted before it is applied (``note_action``); the others are noted from the
    acting seat's hand before and after (``note_hand_change``)."""
    return kind == A_DRAW_STOCK or kind == A_DRAW_DISCARD or kind == A_DISCARD \
        or kind == A_PASS and phase == PHASE_UPCARD


@nb.njit(**JIT)
def note_action(r, kind: int, a: int) -> None:
    """Note a draw, a discard or a pass of the upcard by the player to act, about to be applied."""
    p = r.current
    if kind == A_DRAW_STOCK or kind == A_PASS:
        if r.pile_n > 0:
            note(r, p, H_PASSED, r.pile[r.pile_n - 1])
    elif kind == A_DRAW_DISCARD:
        note(r, p, H_TOOK, r.pile[r.pile_n - 1])
    else:
        note(r, p, H_DISCARDED, a)
        r.last_discard[p] = a


@nb.njit(**JIT)
def note_hand_change(r, seat: int, hand_before, pile_before: int) -> None:
    """After any other action of ``seat``: cards that left the hand were laid; cards that came in were taken
    from the pile if it shrank (gin's knock with the upcard, G10), else taken back."""
    came_in = H_TOOK if r.pile_n < pile_before else H_TOOK_BACK
    for card in range(hand_before.shape[0]):
        change = r.hand[seat, card] - hand_before[card]
        if change < 0:
            note(r, seat, H_LAID, card, -change)
        elif change > 0:
            note(r, seat, came_in, card, change)


def history_rows(state: np.ndarray, seats: np.ndarray, players: int) -> np.ndarray:
    """``(B, P, K, T)`` int8: the history of every row, seats relative to ``seats`` (observer first)."""
    order = (np.asarray(seats, dtype=np.int64)[:, None] + np.arange(players)) % players
    return np.take_along_axis(state["history"], order[:, :, None, None], axis=1).copy()

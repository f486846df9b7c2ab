"""The hand's public history in the record (``history``, kinds ``rummy_env.observations.HISTORY_KINDS``):
what each seat took from the pile, passed, discarded, laid and took back, and the card each seat discarded
last (``last_discard``), noted by the step driver around every action, the same for every rule family.

Draws, discards, new melds and lay-offs are noted from the action alone, before it is applied. Plays whose
cards only the family knows (TAKE and SWAP, R13, R14) and UNDO (R24, which restores the record of the turn's
first tentative play, history included) are noted from the hand before and after: cards that left it were
laid, cards that came into it were taken back; the history an UNDO would roll back is kept.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.actions import A_DISCARD, A_DRAW_DISCARD, A_DRAW_STOCK, A_LAY_OFF, A_MELD, A_UNDO
from rummy_env.cards import JOKER
from rummy_env.engine.jit import JIT
from rummy_env.observations import H_DISCARDED, H_LAID, H_PASSED, H_TOOK, H_TOOK_BACK


@nb.njit(**JIT)
def note(r, seat: int, kind: int, card: int, times: int = 1) -> None:
    """Count ``times`` events ``kind`` of ``seat`` with ``card`` (saturating at 127)."""
    r.history[seat, kind, card] = min(r.history[seat, kind, card] + times, 127)


@nb.njit(**JIT)
def noted_from_action(kind: int) -> bool:
    """Whether an action of this kind is noted before it is applied (``note_action``); the others are
    noted from the hand before and after (``note_hand_change``)."""
    return kind == A_DRAW_STOCK or kind == A_DRAW_DISCARD or kind == A_DISCARD or kind == A_MELD or kind == A_LAY_OFF


@nb.njit(**JIT)
def note_action(r, kind: int, a: int, b: int, catalogue, cfg) -> None:
    """Note a draw, a discard, a new meld or a lay-off of the player to act, about to be applied."""
    p = r.current
    if kind == A_DRAW_STOCK:
        if r.pile_n > 0:
            note(r, p, H_PASSED, r.pile[r.pile_n - 1])
    elif kind == A_DRAW_DISCARD:
        note(r, p, H_TOOK, r.pile[r.pile_n - 1])
    elif kind == A_DISCARD:
        note(r, p, H_DISCARDED, a)
        r.last_discard[p] = a
    elif kind == A_MELD:
        for k in range(3):
            note(r, p, H_LAID, catalogue[a, k])
    elif kind == A_LAY_OFF:
        note(r, p, H_LAID, b if b < cfg.num_card_types else JOKER)


@nb.njit(**JIT)
def note_hand_change(r, seat: int, hand_before, kept_history, kind: int) -> None:
    """After a TAKE, SWAP or UNDO of ``seat``: cards that left the hand were laid, cards that came in were
    taken back. ``kept_history``: the history before an UNDO (which restored an older one)."""
    if kind == A_UNDO:
        r.history[:, :, :] = kept_history
    for card in range(hand_before.shape[0]):
        change = r.hand[seat, card] - hand_before[card]
        if change < 0:
            note(r, seat, H_LAID, card, -change)
        elif change > 0:
            note(r, seat, H_TOOK_BACK, card, change)


def history_rows(state: np.ndarray, seats: np.ndarray, players: int) -> np.ndarray:
    """``(B, P, K, T)`` int8: the history of every row, seats relative to ``seats`` (observer first)."""
    order = (np.asarray(seats, dtype=np.int64)[:, None] + np.arange(players)) % players
    return np.take_along_axis(state["history"], order[:, :, None, None], axis=1).copy()

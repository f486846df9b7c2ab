"""Taking a turn's plays back (R24, R25): the record kept before the turn's first play, UNDO's and TAKE_BACK's
restore of it, and TAKE_BACK's check and effect.

The engine keeps one copy of the record per row, outside it (``RummyEngine.undo_copies``), taken just before the
turn's first play (``keep_turn_start``). For a player who has not opened every play is tentative, so that copy is
also where UNDO returns (R24). TAKE_BACK (``dead_ends = "take_back"``, R25) returns there whoever plays: a turn
that cannot be finished is put back, with a penalty, instead of being prevented by a look-ahead mask.
"""

from __future__ import annotations

import numba as nb

from rummy_env.engine import reasons as why
from rummy_env.engine.common import to_pile
from rummy_env.engine.config import PREVENT_DEAD_ENDS
from rummy_env.engine.history import note, note_hand_change
from rummy_env.engine.jit import JIT
from rummy_env.engine.rami51.moves import penalty_draws
from rummy_env.engine.rami51.turn import owes_cards
from rummy_env.engine.state import PHASE_PLAY
from rummy_env.observations import H_RETURNED


@nb.njit(**JIT)
def keep_turn_start(r, undo, kind_is_play: bool) -> None:
    """Before the turn's first play (MELD, LAY_OFF, TAKE, SWAP) keep the record: UNDO and TAKE_BACK return to it."""
    if kind_is_play and r.played_turn == 0:
        undo[0] = r


@nb.njit(**JIT)
def restore(rows, undo) -> None:
    """Put the turn's plays back: the record kept before the first play, with this hand's history and generator
    as they are. The cards that came back into the hand from the table are public, as are the cards that left it
    (a card taken from a meld, a freed joker): ``known`` follows them, as it follows every card seen moving."""
    r = rows[0]
    p = r.current
    hand = r.hand[p].copy()
    known = r.known[p].copy()
    history = r.history.copy()
    generator = r.rng
    rows[0] = undo[0]
    r.history[:, :, :] = history
    r.rng = generator
    for card in range(hand.shape[0]):
        seen = known[card] + r.hand[p, card] - hand[card]
        r.known[p, card] = min(max(seen, 0), r.hand[p, card])


@nb.njit(**JIT)
def take_back_check(r, cfg) -> int:
    """TAKE_BACK (R25): under ``dead_ends = "take_back"``, once the turn has laid or taken something, or while a
    card must still be laid (the discard-pile card, a card taken from a meld, a freed joker); once a turn."""
    if cfg.dead_ends == PREVENT_DEAD_ENDS:
        return why.TAKE_BACK_OFF
    if r.phase != PHASE_PLAY:
        return why.MUST_DRAW
    if r.took_back:
        return why.TOOK_BACK
    return why.LEGAL if r.played_turn or owes_cards(r) else why.NOTHING_TO_TAKE_BACK


@nb.njit(**JIT)
def apply_take_back(rows, undo, cfg) -> None:
    """TAKE_BACK (R25): the turn's plays go back (a commit made this turn included), a card taken from the discard
    pile goes back on top of it and the player draws one from the stock in its place (a stock card he drew is
    kept), then the penalty cards; only a discard remains. Noted in the public history as it happens: the cards
    seen coming back (``took_back``) and leaving (``laid``), the pile card ``returned``; the draws are hidden."""
    r = rows[0]
    p = r.current
    hand = r.hand[p].copy()
    pile_before = r.pile_n
    if r.played_turn:
        restore(rows, undo)
        note_hand_change(r, p, hand, pile_before)
    draws = cfg.take_back_penalty_cards
    if r.taken >= 0:
        note(r, p, H_RETURNED, r.taken)
        to_pile(r, p, r.taken)
        r.taken = -1
        draws += 1
    r.take_backs[p] = min(r.take_backs[p] + 1, 127)
    r.took_back = 1
    penalty_draws(r, draws, cfg)

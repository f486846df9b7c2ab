"""DRAW, TAKE, SWAP, COMMIT, UNDO and DISCARD of rami51 (R6, R7, R11.5, R13, R14, R15, R16, R17, R24, AR7, AR13),
each check beside its effect, the dispatch of a play by its kind, and penalty draws."""

from __future__ import annotations

import numba as nb

from rummy_env.actions import A_COMMIT, A_LAY_OFF, A_MELD, A_SWAP, A_TAKE, TAKE_LOW_END
from rummy_env.cards import JOKER
from rummy_env.engine import reasons as why
from rummy_env.engine.common import draw_pile, draw_stock, rebuild_allowed, rebuild_stock
from rummy_env.engine.config import ANNOUNCE_MANUAL, FINAL_FORBIDDEN
from rummy_env.engine.jit import JIT
from rummy_env.engine.rami51.opening import (
    JOKER_CELL, apply_commit, commit_check, mine_cell, out_check, recount, short_of_pickup_lay, slot_points,
)
from rummy_env.engine.rami51.plays import OWN, apply_lay_off, apply_meld, begin_play, lay_off_check, meld_check, place
from rummy_env.engine.rami51.table import represented, shorten_run, take_card
from rummy_env.engine.rami51.turn import may_play, own, pending_total, table_allowed
from rummy_env.engine.state import PHASE_PLAY, PURE, PURE_BUT_JOKER
from rummy_env.engine.table import slot_size, suit_of
from rummy_env.melds import KIND_RUN


@nb.njit(**JIT)
def unlay(r, slot: int, card: int) -> None:
    """Book a card leaving the table: from its meld's owner if he laid one, else whoever did."""
    owner = r.slot_owner[slot]
    if r.table_by_seat[owner, card] > 0:
        r.table_by_seat[owner, card] -= 1
        return
    for seat in range(r.table_by_seat.shape[0]):
        if r.table_by_seat[seat, card] > 0:
            r.table_by_seat[seat, card] -= 1
            return


@nb.njit(**JIT)
def to_hand_face_up(r, card: int) -> None:
    """A card from the table into the current player's hand: everyone knows he holds it."""
    p = r.current
    r.hand[p, card] += 1
    r.hand_n[p] += 1
    r.known[p, card] += 1


# ---------------------------------------------------------------------------------------- TAKE (R13)
@nb.njit(**JIT)
def take_slot_check(r, slot: int, cfg) -> int:
    """TAKE from ``slot`` at all (R13, AR7, AR9): taking allowed, a meld of 4+ cards (3 stay), one the player may
    touch and take from."""
    if not cfg.allow_take_from_meld:
        return why.TAKE_DISABLED
    if slot >= r.slot_n:
        return why.NO_MELD_IN_SLOT
    if slot_size(r, slot) < 4:
        return why.MELD_TOO_SHORT
    if not table_allowed(r, slot, cfg):
        return why.OLD_MELD_NOT_ALLOWED
    if r.slot_owner[slot] == r.current and not cfg.take_from_own_melds:
        return why.TAKE_OWN_MELD
    return why.LEGAL


@nb.njit(**JIT)
def take_card_check(r, slot: int, choice: int, cfg) -> int:
    """The card TAKE ``choice`` removes (R13): there is one (an end of a run), and no joker unless the knob."""
    card = take_card(r, slot, choice)
    if card < 0:
        return why.NO_CARD_THERE
    return why.TAKE_JOKER if card == JOKER and not cfg.can_take_joker_from_meld else why.LEGAL


@nb.njit(**JIT)
def take_check(r, slot: int, choice: int, cfg) -> int:
    """TAKE (R13, AR7): from a meld of 4+ cards, keeping 3 (an end of a run); no joker unless the knob."""
    reason = take_slot_check(r, slot, cfg)
    return reason if reason != why.LEGAL else take_card_check(r, slot, choice, cfg)


@nb.njit(**JIT)
def apply_take(r, slot: int, choice: int, cfg) -> None:
    begin_play(r)
    if slot < r.start_slots:
        r.touched_table = 1
    before = slot_points(r, slot, cfg)
    card = take_card(r, slot, choice)
    if r.slot_kind[slot] == KIND_RUN:
        end = r.slot_lo[slot] if choice == TAKE_LOW_END else r.slot_hi[slot]
        r.slot_mine[slot] &= ~(1 << mine_cell(KIND_RUN, card, end, cfg))  # an own card taken back stops counting
        if card == JOKER:
            r.slot_jokers[slot] = 0
            r.slot_joker[slot] = -1
            if r.slot_pure[slot] == PURE_BUT_JOKER:
                r.slot_pure[slot] = PURE  # judged at the commit (R11.2, AR8): no joker any more
        shorten_run(r, slot, choice == TAKE_LOW_END)
    else:
        if card == JOKER:
            r.slot_jokers[slot] = 0
            r.slot_mine[slot] &= ~(1 << JOKER_CELL)
        else:
            r.slot_suits[slot] &= ~(1 << suit_of(card))
            r.slot_mine[slot] &= ~(1 << suit_of(card))
        r.slot_joker[slot] = -1  # a 3-card set's joker is undetermined; a 4-card one lost its joker
    recount(r, slot, before, cfg)
    unlay(r, slot, card)
    to_hand_face_up(r, card)
    r.pending[card] += 1
    r.played_turn = 1


# ---------------------------------------------------------------------------------------- SWAP (R14)
@nb.njit(**JIT)
def swap_check(r, slot: int, cfg) -> int:
    """SWAP (R14, AR13): opened (before this turn with the knob), a joker whose card is determined (a run or
    a 4-card set), and an own copy of that card."""
    p = r.current
    if slot >= r.slot_n:
        return why.NO_MELD_IN_SLOT
    if not r.opened[p]:
        return why.SWAP_NOT_OPENED
    if cfg.joker_swap_requires_prior_opening and not r.opened_at_start:
        return why.SWAP_BEFORE_TURN
    card = represented(r, slot)
    if card < 0:
        return why.SWAP_UNDETERMINED
    return why.LEGAL if own(r, p, card) >= 1 else why.SWAP_NOT_HELD


@nb.njit(**JIT)
def apply_swap(r, slot: int, cfg) -> None:
    if slot < r.start_slots:
        r.touched_table = 1
    before = slot_points(r, slot, cfg)
    card = represented(r, slot)
    position = r.slot_joker[slot] if r.slot_kind[slot] == KIND_RUN else 0
    r.slot_joker[slot] = -1
    r.slot_jokers[slot] = 0
    r.slot_mine[slot] &= ~(1 << JOKER_CELL)
    unlay(r, slot, JOKER)
    place(r, slot, card, position, OWN, cfg)
    recount(r, slot, before, cfg)
    to_hand_face_up(r, JOKER)
    r.freed_jokers += 1
    r.played_turn = 1


# ---------------------------------------------------------------------------------------- UNDO (R24), DISCARD
@nb.njit(**JIT)
def undo_check(r, cfg) -> int:
    if r.phase != PHASE_PLAY or r.tentative == 0:
        return why.NOTHING_TO_UNDO
    return why.LEGAL if r.undos < cfg.max_undos_per_turn else why.UNDOS_SPENT


@nb.njit(**JIT)
def discard_card_check(r, card: int) -> int:
    """The card of a DISCARD (R6, R13, R14): held, an own card, not the one taken from the discard pile."""
    p = r.current
    if r.hand[p, card] == 0:
        return why.NOT_IN_HAND
    if own(r, p, card) < 1:
        return why.NOT_OWN_CARD
    return why.DISCARD_TAKEN if card == r.taken else why.LEGAL


@nb.njit(**JIT)
def discard_turn_check(r, announce: bool, cfg) -> int:
    """Whether the turn may end with a discard now, whatever the card (R6, R7, R15, R16, AL3): nothing left to
    lay; the last card only as a legal out; without announcing "carte" only the discard that leaves one card."""
    if pending_total(r) > 0:
        return why.OBLIGATIONS_LEFT
    if r.taken >= 0 and not r.taken_laid:
        return why.TAKEN_NOT_LAID
    n = r.hand_n[r.current]
    if not announce and not (cfg.card_announcement == ANNOUNCE_MANUAL and n == 2):
        return why.SILENT_NOT_LAST
    if n == 1:
        return why.FINAL_DISCARD if cfg.final_discard == FINAL_FORBIDDEN else out_check(r, cfg)
    if r.tentative > 0:
        return why.TENTATIVE_LEFT
    if r.opened_at_start and short_of_pickup_lay(r, cfg):
        return why.PICKUP_MIN_LAY
    return why.LEGAL


@nb.njit(**JIT)
def discard_check(r, card: int, announce: bool, cfg) -> int:
    """DISCARD (R6, R7, R15, R16, AL3): the card (``discard_card_check``), then the turn's end
    (``discard_turn_check``)."""
    reason = discard_card_check(r, card)
    return reason if reason != why.LEGAL else discard_turn_check(r, announce, cfg)


# ---------------------------------------------------------------------------------------- dispatch
@nb.njit(**JIT)
def play_check(r, kind: int, a: int, b: int, catalogue, cfg) -> int:
    """Local legality of a play (MELD, LAY_OFF, TAKE, SWAP, COMMIT) of the player to act: 0 or why not."""
    if r.took_back:
        return why.TOOK_BACK
    if not may_play(r, cfg):
        return why.DEALER_FIRST_TURN
    if kind == A_COMMIT:
        return commit_check(r, cfg)
    if kind == A_MELD:
        return meld_check(r, a, catalogue, cfg)
    if kind == A_LAY_OFF:
        return lay_off_check(r, a, b, cfg)
    if kind == A_TAKE:
        return take_check(r, a, b, cfg)
    if kind == A_SWAP:
        return swap_check(r, a, cfg)
    return why.NOT_IN_RULESET


@nb.njit(**JIT)
def apply_play(r, kind: int, a: int, b: int, catalogue, cfg) -> None:
    """Apply a locally legal play (the hand may end empty; the caller ends the round)."""
    if kind == A_COMMIT:
        apply_commit(r)
    elif kind == A_MELD:
        apply_meld(r, a, catalogue, cfg)
    elif kind == A_LAY_OFF:
        apply_lay_off(r, a, b, cfg)
    elif kind == A_TAKE:
        apply_take(r, a, b, cfg)
    else:
        apply_swap(r, a, cfg)


@nb.njit(**JIT)
def checked_play(r, kind: int, a: int, b: int, catalogue, cfg) -> bool:
    """Apply the play if ``play_check`` allows it; whether it did."""
    if play_check(r, kind, a, b, catalogue, cfg) != why.LEGAL:
        return False
    apply_play(r, kind, a, b, catalogue, cfg)
    return True


@nb.njit(**JIT)
def can_end_now(r, cfg) -> bool:
    """Some DISCARD ends the turn legally from here."""
    if discard_turn_check(r, True, cfg) != why.LEGAL:
        return False
    for card in range(JOKER + 1):
        if discard_card_check(r, card) == why.LEGAL:
            return True
    return False


# ---------------------------------------------------------------------------------------- DRAW
@nb.njit(**JIT)
def draw(r, from_pile: bool) -> None:
    """Take the stock top, or the discard top (it must then be laid this turn, R6)."""
    p = r.current
    if from_pile:
        r.taken = draw_pile(r, p)
    else:
        draw_stock(r, p)
    r.phase = PHASE_PLAY


@nb.njit(**JIT)
def penalty_draws(r, n: int, cfg) -> None:
    """Draw ``n`` cards from the stock, rebuilding it as needed (R17): the penalty of a missed "carte" (R7), the
    card in place of one returned to the discard pile and the penalty of a take-back (R25). When nothing can be
    rebuilt the cards left are not drawn; a rebuild beyond ``max_reshuffles`` dooms the round."""
    for _ in range(n):
        if r.stock_n == 0:
            if r.pile_n - cfg.reshuffle_keep_top < 1:
                return  # nothing to rebuild: no further penalty card
            if not rebuild_allowed(r, cfg):
                r.doomed = 1  # the round ends dead at the next turn start
                return
            rebuild_stock(r, cfg.reshuffle_keep_top)
        draw(r, False)

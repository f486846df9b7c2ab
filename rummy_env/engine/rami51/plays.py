"""New melds and lay-offs of rami51 (R8, R9, R11.5, R12, R13, R14, R15, R21.2, AR6, AR8): each check beside its
effect. A MELD uses pending copies (taken from melds, R13) before own ones and needs an own card (two beside
a freed joker, R14); lay-offs use own cards (or a freed joker with ``freed_joker_use = "new_meld_or_layoff"``).
Plays of a player who has not opened are tentative (R11.5): the caller keeps the UNDO copy."""

from __future__ import annotations

import numba as nb

from rummy_env.cards import JOKER
from rummy_env.engine import reasons as why
from rummy_env.engine.common import leave_hand
from rummy_env.engine.config import (
    CAT_HI, CAT_JOKER, CAT_KEY, CAT_KIND, CAT_LO, FINAL_REQUIRED, FREED_NEW_MELD_OR_LAYOFF,
)
from rummy_env.engine.jit import JIT
from rummy_env.engine.rami51.opening import mine_cell, recount, slot_points
from rummy_env.engine.rami51.table import burnt, extend_run, natural_run_end, run_end_position, set_missing_suit
from rummy_env.engine.rami51.turn import own, table_allowed
from rummy_env.engine.state import PURE, PURE_BUT_JOKER
from rummy_env.engine.table import card_at, open_slot, rank_of, slot_size, suit_of
from rummy_env.melds import KIND_RUN, KIND_SET

OWN, PENDING, FREED = 0, 1, 2   # where a card laid on the table comes from


@nb.njit(**JIT)
def place(r, slot: int, card: int, position: int, source: int, cfg) -> None:
    """Move ``card`` from the current player's hand into the meld of ``slot`` at run ``position`` (0 in a
    set) and book it: an own card counts toward the opening (``slot_mine``, R11.1) and lays the taken card
    (R6); every joker but a taken one counts for the Lebanese scaling (R21.5). A run's ends and a joker's
    position are the caller's."""
    p = r.current
    leave_hand(r, p, card)
    r.table_by_seat[p, card] += 1
    if card == JOKER:
        r.slot_jokers[slot] += 1
        if source != PENDING:
            r.turn_jokers += 1
    elif r.slot_kind[slot] == KIND_SET:
        r.slot_suits[slot] |= 1 << suit_of(card)
    if source == OWN:
        r.slot_mine[slot] |= 1 << mine_cell(r.slot_kind[slot], card, position, cfg)
        if card == r.taken:
            r.taken_laid = 1


@nb.njit(**JIT)
def begin_play(r) -> None:
    """A play of a player who has not opened is tentative (R11.5)."""
    if not r.opened[r.current]:
        r.tentative += 1


# ---------------------------------------------------------------------------------------- MELD
@nb.njit(**JIT, inline="always")  # once per candidate meld: a call would cost ``catalogue`` an atomic reference count
def meld_check(r, entry: int, catalogue, cfg) -> int:
    """MELD ``entry`` (R8, R9, R13, R14, R15, R21.2): its cards in hand, pending copies first, at least one
    own card (two beside a freed joker); a joker run needs its card burnt (Lebanese); under
    ``final_discard = "required"`` a card must stay for the discard."""
    p = r.current
    if r.slot_n >= cfg.num_slots:
        return why.TABLE_FULL
    own_used, freed_used = 0, 0
    for k in range(3):
        card = catalogue[entry, k]
        if r.hand[p, card] == 0:
            return why.NOT_IN_HAND
        if card == JOKER and r.freed_jokers > 0:
            freed_used = 1
        elif r.pending[card] == 0:
            own_used += 1
    if own_used < 1 + freed_used:
        return why.NEEDS_OWN_CARD
    if catalogue[entry, CAT_JOKER] > 0 and not burnt(r, card_at(catalogue[entry, CAT_KEY], catalogue[entry, CAT_JOKER]), cfg):
        return why.JOKER_NOT_BURNT
    if cfg.final_discard == FINAL_REQUIRED and r.hand_n[p] == 3:
        return why.EMPTIES_HAND
    return why.LEGAL


@nb.njit(**JIT)
def apply_meld(r, entry: int, catalogue, cfg) -> None:
    p = r.current
    begin_play(r)
    kind, lo, joker_at = catalogue[entry, CAT_KIND], catalogue[entry, CAT_LO], catalogue[entry, CAT_JOKER]
    slot = open_slot(r, kind, catalogue[entry, CAT_KEY], lo, catalogue[entry, CAT_HI], p)
    r.slot_joker[slot] = joker_at if kind == KIND_RUN else -1
    r.slot_tentative[slot] = 0 if r.opened[p] else 1
    all_own = True
    for k in range(3):
        card = catalogue[entry, k]
        position = lo + k if kind == KIND_RUN else 0
        if card == JOKER and r.freed_jokers > 0:
            r.freed_jokers -= 1
            place(r, slot, card, position, FREED, cfg)
            all_own = False
        elif r.pending[card] > 0:
            r.pending[card] -= 1
            place(r, slot, card, position, PENDING, cfg)
            all_own = False
        else:
            place(r, slot, card, position, OWN, cfg)
    recount(r, slot, 0, cfg)
    pure_ok = all_own or not cfg.pure_run_hand_cards_only
    r.slot_pure[slot] = PURE if kind == KIND_RUN and joker_at < 0 and pure_ok else 0
    r.played_turn = 1


# ---------------------------------------------------------------------------------------- LAY_OFF
@nb.njit(**JIT)
def lay_off_check(r, slot: int, code: int, cfg) -> int:
    """LAY_OFF (R12, R9, AR6, R21.2): an own card (a freed joker with ``new_meld_or_layoff``) that fits;
    never a joker onto an opponent's run or into a meld that has one."""
    p = r.current
    if slot >= r.slot_n:
        return why.NO_MELD_IN_SLOT
    if not table_allowed(r, slot, cfg):
        return why.OLD_MELD_NOT_ALLOWED
    if cfg.final_discard == FINAL_REQUIRED and r.hand_n[p] == 1:
        return why.EMPTIES_HAND
    if code < JOKER:
        if r.hand[p, code] == 0:
            return why.NOT_IN_HAND
        if own(r, p, code) < 1:
            return why.NOT_OWN_CARD
        if r.slot_kind[slot] == KIND_SET:
            fits = rank_of(code) == r.slot_key[slot] and slot_size(r, slot) < 4 \
                and not r.slot_suits[slot] >> suit_of(code) & 1
            return why.LEGAL if fits else why.DOES_NOT_FIT
        return why.LEGAL if natural_run_end(r, slot, code, cfg) != 0 else why.DOES_NOT_FIT
    if own(r, p, JOKER) < 1 and not (cfg.freed_joker_use == FREED_NEW_MELD_OR_LAYOFF and r.freed_jokers > 0):
        return why.NOT_IN_HAND if r.hand[p, JOKER] == 0 else why.NOT_OWN_CARD
    if r.slot_jokers[slot] > 0:
        return why.SECOND_JOKER
    if r.slot_kind[slot] == KIND_SET:
        if code != JOKER or slot_size(r, slot) != 3:
            return why.DOES_NOT_FIT
        return why.LEGAL if r.slot_owner[slot] == p or cfg.joker_on_opponent_set else why.JOKER_ON_OPPONENT_SET
    if r.slot_owner[slot] != p:
        return why.JOKER_ON_OPPONENT_RUN
    position = run_end_position(r, slot, code == JOKER + 1, cfg)
    if position == 0:
        return why.DOES_NOT_FIT
    return why.LEGAL if burnt(r, card_at(r.slot_key[slot], position), cfg) else why.JOKER_NOT_BURNT


@nb.njit(**JIT)
def apply_lay_off(r, slot: int, code: int, cfg) -> None:
    begin_play(r)
    if slot < r.start_slots:
        r.touched_table = 1
    before = slot_points(r, slot, cfg)
    if code < JOKER:
        if r.slot_kind[slot] == KIND_SET:
            place(r, slot, code, 0, OWN, cfg)
            if r.slot_jokers[slot] > 0 and slot_size(r, slot) == 4:
                r.slot_joker[slot] = set_missing_suit(r, slot)
        else:
            position = natural_run_end(r, slot, code, cfg)
            extend_run(r, slot, position)
            place(r, slot, code, position, OWN, cfg)
    else:
        position = 0 if r.slot_kind[slot] == KIND_SET else run_end_position(r, slot, code == JOKER + 1, cfg)
        if r.slot_kind[slot] == KIND_RUN and r.slot_pure[slot] == PURE:
            r.slot_pure[slot] = PURE_BUT_JOKER
        source = OWN
        if cfg.freed_joker_use == FREED_NEW_MELD_OR_LAYOFF and r.freed_jokers > 0:  # a freed joker is not an own card: no points
            r.freed_jokers -= 1
            source = FREED
        place(r, slot, JOKER, position, source, cfg)
        if r.slot_kind[slot] == KIND_SET:
            r.slot_joker[slot] = set_missing_suit(r, slot)
        else:
            r.slot_joker[slot] = position
            extend_run(r, slot, position)
    recount(r, slot, before, cfg)
    r.played_turn = 1

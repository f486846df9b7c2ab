"""The basic ruleset (B1-B19): deal, turn, legality with reason codes, effects, drivers (scoring: ``scoring``).

Each check sits beside its effect: ``meld_check``/``apply_meld``, ``lay_off_check``/``apply_lay_off``,
``discard_check``/``apply_discard``. The mask and the step use the same checks, so the mask is by construction
what the step accepts. The no-dead-end obligation (B18) lives in ``finishable_after_play``: a play is legal only
if the turn can still be finished afterwards. Basic has no tentative plays: the UNDO copy is never used.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.actions import A_DISCARD, A_DRAW_DISCARD, A_DRAW_STOCK, A_LAY_OFF, A_MELD
from rummy_env.engine import reasons as why
from rummy_env.engine.common import (
    clear_hand, closed_reason, deal_hands, decode, draw_pile, draw_stock, leave_hand, rebuild_allowed, rebuild_stock,
    start_game, stock_from, to_pile,
)
from rummy_env.engine.config import CAT_HI, CAT_KEY, CAT_KIND, CAT_LO
from rummy_env.engine.basic.scoring import end_hand_dead, end_hand_out
from rummy_env.engine.drivers import Drivers, make_drivers
from rummy_env.engine.jit import JIT
from rummy_env.engine.state import END_DEAD_NO_DRAW, END_DEAD_RESHUFFLES, END_DEAD_TURN_CAP, PHASE_DRAW, PHASE_PLAY
from rummy_env.engine.table import card_at, card_bit, open_slot, rank_of, slot_size, suit_of
from rummy_env.melds import KIND_RUN, KIND_SET


# ---------------------------------------------------------------------------------------- where a card fits
@nb.njit(**JIT)
def fit_end(kind: int, key: int, lo: int, hi: int, count: int, card: int, cfg) -> int:
    """Where ``card`` joins a meld of that shape: 0 = it does not fit, 1 = low end of a run, 2 = high end of
    a run, 3 = into a set (B8, B9, B15). One pack: a card in hand is never already in the meld."""
    if kind == KIND_SET:
        return 3 if rank_of(card) == key and count < 4 else 0
    if kind != KIND_RUN or suit_of(card) != key:
        return 0
    rank = rank_of(card)
    if cfg.round_the_corner:
        if hi - lo + 1 >= 13:
            return 0
        if card == card_at(key, hi + 1):
            return 2
        return 1 if card == card_at(key, lo - 1) else 0
    if lo - 1 >= 1 and rank == lo - 1:
        return 1
    if hi + 1 <= cfg.max_run_position and card == card_at(key, hi + 1):
        return 2
    return 0


@nb.njit(**JIT)
def slot_fit(r, slot: int, card: int, cfg) -> int:
    return fit_end(r.slot_kind[slot], r.slot_key[slot], r.slot_lo[slot], r.slot_hi[slot], slot_size(r, slot), card, cfg)


@nb.njit(**JIT)
def fits_any_slot(r, card: int, skip_slot: int, cfg) -> bool:
    """Whether ``card`` can be laid off on some table meld other than ``skip_slot``."""
    for slot in range(r.slot_n):
        if slot != skip_slot and slot_fit(r, slot, card, cfg) != 0:
            return True
    return False


@nb.njit(**JIT)
def accepted_bits(r, slot: int, cfg) -> np.uint64:
    """Cards that ``fit_end`` lets join the meld in ``slot``: the set's rank in every suit, or the cards just
    past either end of the run."""
    bits = np.uint64(0)
    key = r.slot_key[slot]
    if r.slot_kind[slot] == KIND_SET:
        for suit in range(4):
            card = card_at(suit, key)
            if slot_fit(r, slot, card, cfg) != 0:
                bits |= card_bit(card)
    elif r.slot_kind[slot] == KIND_RUN:
        for position in (r.slot_lo[slot] - 1, r.slot_hi[slot] + 1):
            card = card_at(key, position)
            if slot_fit(r, slot, card, cfg) != 0:
                bits |= card_bit(card)
    return bits


# ---------------------------------------------------------------------------------------- the no-dead-end rule
@nb.njit(**JIT)
def finishable_after_play(r, p: int, played_a: int, played_b: int, played_c: int,
                          kind: int, key: int, lo: int, hi: int, count: int, changed_slot: int, cfg) -> bool:
    """No-dead-end check (B18) for a play that removes cards ``played_*`` (-1 = none) from seat ``p``'s hand
    and leaves the meld ``(kind, key, lo, hi, count)`` in slot ``changed_slot`` (new or extended).

    The play empties the hand: legal unless the last card must be discarded (B10). It leaves two or more
    cards: one of them is not the taken card, so a discard ends the turn. It leaves one card: a discard
    ends the turn unless that card is the one taken from the discard pile (B7); then the only way on is
    laying it off, which empties the hand."""
    left = r.hand_n[p] - (played_a >= 0) - (played_b >= 0) - (played_c >= 0)
    if left == 0:
        return not cfg.must_discard_to_go_out
    if left >= 2:
        return True
    taken = r.taken
    if taken < 0 or not cfg.forbid_discarding_card_taken_from_discard or r.hand[p, taken] == 0:
        return True
    if taken == played_a or taken == played_b or taken == played_c:
        return True
    if cfg.must_discard_to_go_out:
        return False
    if fit_end(kind, key, lo, hi, count, taken, cfg) != 0:
        return True
    return fits_any_slot(r, taken, changed_slot, cfg)


# ---------------------------------------------------------------------------------------- checks and effects
@nb.njit(**JIT)
def meld_check(r, p: int, entry: int, catalogue, cfg) -> int:
    """MELD ``entry``: its three cards are in hand, a slot is free, and the turn stays finishable (B8, B18)."""
    a, b, c = catalogue[entry, 0], catalogue[entry, 1], catalogue[entry, 2]
    if r.hand[p, a] == 0 or r.hand[p, b] == 0 or r.hand[p, c] == 0:
        return why.NOT_IN_HAND
    if r.slot_n >= cfg.num_slots:
        return why.TABLE_FULL
    if not finishable_after_play(r, p, a, b, c, catalogue[entry, CAT_KIND], catalogue[entry, CAT_KEY],
                                 catalogue[entry, CAT_LO], catalogue[entry, CAT_HI], 3, r.slot_n, cfg):
        return why.DEAD_END
    return why.LEGAL


@nb.njit(**JIT)
def lay_card(r, p: int, slot: int, card: int) -> None:
    leave_hand(r, p, card)
    r.table_by_seat[p, card] += 1
    if r.slot_kind[slot] == KIND_SET:
        r.slot_suits[slot] |= 1 << suit_of(card)


@nb.njit(**JIT)
def apply_meld(r, p: int, entry: int, catalogue) -> None:
    slot = open_slot(r, catalogue[entry, CAT_KIND], catalogue[entry, CAT_KEY], catalogue[entry, CAT_LO],
                     catalogue[entry, CAT_HI], p)
    for k in range(3):
        lay_card(r, p, slot, catalogue[entry, k])
    r.has_melded[p] = 1
    r.played_turn = 1


@nb.njit(**JIT)
def lay_off_check(r, p: int, slot: int, card: int, cfg) -> int:
    """LAY_OFF ``card`` on ``slot`` (B9): in hand, fits the meld, and the turn stays finishable (B18)."""
    if slot >= r.slot_n:
        return why.NO_MELD_IN_SLOT
    if r.hand[p, card] == 0:
        return why.NOT_IN_HAND
    if cfg.must_meld_before_layoff and not r.has_melded[p]:
        return why.MELD_FIRST
    end = slot_fit(r, slot, card, cfg)
    if end == 0:
        return why.DOES_NOT_FIT
    lo, hi = r.slot_lo[slot] - (end == 1), r.slot_hi[slot] + (end == 2)
    if not finishable_after_play(r, p, card, -1, -1, r.slot_kind[slot], r.slot_key[slot], lo, hi,
                                 slot_size(r, slot) + 1, slot, cfg):
        return why.DEAD_END
    return why.LEGAL


@nb.njit(**JIT)
def apply_lay_off(r, p: int, slot: int, card: int, cfg) -> None:
    end = slot_fit(r, slot, card, cfg)
    if end == 1:
        r.slot_lo[slot] -= 1
    elif end == 2:
        r.slot_hi[slot] += 1
    lay_card(r, p, slot, card)
    r.played_turn = 1


@nb.njit(**JIT)
def discard_check(r, p: int, card: int, cfg) -> int:
    """DISCARD ``card``: in hand, and not the card just taken from the discard pile (B7)."""
    if r.hand[p, card] == 0:
        return why.NOT_IN_HAND
    if cfg.forbid_discarding_card_taken_from_discard and card == r.taken:
        return why.DISCARD_TAKEN
    return why.LEGAL


@nb.njit(**JIT)
def legal_reason(r, action: int, work, tabs, cfg) -> int:
    """0 if ``action`` is legal for the player to act in game ``r``, else why not."""
    kind, a, b = decode(action, cfg)
    closed = closed_reason(r, kind)
    if closed:
        return closed
    p = r.current
    if r.phase == PHASE_DRAW:
        if kind == A_DRAW_STOCK:
            return why.LEGAL if r.stock_n > 0 else why.STOCK_EMPTY
        if kind == A_DRAW_DISCARD:
            return why.LEGAL if r.pile_n > 0 else why.PILE_EMPTY
        return why.MUST_DRAW
    if kind == A_DRAW_STOCK or kind == A_DRAW_DISCARD:
        return why.ALREADY_DREW
    if kind == A_MELD:
        return meld_check(r, p, a, tabs.catalogue, cfg)
    if kind == A_LAY_OFF:
        return lay_off_check(r, p, a, b, cfg)
    if kind == A_DISCARD:
        return discard_check(r, p, a, cfg)
    return why.NOT_IN_RULESET


@nb.njit(**JIT)
def mask_row(r, out, work, tabs, cfg) -> None:
    """The exact legal-action mask of game ``r`` (int8, zeroed here). Bitsets only pre-select candidates
    (melds whose cards are all in hand, the cards a meld accepts); each is decided by its check."""
    out[:] = 0
    p = r.current
    if r.phase == PHASE_DRAW:
        out[0] = r.stock_n > 0
        out[1] = r.pile_n > 0
        return
    if r.phase != PHASE_PLAY:
        return
    catalogue, catalogue_bits = tabs.catalogue, tabs.catalogue_bits
    types = cfg.num_card_types
    hand = np.uint64(0)
    for card in range(types):
        if r.hand[p, card] > 0:
            hand |= card_bit(card)
    if r.slot_n < cfg.num_slots:
        for entry in range(cfg.num_melds):
            if catalogue_bits[entry] & ~hand == 0 and meld_check(r, p, entry, catalogue, cfg) == why.LEGAL:
                out[cfg.meld_offset + entry] = 1
    for slot in range(r.slot_n):
        candidates = accepted_bits(r, slot, cfg) & hand
        for card in range(types):
            if candidates & card_bit(card) and lay_off_check(r, p, slot, card, cfg) == why.LEGAL:
                out[cfg.layoff_offset + slot * types + card] = 1
    for card in range(types):
        if hand & card_bit(card) and discard_check(r, p, card, cfg) == why.LEGAL:
            out[cfg.discard_offset + card] = 1


# ---------------------------------------------------------------------------------------- turns and hands
@nb.njit(**JIT)
def deal_row(r, deck, use_deck: bool, values, cfg) -> None:
    """Deal a hand with ``r.dealer`` dealing (B4): the hands, then the upcard that starts the discard pile;
    the player to the dealer's left plays first (B5)."""
    clear_hand(r)
    k = deal_hands(r, deck, use_deck, cfg)
    r.pile[0] = r.stock[k]
    r.pile_n = 1
    stock_from(r, k + 1, cfg)
    r.current = (r.dealer + 1) % cfg.num_players
    start_turn(r, values, cfg)


@nb.njit(**JIT)
def new_game_row(r, seed: np.uint64, deck, use_deck: bool, dealer: int, work, tabs, cfg) -> None:
    start_game(r, seed, dealer, cfg)
    deal_row(r, deck, use_deck, tabs.values, cfg)


@nb.njit(**JIT)
def next_hand_row(r, work, tabs, cfg) -> None:
    """Deal the game's next hand, passing the deal clockwise, or to the winner (B5, B17)."""
    if cfg.two_player_winner_deals and cfg.num_players == 2 and r.winner >= 0:
        r.dealer = r.winner
    else:
        r.dealer = (r.dealer + 1) % cfg.num_players
    deal_row(r, r.stock, False, tabs.values, cfg)


@nb.njit(**JIT)
def start_turn(r, values, cfg) -> None:
    """Turn start (B18): the turn cap, the stock rebuild (B11) and the dead-hand checks (B17)."""
    r.taken = -1
    r.played_turn = 0
    r.undos = 0
    if r.turns >= cfg.max_turns_per_round:
        end_hand_dead(r, END_DEAD_TURN_CAP, values, cfg)
        return
    keep = cfg.reshuffle_keep_top
    if r.stock_n == 0 and r.pile_n - keep >= 1:
        if not rebuild_allowed(r, cfg):
            end_hand_dead(r, END_DEAD_RESHUFFLES, values, cfg)
            return
        rebuild_stock(r, keep)
    if r.stock_n == 0 and r.pile_n == 0:
        end_hand_dead(r, END_DEAD_NO_DRAW, values, cfg)
        return
    r.phase = PHASE_DRAW


@nb.njit(**JIT)
def end_turn(r, values, cfg) -> None:
    if r.played_turn:
        r.has_played[r.current] = 1
    r.turns += 1
    r.current = (r.current + 1) % cfg.num_players
    start_turn(r, values, cfg)


# ---------------------------------------------------------------------------------------- actions
@nb.njit(**JIT)
def apply_row(rows, undo, action: int, work, tabs, cfg) -> None:
    """Apply a legal ``action`` of the player to act in ``rows[0]`` (B6-B10)."""
    r = rows[0]
    p = r.current
    kind, a, b = decode(action, cfg)
    if kind == A_DRAW_STOCK:
        draw_stock(r, p)
        r.taken = -1
        r.phase = PHASE_PLAY
        return
    if kind == A_DRAW_DISCARD:
        r.taken = draw_pile(r, p)
        r.phase = PHASE_PLAY
        return
    if kind == A_DISCARD:
        to_pile(r, p, a)
        if r.hand_n[p] == 0:
            end_hand_out(r, tabs.values, cfg)
        else:
            end_turn(r, tabs.values, cfg)
        return
    if kind == A_LAY_OFF:
        apply_lay_off(r, p, a, b, cfg)
    else:
        apply_meld(r, p, a, tabs.catalogue)
    if r.hand_n[p] == 0:
        end_hand_out(r, tabs.values, cfg)


def work_buffers(threads: int, record_dtype: np.dtype) -> tuple:
    """Basic needs no search: one placeholder buffer."""
    return (np.zeros(1, dtype=np.int8),)


@nb.njit(**JIT)
def worker_buffers(work, thread: int):
    return work


def search_stats(work) -> dict[str, int]:
    return {}


DRIVERS = make_drivers(new_game_row, next_hand_row, mask_row, legal_reason, apply_row, worker_buffers, "basic")


def drivers(rules) -> Drivers:
    """The batch drivers, one set for every basic rules."""
    return DRIVERS


TURN_COPY = False  # basic has no tentative plays: nothing of a turn is taken back

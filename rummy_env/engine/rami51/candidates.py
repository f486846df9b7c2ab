"""The locally legal plays of a rami51 position, as action ids (R11-R14): what the mask checks one by one and
what the no-dead-end search expands. Bitsets pre-select; each candidate is decided by its check."""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.actions import COMMIT, TAKE_CHOICES, TAKE_HIGH_END
from rummy_env.cards import JOKER
from rummy_env.engine import reasons as why
from rummy_env.engine.config import EVERY_PICKUP, FINAL_REQUIRED
from rummy_env.engine.jit import JIT
from rummy_env.engine.rami51.moves import swap_check, take_card_check, take_slot_check
from rummy_env.engine.rami51.opening import commit_check
from rummy_env.engine.rami51.plays import lay_off_check, meld_check
from rummy_env.engine.rami51.table import natural_run_end, run_end_position
from rummy_env.engine.rami51.turn import may_play
from rummy_env.engine.table import card_at, card_bit, slot_size
from rummy_env.melds import KIND_RUN, KIND_SET


@nb.njit(**JIT)
def hand_bits(r, p: int) -> np.uint64:
    bits = np.uint64(0)
    for card in range(JOKER + 1):
        if r.hand[p, card] > 0:
            bits |= card_bit(card)
    return bits


@nb.njit(**JIT)
def focused(r, cfg) -> bool:
    """Whether the search may skip the plays that do not touch an owed card (``play_candidates``): an opened
    player who must keep a card to discard (R15 "required") can only lose by laying own cards that no
    obligation needs, unless a pickup minimum (R21.3 "every_pickup") or the burnt-card rule (R21.2) makes
    other plays matter."""
    return (r.opened[r.current] == 1 and cfg.final_discard == FINAL_REQUIRED and not cfg.joker_run_requires_burnt
            and not (cfg.discard_pickup_min_lay_scope == EVERY_PICKUP and r.taken >= 0))


@nb.njit(**JIT)
def play_candidates(r, out, catalogue, catalogue_bits, cfg, focus: bool = False) -> int:
    """Write every locally legal play (COMMIT, MELD, LAY_OFF, TAKE, SWAP) into ``out``; returns how many.

    ``focus`` (the search only, see ``focused``) keeps just the plays that can help lay the cards the turn
    still owes: melds holding one of them, lay-offs of the taken card or a freed joker, lay-offs onto 3-card
    melds (they can open a meld to TAKE or fix a joker to SWAP), TAKE, SWAP."""
    n = 0
    if not may_play(r, cfg):
        return 0
    p = r.current
    if commit_check(r, cfg) == why.LEGAL:
        out[n] = COMMIT
        n += 1
    hand = hand_bits(r, p)
    owed = np.uint64(0)
    if focus:
        for card in range(JOKER + 1):
            if r.pending[card] > 0:
                owed |= card_bit(card)
        if r.freed_jokers > 0:
            owed |= card_bit(JOKER)
        if r.taken >= 0 and not r.taken_laid:
            owed |= card_bit(r.taken)
    if r.slot_n < cfg.num_slots:
        for entry in range(cfg.num_melds):
            if catalogue_bits[entry] & ~hand == 0 and (not focus or catalogue_bits[entry] & owed) \
                    and meld_check(r, entry, catalogue, cfg) == why.LEGAL:
                out[n] = cfg.meld_offset + entry
                n += 1
    codes = cfg.layoff_codes
    joker_in_hand = (hand & card_bit(JOKER)) != 0
    for slot in range(r.slot_n):
        base = cfg.layoff_offset + slot * codes
        if focus and slot_size(r, slot) != 3:
            for code in range(JOKER + 2):  # only the owed cards may be laid off here
                card = min(code, JOKER)
                if owed & card_bit(card) and r.hand[p, card] > 0 and lay_off_check(r, slot, code, cfg) == why.LEGAL \
                        and (code >= JOKER or r.slot_kind[slot] == KIND_SET or natural_run_end(r, slot, card, cfg) != 0):
                    out[n] = base + code
                    n += 1
            n = take_and_swap_candidates(r, slot, out, n, cfg)
            continue
        if r.slot_kind[slot] == KIND_SET:
            for suit in range(4):
                card = card_at(suit, r.slot_key[slot])
                if r.hand[p, card] > 0 and lay_off_check(r, slot, card, cfg) == why.LEGAL:
                    out[n] = base + card
                    n += 1
        else:
            for high in (False, True):
                position = run_end_position(r, slot, high, cfg)
                if position != 0:
                    card = card_at(r.slot_key[slot], position)
                    if r.hand[p, card] > 0 and natural_run_end(r, slot, card, cfg) == position \
                            and lay_off_check(r, slot, card, cfg) == why.LEGAL:
                        out[n] = base + card
                        n += 1
        if joker_in_hand:
            for code in (JOKER, JOKER + 1):
                if lay_off_check(r, slot, code, cfg) == why.LEGAL:
                    out[n] = base + code
                    n += 1
        n = take_and_swap_candidates(r, slot, out, n, cfg)
    return n


@nb.njit(**JIT, inline="always")  # once per slot: a call would cost ``out`` an atomic reference count each way
def take_and_swap_candidates(r, slot: int, out, n: int, cfg) -> int:
    if take_slot_check(r, slot, cfg) == why.LEGAL:
        for choice in range(TAKE_HIGH_END + 1 if r.slot_kind[slot] == KIND_RUN else TAKE_CHOICES):  # a run: its ends
            if take_card_check(r, slot, choice, cfg) == why.LEGAL:
                out[n] = cfg.take_offset + slot * TAKE_CHOICES + choice
                n += 1
    if r.slot_jokers[slot] > 0 and swap_check(r, slot, cfg) == why.LEGAL:
        out[n] = cfg.swap_offset + slot
        n += 1
    return n


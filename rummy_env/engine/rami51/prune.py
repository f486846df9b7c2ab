"""Sound proofs that a rami51 turn cannot be finished from a position (R6, R11, R13, R14, R15, R16): cheap
relaxations of the plays that only prune the no-dead-end search (``search.py``), never decide legality.
Each names the check it relaxes."""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.cards import JOKER
from rummy_env.engine.config import FINAL_FORBIDDEN, FINAL_REQUIRED, FREED_NEW_MELD_OR_LAYOFF
from rummy_env.engine.jit import JIT
from rummy_env.engine.rami51.candidates import hand_bits
from rummy_env.engine.rami51.opening import JOKER_CELL, max_points, pure_run_laid, threshold
from rummy_env.engine.rami51.table import represented
from rummy_env.engine.rami51.turn import own, pending_total
from rummy_env.engine.table import card_at, card_bit, holds_joker_at, slot_cards, slot_size
from rummy_env.melds import KIND_RUN, KIND_SET


@nb.njit(**JIT)
def can_grow(r, slot: int, cfg) -> bool:
    """Whether some card the player could lay off this turn fits the set in ``slot`` now: an own natural of a
    missing suit, or a joker (own, or with ``new_meld_or_layoff`` a freed one: a player who opens later in the
    turn may free one) if it has none; a 3-card set's joker never leaves it (relaxes ``lay_off_check``, R9, R12,
    R14)."""
    p = r.current
    if slot_size(r, slot) >= 4:
        return False
    if (own(r, p, JOKER) > 0 or cfg.freed_joker_use == FREED_NEW_MELD_OR_LAYOFF) and r.slot_jokers[slot] == 0:
        return True
    for suit in range(4):
        if not r.slot_suits[slot] >> suit & 1 and own(r, p, card_at(suit, r.slot_key[slot])) > 0:
            return True
    return False


@nb.njit(**JIT)
def own_chain(r, slot: int, high: bool, cfg) -> int:
    """How many cards the player's own cards could add at the low/high end of run ``slot``: consecutive own
    naturals beyond that end, bridged by one joker (own, or freed under ``new_meld_or_layoff``) if the run is
    his (even one holding a joker: a SWAP or a TAKE may free it first) (relaxes ``lay_off_check``: burnt cards
    and the order of lay-offs are ignored)."""
    p = r.current
    joker = (own(r, p, JOKER) > 0 or cfg.freed_joker_use == FREED_NEW_MELD_OR_LAYOFF) and r.slot_owner[slot] == p
    lo, hi = r.slot_lo[slot], r.slot_hi[slot]
    added = 0
    for _ in range(13):
        length = hi - lo + 1 + added
        position = (hi + added + 1) if high else (lo - added - 1)
        if cfg.circular_runs:
            if length >= 13:
                break
        elif position > 14 or position < 1 or (length >= 13 and not cfg.allow_ace_both_ends):
            break
        if own(r, p, card_at(r.slot_key[slot], position)) > 0:
            added += 1
        elif joker:
            joker = False
            added += 1
        else:
            break
    return added


@nb.njit(**JIT)
def take_sources(r, cfg, gives) -> tuple:
    """The cards a chain of TAKEs could bring into the hand this turn (relaxes ``take_check``, R13), meld by meld:
    ``gives[slot]`` is what meld ``slot`` could give (``slot_takeable_bits``; melds laid this turn count too, and
    after a commit the turn-start melds open up as well, R11.3). Returns the takeable cards and those that only
    one meld could give (for ``takes_fit``)."""
    seen, twice = np.uint64(0), np.uint64(0)
    for slot in range(r.slot_n):
        gives[slot] = slot_takeable_bits(r, slot, cfg)
        twice |= seen & gives[slot]
        seen |= gives[slot]
    return seen, seen & ~twice


@nb.njit(**JIT)
def slot_takeable_bits(r, slot: int, cfg) -> np.uint64:
    """Cards TAKEs could bring from meld ``slot`` this turn. A TAKE leaves 3 cards, so a run gives cards from an
    end only as deep as its length (grown at the other end by the player's own cards, ``own_chain``) allows:
    the card ``d`` places in from one end needs ``d + 1 <= L + E - 3``. A set gives its naturals when it has 4
    cards or an own card can make it 4 (``can_grow``)."""
    bits = np.uint64(0)
    if not cfg.allow_take_from_meld or r.slot_owner[slot] == r.current and not cfg.take_from_own_melds:
        return bits
    size = slot_size(r, slot)
    if r.slot_kind[slot] == KIND_SET:
        if size < 4 and not can_grow(r, slot, cfg):
            return bits
        for suit in range(4):
            if r.slot_suits[slot] >> suit & 1:
                bits |= card_bit(card_at(suit, r.slot_key[slot]))
        if r.slot_jokers[slot] > 0 and cfg.can_take_joker_from_meld:
            bits |= card_bit(JOKER)
        return bits
    from_low = size + own_chain(r, slot, True, cfg) - 3   # cards the low end can give
    from_high = size + own_chain(r, slot, False, cfg) - 3
    lo, hi = r.slot_lo[slot], r.slot_hi[slot]
    for position in range(lo, hi + 1):
        if position - lo < from_low or hi - position < from_high:
            if holds_joker_at(r, slot, position):
                if cfg.can_take_joker_from_meld:
                    bits |= card_bit(JOKER)
            else:
                bits |= card_bit(card_at(r.slot_key[slot], position))
    return bits


@nb.njit(**JIT)
def turn_meld_bits(r, cfg) -> np.uint64:
    """The cards of the melds laid this turn: after a COMMIT any of them may be taken back (relaxes
    ``take_check`` further than ``take_sources``, R13); a joker only under ``can_take_joker_from_meld``."""
    counts = np.zeros(JOKER + 1, dtype=np.int64)
    for slot in range(r.start_slots, r.slot_n):
        slot_cards(r, slot, counts)
    if not cfg.can_take_joker_from_meld:
        counts[JOKER] = 0
    bits = np.uint64(0)
    for card in range(JOKER + 1):
        if counts[card] > 0:
            bits |= card_bit(card)
    return bits


@nb.njit(**JIT)
def placeable_bits(r, reachable: np.uint64, catalogue_bits, cfg) -> np.uint64:
    """Cards that could still reach the table this turn by some play (relaxes ``meld_check``, ``lay_off_check``
    and ``swap_check``: counts and order ignored): members of a catalogue meld whose cards are all
    ``reachable`` (in the hand or takeable), cards a table meld accepts, cards a SWAP would lay. A run accepts
    the chain of cards beyond each end that the hand (or one joker) can bridge, a set any suit of its rank (a
    TAKE can reopen a full set), and a SWAP's freed joker is reachable."""
    p = r.current
    for slot in range(r.slot_n):
        if r.slot_jokers[slot] == 0:
            continue
        if r.slot_kind[slot] == KIND_SET:  # a lay-off can first make a 3-card joker set's joker swappable
            for suit in range(4):
                if not r.slot_suits[slot] >> suit & 1 and own(r, p, card_at(suit, r.slot_key[slot])) > 0:
                    reachable |= card_bit(JOKER)
        else:
            card = represented(r, slot)
            if card >= 0 and own(r, p, card) > 0:
                reachable |= card_bit(JOKER)
    bits = np.uint64(0)
    for entry in range(cfg.num_melds):
        if catalogue_bits[entry] & ~reachable == 0:
            bits |= catalogue_bits[entry]
    joker_reachable = (reachable & card_bit(JOKER)) != 0
    for slot in range(r.slot_n):
        if r.slot_jokers[slot] == 0 and (r.slot_kind[slot] == KIND_SET and slot_size(r, slot) == 3
                                         or r.slot_kind[slot] == KIND_RUN and r.slot_owner[slot] == p):
            bits |= card_bit(JOKER)
        if r.slot_kind[slot] == KIND_SET:
            for suit in range(4):
                bits |= card_bit(card_at(suit, r.slot_key[slot]))
        else:
            for high in (False, True):
                position = r.slot_hi[slot] if high else r.slot_lo[slot]
                gap = joker_reachable
                for _ in range(13):
                    position = position + 1 if high else position - 1
                    if not cfg.circular_runs and (position < 1 or position > 14):
                        break
                    card = card_at(r.slot_key[slot], position)
                    bits |= card_bit(card)
                    if reachable & card_bit(card) == 0:
                        if not gap:
                            break
                        gap = False
        card = represented(r, slot)
        if card >= 0:
            bits |= card_bit(card)
    return bits


@nb.njit(**JIT)
def new_meld_reachable(r, card: int, reachable: np.uint64, gives, single: np.uint64, catalogue_bits, cfg) -> bool:
    """Whether ``card`` (a pending card, R13, a freed joker, R14, or for ``opening_dp`` a card a TAKE could
    bring) could still go into a new meld: a catalogue meld holding it, with another own card, whose cards are
    all in the hand or takeable, and whose TAKEs the table can give (``takes_fit``; ``gives`` and ``single`` from
    ``take_sources``)."""
    p = r.current
    bit = card_bit(card)
    own_bits = np.uint64(0)
    for other in range(JOKER + 1):
        if other != card and own(r, p, other) > 0:
            own_bits |= card_bit(other)
    for entry in range(cfg.num_melds):
        entry_bits = catalogue_bits[entry]
        if entry_bits & bit and entry_bits & ~reachable == 0 and entry_bits & own_bits \
                and takes_fit(r, card, entry_bits, gives, single, cfg):
            return True
    return False


@nb.njit(**JIT)
def takes_fit(r, card: int, entry_bits: np.uint64, gives, single: np.uint64, cfg) -> bool:
    """Whether the table can give the cards of the new meld ``entry_bits`` (holding ``card``, which is pending
    when the meld is laid) that are not in the hand (relaxes ``take_check``, R13, by counting). A TAKE leaves
    at least 3 cards, so a meld gives at most its size less 3, plus the cards laid off on it first: own naturals
    (``layable``) and own jokers. Each own card is laid once: a pending card is never laid off, and a joker
    leaves the table only as a freed joker (laid off again only under ``new_meld_or_layoff``, R14) or, under
    ``can_take_joker_from_meld``, a pending one. The new meld's joker, beside a pending card, is an own joker
    unless jokers may be taken: a MELD with a freed joker needs two own cards beside it. Only the cards that one
    meld alone can give (``single``) are counted, against that meld (``gives[slot]``)."""
    if cfg.freed_joker_use == FREED_NEW_MELD_OR_LAYOFF:
        return True  # freed jokers may be laid off too: no limit
    p = r.current
    jokers = own(r, p, JOKER)
    if entry_bits & card_bit(JOKER) and card != JOKER and not cfg.can_take_joker_from_meld:
        jokers -= 1
    hand = hand_bits(r, p)
    counted = entry_bits & ~hand & single
    if counted == 0:
        return jokers >= 0
    # beside ``card`` and a card to take, the third card must be the meld's own card; with both beside ``card``
    # in hand, either could be swapped for a copy taken elsewhere, so neither is kept
    others = entry_bits & ~card_bit(card)
    kept = others & hand if others & ~hand else np.uint64(0)
    needed = 0
    for slot in range(r.slot_n):
        taken = gives[slot] & counted
        if taken:
            needed += max(bit_count(taken) - (slot_size(r, slot) - 3) - layable(r, slot, kept), 0)
    return needed <= jokers


@nb.njit(**JIT)
def layable(r, slot: int, kept: np.uint64) -> int:
    """Own naturals that could ever be laid off on meld ``slot``, of its rank (a set) or of its suit (a run),
    less the own copies ``kept`` for the new meld (cards with a copy pending stay free: a MELD lays pending
    copies first). An upper bound (relaxes ``lay_off_check``)."""
    p = r.current
    key = r.slot_key[slot]
    n = 0
    for k in range(4 if r.slot_kind[slot] == KIND_SET else 13):
        other = card_at(k, key) if r.slot_kind[slot] == KIND_SET else card_at(key, k + 1)
        used = r.pending[other] == 0 and kept & card_bit(other) != 0
        n += max(own(r, p, other) - (1 if used else 0), 0)
    return n


@nb.njit(**JIT)
def bit_count(bits: np.uint64) -> int:
    n = 0
    while bits:
        bits &= bits - np.uint64(1)
        n += 1
    return n


@nb.njit(**JIT)
def ace_slack(r, cfg) -> int:
    """Points the own cards already laid may still gain: in a circular run a king laid before a low ace (or a
    joker standing for one) makes it worth 11 instead of 1 (R10, AR11)."""
    if not cfg.circular_runs or cfg.ace_fixed_value > 0:
        return 0
    slack = 0
    for slot in range(r.slot_n):
        if r.slot_kind[slot] == KIND_RUN and r.slot_mine[slot] & ((1 << 1) | (1 << JOKER_CELL)):
            slack += 10
    return slack


@nb.njit(**JIT)
def pure_run_reachable(r, takeable: np.uint64, cfg) -> bool:
    """A pure run is on the table this turn (or will be once a joker laid off on it is taken back), or three
    consecutive naturals of one suit could still form one: own cards, or (without ``pure_run_hand_cards_only``)
    cards a TAKE could bring (relaxes R11.2, AR8)."""
    if pure_run_laid(r, cfg):
        return True
    p = r.current
    last_start = 13 if cfg.circular_runs else 12
    later = np.uint64(0) if cfg.pure_run_hand_cards_only else takeable
    for suit in range(4):
        for start in range(1, last_start + 1):
            ok = True
            for k in range(3):
                card = card_at(suit, start + k)
                held = own(r, p, card) if cfg.pure_run_hand_cards_only else r.hand[p, card]
                if held < 1 and later & card_bit(card) == 0:
                    ok = False
                    break
            if ok:
                return True
    return False


@nb.njit(**JIT)
def hopeless(r, catalogue_bits, cfg) -> bool:
    """Cheap proofs that no finish exists from ``r``:

    * too few own cards are left to meld the pending cards and freed jokers and keep a discard (R13, R14, R15);
    * a card that must be laid (the taken card, R6; a pending card, R13; a freed joker, R14) can reach no
      meld, lay-off or swap;
    * a non-opened player who has made tentative plays (or holds the taken card) and has no undo left must
      reach a COMMIT or an all-at-once out (R11.5): a COMMIT needs the points, counted only over own cards that
      could still be laid, and (``opening_requires_pure_run``) a pure run of own cards; an all-at-once out needs
      what R16's knobs ask of it and every own card laid but the final discard. (``opening_dp`` bounds the same
      over disjoint melds, at a higher cost: the search asks it only past ``search.ASK_BOUND`` plays.)"""
    p = r.current
    must_lay = r.taken >= 0 and not r.taken_laid
    if not must_lay and pending_total(r) == 0 and (r.opened[p] or r.tentative == 0):
        return False
    own_cards = 0
    for card in range(JOKER + 1):
        own_cards += own(r, p, card)
    taken_cards = pending_total(r) - r.freed_jokers
    # every new meld holding taken cards needs an own card, so holds at most two of them; a freed joker needs
    # two own cards (or, with "new_meld_or_layoff", none: it may be laid off); "required" keeps a discard
    freed_need = 0 if cfg.freed_joker_use == FREED_NEW_MELD_OR_LAYOFF else 2 * r.freed_jokers
    if own_cards < (taken_cards + 1) // 2 + freed_need + (1 if cfg.final_discard == FINAL_REQUIRED else 0):
        return True
    gives = np.empty(r.slot_n, dtype=np.uint64)
    takeable, single = take_sources(r, cfg, gives)
    reachable = hand_bits(r, p) | takeable
    if cfg.can_take_joker_from_meld:  # a joker a SWAP frees may be laid and taken back, pending
        reachable |= card_bit(JOKER)
    placeable = placeable_bits(r, reachable, catalogue_bits, cfg)
    if must_lay and placeable & card_bit(r.taken) == 0:
        return True
    for card in range(JOKER + 1):
        if r.pending[card] > 0 and not new_meld_reachable(r, card, reachable, gives, single, catalogue_bits, cfg):
            return True
    if r.freed_jokers > 0 and placeable & card_bit(JOKER) == 0:
        return True
    if r.freed_jokers > 0 and cfg.freed_joker_use != FREED_NEW_MELD_OR_LAYOFF \
            and not new_meld_reachable(r, JOKER, reachable, gives, single, catalogue_bits, cfg):
        return True
    if r.opened[p]:
        return False
    bound = r.turn_points + ace_slack(r, cfg)
    unplaceable = 0
    for card in range(JOKER + 1):
        n = own(r, p, card)
        if n > 0:
            if placeable & card_bit(card):
                bound += n * max_points(card, cfg)
            else:
                unplaceable += n
    points_ok = bound >= threshold(r, cfg)
    pure_ok = not cfg.opening_requires_pure_run or pure_run_reachable(r, takeable, cfg)
    commit_maybe = points_ok and pure_ok
    # an all-at-once out (R16): every own card laid but the final discard (R15)
    out_maybe = not (r.touched_table and not cfg.all_at_once_may_use_table) \
        and not (cfg.all_at_once_requires_opening_criteria and not points_ok) \
        and not (cfg.all_at_once_requires_pure_run and not pure_ok) \
        and unplaceable <= (0 if cfg.final_discard == FINAL_FORBIDDEN else 1)
    return not commit_maybe and not out_maybe

"""A fast answer to "can this hand still open?" (R11.5, R16, R23): ``opening_dp`` proves that no opening is
reachable, or its plan, laid with the engine's own checked plays, shows one that is.

``opening_verdict`` answers NO (no COMMIT and no all-at-once out is reachable, a proof), YES (the plan, laid play
by play through the local checks of ``plays``/``moves``, ends in a legal COMMIT and discard, or a legal out),
COMMITTED (the plan lays up to a legal COMMIT, but a card taken from a meld is still to place: the search goes
on from there, unless the DP with the melds after a COMMIT, ``post``, proves NO) or MAYBE (the DP could not
decide, or its plan did not lay as it is: the search decides). ``opening_outcome`` picks the DP's outcome that a
COMMIT or an all-at-once out accepts. A plan is laid in this order: the profiles of table melds (TAKEs and
lay-offs, ``ORDERS``), then new melds (pending cards and a pending joker in the 3-card MELD, own cards laid off
after; runs with a joker last), then a COMMIT if it is legal, then the end of the turn.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.cards import JOKER
from rummy_env.engine import reasons as why
from rummy_env.engine.config import CAT_JOKER, CAT_KEY, CAT_KIND, CAT_LO, FINAL_OPTIONAL, FINAL_REQUIRED
from rummy_env.engine.jit import JIT
from rummy_env.actions import A_COMMIT, A_LAY_OFF, A_MELD, A_TAKE
from rummy_env.engine.rami51.moves import can_end_now, checked_play
from rummy_env.engine.rami51.opening import out_check, pure_run_laid, threshold
from rummy_env.engine.rami51.opening_dp import dp_views, opening_outcomes
from rummy_env.engine.rami51.opening_memo import DONE, NO_OPENING, NONE, OUTCOMES, UNKNOWN, outcome, outcome_fields
from rummy_env.engine.rami51.placements import (
    JOKER_PENDING, NEW_RUN, NEW_SET, OWN_CARDS, POST_MELD, PROFILE_RUN, SHAPE, SHAPE_A, SHAPE_B, SHAPE_C, SHAPE_D,
    SHAPE_E,
)
from rummy_env.engine.rami51.prune import ace_slack
from rummy_env.engine.rami51.table import natural_run_end, run_end_position
from rummy_env.engine.table import card_at, slot_size
from rummy_env.melds import KIND_RUN, KIND_SET

NO, MAYBE, YES, COMMITTED = 0, 1, 2, 3
MAX_PLAN = 64


@nb.njit(**JIT)
def opening_verdict(r, scratch, dp_bytes, catalogue, catalogue_bits, cfg, narrow: bool = False) -> int:
    """NO, MAYBE, YES or COMMITTED for the position ``r`` of a player who must open (see the module docstring);
    ``scratch`` is a one-record array the plan is laid in (with COMMITTED, the position after the COMMIT), ``dp_bytes``
    the thread's DP buffers (``opening_dp.dp_buffers``). With ``narrow`` the DP looks for a plan among fewer pictures
    (``opening_outcomes``), so it never answers NO."""
    dp_work = dp_views(dp_bytes)
    code = opening_outcome(r, dp_work, catalogue_bits, cfg, False, narrow)
    if code == NO_OPENING:
        return MAYBE if narrow else NO
    if code == UNKNOWN:
        return MAYBE
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    count = trace(code, dp_work, plan)
    if count < 0:
        return MAYBE
    scratch[0] = r
    verdict = lay_plan(scratch[0], plan, count, dp_work, catalogue, cfg)
    if verdict == COMMITTED and not narrow and opening_outcome(r, dp_work, catalogue_bits, cfg, True) == NO_OPENING:
        return NO  # no card left over at the COMMIT can be placed after it
    return verdict


@nb.njit(**JIT)
def out_left_ok(left: int, cfg) -> bool:
    """Own cards an all-at-once out may leave before its end: one to discard (R15 "required"), none or one
    ("optional"), none ("forbidden")."""
    if cfg.final_discard == FINAL_REQUIRED:
        return left == 1
    if cfg.final_discard == FINAL_OPTIONAL:
        return left <= 1
    return left == 0


@nb.njit(**JIT)
def opening_outcome(r, work, catalogue_bits, cfg, post: bool = False, narrow: bool = False) -> int:
    """An outcome of ``opening_outcomes`` (with the melds after a COMMIT if ``post``) that a COMMIT (R11.5, a card
    kept to discard under R15 "required") or an all-at-once out (R16) accepts, a commit preferred; ``NO_OPENING``
    if there is none (a proof, unless ``narrow``), ``UNKNOWN`` when the DP cannot decide."""
    outcomes = np.empty(OUTCOMES, dtype=np.int16)
    code = opening_outcomes(r, work, catalogue_bits, cfg, outcomes, post, narrow)
    if code == UNKNOWN or code == NO_OPENING:
        return code
    base = r.turn_points + ace_slack(r, cfg)
    need = threshold(r, cfg)
    pure_done = pure_run_laid(r, cfg)
    taken_done = r.taken < 0 or r.taken_laid
    out_barred = r.touched_table and not cfg.all_at_once_may_use_table
    found = NO_OPENING
    for o in range(OUTCOMES):
        points = outcomes[o]
        left, pure, taken, no_out = outcome_fields(o)
        if points == NONE or not (taken or taken_done):
            continue
        has_pure = pure or pure_done
        enough = base + points >= need
        if enough and (has_pure or not cfg.opening_requires_pure_run) \
                and (left > 0 or cfg.final_discard != FINAL_REQUIRED):  # a card to discard at the end (R15)
            return o
        if not no_out and not out_barred and out_left_ok(left, cfg) \
                and (has_pure or not (cfg.opening_requires_pure_run and cfg.all_at_once_requires_pure_run)) \
                and (enough or not cfg.all_at_once_requires_opening_criteria):
            found = o
    return found


@nb.njit(**JIT)
def trace(wanted: int, dp_work, plan) -> int:
    """The rows behind outcome ``wanted`` of the last DP (counting the own cards it set aside), in the DP's order
    (profiles, then new melds): written to ``plan``, returns how many, or -1."""
    values, choices, nexts, counters = dp_work[5], dp_work[6], dp_work[7], dp_work[10]
    stuck, root = counters[1], counters[2]
    best = -1
    for o in range(OUTCOMES):
        left, pure, taken, no_out = outcome_fields(o)
        if values[root, o] > NONE and outcome(left + stuck, pure, taken, no_out) == wanted:
            if best < 0 or values[root, o] > values[root, best]:
                best = o
    index, o, n = root, best, 0
    while best >= 0:
        choice = choices[index, o]
        if choice == DONE:
            return n
        if choice >= 0:
            if n >= MAX_PLAN:
                return -1
            plan[n] = choice
            n += 1
        step = nexts[index, o]
        index, o = step // 32, step % 32
    return -1


@nb.njit(**JIT)
def lay_plan(r, plan, count: int, dp_work, catalogue, cfg) -> int:
    """Lay the rows ``plan[:count]`` with checked plays (see the module docstring), then COMMIT and keep a
    discard, or go out: YES if that ends the turn legally, COMMITTED if a legal COMMIT leaves cards to place,
    else MAYBE."""
    owns, pend, meta = dp_work[0], dp_work[1], dp_work[3]
    for phase in range(3):  # profiles, new melds, new runs with a joker
        for k in range(count):
            g = plan[k]
            shape = meta[g, SHAPE]
            if shape == POST_MELD:
                continue  # after the COMMIT: left to the search
            step = 0 if shape != NEW_SET and shape != NEW_RUN else 1
            if shape == NEW_RUN and meta[g, SHAPE_D] >= 0:
                step = 2
            if step != phase:
                continue
            if shape == PROFILE_RUN:
                ok = lay_run_profile(r, meta, g, catalogue, cfg)
            elif shape == NEW_SET:
                ok = lay_set(r, owns, pend, meta, g, catalogue, cfg)
            elif shape == NEW_RUN:
                ok = lay_run(r, pend, meta, g, catalogue, cfg)
            else:
                ok = lay_set_profile(r, meta, g, catalogue, cfg)
            if not ok:
                return MAYBE
    if r.hand_n[r.current] == 0:
        return YES if out_check(r, cfg) == why.LEGAL else MAYBE
    if checked_play(r, A_COMMIT, -1, -1, catalogue, cfg):
        return YES if can_end_now(r, cfg) else COMMITTED
    # an all-at-once out by the last discard
    return YES if r.hand_n[r.current] == 1 and can_end_now(r, cfg) else MAYBE


# ---------------------------------------------------------------------------------------- profiles
@nb.njit(**JIT)
def lay_chain(r, slot: int, high: bool, size: int, joker_step: int, catalogue, cfg) -> bool:
    """Own cards laid off one after the other beyond one end of run ``slot`` (the joker at ``joker_step``)."""
    for step in range(size):
        if step == joker_step:
            if not checked_play(r, A_LAY_OFF, slot, JOKER + 1 if high else JOKER, catalogue, cfg):
                return False
            continue
        position = run_end_position(r, slot, high, cfg)
        if position == 0:
            return False
        card = card_at(r.slot_key[slot], position)
        if natural_run_end(r, slot, card, cfg) != position \
                or not checked_play(r, A_LAY_OFF, slot, card, catalogue, cfg):
            return False
    return True


@nb.njit(**JIT)
def lay_run_profile(r, meta, g: int, catalogue, cfg) -> bool:
    """A run profile in its order (``profiles.ORDERS``): lay-offs at an end that gives nothing, and per end its
    TAKEs followed by its own cards."""
    slot, order, joker = meta[g, SHAPE_A], meta[g, SHAPE_D], meta[g, SHAPE_E]
    takes_lo, lays_lo = meta[g, SHAPE_B] // 16, meta[g, SHAPE_B] % 16
    takes_hi, lays_hi = meta[g, SHAPE_C] // 16, meta[g, SHAPE_C] % 16
    if order < 0:
        return False
    joker_lo = joker if 0 <= joker < 16 else -1
    joker_hi = joker - 16 if joker >= 16 else -1
    for part in range(4):  # extension first (orders 0, 1) or last (2, 3); the two ends in the order's turn
        if part == 0 and order >= 2 or part == 3 and order < 2:
            continue
        if part == 0 or part == 3:
            if takes_lo == 0 and not lay_chain(r, slot, False, lays_lo, joker_lo, catalogue, cfg):
                return False
            if takes_hi == 0 and not lay_chain(r, slot, True, lays_hi, joker_hi, catalogue, cfg):
                return False
            continue
        high = (part == 2) == (order % 2 == 0)
        takes = takes_hi if high else takes_lo
        if takes == 0:
            continue
        for _ in range(takes):
            if not checked_play(r, A_TAKE, slot, 1 if high else 0, catalogue, cfg):
                return False
        if not lay_chain(r, slot, high, lays_hi if high else lays_lo, joker_hi if high else joker_lo, catalogue, cfg):
            return False
    return True


@nb.njit(**JIT)
def lay_set_profile(r, meta, g: int, catalogue, cfg) -> bool:
    """A set profile: its TAKEs and lay-offs, each made as soon as its check allows (a TAKE needs 4 cards), the
    joker last."""
    slot, taken, laid, joker = meta[g, SHAPE_A], meta[g, SHAPE_B], meta[g, SHAPE_C], meta[g, SHAPE_D]
    rank = r.slot_key[slot]
    for _ in range(10):
        if taken == 0 and laid == 0:
            break
        progress = False
        for code in range(5):
            if taken >> code & 1 and slot_size(r, slot) >= 4 \
                    and checked_play(r, A_TAKE, slot, code, catalogue, cfg):
                taken &= ~(1 << code)
                progress = True
        for suit in range(4):
            if laid >> suit & 1 and not r.slot_suits[slot] >> suit & 1 and slot_size(r, slot) < 4:
                if checked_play(r, A_LAY_OFF, slot, card_at(suit, rank), catalogue, cfg):
                    laid &= ~(1 << suit)
                    progress = True
        if not progress:
            return False
    return joker == 0 or checked_play(r, A_LAY_OFF, slot, JOKER, catalogue, cfg)


# ---------------------------------------------------------------------------------------- new melds
@nb.njit(**JIT)
def meld(r, kind: int, key: int, lo: int, joker_at: int, cards, catalogue, cfg) -> int:
    """MELD the catalogue entry of that shape holding ``cards`` (three types); returns the new slot or -1."""
    for entry in range(cfg.num_melds):
        if catalogue[entry, CAT_KIND] != kind or catalogue[entry, CAT_KEY] != key:
            continue
        if kind == KIND_RUN and (catalogue[entry, CAT_LO] != lo or catalogue[entry, CAT_JOKER] != joker_at):
            continue
        same = True
        for k in range(3):
            matched = False
            for j in range(3):
                if catalogue[entry, j] == cards[k]:
                    matched = True
            same = same and matched
        if not same:
            continue
        slot = r.slot_n
        return slot if checked_play(r, A_MELD, entry, -1, catalogue, cfg) else -1
    return -1


@nb.njit(**JIT)
def lay_set(r, owns, pend, meta, g: int, catalogue, cfg) -> bool:
    """A new set: pending cards and the joker in the MELD (3 cards), the other own naturals laid off after."""
    rank, joker = meta[g, SHAPE_A], meta[g, SHAPE_B]
    base = np.full(3, -1, dtype=np.int64)
    used = 0
    if joker > 0:
        base[0] = JOKER
        used = 1
    for k in range(2):  # pending naturals first: they may only be in the MELD
        card = pend[g, k]
        if card >= 0 and card != JOKER and used < 3:
            base[used] = card
            used += 1
    rest = np.full(meta[g, OWN_CARDS] + 1, -1, dtype=np.int64)
    n_rest = 0
    for k in range(meta[g, OWN_CARDS]):
        card = owns[g, k]
        if card == JOKER:
            continue
        if used < 3:
            base[used] = card
            used += 1
        else:
            rest[n_rest] = card
            n_rest += 1
    if used < 3:
        return False
    slot = meld(r, KIND_SET, rank, rank, -1, base, catalogue, cfg)
    if slot < 0:
        return False
    for k in range(n_rest):
        if not checked_play(r, A_LAY_OFF, slot, rest[k], catalogue, cfg):
            return False
    return True


@nb.njit(**JIT)
def lay_run(r, pend, meta, g: int, catalogue, cfg) -> bool:
    """A new run: a 3-card MELD holding every pending card (and a pending joker), then own cards laid off
    outwards, below the MELD and above it."""
    suit, start, length, joker_cell = meta[g, SHAPE_A], meta[g, SHAPE_B], meta[g, SHAPE_C], meta[g, SHAPE_D]
    joker_pending = meta[g, SHAPE_E] == JOKER_PENDING
    pending_cell = np.zeros(length, dtype=np.bool_)
    for k in range(2):
        card = pend[g, k]
        if card >= 0 and card != JOKER:
            for cell in range(length):
                if card_at(suit, start + cell) == card:
                    pending_cell[cell] = True
    if joker_pending:
        pending_cell[joker_cell] = True
    base = -1
    for w in range(length - 2):
        inside = True
        for cell in range(length):
            if pending_cell[cell] and not w <= cell < w + 3:
                inside = False
        if inside and not (pending_cell[w] and pending_cell[w + 1] and pending_cell[w + 2]):
            base = w
            break
    if base < 0:
        return False
    cards = np.empty(3, dtype=np.int64)
    for k in range(3):
        cell = base + k
        cards[k] = JOKER if cell == joker_cell else card_at(suit, start + cell)
    lo = (start + base - 1) % 13 + 1
    joker_at = lo + joker_cell - base if base <= joker_cell < base + 3 else -1
    slot = meld(r, KIND_RUN, suit, lo, joker_at, cards, catalogue, cfg)
    if slot < 0:
        return False
    for cell in range(base - 1, -1, -1):
        code = JOKER if cell == joker_cell else card_at(suit, start + cell)
        if not checked_play(r, A_LAY_OFF, slot, code, catalogue, cfg):
            return False
    for cell in range(base + 3, length):
        code = JOKER + 1 if cell == joker_cell else card_at(suit, start + cell)
        if not checked_play(r, A_LAY_OFF, slot, code, catalogue, cfg):
            return False
    return True

"""Observation kernels: one seat's observation of a game record, written into an int8 row.

The layout (blocks, offsets, the table of what each block holds) is ``rummy_env.observations``;
these kernels fill it. ``kernel_offsets`` of ``ObservationLayout`` gives each block's offset in the
order of ``BLOCKS + RAMI_BLOCKS + GIN_BLOCKS`` (-1 for a block the ruleset does not have).
"""

from __future__ import annotations

import numba as nb

from rummy_env.engine.jit import JIT
from rummy_env.engine.state import PHASE_DRAW, PHASE_GAME_OVER, PHASE_HAND_OVER, PHASE_PLAY, PHASE_UPCARD
from rummy_env.engine.table import slot_cards
from rummy_env.observations import BLOCKS, GIN_BLOCKS, RAMI_BLOCKS

(O_HAND, O_TOP, O_AGE, O_KNOWN, O_TABLE, O_SLOTS, O_TAKEN, O_HAND_SIZES, O_STOCK, O_PILE, O_PHASE, O_CURRENT,
 O_DEALER, O_SLOT_KIND, O_SLOT_OWNER, O_HAS_PLAYED, O_HAS_MELDED, O_TOTALS_HIGH, O_TOTALS_LOW, O_TURNS,
 O_HANDS, O_RESHUFFLES, O_SLOT_JOKER, O_SLOT_TENTATIVE, O_OPENED, O_PENDING, O_TURN_STATE,
 O_TURN_POINTS, O_TAKE_BACKS, O_GIN_PHASE, O_KNOCKER, O_KNOCK_LIMIT, O_GIN_STATE, O_BOXES,
 O_SLOT_LAYOFFS) = range(len(BLOCKS) + len(RAMI_BLOCKS) + len(GIN_BLOCKS))


@nb.njit(**JIT)
def split_int8(value: float) -> tuple:
    """A count as two int8 digits ``(high, low)`` with ``value = 128 * high + low``, clipped to 0..16383."""
    n = min(max(int(value), 0), 16383)
    return n // 128, n % 128


@nb.njit(**JIT, inline="always")
def copy_cards(source, out, base: int, types: int) -> None:
    """``out[base:base + types] = source`` entry by entry, inlined (a call or a slice of ``out`` would cost an
    atomic reference count)."""
    for t in range(types):
        out[base + t] = source[t]


@nb.njit(**JIT)
def observe_row(r, seat: int, out, offsets, players: int, types: int) -> None:
    """Write seat ``seat``'s observation of game ``r`` into ``out`` (int8)."""
    out[:] = 0
    copy_cards(r.hand[seat], out, offsets[O_HAND], types)
    pile_n = r.pile_n
    if pile_n > 0:
        out[offsets[O_TOP] + r.pile[pile_n - 1]] = 1
    for depth in range(min(pile_n, 127)):
        out[offsets[O_AGE] + r.pile[pile_n - 1 - depth]] = depth + 1
    for rel in range(players):
        other = (seat + rel) % players
        if rel > 0:
            copy_cards(r.known[other], out, offsets[O_KNOWN] + (rel - 1) * types, types)
        copy_cards(r.table_by_seat[other], out, offsets[O_TABLE] + rel * types, types)
        out[offsets[O_HAND_SIZES] + rel] = r.hand_n[other]
        out[offsets[O_HAS_PLAYED] + rel] = r.has_played[other]
        out[offsets[O_HAS_MELDED] + rel] = r.has_melded[other]
        high, low = split_int8(r.totals[other])
        out[offsets[O_TOTALS_HIGH] + rel] = high
        out[offsets[O_TOTALS_LOW] + rel] = low
        if offsets[O_OPENED] >= 0:
            out[offsets[O_OPENED] + rel] = r.opened[other]
            out[offsets[O_TAKE_BACKS] + rel] = r.take_backs[other]
    for slot in range(r.slot_n):
        slot_cards(r, slot, out, offsets[O_SLOTS] + slot * types)
        out[offsets[O_SLOT_KIND] + slot] = r.slot_kind[slot]
        out[offsets[O_SLOT_OWNER] + slot] = (r.slot_owner[slot] - seat) % players + 1
    if r.taken >= 0:
        out[offsets[O_TAKEN] + r.taken] = 1
    out[offsets[O_STOCK]] = min(r.stock_n, 127)
    out[offsets[O_PILE]] = min(pile_n, 127)
    if r.phase == PHASE_DRAW:
        out[offsets[O_PHASE]] = 1
    elif r.phase == PHASE_PLAY:
        out[offsets[O_PHASE] + 1] = 1
    elif r.phase == PHASE_HAND_OVER or r.phase == PHASE_GAME_OVER:
        out[offsets[O_PHASE] + 2] = 1
    out[offsets[O_CURRENT] + (r.current - seat) % players] = 1
    out[offsets[O_DEALER] + (r.dealer - seat) % players] = 1
    out[offsets[O_TURNS]], out[offsets[O_TURNS] + 1] = split_int8(r.turns)  # the knobs keep both under 16384
    out[offsets[O_HANDS]], out[offsets[O_HANDS] + 1] = split_int8(r.hands_played)
    out[offsets[O_RESHUFFLES]] = min(r.reshuffles, 127)
    if offsets[O_SLOT_JOKER] >= 0:
        observe_rami_turn(r, seat, out, offsets, types)
    if offsets[O_GIN_PHASE] >= 0:
        observe_gin(r, seat, out, offsets, players)


@nb.njit(**JIT)
def observe_gin(r, seat: int, out, offsets, players: int) -> None:
    """The gin blocks (all public: the knock, the first upcard, the lay-offs, the game's boxes)."""
    if r.phase >= PHASE_UPCARD:
        out[offsets[O_GIN_PHASE] + r.phase - PHASE_UPCARD] = 1
    if r.knocker >= 0:
        out[offsets[O_KNOCKER] + (r.knocker - seat) % players] = 1
    out[offsets[O_KNOCK_LIMIT]] = r.knock_limit
    base = offsets[O_GIN_STATE]
    out[base] = r.upcard_passes
    out[base + 1] = r.knock_stage
    out[base + 2] = r.repeated
    out[base + 3] = min(r.upcard_draws, 127)
    for rel in range(players):
        out[offsets[O_BOXES] + rel] = min(r.boxes[(seat + rel) % players], 127)
    for slot in range(r.slot_n):
        out[offsets[O_SLOT_LAYOFFS] + 2 * slot] = r.slot_low_layoffs[slot]
        out[offsets[O_SLOT_LAYOFFS] + 2 * slot + 1] = r.slot_high_layoffs[slot]


@nb.njit(**JIT)
def observe_rami_turn(r, seat: int, out, offsets, types: int) -> None:
    """The rami51 blocks: jokers on the table, the tentative opening and the turn's obligations
    (all public: every play is made face up)."""
    for slot in range(r.slot_n):
        if r.slot_jokers[slot] > 0:
            out[offsets[O_SLOT_JOKER] + slot] = r.slot_joker[slot] + 1
        out[offsets[O_SLOT_TENTATIVE] + slot] = r.slot_tentative[slot]
    if r.phase == PHASE_PLAY:
        copy_cards(r.pending, out, offsets[O_PENDING], types)
        base = offsets[O_TURN_STATE]
        out[base] = r.first_turn
        out[base + 1] = r.taken_laid
        out[base + 2] = r.freed_jokers
        out[base + 3] = r.tentative
        out[base + 4] = r.undos
        out[base + 5] = r.touched_table
        out[base + 6] = r.opened_at_start
        out[base + 7] = r.took_back
        high, low = split_int8(r.turn_points)
        out[offsets[O_TURN_POINTS]] = high
        out[offsets[O_TURN_POINTS] + 1] = low


@nb.njit(**JIT)
def seats_outside(seats, players: int) -> bool:
    """Whether some seat of ``seats`` is outside ``0 .. players - 1``."""
    for seat in seats:
        if seat < 0 or seat >= players:
            return True
    return False


@nb.njit(**JIT)
def observe_rows(state, seats, out, offsets, players: int, types: int) -> None:
    for i in range(state.shape[0]):
        observe_row(state[i], seats[i], out[i], offsets, players, types)


@nb.njit(**JIT, parallel=True)
def observe_rows_parallel(state, seats, out, offsets, players: int, types: int) -> None:
    for i in nb.prange(state.shape[0]):
        observe_row(state[i], seats[i], out[i], offsets, players, types)

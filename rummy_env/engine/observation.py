"""The observation: everything one seat may know, as one flat int8 vector, seats relative to it.

Seat ``r`` below is *relative*: ``0`` is the observer, ``1`` the next player clockwise, and so on.
Card planes have one entry per card type (``T``); ``P`` players, ``S`` table slots.

=====================  ======  ==================================================================
block                  size    content
=====================  ======  ==================================================================
``hand``               T       own hand: count of each card type
``discard_top``        T       1 on the top card of the discard pile
``discard_age``        T       discard pile order: 1 = top, 2 = the card below it, … (max 127)
``known``              (P-1)T  cards opponent ``r = 1..P-1`` is known to hold (taken from the
                               discard pile and not yet seen leaving the hand)
``table_by_seat``      P*T     cards on the table laid by seat ``r``
``slot_cards``         S*T     cards in table slot ``s``
``taken``              T       the card the player to act took from the discard pile this turn
``hand_sizes``         P       hand size of seat ``r``
``stock_size``         1       cards in the stock
``discard_size``       1       cards in the discard pile
``phase``              3       one-hot: draw, play, hand/game over
``current_player``     P       one-hot: the seat to act
``dealer``             P       one-hot: the dealer
``slot_kind``          S       0 empty, 1 set, 2 run
``slot_owner``         S       seat ``r`` that laid the meld, plus 1 (0 = empty slot)
``has_played``         P       1 if seat ``r`` melded or laid off in an earlier turn (going rummy)
``has_melded``         P       1 if seat ``r`` has laid a meld of its own this hand
``totals_high``        P       game total of seat ``r`` = 128 * totals_high + totals_low
``totals_low``         P
``turns``              2       turns completed this hand = 128 * high + low
``hands_played``       2       hands finished in this game = 128 * high + low
``reshuffles``         1       stock rebuilds this hand (max 127)
=====================  ======  ==================================================================

Ruleset ``rami51`` appends (its card planes have ``T = 53`` entries, the last one the joker, and
count both copies of a card):

=====================  ======  ==================================================================
``slot_joker``         S       where the slot's joker sits, plus 1: a run position (1..25), a
                               4-card set's missing suit (1..4); 0 = no joker or undetermined
``slot_tentative``     S       1 for a meld of the tentative opening of the player to act
``opened``             P       1 if seat ``r`` has opened this round (R11)
``pending``            T       cards the player to act took from melds this turn (R13)
``turn_state``         7       dealer's first turn, taken card laid, freed jokers, tentative plays,
                               undos used, touched an old meld, had opened at turn start
``turn_points``        2       R10 points of own cards laid this turn = 128 * high + low
=====================  ======  ==================================================================

Nothing hidden is in it: the stock order, other hands (beyond what was taken face up) and the
generator state never enter. ``ObservationLayout.split`` names the blocks of an observation.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.engine.kernels import JIT
from rummy_env.engine.state import PHASE_DRAW, PHASE_PLAY
from rummy_env.rules import RummyRules

BLOCKS = ("hand", "discard_top", "discard_age", "known", "table_by_seat", "slot_cards", "taken",
          "hand_sizes", "stock_size", "discard_size", "phase", "current_player", "dealer", "slot_kind",
          "slot_owner", "has_played", "has_melded", "totals_high", "totals_low", "turns", "hands_played",
          "reshuffles")
RAMI_BLOCKS = ("slot_joker", "slot_tentative", "opened", "pending", "turn_state", "turn_points")


class ObservationLayout:
    """Offsets and shapes of the observation blocks for one rules config."""

    def __init__(self, rules: RummyRules):
        players, types, slots = rules.num_players, rules.num_card_types, rules.num_slots
        shapes = {
            "hand": (types,), "discard_top": (types,), "discard_age": (types,), "known": (players - 1, types),
            "table_by_seat": (players, types), "slot_cards": (slots, types), "taken": (types,),
            "hand_sizes": (players,), "stock_size": (1,), "discard_size": (1,), "phase": (3,),
            "current_player": (players,), "dealer": (players,), "slot_kind": (slots,), "slot_owner": (slots,),
            "has_played": (players,), "has_melded": (players,), "totals_high": (players,), "totals_low": (players,),
            "turns": (2,), "hands_played": (2,), "reshuffles": (1,),
            "slot_joker": (slots,), "slot_tentative": (slots,), "opened": (players,), "pending": (types,),
            "turn_state": (7,), "turn_points": (2,),
        }
        self.blocks = BLOCKS + (RAMI_BLOCKS if rules.ruleset == "rami51" else ())
        self.shapes = {name: shapes[name] for name in self.blocks}
        self.offsets: dict[str, int] = {}
        position = 0
        for name in self.blocks:
            self.offsets[name] = position
            position += int(np.prod(self.shapes[name]))
        self.size = position
        self.kernel_offsets = np.array([self.offsets.get(name, -1) for name in BLOCKS + RAMI_BLOCKS], dtype=np.int64)

    def split(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """Named views into one observation vector (or a batch of them, last axis)."""
        views = {}
        for name in self.blocks:
            start = self.offsets[name]
            size = int(np.prod(self.shapes[name]))
            views[name] = observation[..., start:start + size].reshape(observation.shape[:-1] + self.shapes[name])
        return views


(O_HAND, O_TOP, O_AGE, O_KNOWN, O_TABLE, O_SLOTS, O_TAKEN, O_HAND_SIZES, O_STOCK, O_PILE, O_PHASE, O_CURRENT,
 O_DEALER, O_SLOT_KIND, O_SLOT_OWNER, O_HAS_PLAYED, O_HAS_MELDED, O_TOTALS_HIGH, O_TOTALS_LOW, O_TURNS,
 O_HANDS, O_RESHUFFLES, O_SLOT_JOKER, O_SLOT_TENTATIVE, O_OPENED, O_PENDING, O_TURN_STATE,
 O_TURN_POINTS) = range(len(BLOCKS) + len(RAMI_BLOCKS))


@nb.njit(**JIT)
def split_int8(value: float) -> tuple:
    """A non-negative count as two int8 digits ``(high, low)`` with ``value = 128 * high + low``
    (high saturates at 127)."""
    n = max(int(value), 0)
    return min(n // 128, 127), n % 128


@nb.njit(**JIT)
def observe_row(r, seat: int, out, offsets, players: int, types: int) -> None:
    """Write seat ``seat``'s observation of game ``r`` into ``out`` (int8)."""
    out[:] = 0
    out[offsets[O_HAND]:offsets[O_HAND] + types] = r.hand[seat]
    pile_n = r.pile_n
    if pile_n > 0:
        out[offsets[O_TOP] + r.pile[pile_n - 1]] = 1
    for depth in range(min(pile_n, 127)):
        out[offsets[O_AGE] + r.pile[pile_n - 1 - depth]] = depth + 1
    for rel in range(players):
        other = (seat + rel) % players
        if rel > 0:
            base = offsets[O_KNOWN] + (rel - 1) * types
            out[base:base + types] = r.known[other]
        base = offsets[O_TABLE] + rel * types
        out[base:base + types] = r.table_by_seat[other]
        out[offsets[O_HAND_SIZES] + rel] = r.hand_n[other]
        out[offsets[O_HAS_PLAYED] + rel] = r.has_played[other]
        out[offsets[O_HAS_MELDED] + rel] = r.has_melded[other]
        high, low = split_int8(r.totals[other])
        out[offsets[O_TOTALS_HIGH] + rel] = high
        out[offsets[O_TOTALS_LOW] + rel] = low
        if offsets[O_OPENED] >= 0:
            out[offsets[O_OPENED] + rel] = r.opened[other]
    for slot in range(r.slot_n):
        base = offsets[O_SLOTS] + slot * types
        out[base:base + types] = r.slot_cards[slot]
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
    else:
        out[offsets[O_PHASE] + 2] = 1
    out[offsets[O_CURRENT] + (r.current - seat) % players] = 1
    out[offsets[O_DEALER] + (r.dealer - seat) % players] = 1
    out[offsets[O_TURNS]] = r.turns // 128
    out[offsets[O_TURNS] + 1] = r.turns % 128
    out[offsets[O_HANDS]] = r.hands_played // 128
    out[offsets[O_HANDS] + 1] = r.hands_played % 128
    out[offsets[O_RESHUFFLES]] = min(r.reshuffles, 127)
    if offsets[O_SLOT_JOKER] >= 0:
        observe_rami_turn(r, seat, out, offsets, types)


@nb.njit(**JIT)
def observe_rami_turn(r, seat: int, out, offsets, types: int) -> None:
    """The rami51 blocks: jokers on the table, the tentative opening and the turn's obligations
    (all public: every play is made face up)."""
    for slot in range(r.slot_n):
        if r.slot_cards[slot, types - 1] > 0:
            out[offsets[O_SLOT_JOKER] + slot] = r.slot_joker[slot] + 1
        out[offsets[O_SLOT_TENTATIVE] + slot] = r.slot_tentative[slot]
    if r.phase == PHASE_PLAY:
        out[offsets[O_PENDING]:offsets[O_PENDING] + types] = r.pending
        base = offsets[O_TURN_STATE]
        out[base] = r.first_turn
        out[base + 1] = r.taken_laid
        out[base + 2] = r.freed_jokers
        out[base + 3] = r.tentative
        out[base + 4] = r.undos
        out[base + 5] = r.touched_table
        out[base + 6] = r.opened_at_start
        high, low = split_int8(r.turn_points)
        out[offsets[O_TURN_POINTS]] = high
        out[offsets[O_TURN_POINTS] + 1] = low


@nb.njit(**JIT)
def observe_rows(state, seats, out, offsets, players: int, types: int) -> None:
    for i in range(state.shape[0]):
        observe_row(state[i], seats[i], out[i], offsets, players, types)


@nb.njit(**JIT, parallel=True)
def observe_rows_parallel(state, seats, out, offsets, players: int, types: int) -> None:
    for i in nb.prange(state.shape[0]):
        observe_row(state[i], seats[i], out[i], offsets, players, types)

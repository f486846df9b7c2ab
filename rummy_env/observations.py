"""The observation layout: everything one seat may know, as one flat int8 vector, seats relative to it.

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
``totals_high``        P       game total of seat ``r`` = 128 * totals_high + totals_low (negative
                               totals show as 0, totals above 16383 as 16383)
``totals_low``         P
``turns``              2       turns completed this hand = 128 * high + low (the turn cap is at most 16383)
``hands_played``       2       hands finished in this game = 128 * high + low (the hand cap too)
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
``turn_state``         8       dealer's first turn, taken card laid, freed jokers, tentative plays,
                               undos used, touched an old meld, had opened at turn start, took
                               the turn back (R25: only a discard remains)
``turn_points``        2       R10 points of own cards laid this turn = 128 * high + low
``take_backs``         P       take-backs of seat ``r`` this round (R25, max 127)
=====================  ======  ==================================================================

Ruleset ``gin`` appends (the knocker's melds and the defender's lay-offs and melds are in ``slot_cards``,
``slot_kind``, ``slot_owner``, ``table_by_seat``; the upcard is ``discard_top``; a card the opponent took face
up stays in ``known`` until it leaves his hand, and once the knocker has laid his melds, ``known`` shows his
deadwood, laid face up, G6; ``phase`` is all zero in gin's own phases):

=====================  ======  ==================================================================
``gin_phase``          5       one-hot: the first upcard (G3), the knocker laying his hand (G6),
                               the defender's lay-offs (G8), the defender's melds, the wall (G10)
``knocker``            P       one-hot: seat ``r`` knocked this hand
``knock_limit``        1       this hand's knock card (``oklahoma``: the first upcard's value, G11)
``gin_state``          4       passes on the first upcard, knock stage (0 before the knocker's
                               discard, 1 after, 2 big gin), the last discard repeated the card
                               just taken (G13), upcard draws (max 127, G13)
``boxes``              P       hands seat ``r`` won in this game (G12)
``slot_layoffs``       S*2     cards laid off below / above the run in slot ``s`` (G13)
=====================  ======  ==================================================================

Nothing hidden is in it: the stock order, other hands (beyond what was taken face up) and the
generator state never enter. ``ObservationLayout.split`` names the blocks of an observation.

**The public history** of the hand is a companion tensor, beside the observation (so that the
observation's width and the agents built on it stay as they are): ``RummyEngine.public_history(seats)``
returns int8 ``(B, P, K, T)``, seats relative to the observer as above, ``K = len(HISTORY_KINDS)``;
entry ``[b, r, k, t]`` counts how often, this hand, seat ``r`` did ``k`` with a card of type ``t``
(saturating at 127; zeroed at every deal). Every event is public, and the same for every observer
up to the rotation of seats:

=============  ==================================================================================
kind           counted when
=============  ==================================================================================
``took``       the seat took the card from the discard pile
``passed``     the seat drew from the stock while the card topped the discard pile (declined it)
``discarded``  the seat discarded the card
``laid``       the card went from the seat's hand to the table (new meld, lay-off, the natural of a
               joker swap); tentative plays count when made
``took_back``  the card came from the table into the seat's hand: a card taken from a meld (R13),
               a joker freed by a swap (R14), the cards of the turn's plays taken back by UNDO (R24)
               or TAKE_BACK (R25)
``returned``   the seat put the card it had taken from the discard pile back on it (TAKE_BACK, R25)
=============  ==================================================================================

Cards drawn from the stock (penalty draws included) are never in it: they are hidden.
"""

from __future__ import annotations

import numpy as np

from rummy_env.rules import RummyRules

BLOCKS = ("hand", "discard_top", "discard_age", "known", "table_by_seat", "slot_cards", "taken",
          "hand_sizes", "stock_size", "discard_size", "phase", "current_player", "dealer", "slot_kind",
          "slot_owner", "has_played", "has_melded", "totals_high", "totals_low", "turns", "hands_played",
          "reshuffles")
RAMI_BLOCKS = ("slot_joker", "slot_tentative", "opened", "pending", "turn_state", "turn_points", "take_backs")
GIN_BLOCKS = ("gin_phase", "knocker", "knock_limit", "gin_state", "boxes", "slot_layoffs")
FAMILY_BLOCKS = {"basic": (), "rami51": RAMI_BLOCKS, "gin": GIN_BLOCKS}
HISTORY_KINDS = ("took", "passed", "discarded", "laid", "took_back", "returned")
H_TOOK, H_PASSED, H_DISCARDED, H_LAID, H_TOOK_BACK, H_RETURNED = range(len(HISTORY_KINDS))


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
            "turn_state": (8,), "turn_points": (2,), "take_backs": (players,),
            "gin_phase": (5,), "knocker": (players,), "knock_limit": (1,), "gin_state": (4,), "boxes": (players,),
            "slot_layoffs": (slots, 2),
        }
        self.blocks = BLOCKS + FAMILY_BLOCKS[rules.ruleset]
        self.shapes = {name: shapes[name] for name in self.blocks}
        self.offsets: dict[str, int] = {}
        position = 0
        for name in self.blocks:
            self.offsets[name] = position
            position += int(np.prod(self.shapes[name]))
        self.size = position
        self.kernel_offsets = np.array([self.offsets.get(name, -1) for name in BLOCKS + RAMI_BLOCKS + GIN_BLOCKS],
                                       dtype=np.int64)

    def split(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """Named views into one observation vector (or a batch of them, last axis)."""
        views = {}
        for name in self.blocks:
            start = self.offsets[name]
            size = int(np.prod(self.shapes[name]))
            views[name] = observation[..., start:start + size].reshape(observation.shape[:-1] + self.shapes[name])
        return views

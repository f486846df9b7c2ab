"""The flat action layout: one ``Discrete(A)`` space whose blocks are derived from the rules.

A turn is a few sub-steps taken by the same player: draw, then any number of plays, then a discard
(or going out by a play). ``S`` table slots, ``T`` card types, a meld catalogue of ``M`` entries
(``rummy_env.melds``).

Ruleset ``basic``:

=============================  ==============================================================
action id                      meaning
=============================  ==============================================================
``0``                          DRAW_STOCK: take the top card of the stock
``1``                          DRAW_DISCARD: take the top card of the discard pile
``2 .. 2+M-1``                 MELD ``m``: lay catalogue meld ``m`` (3 cards) into the first empty slot
``2+M + s*T + t``              LAY_OFF card ``t`` onto the meld in table slot ``s``
``2+M+S*T + t``                DISCARD card ``t`` (ends the turn, or goes out with the last card)
=============================  ==============================================================

Defaults (basic, any player count): ``M = 96`` (52 sets + 44 runs), ``S = 17``, ``T = 52``,
``A = 1034``. ``ace_high_or_low`` adds the four Q-K-A runs (``M = 100``) and ``round_the_corner``
the four K-A-2 runs (``M = 104``).

Ruleset ``rami51`` (``T = 53``: the joker is card type 52; ``S = 36``; lay-off codes ``L = 54``):

=====================================  ==========================================================
action id                              meaning
=====================================  ==========================================================
``0``, ``1``                           DRAW_STOCK, DRAW_DISCARD (only if the card can be laid, R6)
``2``                                  COMMIT: validate the tentative opening (R11.5)
``3``                                  UNDO: take back every tentative play of the turn (R24)
``4``                                  TAKE_BACK: put the turn's plays and a card taken from the
                                       discard pile back, draw from the stock in its place and
                                       the penalty cards, then discard (``dead_ends="take_back"``,
                                       R25; never legal under ``"prevent"``)
``5 .. 5+M-1``                         MELD ``m`` (3-card sets/runs, with at most one joker)
``5+M + s*L + c``                      LAY_OFF onto slot ``s``: ``c < 52`` that natural card;
                                       ``c = 52`` a joker at the low end of a run / into a set;
                                       ``c = 53`` a joker at the high end of a run
``TAKE + s*5 + k``                     TAKE a card from slot ``s`` (4+ cards, R13): run ``k=0``
                                       its low end, ``k=1`` its high end; set ``k`` = that suit's
                                       natural, ``k=4`` its joker
``SWAP + s``                           replace the joker of slot ``s`` by the natural it stands
                                       for (R14); the freed joker must go into a new meld
``DISCARD + t``                        discard ``t`` (announcing "carte" when one card is left)
``DISCARD + 53 + t``                   only with ``card_announcement="manual"``: discard ``t``
                                       leaving one card WITHOUT announcing (penalty draw, R7)
=====================================  ==========================================================

Defaults (rami51): ``M = 322`` (52 sets, 78 joker sets, 48 runs + 144 joker runs), ``A = 2540``
(``2593`` with manual announcement); ``circular_runs`` adds the K-A-2 runs (``M = 338``).

Ruleset ``gin`` (G1-G14; ``T = 52``; a meld of the catalogue holds 3 to 5 cards, ``M = 185``: 52 three-card and
13 four-card sets, 44 runs of 3, 40 of 4 and 36 of 5, the same melds as OpenSpiel's; a longer run is laid as two):

=====================================  ==========================================================
action id                              meaning
=====================================  ==========================================================
``0``                                  DRAW_STOCK: take the top card of the stock
``1``                                  DRAW_DISCARD: take the upcard / the discard top
``2``                                  PASS: decline the first upcard (G3); end the knocker's
                                       melds (G6), the defender's lay-offs or melds (G8); pass at
                                       the wall (G10); declare the hand dead below 3 stock cards
                                       (``wall_rule="pickup_or_dead"``, G14)
``3``                                  KNOCK: after drawing (G6); with the upcard at the wall
                                       (G10); in the knock, before discarding: big gin, all 11
                                       cards melded without a discard (G7)
``4 .. 4+M-1``                         MELD ``m``: lay catalogue meld ``m`` (the knocker after his
                                       discard, the defender after his lay-offs)
``4+M + t``                            LAY_OFF ``t``: the defender lays card ``t`` off onto the
                                       knocker's melds (onto a run it extends, else a set, G8)
``4+M+T + t``                          DISCARD ``t`` (ends the turn; in the knock: the knocker's
                                       discard, G6)
=====================================  ==========================================================

Defaults (gin): ``M = 185``, ``A = 293``.
"""

from __future__ import annotations

import dataclasses

from rummy_env import cards
from rummy_env.inputs import as_action
from rummy_env.melds import KIND_SET, MeldCatalogue, build_catalogue
from rummy_env.rules import RummyRules

DRAW_STOCK = 0
DRAW_DISCARD = 1
FIRST_SPECIAL = 2  # the id of a ruleset's first special action, after the two draws
COMMIT = FIRST_SPECIAL  # rami51
UNDO = FIRST_SPECIAL + 1
TAKE_BACK = FIRST_SPECIAL + 2
PASS = FIRST_SPECIAL    # gin
KNOCK = FIRST_SPECIAL + 1
JOKER_LOW, JOKER_HIGH = 52, 53  # rami51 lay-off codes of a joker
TAKE_CHOICES = 5
# a TAKE's choice: a run's low or high end; a set's natural by its suit (0-3) or its joker
TAKE_LOW_END, TAKE_HIGH_END, TAKE_SET_JOKER = 0, 1, 4

# the kinds of action an id decodes to (``rummy_env.engine.common.decode``, ``ActionLayout.decode``)
# (a ruleset's special kinds are consecutive here: id FIRST_SPECIAL + k decodes to the first one's kind, plus k)
(A_INVALID, A_DRAW_STOCK, A_DRAW_DISCARD, A_COMMIT, A_UNDO, A_TAKE_BACK, A_MELD, A_LAY_OFF, A_TAKE, A_SWAP, A_DISCARD,
 A_PASS, A_KNOCK) = range(-1, 12)
KIND_NAMES = ("draw_stock", "draw_discard", "commit", "undo", "take_back", "meld", "lay_off", "take", "swap", "discard",
              "pass", "knock")
# the actions between the draws and the melds, per ruleset: ids 2, 3, ... are these kinds
SPECIALS = {"basic": (), "rami51": ("commit", "undo", "take_back"), "gin": ("pass", "knock")}


SPECIAL_WORDS = {"commit": "commit the opening", "undo": "undo the tentative plays",
                 "take_back": "take back the turn's plays (then draw the penalty cards and discard)", "pass": "pass",
                 "knock": "knock"}


@dataclasses.dataclass(frozen=True)
class ActionLayout:
    """Offsets of the action blocks for one rules config, with encode/decode helpers."""

    catalogue: MeldCatalogue
    num_slots: int
    num_card_types: int
    tentative: bool = False       # rami51: TAKE and SWAP blocks, a joker's second lay-off end
    silent_discards: bool = False  # rami51 with card_announcement="manual"
    specials: tuple[str, ...] = ()  # the kinds of ids 2, 3, ... (``SPECIALS``)
    layoff_targets: int = 0       # slots a LAY_OFF names: every table slot, or 1 in gin (the knocker's melds)

    @classmethod
    def for_rules(cls, rules: RummyRules) -> "ActionLayout":
        tentative = rules.traits.tentative
        return cls(build_catalogue(rules), rules.num_slots, rules.num_card_types, tentative,
                   tentative and rules.card_announcement == "manual", SPECIALS[rules.ruleset],
                   1 if rules.traits.one_layoff_target else rules.num_slots)

    @property
    def meld_offset(self) -> int:
        return FIRST_SPECIAL + len(self.specials)

    @property
    def layoff_codes(self) -> int:
        """Lay-off codes per slot: the card types, plus (jokers) a joker's second end."""
        return self.num_card_types + 1 if self.tentative else self.num_card_types

    @property
    def layoff_offset(self) -> int:
        return self.meld_offset + len(self.catalogue)

    @property
    def take_offset(self) -> int:
        return self.layoff_offset + self.layoff_targets * self.layoff_codes

    @property
    def swap_offset(self) -> int:
        return self.take_offset + (self.num_slots * TAKE_CHOICES if self.tentative else 0)

    @property
    def discard_offset(self) -> int:
        return self.swap_offset + (self.num_slots if self.tentative else 0)

    @property
    def num_actions(self) -> int:
        return self.discard_offset + self.num_card_types * (2 if self.silent_discards else 1)

    def meld(self, entry: int) -> int:
        return self.meld_offset + entry

    def lay_off(self, slot: int, card: int) -> int:
        """LAY_OFF ``card`` onto ``slot`` (gin: slot 0, the knocker's melds)."""
        return self.layoff_offset + slot * self.layoff_codes + card

    def special(self, kind: str) -> int:
        """The id of a special action of this ruleset: ``"commit"``, ``"undo"``, ``"take_back"`` (rami51),
        ``"pass"``, ``"knock"`` (gin)."""
        if kind not in self.specials:
            raise ValueError(f"no {kind!r} action in this ruleset; its special actions: {self.specials}")
        return FIRST_SPECIAL + self.specials.index(kind)

    def take(self, slot: int, choice: int) -> int:
        return self.take_offset + slot * TAKE_CHOICES + choice

    def swap(self, slot: int) -> int:
        return self.swap_offset + slot

    def discard(self, card: int, announce: bool = True) -> int:
        return self.discard_offset + card + (0 if announce else self.num_card_types)

    def meld_entry(self, meld_cards: list[int] | tuple[int, ...], joker_at: int | None = None) -> int:
        """Catalogue entry holding exactly these three cards (``ValueError`` if there is none). A
        joker run names the position its joker takes (``joker_at``), e.g. 7♠ 8♠ JK as 6♠ (6) or 9♠ (9);
        without it the first matching entry is returned."""
        wanted = sorted(int(card) for card in meld_cards)
        for entry in range(len(self.catalogue)):
            if sorted(self.catalogue.members(entry)) == wanted and (joker_at is None or self.catalogue.joker_at[entry] == joker_at):
                return entry
        raise ValueError(f"{cards.names(wanted)} is not a meld of the catalogue under these rules")

    def decode(self, action: int) -> tuple[str, int, int]:
        """``(kind, a, b)``: ("draw_stock"|"draw_discard"|"commit"|"undo"|"take_back"|"pass"|"knock", -1, -1), ("meld", entry, -1),
        ("lay_off", slot, code), ("take", slot, choice), ("swap", slot, -1), ("discard", card, announce)."""
        action = as_action(action)
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is outside the action space 0..{self.num_actions - 1}")
        if action == DRAW_STOCK:
            return "draw_stock", -1, -1
        if action == DRAW_DISCARD:
            return "draw_discard", -1, -1
        if action < self.meld_offset:
            return self.specials[action - FIRST_SPECIAL], -1, -1
        if action < self.layoff_offset:
            return "meld", action - self.meld_offset, -1
        if action < self.take_offset:
            slot, code = divmod(action - self.layoff_offset, self.layoff_codes)
            return "lay_off", slot, code
        if action < self.swap_offset:
            slot, choice = divmod(action - self.take_offset, TAKE_CHOICES)
            return "take", slot, choice
        if action < self.discard_offset:
            return "swap", action - self.swap_offset, -1
        card = action - self.discard_offset
        return "discard", card % self.num_card_types, int(card < self.num_card_types)

    def to_str(self, action: int) -> str:
        """The action in words, e.g. ``"lay off 7♥ on slot 2"``."""
        kind, a, b = self.decode(action)
        if kind == "draw_stock":
            return "draw from the stock"
        if kind == "draw_discard":
            return "take the discard top"
        if kind in SPECIAL_WORDS:
            return SPECIAL_WORDS[kind]
        if kind == "meld":
            members = " ".join(cards.symbol(card) for card in self.catalogue.members(a))
            what = "set" if self.catalogue.kind[a] == KIND_SET else "run"
            where = "" if self.catalogue.joker_at[a] < 0 else f" (joker at position {self.catalogue.joker_at[a]})"
            return f"meld {what} {members}{where}"
        if kind == "lay_off":
            if b >= cards.JOKER:
                end = "low end / set" if b == JOKER_LOW else "high end"
                return f"lay off {cards.symbol(cards.JOKER)} ({end}) on slot {a}"
            return f"lay off {cards.symbol(b)}" + (" on the knocker's melds" if self.layoff_targets == 1 else f" on slot {a}")
        if kind == "take":
            return f"take choice {b} from slot {a}"
        if kind == "swap":
            return f"swap the joker of slot {a}"
        return f"discard {cards.symbol(a)}" + ("" if b else " without announcing")

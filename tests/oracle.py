"""Independent, brute-force legality oracle for the ``basic`` Rummy ruleset.

This module is written from the rules text only (the rules book docs/rules.md: B1-B19, the basic knobs, AB1-AB12, E1-E27).
It deliberately does NOT import or mirror anything from ``rummy_env``: the test-suite compares the engine's
action mask against this oracle, so the two must be independent.

Priorities: obviously correct first, fast enough second (milliseconds for ordinary positions).

Public API
----------
* ``default_rules(**overrides)``      -> ``types.SimpleNamespace`` with every §3.1 ``basic`` knob at its default
* ``validate_rules(rules)``           -> raises ``ValueError`` on a configuration error (B1, B15)
* ``layout(rules)``                   -> ``Layout``: the flat Discrete(A) action layout and the meld catalogue
* ``legal_actions(snap, rules)``      -> ``set[int]`` of legal action ids for ``snap["current"]``
* ``action_name(a, rules)``           -> human-readable name of action id ``a``
* ``decode_action(a, rules)``         -> structured form of action id ``a`` (tuple)
* ``is_set / is_run / is_meld``       -> meld validity (§0.6, B8, B15)
* ``card_name / parse_card / parse_cards / card_id`` -> card helpers
* ``make_snapshot(...)``              -> build a position snapshot dict for hand-made test positions
* ``apply_play(snap, a, rules)``      -> the snapshot after a MELD / LAY_OFF action (oracle's own model)

Action layout (flat Discrete(A), basic ruleset)::

    0                          DRAW_STOCK
    1                          DRAW_DISCARD
    2 .. 2+M-1                 MELD m          (3-card meld, catalogue entry m)
    2+M .. 2+M+S*T-1           LAY_OFF (s, t)  id = 2 + M + s*T + t
    2+M+S*T .. A-1             DISCARD t       id = 2 + M + S*T + t
    A = 2 + M + S*T + T,  S = 52 // 3 = 17 table slots, T = 52 card types

Legality is the rules text taken literally, including the B18 no-dead-end obligation: a play (meld or
lay-off) is legal only if afterwards the turn can still be finished legally.  That is checked by a plain
depth-first search with memoisation over (hand, table, has-melded) states of the oracle's own model.
"""

from __future__ import annotations

import copy
import functools
import types
from dataclasses import dataclass
from typing import Iterator, Optional

# --------------------------------------------------------------------------------------------------------------
# Cards (§0.3): id t = suit*13 + (rank-1); suits clubs, diamonds, hearts, spades; rank 1=A .. 13=K
# --------------------------------------------------------------------------------------------------------------

T = 52                     # number of card types
S = 52 // 3                # number of table slots (17)
SUITS = "CDHS"
RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}

DRAW_STOCK = 0
DRAW_DISCARD = 1


def card_id(rank: int, suit: int) -> int:
    """Card id of (rank 1..13, suit 0..3)."""
    if not (1 <= rank <= 13 and 0 <= suit <= 3):
        raise ValueError(f"bad card rank={rank} suit={suit}")
    return suit * 13 + (rank - 1)


def rank_of(t: int) -> int:
    """Rank 1..13 of card id t (1 = ace, 11 = J, 12 = Q, 13 = K)."""
    return t % 13 + 1


def suit_of(t: int) -> int:
    """Suit 0..3 of card id t (clubs, diamonds, hearts, spades)."""
    return t // 13


def card_name(t: int) -> str:
    """Name of card id t, e.g. 'AC', '10H', 'KS'."""
    r = rank_of(t)
    return RANK_NAMES.get(r, str(r)) + SUITS[suit_of(t)]


def parse_card(name: str) -> int:
    """Card id from a name such as 'AC', '10H', 'TH', 'kd' (case-insensitive; 'T' means 10)."""
    text = name.strip().upper()
    rank_text, suit_text = text[:-1], text[-1:]
    if suit_text not in SUITS or not rank_text:
        raise ValueError(f"bad card name {name!r}")
    by_name = {"A": 1, "J": 11, "Q": 12, "K": 13, "T": 10}
    if rank_text in by_name:
        rank = by_name[rank_text]
    elif rank_text.isdigit() and 2 <= int(rank_text) <= 10:
        rank = int(rank_text)
    else:
        raise ValueError(f"bad card name {name!r}")
    return card_id(rank, SUITS.index(suit_text))


def parse_cards(text) -> list[int]:
    """Card ids from 'AC 2C 3C' (space/comma separated) or from an iterable of names / ids."""
    if isinstance(text, str):
        return [parse_card(word) for word in text.replace(",", " ").split()]
    return [parse_card(c) if isinstance(c, str) else int(c) for c in text]


# --------------------------------------------------------------------------------------------------------------
# Rules object (§3.1)
# --------------------------------------------------------------------------------------------------------------

BASIC_DEFAULTS = {
    "num_players": 2,   # required in §3.1; 2 is only this helper's default
    "hand_size_by_players": {2: 10, 3: 7, 4: 7, 5: 6, 6: 6},
    "ace_high_or_low": False,
    "ace_high_scoring_value": 15,
    "round_the_corner": False,
    "must_discard_to_go_out": False,
    "forbid_discarding_card_taken_from_discard": True,
    "going_rummy_multiplier": 2,
    "must_meld_before_layoff": False,
    "reshuffle_keep_top": True,
    "max_reshuffles": None,
    "max_turns_per_round": 1000,
    "max_undos_per_turn": 1,
    "dead_round_scoring": "none",
    "game_end_mode": "target",
    "target_score": 150,
    "num_hands": None,
    "max_hands": 100,
    "two_player_winner_deals": False,
    "first_dealer": "random",
}


def default_rules(**overrides) -> types.SimpleNamespace:
    """A stand-in rules object with every §3.1 ``basic`` knob at its default (num_players=2 unless given).

    Unknown knob names are rejected so that a typo in a test does not silently test the default.
    No validation is done here (tests need invalid configurations too); see ``validate_rules``.
    """
    unknown = set(overrides) - set(BASIC_DEFAULTS)
    if unknown:
        raise TypeError(f"unknown basic knob(s): {sorted(unknown)}")
    values = dict(BASIC_DEFAULTS)
    values["hand_size_by_players"] = dict(values["hand_size_by_players"])
    values.update(overrides)
    return types.SimpleNamespace(**values)


def knob(rules, name: str):
    """Value of knob ``name`` on ``rules`` (§3.1 default if the object lacks the attribute)."""
    return getattr(rules, name, BASIC_DEFAULTS[name])


def validate_rules(rules) -> None:
    """Raise ValueError on the configuration errors named by the spec (B1 player count, B15 round_the_corner)."""
    n = knob(rules, "num_players")
    if not (isinstance(n, int) and 2 <= n <= 6):
        raise ValueError(f"num_players must be 2..6 (B1), got {n!r}")
    if knob(rules, "round_the_corner") and not knob(rules, "ace_high_or_low"):
        raise ValueError("round_the_corner requires ace_high_or_low (B15, E14)")


# --------------------------------------------------------------------------------------------------------------
# Meld validity (§0.6, B8, B15)
# --------------------------------------------------------------------------------------------------------------

def position_to_rank(p: int) -> int:
    """Rank at run position p: ((p-1) % 13) + 1, so position 14 is the (high) ace, 15 is the 2, ..."""
    return (p - 1) % 13 + 1


def is_set(cards) -> bool:
    """3 or 4 cards of one rank with pairwise distinct suits (B8)."""
    cards = list(cards)
    return (3 <= len(cards) <= 4
            and len(set(cards)) == len(cards)
            and len({rank_of(c) for c in cards}) == 1
            and len({suit_of(c) for c in cards}) == len(cards))


def _is_interval(positions: list[int]) -> bool:
    """True iff the positions are distinct and form one contiguous interval."""
    ordered = sorted(positions)
    return ordered == list(range(ordered[0], ordered[0] + len(ordered)))


def is_run(cards, ace_high_or_low: bool = False, round_the_corner: bool = False) -> bool:
    """3+ cards of one suit at consecutive positions (B8), with the ace rules of B3/B15.

    * default: the ace is position 1 only (A-2-3 yes; Q-K-A and K-A-2 no);
    * ace_high_or_low: the ace is position 1 or position 14 (Q-K-A yes; K-A-2 no);
    * round_the_corner: ranks contiguous modulo 13, length 3..13 (K-A-2 yes).
    """
    cards = list(cards)
    n = len(cards)
    if n < 3 or len(set(cards)) != n or len({suit_of(c) for c in cards}) != 1:
        return False
    ranks = [rank_of(c) for c in cards]
    if round_the_corner:
        if n > 13:
            return False
        # Try every start rank; the run is start, start+1, ... (mod 13).
        return any(set(ranks) == {position_to_rank(start + i) for i in range(n)} for start in range(1, 14))
    if _is_interval(ranks):                                      # every ace at position 1
        return True
    if ace_high_or_low:                                          # every ace at position 14
        return _is_interval([14 if r == 1 else r for r in ranks])
    return False


def is_meld(cards, rules) -> bool:
    """Valid basic meld (set or run) under the ace knobs of ``rules``."""
    return _is_meld_cached(frozenset(cards), bool(knob(rules, "ace_high_or_low")),
                           bool(knob(rules, "round_the_corner")))


@functools.lru_cache(maxsize=None)
def _is_meld_cached(cards: frozenset, ace_high_or_low: bool, round_the_corner: bool) -> bool:
    return is_set(cards) or is_run(cards, ace_high_or_low, round_the_corner)


def run_positions(cards, rules) -> tuple[int, int]:
    """(lo, hi) positions of a valid run, as in the snapshot convention (used by ``make_snapshot`` only).

    Ace low is preferred when both readings fit (only possible for a full 13-card suit).
    """
    ranks = sorted(rank_of(c) for c in cards)
    n = len(ranks)
    if _is_interval(ranks):
        return ranks[0], ranks[-1]
    high = sorted(14 if r == 1 else r for r in ranks)
    if knob(rules, "ace_high_or_low") and _is_interval(high):
        return high[0], high[-1]
    if knob(rules, "round_the_corner"):
        for start in range(1, 14):
            if set(ranks) == {position_to_rank(start + i) for i in range(n)}:
                return start, start + n - 1
    raise ValueError(f"not a run: {[card_name(c) for c in cards]}")


# --------------------------------------------------------------------------------------------------------------
# Action layout
# --------------------------------------------------------------------------------------------------------------

def run_starts(rules) -> list[int]:
    """RUN_STARTS: 1..11 by default, 1..12 with ace_high_or_low (Q-K-A), 1..13 with round_the_corner (K-A-2).

    Raises ValueError for round_the_corner without ace_high_or_low (a configuration error, B15)."""
    if knob(rules, "round_the_corner") and not knob(rules, "ace_high_or_low"):
        raise ValueError("round_the_corner requires ace_high_or_low (B15, E14)")
    if knob(rules, "round_the_corner"):
        return list(range(1, 14))
    if knob(rules, "ace_high_or_low"):
        return list(range(1, 13))
    return list(range(1, 12))


def meld_catalogue(rules) -> tuple[tuple[int, ...], ...]:
    """All 3-card melds, in catalogue order: 52 sets (rank, omitted suit), then runs (suit, start)."""
    melds = []
    for rank in range(1, 14):
        for omitted_suit in range(4):
            melds.append(tuple(card_id(rank, suit) for suit in range(4) if suit != omitted_suit))
    for suit in range(4):
        for start in run_starts(rules):
            melds.append(tuple(card_id(position_to_rank(p), suit) for p in (start, start + 1, start + 2)))
    return tuple(melds)


@dataclass(frozen=True)
class Layout:
    """The flat action layout: offsets, sizes and the meld catalogue."""
    melds: tuple[tuple[int, ...], ...]
    num_slots: int = S
    num_card_types: int = T

    @property
    def M(self) -> int:
        return len(self.melds)

    @property
    def S(self) -> int:
        return self.num_slots

    @property
    def T(self) -> int:
        return self.num_card_types

    @property
    def meld_base(self) -> int:
        return 2

    @property
    def layoff_base(self) -> int:
        return 2 + self.M

    @property
    def discard_base(self) -> int:
        return 2 + self.M + self.S * self.T

    @property
    def A(self) -> int:
        return self.discard_base + self.T

    def meld_id(self, m: int) -> int:
        return self.meld_base + m

    def layoff_id(self, s: int, t: int) -> int:
        return self.layoff_base + s * self.T + t

    def discard_id(self, t: int) -> int:
        return self.discard_base + t

    def meld_index(self, cards) -> Optional[int]:
        """Catalogue index of the 3-card meld with exactly these cards (any order), or None."""
        wanted = frozenset(cards)
        for m, meld in enumerate(self.melds):
            if frozenset(meld) == wanted:
                return m
        return None


def layout(rules) -> Layout:
    """The action layout for ``rules`` (only the ace knobs change it: M = 96 / 100 / 104)."""
    return _layout_for(bool(knob(rules, "ace_high_or_low")), bool(knob(rules, "round_the_corner")))


@functools.lru_cache(maxsize=None)
def _layout_for(ace_high_or_low: bool, round_the_corner: bool) -> Layout:
    ace_rules = types.SimpleNamespace(ace_high_or_low=ace_high_or_low, round_the_corner=round_the_corner)
    return Layout(melds=meld_catalogue(ace_rules))


def decode_action(a: int, rules) -> tuple:
    """('draw_stock',) | ('draw_discard',) | ('meld', m, cards) | ('lay_off', s, t) | ('discard', t)."""
    lay = layout(rules)
    if not (0 <= a < lay.A):
        raise ValueError(f"action {a} outside 0..{lay.A - 1}")
    if a == DRAW_STOCK:
        return ("draw_stock",)
    if a == DRAW_DISCARD:
        return ("draw_discard",)
    if a < lay.layoff_base:
        m = a - lay.meld_base
        return ("meld", m, lay.melds[m])
    if a < lay.discard_base:
        s, t = divmod(a - lay.layoff_base, lay.T)
        return ("lay_off", s, t)
    return ("discard", a - lay.discard_base)


def action_name(a: int, rules) -> str:
    """E.g. 'DRAW_STOCK', 'DRAW_DISCARD', 'MELD 7H 8H 9H', 'LAY_OFF 9D -> slot 3', 'DISCARD 7D'."""
    action = decode_action(a, rules)
    kind = action[0]
    if kind == "draw_stock":
        return "DRAW_STOCK"
    if kind == "draw_discard":
        return "DRAW_DISCARD"
    if kind == "meld":
        return "MELD " + " ".join(card_name(c) for c in action[2])
    if kind == "lay_off":
        return f"LAY_OFF {card_name(action[2])} -> slot {action[1]}"
    return f"DISCARD {card_name(action[1])}"


# --------------------------------------------------------------------------------------------------------------
# The oracle's model of one turn's play phase
# --------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TurnState:
    """What matters for legality during the play phase (the rest of the turn's context is fixed)."""
    hand: frozenset                 # card ids in the current player's hand
    slots: tuple                    # S entries: frozenset of card ids of the meld in that slot, or None
    has_melded: bool                # the current player has laid a new meld this hand (must_meld_before_layoff)


class TurnSearch:
    """Enumerates plays and decides, by memoised DFS, whether a play-phase state can be finished legally."""

    def __init__(self, rules, taken: Optional[int]):
        self.rules = rules
        self.taken = taken
        self.layout = layout(rules)
        self.forbid_taken = bool(knob(rules, "forbid_discarding_card_taken_from_discard"))
        self.must_discard_to_go_out = bool(knob(rules, "must_discard_to_go_out"))
        self.must_meld_before_layoff = bool(knob(rules, "must_meld_before_layoff"))
        self._can_finish_memo: dict[TurnState, bool] = {}

    # -- single actions -------------------------------------------------------------------------------------

    def legal_discards(self, state: TurnState) -> list[int]:
        """Cards that may be discarded (B6.3, B7): any card in hand except the card taken this turn."""
        return [t for t in sorted(state.hand) if not (self.forbid_taken and t == self.taken)]

    def meld_moves(self, state: TurnState) -> Iterator[tuple[int, TurnState]]:
        """(action id, next state) for every catalogue meld whose cards are all in hand (B8)."""
        empty_slots = [s for s, meld in enumerate(state.slots) if meld is None]
        if not empty_slots:
            return
        slot = empty_slots[0]                               # new melds go to the lowest empty slot
        for m, cards in enumerate(self.layout.melds):
            if set(cards) <= state.hand:
                slots = list(state.slots)
                slots[slot] = frozenset(cards)
                yield self.layout.meld_id(m), TurnState(state.hand - set(cards), tuple(slots), True)

    def layoff_moves(self, state: TurnState) -> Iterator[tuple[int, TurnState]]:
        """(action id, next state) for every card in hand that extends a table meld to a valid meld (B9)."""
        if self.must_meld_before_layoff and not state.has_melded:
            return
        for s, meld in enumerate(state.slots):
            if meld is None:
                continue
            for t in sorted(state.hand):
                if is_meld(meld | {t}, self.rules):
                    slots = list(state.slots)
                    slots[s] = meld | {t}
                    yield self.layout.layoff_id(s, t), TurnState(state.hand - {t}, tuple(slots), state.has_melded)

    def play_moves(self, state: TurnState) -> Iterator[tuple[int, TurnState]]:
        """Every meld and lay-off that is valid as a card move (before the going-out and dead-end checks)."""
        yield from self.meld_moves(state)
        yield from self.layoff_moves(state)

    # -- B10 / B18 ------------------------------------------------------------------------------------------

    def play_is_legal(self, after: TurnState) -> bool:
        """A play is legal iff it may empty the hand (B10 variant) and the turn can still be finished (B18)."""
        if not after.hand and self.must_discard_to_go_out:
            return False
        return self.can_finish(after)

    def can_finish(self, state: TurnState) -> bool:
        """Can the turn be finished legally from here? (Empty hand = went out; else a legal discard now,
        or some legal play followed by a finishable state.)  Memoised DFS; stops at the first finishing line."""
        if state in self._can_finish_memo:
            return self._can_finish_memo[state]
        if not state.hand:
            result = True           # only reachable through a play that was allowed to empty the hand
        elif self.legal_discards(state):
            result = True
        else:
            result = any(self.play_is_legal(after) for _action, after in self.play_moves(state))
        self._can_finish_memo[state] = result
        return result


# --------------------------------------------------------------------------------------------------------------
# Reading a snapshot
# --------------------------------------------------------------------------------------------------------------

def table_slots(snap: dict) -> tuple:
    """The S table slots of the snapshot: frozenset of card ids per occupied slot, None for empty ones."""
    slots: list = [None] * S
    for meld in snap.get("table", []):
        s = int(meld["slot"])
        if not (0 <= s < S) or slots[s] is not None:
            raise ValueError(f"bad or duplicate table slot {s}")
        slots[s] = frozenset(int(c) for c in meld["cards"])
    return tuple(slots)


def player_has_melded(snap: dict, seat: int) -> bool:
    """Has ``seat`` laid a new meld this hand? In basic, melds never leave the table during a hand, so this
    is exactly 'some table meld is owned by seat' (owner = the player who created it, §0.5)."""
    return any(int(meld["owner"]) == seat for meld in snap.get("table", []))


def turn_state(snap: dict) -> TurnState:
    """The play-phase state of the player to act."""
    seat = int(snap["current"])
    return TurnState(hand=frozenset(int(c) for c in snap["hands"][seat]),
                     slots=table_slots(snap),
                     has_melded=player_has_melded(snap, seat))


# --------------------------------------------------------------------------------------------------------------
# The oracle
# --------------------------------------------------------------------------------------------------------------

def legal_actions(snap: dict, rules) -> set[int]:
    """Set of legal action ids for ``snap["current"]`` in position ``snap`` under ``rules`` (basic ruleset).

    * phase 'draw': DRAW_STOCK iff the stock is non-empty, DRAW_DISCARD iff the discard pile is non-empty (B6.1,
      B11; stock rebuilds have already happened when the position is shown);
    * phase 'play': every meld / lay-off that is a valid card move, may empty the hand (B10), respects
      must_meld_before_layoff, and leaves a finishable turn (B18); every discard allowed by B7;
    * phases 'hand_over' / 'game_over': nothing.
    """
    phase = snap["phase"]
    lay = layout(rules)
    if phase == "draw":
        actions = set()
        if snap.get("stock"):
            actions.add(DRAW_STOCK)
        if snap.get("discard"):
            actions.add(DRAW_DISCARD)
        return actions
    if phase == "play":
        search = TurnSearch(rules, snap.get("taken"))
        state = turn_state(snap)
        actions = {lay.discard_id(t) for t in search.legal_discards(state)}
        actions |= {a for a, after in search.play_moves(state) if search.play_is_legal(after)}
        return actions
    if phase in ("hand_over", "game_over"):
        return set()
    raise ValueError(f"unknown phase {phase!r}")


def legal_action_names(snap: dict, rules) -> list[str]:
    """Sorted names of the legal actions (handy in assertion messages)."""
    return [action_name(a, rules) for a in sorted(legal_actions(snap, rules))]


# --------------------------------------------------------------------------------------------------------------
# Building and advancing hand-made positions (for tests)
# --------------------------------------------------------------------------------------------------------------

def make_snapshot(hand, table=(), *, rules=None, phase: str = "play", taken=None, current: int = 0,
                  num_players: Optional[int] = None, other_hands=None, stock=None, discard=None,
                  played_this_turn: bool = False, has_played=None, dealer: Optional[int] = None) -> dict:
    """A position snapshot dict from card names.

    ``hand``: cards of the player to act ('9D KS' or a list). ``table``: a sequence of (owner, cards) pairs,
    placed in slots 0, 1, 2, ... in order. ``taken``: the card taken from the discard pile this turn (a name or
    id), or None. Other hands default to empty, stock to one arbitrary unused card, discard pile to empty.
    """
    rules = rules if rules is not None else default_rules()
    n = num_players if num_players is not None else knob(rules, "num_players")
    hands = [[] for _ in range(n)]
    hands[current] = parse_cards(hand)
    for seat, cards in (other_hands or {}).items():
        hands[seat] = parse_cards(cards)
    table_entries = []
    for s, (owner, cards) in enumerate(table):
        ids = parse_cards(cards)
        if is_set(ids):
            kind, lo, hi = "set", rank_of(ids[0]), rank_of(ids[0])
        else:
            kind = "run"
            lo, hi = run_positions(ids, rules)
        table_entries.append({"slot": s, "owner": owner, "kind": kind, "cards": ids, "lo": lo, "hi": hi})
    taken_id = None if taken is None else parse_cards([taken])[0]
    used = {c for h in hands for c in h} | {c for m in table_entries for c in m["cards"]}
    discard_ids = parse_cards(discard) if discard is not None else []
    used |= set(discard_ids)
    if stock is None:
        stock_ids = [min(set(range(T)) - used)] if len(used) < T else []
    else:
        stock_ids = parse_cards(stock)
    return {
        "num_players": n,
        "dealer": (current - 1) % n if dealer is None else dealer,
        "current": current,
        "phase": phase,
        "hands": hands,
        "stock": stock_ids,
        "discard": discard_ids,
        "taken": taken_id,
        "table": table_entries,
        "played_this_turn": played_this_turn,
        "has_played": list(has_played) if has_played is not None else [False] * n,
    }


def apply_play(snap: dict, a: int, rules) -> dict:
    """The snapshot after the current player's MELD or LAY_OFF action ``a`` (no legality check beyond the card
    move being possible). The phase becomes 'hand_over' if the hand is emptied."""
    action = decode_action(a, rules)
    new = copy.deepcopy(snap)
    seat = new["current"]
    hand = new["hands"][seat]
    if action[0] == "meld":
        cards = list(action[2])
        if not set(cards) <= set(hand):
            raise ValueError("meld cards not in hand")
        occupied = {m["slot"] for m in new["table"]}
        slot = min(s for s in range(S) if s not in occupied)
        lo, hi = ((rank_of(cards[0]),) * 2 if is_set(cards) else run_positions(cards, rules))
        new["table"].append({"slot": slot, "owner": seat, "kind": "set" if is_set(cards) else "run",
                             "cards": cards, "lo": lo, "hi": hi})
        for c in cards:
            hand.remove(c)
    elif action[0] == "lay_off":
        _, s, t = action
        meld = next(m for m in new["table"] if m["slot"] == s)
        if t not in hand or not is_meld(set(meld["cards"]) | {t}, rules):
            raise ValueError("invalid lay-off")
        meld["cards"].append(t)
        if meld["kind"] == "run":
            meld["lo"], meld["hi"] = run_positions(meld["cards"], rules)
        hand.remove(t)
    else:
        raise ValueError(f"apply_play handles MELD / LAY_OFF only, got {action_name(a, rules)}")
    new["played_this_turn"] = True
    new["has_played"][seat] = True
    if not hand:
        new["phase"] = "hand_over"
    return new

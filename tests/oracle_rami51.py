"""Independent, brute-force legality oracle for the ``rami51`` ruleset (and its Lebanese "14" knobs).

Written from the rules text only: the rules book docs/rules.md (R1-R25, the rami51 knobs, AR1-AR27, AL1-AL7),
§5.2-5.3 (E28-E86) and the binding engine interface spec (scratch/rami_spec.md: card types, action layout, meld
records, position dict). It does not import the engine; the only ``rummy_env`` object it touches is a rules object,
read knob by knob with ``getattr`` (``RummyRules`` or the ``default_rules()`` stand-in below).

Model
-----
Cards are types ``t = suit*13 + rank-1`` (suits C D H S), ``52`` = joker; a hand is a count per type. A table meld is
a small tuple: a run ``('R', suit, lo, hi, joker_pos, owner)`` (positions; ``joker_pos`` 0 = no joker) or a set
``('S', rank, suit_mask, has_joker, joker_suit, owner)`` (``joker_suit`` -1 = undetermined 3-card joker set).
Table slots keep their index; new melds go into the first empty slot.

``RamiTurn(position, rules)`` replays ONE turn of ``position["current"]`` from a turn-start position dict
(phase "draw", or phase "play" with ``first_turn`` for the dealer's first turn, R5):

* ``legal_actions()``  -> set of legal action ids now (empty once the turn is over);
* ``apply(a)``         -> performs action ``a`` (raises ``ValueError`` if it is not legal);
* ``hand_after()``, ``table_after()``, ``discard_after()`` -> the oracle's replayed position (sorted card lists);
* ``ends_turn``, ``goes_out``, ``announced`` (False after a manual unannounced discard), ``opened``, and the
  turn-state fields ``taken``, ``taken_laid``, ``pending``, ``freed``, ``tentative``, ``undos``, ``turn_points``,
  ``pure_run``, ``jokers_laid``, ``touched_table``;
* R25 take-backs: ``took_back``, ``take_back_drawn`` (the cards it drew that the oracle could follow),
  ``reshuffles``, ``doomed``, and when the take-back's draws had to rebuild the stock (R17; the engine's shuffle is
  unknown here) ``needs_sync``, ``unseen_draws``, ``rebuilt`` and ``sync_after_rebuild(drawn, discard, stock)``,
  which checks the engine's drawn cards, discard pile and stock against them and adopts them.

The knob ``dead_ends`` (R25) chooses what legality means:

* ``"prevent"``: the move is possible in the model AND the turn can still be finished legally (R23 no-dead-end),
  decided by an exhaustive depth-first search over the turn's own actions, memoised on a canonical state
  (slot indices forgotten, owners reduced to "mine / not mine", points capped at the highest threshold), with two
  sound prunes: an upper bound on the points still layable and a "can this obligation card ever be placed" test.
  TAKE_BACK is never legal.
* ``"take_back"`` (the default of ``default_rules``): local legality only, no search at all (I19), plus TAKE_BACK.

Interpretations (where the rules book leaves something open)
----------------------------------------------------------------
I1  (R23, R24, B19) "While an undo remains and a tentative play exists, the position counts as finishable": any
    state with a tentative play and ``undos < max_undos_per_turn`` is finishable, whatever it is (the undo returns
    to the post-draw position, which is finishable because DRAW_DISCARD was masked by can_use).  End-of-play
    conditions (R15) are therefore also relaxed by an available undo, except a play that EMPTIES the hand, which
    ends the turn at once and is judged as an out (no undo possible afterwards).
I2  (R23 can_use, AR2) DRAW_DISCARD is legal iff, after the draw, the turn can be finished with no undo at all;
    "finished" includes the obligation that the taken card is laid, so this is exactly can_use(top).
I3  (R6, AR2) "The taken card is laid" = an OWN copy of the taken TYPE leaves the hand in a MELD, a LAY_OFF or as
    the natural of a SWAP (two copies of one type are the same card, §0.3).  A MELD consumes pending copies first,
    so a pending copy of the same type never counts.  The taken type can never be discarded in that turn (spec).
I4  (R16, R11.5, E70) With ``all_at_once_may_use_table = false`` (never under ``lebanese``, R21.4), a play by a
    not-yet-opened player on a slot that was occupied at turn start (LAY_OFF, TAKE) is legal only if a COMMIT is
    reachable from the position after it WITHOUT undo (undo would only take that play back); any play on such a
    slot in a turn that started not opened (also after the commit, e.g. a SWAP) sets ``touched_table``, and such a
    turn cannot end by going out.
I5  (R11.3, AR9) ``opening_may_use_table = false``: a not-yet-opened player may not LAY_OFF onto / TAKE from a slot
    that was occupied at turn start; his own new (tentative) melds stay usable.
I6  (R11.5, R21.3, AL3) Commit threshold = ``discard_pickup_min_lay`` (replacing, not max-ed with,
    ``opening_threshold``) when the turn started with DRAW_DISCARD and the knob is set, else ``opening_threshold``.
    The all-at-once out uses the same threshold when ``all_at_once_requires_opening_criteria`` is true and none
    when it is false.  Scope ``"every_pickup"`` additionally requires, at every end of a pickup turn (discard or
    out, any player, all-at-once included), ``turn_points >= discard_pickup_min_lay``.
I7  (R16, AR20) The all-at-once out requires the pure run iff ``opening_requires_pure_run`` AND
    ``all_at_once_requires_pure_run``; nothing is re-checked when the player committed earlier in the turn, except
    ``touched_table`` (I4).  An out by a player opened at turn start is an ordinary out.
I8  (R10, R11.1) ``turn_points`` counts R10 values of OWN cards laid this turn (MELD own copies, LAY_OFF own
    copies, the natural of a SWAP) that are on the table now, valued where they sit now (``St.mine``: a card
    taken back by TAKE, or a joker freed by SWAP, stops counting; a circular run's ace is 11 once a K precedes
    it); pending cards (TAKE) and freed jokers never count.  Ace: ``ace_fixed_value`` if set, else 11 in a set or at run position 14, else 1 (so a
    circular run's ace is 11 exactly when it follows a K, AR11).  Joker: per ``joker_opening_value``; a joker of a
    3-card joker set "represents" its rank (same value for every suit).
I9  (R11.2, AR8, E42) The pure run is a run CREATED by a MELD this turn from three own copies (any copies with
    ``pure_run_hand_cards_only = false``) without joker, and still without joker when the commit / out is judged
    (5S6S7S + a joker laid off at 8 is "5S6S7SJk(8S)", not pure, E42); lay-offs of naturals keep it pure.  An
    UNDO clears it.
I10 (spec LAY_OFF) A natural that fits BOTH ends of a run (a 12-card run, e.g. A onto 2..K) goes to the LOW end
    (``lo-1``) -- the spec lists "lo-1 or hi+1" in that order.  ``RamiTurn(..., layoff_prefer="high")`` flips it.
    Circular runs are renormalised so that ``1 <= lo <= 13`` (a K laid below A-2-3 gives lo=13; removing the K of
    13..16 by TAKE gives 1..3).  A joker laid off at the low/high end takes position lo-1 / hi+1 (codes 52/53).
I11 (R9, AR6) "Opponent's" meld = a meld whose owner is not the acting seat.  A joker may be laid off onto a set
    only with code 52 (53 onto a set is illegal) and only onto a 3-natural set without joker.
I12 (R13, AR7) TAKE from a meld the acting player created this turn is allowed under ``take_from_own_melds``.
    With ``can_take_joker_from_meld`` a taken joker is a pending card of type 52 (needs >= 1 own card in its MELD).
    ``allow_split_runs`` cannot be expressed in the layout (k = 0/1 only) and is ignored.
I13 (spec MELD) A MELD's joker is taken from the pending freed jokers first, then a pending (TAKEn) joker, then
    an own joker; a LAY_OFF joker (code 52/53) uses a freed joker first when ``freed_joker_use =
    "new_meld_or_layoff"``, else an own joker.
I14 (R21.2, AL2) "Burnt" is evaluated on the table at the moment the joker is placed (tentative melds of this turn
    included), plus the discard pile as it is during the play phase (after a pickup: without the taken top) when
    ``burnt_includes_discard_pile``.
I15 (R7, AR22) ``card_announcement = "manual"``: DISC+53+t is legal exactly when DISC+t is legal and leaves one
    card; ``hand_after()`` does NOT include the penalty cards (``penalty_cards_due`` says how many are owed).
I16 (R5, AR1) ``dealer_first_turn_may_meld = false``: on the dealer's first turn only discards are legal.
I17 (R23) Lebanese knobs are read from the rules object; a knob missing from it gets its Lebanese value when
    ``lebanese`` is true, else its plain default; ``all_at_once_may_use_table`` is treated as true under ``lebanese``.
I18 (R15 "forbidden") A discard may never empty the hand; the "1 card left that can still be laid" condition is
    not coded separately: it is what the no-dead-end search yields.
I19 (R25, ``dead_ends = "take_back"``) Every action is judged on its own, with the pieces of the "prevent" mode
    minus every look-ahead: DRAW_DISCARD needs a pile card, a hand of more than one card (R7) and not the
    ``discard_pickup_from_second_round`` first lap (no ``can_use_top``); COMMIT needs ``commit_valid`` only (R11.1-
    R11.3 on the tentative plays as they stand, the taken card laid; no ``finish``); a MELD / LAY_OFF / TAKE /
    SWAP possible in the model is legal unless it empties the hand, which needs a legal out (``out_ok``: R15
    "required" never, R16 and I4-I7, so a not-opened turn that touched a turn-start slot under
    ``all_at_once_may_use_table = false`` never goes out); UNDO needs a tentative play and an undo left; DISCARD is
    ``discard_legal`` as in "prevent" (already local).  TAKE_BACK (action 4; the layout is the same in both modes,
    MELD starts at 5) is legal once a turn in the play phase when a play (MELD, LAY_OFF, TAKE, SWAP) was made and not
    undone by an UNDO (``St.acted``; a COMMIT alone is never the first play), or the taken card is not yet laid, or a
    pending card or freed joker is held.  Its effect: the state right after the draw (the UNDO copy: the COMMIT of
    this turn undone, nothing tentative, pending or counted), the taken card back on top of the discard pile and
    one stock card drawn in its place (none after a stock draw or on the dealer's first turn), then
    ``take_back_penalty_cards`` more; an empty stock is rebuilt as R17 says (whole pile, or all but its top with
    ``reshuffle_keep_top``; counted in ``reshuffles``; nothing to rebuild: the cards left are not drawn; a rebuild
    beyond ``max_reshuffles``: nothing more is drawn, ``doomed``).  The returned card can be among the rebuilt cards.
    Afterwards the turn is no longer a pickup turn (the Search is rebuilt with no taken card: thresholds, out rules)
    and only DISCARDs are legal, any own card (the hand holds at least two cards).

Search prunes (speed only; each must never change an answer)
P1  ``hopeless``: an obligation card (taken card, pending card) that no meld could ever hold, more obligation
    groups needing a joker than jokers obtainable, a points upper bound below the threshold, or no possible pure
    run, when the player must still open.  These are over-approximations, hence sound.
P2  ``_relevance``: for an OPENED player under "required", without every_pickup / burnt rule / freed or pending
    joker, the search only branches on plays related to the open obligations (same suit/rank cards, slots that
    hold such cards, SWAPs, plays consuming pending cards; under ``can_take_joker_from_meld`` also a TAKE of a
    joker and any play on a meld that holds one, since growing that meld lets its joker be taken).  Argument: any finishing line can be cut down to the
    plays an obligation placement depends on (same slot, consumed product); the others only use up cards that
    could stay in hand, and under "required" a fuller hand never hurts.  This is an argued, not a machine-checked,
    claim: if the oracle and the engine disagree on such a position, re-check with ``Search.no_relevance = True``.
"""

from __future__ import annotations

import itertools
import types
from typing import Iterator, Optional

# --------------------------------------------------------------------------------------------------------------
# Cards
# --------------------------------------------------------------------------------------------------------------

JOKER = 52
NT = 53                       # card types
S = 36                        # table slots (108 // 3)
L = 54                        # lay-off codes per slot
SUITS = "CDHS"
RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}

DRAW_STOCK, DRAW_DISCARD, COMMIT, UNDO, TAKE_BACK = 0, 1, 2, 3, 4


def card_type(rank: int, suit: int) -> int:
    return suit * 13 + rank - 1


def rank_of(t: int) -> int:
    return t % 13 + 1


def suit_of(t: int) -> int:
    return t // 13


def pos_rank(p: int) -> int:
    """Rank at run position p (1 and 14 = ace; circular positions up to 25 wrap)."""
    return (p - 1) % 13 + 1


def pos_type(suit: int, p: int) -> int:
    return suit * 13 + (p - 1) % 13


def card_name(t: int) -> str:
    if t == JOKER:
        return "JK"
    r = rank_of(t)
    return RANK_NAMES.get(r, str(r)) + SUITS[suit_of(t)]


def parse_card(name) -> int:
    if isinstance(name, int):
        return name
    text = name.strip().upper()
    if text in ("JK", "JOKER", "*"):
        return JOKER
    rank_text, suit_text = text[:-1], text[-1:]
    by_name = {"A": 1, "J": 11, "Q": 12, "K": 13, "T": 10}
    if suit_text not in SUITS:
        raise ValueError(f"bad card {name!r}")
    if rank_text in by_name:
        rank = by_name[rank_text]
    elif rank_text.isdigit() and 2 <= int(rank_text) <= 10:
        rank = int(rank_text)
    else:
        raise ValueError(f"bad card {name!r}")
    return card_type(rank, SUITS.index(suit_text))


def parse_cards(text) -> list[int]:
    if isinstance(text, str):
        return [parse_card(w) for w in text.replace(",", " ").split()]
    return [parse_card(c) for c in text]


# --------------------------------------------------------------------------------------------------------------
# Knobs (§3.2)
# --------------------------------------------------------------------------------------------------------------

RAMI_DEFAULTS = {
    "num_players": 2, "hand_size": 13, "dealer_first_turn_may_meld": True, "discard_pickup_from_second_round": False,
    "opening_threshold": 51, "opening_requires_pure_run": True, "pure_run_hand_cards_only": True,
    "opening_may_use_table": True, "joker_opening_value": "represented", "joker_on_opponent_set": True,
    "joker_swap_requires_prior_opening": False, "freed_joker_use": "new_meld", "allow_take_from_meld": True,
    "take_from_own_melds": True, "allow_split_runs": False, "can_take_joker_from_meld": False,
    "circular_runs": False, "allow_ace_both_ends": True, "final_discard": "required", "card_announcement": "auto",
    "announcement_penalty_cards": 2, "all_at_once_requires_opening_criteria": True,
    "all_at_once_requires_pure_run": True, "all_at_once_may_use_table": True, "max_undos_per_turn": 1,
    "lebanese": False, "ace_fixed_value": None, "joker_run_requires_burnt": False,
    "burnt_includes_discard_pile": False, "discard_pickup_min_lay": None, "discard_pickup_min_lay_scope": "opening_only",
    "dead_ends": "take_back", "take_back_penalty_cards": 2, "reshuffle_keep_top": False, "max_reshuffles": None,
}
LEBANESE_VALUES = {"ace_fixed_value": 10, "joker_run_requires_burnt": True, "discard_pickup_min_lay": 71}


def default_rules(**overrides) -> types.SimpleNamespace:
    """Stand-in rules object with every rami51 knob the oracle reads (Lebanese sub-rules follow ``lebanese``)."""
    unknown = set(overrides) - set(RAMI_DEFAULTS)
    if unknown:
        raise TypeError(f"unknown rami51 knob(s): {sorted(unknown)}")
    values = dict(RAMI_DEFAULTS)
    if overrides.get("lebanese"):
        values.update(LEBANESE_VALUES)
    values.update(overrides)
    return types.SimpleNamespace(ruleset="rami51", **values)


def knob(rules, name: str):
    missing = object()
    value = getattr(rules, name, missing)
    if value is missing:
        if name in LEBANESE_VALUES and getattr(rules, "lebanese", False):
            return LEBANESE_VALUES[name]
        return RAMI_DEFAULTS[name]
    return value


# --------------------------------------------------------------------------------------------------------------
# Layout (spec "Action layout")
# --------------------------------------------------------------------------------------------------------------

class Layout:
    def __init__(self, circular: bool, manual: bool):
        starts = range(1, 14) if circular else range(1, 13)
        cat = []          # (types tuple, meld template (owner filled later))
        for rank in range(1, 14):
            for omit in range(4):
                suits = [s for s in range(4) if s != omit]
                cat.append((tuple(card_type(rank, s) for s in suits),
                            ("S", rank, sum(1 << s for s in suits), False, -1)))
        for rank in range(1, 14):
            for a, b in itertools.combinations(range(4), 2):
                cat.append(((card_type(rank, a), card_type(rank, b), JOKER), ("S", rank, (1 << a) | (1 << b), True, -1)))
        for suit in range(4):
            for start in starts:
                for off in (None, 0, 1, 2):
                    types_ = tuple(JOKER if off == i else pos_type(suit, start + i) for i in range(3))
                    jpos = 0 if off is None else start + off
                    cat.append((types_, ("R", suit, start, start + 2, jpos)))
        self.catalogue = cat
        self.M = len(cat)
        self.MELD = TAKE_BACK + 1
        self.LAY = self.MELD + self.M
        self.TAKE = self.LAY + S * L
        self.SWAP = self.TAKE + S * 5
        self.DISC = self.SWAP + S
        self.A = self.DISC + NT + (NT if manual else 0)

    def meld_id(self, m): return self.MELD + m
    def lay_id(self, s, c): return self.LAY + s * L + c
    def take_id(self, s, k): return self.TAKE + s * 5 + k
    def swap_id(self, s): return self.SWAP + s
    def disc_id(self, t, announce=True): return self.DISC + t + (0 if announce else NT)

    def meld_index(self, cards) -> Optional[int]:
        """Catalogue index of the 3-card meld with exactly these card types (joker runs: the joker's place is
        given by the position of 'JK' in ``cards`` when listed in run order, else the first match)."""
        want = sorted(parse_cards(cards))
        listed = parse_cards(cards)
        hits = [m for m, (ts, _) in enumerate(self.catalogue) if sorted(ts) == want]
        for m in hits:
            if list(self.catalogue[m][0]) == listed:
                return m
        return hits[0] if hits else None

    def decode(self, a: int) -> tuple:
        if a == DRAW_STOCK: return ("draw_stock",)
        if a == DRAW_DISCARD: return ("draw_discard",)
        if a == COMMIT: return ("commit",)
        if a == UNDO: return ("undo",)
        if a == TAKE_BACK: return ("take_back",)
        if a < self.LAY: return ("meld", a - self.MELD)
        if a < self.TAKE: return ("lay",) + divmod(a - self.LAY, L)
        if a < self.SWAP: return ("take",) + divmod(a - self.TAKE, 5)
        if a < self.DISC: return ("swap", a - self.SWAP)
        if a < self.A:
            t = a - self.DISC
            return ("discard", t % NT, t < NT)
        raise ValueError(f"action {a} outside 0..{self.A - 1}")

    def name(self, a: int) -> str:
        d = self.decode(a)
        k = d[0]
        if k in ("draw_stock", "draw_discard", "commit", "undo", "take_back"):
            return k.upper()
        if k == "meld":
            return "MELD " + " ".join(card_name(t) for t in self.catalogue[d[1]][0])
        if k == "lay":
            c = d[2]
            what = card_name(c) if c < 52 else ("JK(low)" if c == 52 else "JK(high)")
            return f"LAY_OFF {what} -> slot {d[1]}"
        if k == "take":
            return f"TAKE slot {d[1]} k={d[2]}"
        if k == "swap":
            return f"SWAP slot {d[1]}"
        return f"DISCARD {card_name(d[1])}" + ("" if d[2] else " (no announce)")


_LAYOUTS: dict = {}


def layout(rules) -> Layout:
    key = (bool(knob(rules, "circular_runs")), knob(rules, "card_announcement") == "manual")
    if key not in _LAYOUTS:
        _LAYOUTS[key] = Layout(*key)
    return _LAYOUTS[key]


# --------------------------------------------------------------------------------------------------------------
# Melds
# --------------------------------------------------------------------------------------------------------------

def meld_cards(m) -> list[int]:
    if m[0] == "R":
        _, suit, lo, hi, jpos, _o = m
        return [JOKER if p == jpos else pos_type(suit, p) for p in range(lo, hi + 1)]
    _, rank, mask, jk, _js, _o = m
    return [card_type(rank, s) for s in range(4) if mask >> s & 1] + ([JOKER] if jk else [])


def meld_size(m) -> int:
    if m[0] == "R":
        return m[3] - m[2] + 1
    return bin(m[2]).count("1") + (1 if m[3] else 0)


def meld_has_joker(m) -> bool:
    return bool(m[4] if m[0] == "R" else m[3])


def meld_to_dict(slot: int, m) -> dict:
    cards = sorted(meld_cards(m))
    if m[0] == "R":
        return {"slot": slot, "owner": m[5], "kind": "run", "cards": cards, "lo": m[2], "hi": m[3],
                "joker_at": m[4] if m[4] else None}
    js = m[4] if (m[3] and meld_size(m) == 4) else None
    return {"slot": slot, "owner": m[5], "kind": "set", "cards": cards, "lo": m[1], "hi": m[1], "joker_at": js}


def meld_from_dict(d: dict):
    cards = [int(c) for c in d["cards"]]
    owner = int(d["owner"])
    nat = [c for c in cards if c != JOKER]
    jk = len(cards) - len(nat)
    if d["kind"] == "run":
        suit = suit_of(nat[0])
        lo, hi = int(d["lo"]), int(d["hi"])
        jpos = int(d["joker_at"]) if jk else 0
        m = ("R", suit, lo, hi, jpos, owner)
    else:
        rank = rank_of(nat[0])
        mask = 0
        for c in nat:
            mask |= 1 << suit_of(c)
        js = -1
        if jk and len(cards) == 4:
            js = int(d["joker_at"]) if d.get("joker_at") is not None else [s for s in range(4) if not mask >> s & 1][0]
        m = ("S", rank, mask, bool(jk), js, owner)
    if sorted(meld_cards(m)) != sorted(cards):
        raise ValueError(f"inconsistent table meld {d}")
    return m


# --------------------------------------------------------------------------------------------------------------
# The turn search
# --------------------------------------------------------------------------------------------------------------

class St:
    """Mutable-by-copy turn state (see module docstring)."""
    __slots__ = ("own", "pend", "freed", "table", "opened", "tent", "undos", "pts", "pslots", "tlaid", "touched", "jl",
                 "mine", "acted")

    def copy(self) -> "St":
        n = St.__new__(St)
        n.own = list(self.own); n.pend = list(self.pend); n.freed = self.freed; n.table = list(self.table)
        n.opened = self.opened; n.tent = self.tent; n.undos = self.undos; n.pts = self.pts; n.pslots = self.pslots
        n.tlaid = self.tlaid; n.touched = self.touched; n.jl = self.jl; n.mine = self.mine; n.acted = self.acted
        return n

    def hand_n(self) -> int:
        return sum(self.own) + sum(self.pend) + self.freed


class Search:
    """Static context of one turn (knobs, seat, taken card, turn-start slots) + the memoised DFS."""

    def __init__(self, rules, me: int, taken: Optional[int], opened_at_start: bool, orig_slots: frozenset,
                 discard_counts: list, first_turn: bool, layoff_prefer: str = "low"):
        self.r = rules
        self.me = me
        self.taken = taken
        self.opened_at_start = opened_at_start
        self.orig = orig_slots
        self.discard_counts = discard_counts
        self.first_turn = first_turn
        self.lay = layout(rules)
        self.prefer_low = layoff_prefer == "low"
        k = lambda n: knob(rules, n)  # noqa: E731
        self.circular = bool(k("circular_runs"))
        self.run_positions = [(), *(tuple(range(r, 26, 13)) if self.circular else (1, 14) if r == 1 else (r,)
                                    for r in range(1, 14))]       # rank -> the run positions it can stand at
        self.both_ends = bool(k("allow_ace_both_ends"))
        self.ace_fixed = k("ace_fixed_value")
        self.jov = k("joker_opening_value")
        self.leb = bool(k("lebanese"))
        self.burnt = bool(k("joker_run_requires_burnt"))
        self.burnt_discard = bool(k("burnt_includes_discard_pile"))
        self.jk_opp_set = bool(k("joker_on_opponent_set"))
        self.swap_prior = bool(k("joker_swap_requires_prior_opening"))
        self.freed_layoff = k("freed_joker_use") == "new_meld_or_layoff"
        self.take_ok = bool(k("allow_take_from_meld"))
        self.take_own = bool(k("take_from_own_melds"))
        self.take_jk = bool(k("can_take_joker_from_meld"))
        self.final = k("final_discard")
        self.manual = k("card_announcement") == "manual"
        self.aao_crit = bool(k("all_at_once_requires_opening_criteria"))
        self.open_pure = bool(k("opening_requires_pure_run"))
        self.aao_pure = self.open_pure and bool(k("all_at_once_requires_pure_run"))
        self.aao_table = bool(k("all_at_once_may_use_table")) or self.leb
        self.open_table = bool(k("opening_may_use_table"))
        self.pure_own_only = bool(k("pure_run_hand_cards_only"))
        self.max_undos = int(k("max_undos_per_turn"))
        self.may_play = not (first_turn and not k("dealer_first_turn_may_meld"))
        dpml = k("discard_pickup_min_lay")
        pickup = taken is not None
        self.dpml_every = pickup and dpml is not None and k("discard_pickup_min_lay_scope") == "every_pickup"
        self.dpml = dpml if dpml is not None else 0
        self.thr = dpml if (pickup and dpml is not None) else int(k("opening_threshold"))
        self.pts_cap = max(self.thr, self.dpml, int(k("opening_threshold")))
        self.no_relevance = False                     # set True to disable prune P2
        self.memo_finish: dict = {}
        self.memo_commit: dict = {}

    # ---------------------------------------------------------------- values (R10)
    def ace_value(self, high: bool) -> int:
        if self.ace_fixed is not None:
            return self.ace_fixed
        return 11 if high else 1

    def nat_value_run(self, p: int) -> int:
        r = pos_rank(p)
        return self.ace_value(p == 14) if r == 1 else min(r, 10)

    def nat_value_set(self, rank: int) -> int:
        return self.ace_value(True) if rank == 1 else min(rank, 10)

    def joker_value(self, represented_value: int) -> int:
        if self.jov == "represented":
            return represented_value
        if self.jov == "zero":
            return 0
        return int(self.jov)

    def points(self, st: St) -> int:
        """I8: the R10 value of the own cards laid this turn, where they sit on the table now."""
        total = 0
        for s, t, p in st.mine:
            m = st.table[s]
            if m[0] == "S":
                total += self.joker_value(self.nat_value_set(m[1])) if t == JOKER else self.nat_value_set(m[1])
            elif t == JOKER:
                total += self.joker_value(self.nat_value_run(m[4]))
            else:
                if p is None:        # circular runs renumber: find the card's one position
                    p = next(q for q in range(m[2], m[3] + 1) if q != m[4] and pos_type(m[1], q) == t)
                total += self.nat_value_run(p)
        return total

    def laid(self, n: St, s: int, t: int, p: Optional[int] = None) -> None:
        """An own card ``t`` laid on slot ``s`` (at run position ``p``, kept unless runs are circular)."""
        n.mine = n.mine + ((s, t, None if self.circular else p),)

    def unlaid(self, n: St, s: int, t: int, p: Optional[int] = None) -> None:
        """Card ``t`` (at run position ``p``) leaves slot ``s``: if it was laid this turn, it stops counting."""
        for k, (s2, t2, p2) in enumerate(n.mine):
            if s2 == s and t2 == t and (p2 is None or p is None or p2 == p):
                n.mine = n.mine[:k] + n.mine[k + 1:]
                return

    def max_card_value(self, t: int) -> int:
        if t == JOKER:
            return self.joker_value(self.ace_value(True) if self.ace_fixed is None else max(10, self.ace_fixed))
        r = rank_of(t)
        return self.ace_value(True) if r == 1 else min(r, 10)

    # ---------------------------------------------------------------- runs
    def norm(self, lo, hi, jpos):
        """A run's (lo, hi, joker position) with ``1 <= lo <= 13`` on circular runs.  ``jpos`` is None for no
        joker (0 is a position: a joker laid below a circular A-2-3); the result's 0 means no joker."""
        shift = 0
        if self.circular:
            shift = 13 if lo < 1 else -13 if lo > 13 else 0
        return lo + shift, hi + shift, (0 if jpos is None else jpos + shift)

    def span_ok(self, lo, hi) -> bool:
        n = hi - lo + 1
        if self.circular:
            return 1 <= lo <= 13 and 3 <= n <= 13
        return lo >= 1 and hi <= 14 and n >= 3 and (n <= 13 or self.both_ends)

    def burnt_ok(self, st: St, nat: int) -> bool:
        if not self.burnt:
            return True
        cnt = 0
        for m in st.table:
            if m is not None:
                cnt += sum(1 for c in meld_cards(m) if c == nat)
        if self.burnt_discard:
            cnt += self.discard_counts[nat]
        return cnt >= 2

    # ---------------------------------------------------------------- plays
    def first_empty(self, st: St) -> Optional[int]:
        for s in range(S):
            if st.table[s] is None:
                return s
        return None

    def _mark_tentative(self, st: St, slot_touched: Optional[int]) -> None:
        if not st.opened:
            st.tent = True
        if slot_touched is not None and slot_touched in self.orig and not self.opened_at_start:
            st.touched = True

    def meld_moves(self, st: St) -> Iterator[tuple]:
        slot = self.first_empty(st)
        if slot is None:
            return
        own, pend = st.own, st.pend
        for m, (ts, tmpl) in enumerate(self.lay.catalogue):
            ok = True
            for t in ts:
                if t == JOKER:
                    if not (st.freed or pend[JOKER] or own[JOKER]):
                        ok = False
                        break
                elif not (pend[t] or own[t]):
                    ok = False
                    break
            if not ok:
                continue
            n = st.copy()
            own_used = []
            used_freed = False
            for t in ts:
                if t == JOKER:
                    if n.freed:
                        n.freed -= 1
                        used_freed = True
                    elif n.pend[JOKER]:
                        n.pend[JOKER] -= 1
                    else:
                        n.own[JOKER] -= 1
                        own_used.append(t)
                    n.jl += 1
                elif n.pend[t]:
                    n.pend[t] -= 1
                else:
                    n.own[t] -= 1
                    own_used.append(t)
            if len(own_used) < (2 if used_freed else 1):
                continue
            if tmpl[0] == "R":
                _, suit, lo, hi, jpos = tmpl
                if jpos and not self.burnt_ok(st, pos_type(suit, jpos)):
                    continue
                meld = ("R", suit, lo, hi, jpos, self.me)
                for t in own_used:
                    p = None if t == JOKER else next(q for q in range(lo, hi + 1) if pos_type(suit, q) == t and q != jpos)
                    self.laid(n, slot, t, p)
                if not jpos and (len(own_used) == 3 or not self.pure_own_only):
                    n.pslots = st.pslots | {slot}
            else:
                _, rank, mask, jk, js = tmpl
                meld = ("S", rank, mask, jk, js, self.me)
                for t in own_used:
                    self.laid(n, slot, t)
            if self.taken is not None and self.taken in own_used:
                n.tlaid = True
            n.table[slot] = meld
            n.pts = self.points(n)
            self._mark_tentative(n, None)
            yield self.lay.meld_id(m), n, None

    def lay_moves(self, st: St) -> Iterator[tuple]:
        own = st.own
        hand_nats = [t for t in range(52) if own[t]]
        has_jk = own[JOKER] > 0 or (self.freed_layoff and st.freed > 0)
        for s in range(S):
            m = st.table[s]
            if m is None:
                continue
            if not st.opened and not self.open_table and s in self.orig:
                continue
            mine = m[-1] == self.me
            if m[0] == "R":
                _, suit, lo, hi, jpos, owner = m
                for t in hand_nats:
                    if suit_of(t) != suit:
                        continue
                    ends = []
                    for p in ((lo - 1, hi + 1) if self.prefer_low else (hi + 1, lo - 1)):
                        if pos_rank(p) == rank_of(t) and (self.circular or 1 <= p <= 14):
                            nlo, nhi = min(lo, p), max(hi, p)
                            nlo2, nhi2, nj = self.norm(nlo, nhi, jpos or None)
                            if self.span_ok(nlo2, nhi2):
                                ends.append((p, nlo2, nhi2, nj))
                    if not ends:
                        continue
                    p, nlo, nhi, nj = ends[0]
                    n = st.copy()
                    n.own[t] -= 1
                    self.laid(n, s, t, p)
                    if self.taken == t:
                        n.tlaid = True
                    n.table[s] = ("R", suit, nlo, nhi, nj, owner)
                    n.pts = self.points(n)
                    self._mark_tentative(n, s)
                    yield self.lay.lay_id(s, t), n, s
                if has_jk and not jpos and mine:
                    for c, p in ((52, lo - 1), (53, hi + 1)):
                        if not self.circular and not (1 <= p <= 14):
                            continue
                        nlo, nhi, nj = self.norm(min(lo, p), max(hi, p), p)
                        if not self.span_ok(nlo, nhi):
                            continue
                        if not self.burnt_ok(st, pos_type(suit, p)):
                            continue
                        n = st.copy()
                        if self.freed_layoff and n.freed:
                            n.freed -= 1
                        else:
                            n.own[JOKER] -= 1
                            self.laid(n, s, JOKER)
                            if self.taken == JOKER:       # I3: an own copy of the taken type laid off
                                n.tlaid = True
                        n.jl += 1
                        n.table[s] = ("R", suit, nlo, nhi, nj, owner)
                        n.pts = self.points(n)
                        self._mark_tentative(n, s)
                        yield self.lay.lay_id(s, c), n, s
            else:
                _, rank, mask, jk, js, owner = m
                size = meld_size(m)
                if size >= 4:
                    continue
                for t in hand_nats:
                    if rank_of(t) != rank or mask >> suit_of(t) & 1:
                        continue
                    nmask = mask | (1 << suit_of(t))
                    njs = -1
                    if jk:
                        njs = [q for q in range(4) if not nmask >> q & 1][0]
                    n = st.copy()
                    n.own[t] -= 1
                    self.laid(n, s, t)
                    if self.taken == t:
                        n.tlaid = True
                    n.table[s] = ("S", rank, nmask, jk, njs, owner)
                    n.pts = self.points(n)
                    self._mark_tentative(n, s)
                    yield self.lay.lay_id(s, t), n, s
                if has_jk and not jk and (mine or self.jk_opp_set):
                    n = st.copy()
                    if self.freed_layoff and n.freed:
                        n.freed -= 1
                    else:
                        n.own[JOKER] -= 1
                        self.laid(n, s, JOKER)
                        if self.taken == JOKER:           # I3
                            n.tlaid = True
                    n.jl += 1
                    njs = [q for q in range(4) if not mask >> q & 1][0]
                    n.table[s] = ("S", rank, mask, True, njs, owner)
                    n.pts = self.points(n)
                    self._mark_tentative(n, s)
                    yield self.lay.lay_id(s, 52), n, s

    def take_moves(self, st: St) -> Iterator[tuple]:
        if not self.take_ok:
            return
        for s in range(S):
            m = st.table[s]
            if m is None or meld_size(m) < 4:
                continue
            if not self.take_own and m[-1] == self.me:
                continue
            if not st.opened and not self.open_table and s in self.orig:
                continue
            if m[0] == "R":
                _, suit, lo, hi, jpos, owner = m
                for k, p in ((0, lo), (1, hi)):
                    if p == jpos:
                        if not self.take_jk:
                            continue
                        card, nj = JOKER, 0
                    else:
                        card, nj = pos_type(suit, p), jpos
                    nlo, nhi = (lo + 1, hi) if k == 0 else (lo, hi - 1)
                    nlo, nhi, nj = self.norm(nlo, nhi, nj or None)
                    n = st.copy()
                    n.pend[card] += 1
                    self.unlaid(n, s, card, None if card == JOKER else p)
                    n.table[s] = ("R", suit, nlo, nhi, nj, owner)
                    n.pts = self.points(n)
                    self._mark_tentative(n, s)
                    yield self.lay.take_id(s, k), n, s
            else:
                _, rank, mask, jk, js, owner = m
                for k in range(5):
                    if k < 4:
                        if not mask >> k & 1:
                            continue
                        card, nmask, njk = card_type(rank, k), mask & ~(1 << k), jk
                    else:
                        if not jk or not self.take_jk:
                            continue
                        card, nmask, njk = JOKER, mask, False
                    n = st.copy()
                    n.pend[card] += 1
                    self.unlaid(n, s, card)
                    n.table[s] = ("S", rank, nmask, njk, -1, owner)
                    n.pts = self.points(n)
                    self._mark_tentative(n, s)
                    yield self.lay.take_id(s, k), n, s

    def swap_moves(self, st: St) -> Iterator[tuple]:
        if not st.opened or (self.swap_prior and not self.opened_at_start):
            return
        for s in range(S):
            m = st.table[s]
            if m is None:
                continue
            if m[0] == "R":
                _, suit, lo, hi, jpos, owner = m
                if not jpos:
                    continue
                nat = pos_type(suit, jpos)
                new = ("R", suit, lo, hi, 0, owner)
            else:
                _, rank, mask, jk, js, owner = m
                if not jk or js < 0:
                    continue
                nat = card_type(rank, js)
                new = ("S", rank, mask | (1 << js), False, -1, owner)
            if not st.own[nat]:
                continue
            n = st.copy()
            n.own[nat] -= 1
            n.freed += 1
            self.unlaid(n, s, JOKER)
            self.laid(n, s, nat, m[4] if m[0] == "R" else None)
            if self.taken == nat:
                n.tlaid = True
            n.table[s] = new
            n.pts = self.points(n)
            self._mark_tentative(n, s)
            yield self.lay.swap_id(s), n, s

    def plays(self, st: St) -> Iterator[tuple]:
        """(action, next state, touched slot or None) for every MELD / LAY_OFF / TAKE / SWAP possible as a move."""
        if not self.may_play:
            return
        for gen in (self.meld_moves, self.lay_moves, self.take_moves, self.swap_moves):
            for a, n, slot in gen(st):
                n.acted = True                        # R25: the turn has laid or taken something
                yield a, n, slot

    # ---------------------------------------------------------------- commit, discard, out
    def is_pure(self, st: St) -> bool:
        """A run created this turn from own cards only, without joker when created, that still has no joker (I9)."""
        return any(st.table[s][0] == "R" and not st.table[s][4] for s in st.pslots)

    def commit_valid(self, st: St) -> bool:
        return (self.may_play and not st.opened and st.tent and (self.taken is None or st.tlaid)
                and st.pts >= self.thr and (self.is_pure(st) or not self.open_pure))

    def after_commit(self, st: St) -> St:
        n = st.copy()
        n.opened = True
        n.tent = False
        return n

    def out_ok(self, st: St) -> bool:
        """The turn ends with an empty hand (after a play or the last discard): R15, R16, I6, I7."""
        if self.taken is not None and not st.tlaid:
            return False
        if self.dpml_every and st.pts < self.dpml:
            return False
        if not self.opened_at_start:
            if st.touched and not self.aao_table:
                return False
            if not st.opened:
                if self.aao_crit and st.pts < self.thr:
                    return False
                if self.aao_pure and not self.is_pure(st):
                    return False
        return True

    def discard_legal(self, st: St, t: int) -> bool:
        if not st.own[t]:
            return False
        if self.taken is not None and (t == self.taken or not st.tlaid):
            return False
        if any(st.pend) or st.freed:
            return False
        empties = st.hand_n() == 1
        if empties:
            if self.final == "forbidden":
                return False
            n = st.copy()
            n.own[t] -= 1
            return self.out_ok(n)
        if st.tent:
            return False
        if self.dpml_every and st.pts < self.dpml:
            return False
        return True

    def play_legal_local(self, nxt: St) -> bool:
        """I19 (R25 "take_back"): a play (already a valid move) is legal unless it empties the hand without a legal
        out (R15 "required": never; else R16 / I4-I7 via ``out_ok``)."""
        if nxt.hand_n() == 0:
            return self.final != "required" and self.out_ok(nxt)
        return True

    def play_legal(self, st: St, nxt: St, slot: Optional[int]) -> bool:
        """Legality of a play (already a valid move) leading from st to nxt (``dead_ends = "prevent"``)."""
        if nxt.hand_n() == 0:
            return self.final != "required" and self.out_ok(nxt)
        if slot is not None and slot in self.orig and not st.opened and not self.aao_table:
            return self.commit_reach(nxt)                                     # I4
        return self.finish(nxt)

    # ---------------------------------------------------------------- search
    def key(self, st: St) -> tuple:
        tab = tuple(sorted((m[:-1] + (m[-1] == self.me, s in self.orig)) for s, m in enumerate(st.table)
                           if m is not None))
        opened = st.opened
        return (tuple(st.own), tuple(st.pend), st.freed, tab, opened, st.tent, st.undos,
                min(st.pts, self.pts_cap) if (not opened or self.dpml_every) else 0,
                tuple(sorted(st.mine)) if (not opened or self.dpml_every) else (),
                self.is_pure(st) and not opened, st.tlaid, st.touched)

    def must_open(self, st: St) -> bool:
        return not st.opened and (st.tent or self.taken is not None)

    def hopeless(self, st: St) -> bool:
        """Sound prunes: True only if no finishing line can exist from st (without undo)."""
        avail = self._avail(st)
        # every obligation card (taken card still in hand, pending cards) must be placeable somewhere
        obligations = []
        if self.taken is not None and not st.tlaid:
            if not self._placeable(st, self.taken, avail):
                return True
            obligations.append((self.taken, False))
        for t in range(NT):
            if st.pend[t]:
                if not self._placeable(st, t, avail, new_meld_only=True):
                    return True
                obligations += [(t, True)] * st.pend[t]
        # joker demand: obligations that cannot be placed without a joker, grouped when they could share a meld
        # (same suit or same rank); each group needs its own joker, and each freed joker its own new meld
        if obligations:
            no_jk = (avail[0], avail[1], avail[2], 0)
            groups = []
            for t, new_only in obligations:
                if t == JOKER or self._placeable(st, t, no_jk, new_meld_only=new_only):
                    continue
                for g in groups:
                    if any(suit_of(u) == suit_of(t) or rank_of(u) == rank_of(t) for u in g):
                        g.append(t)
                        break
                else:
                    groups.append([t])
            if len(groups) > avail[3]:
                return True
        if self.must_open(st):
            need_commit = self.thr
            need_out = self.thr if self.aao_crit else 0
            if self.dpml_every:
                need_out = max(need_out, self.dpml)
            need = min(need_commit, need_out)
            if need > st.pts:
                ub = st.pts + sum(st.own[t] * self.max_card_value(t) for t in range(NT)
                                  if st.own[t] and self._placeable(st, t, avail))
                if self.circular and self.ace_fixed is None:   # a K laid before an own low ace makes it 11 (I8)
                    ub += 10 * sum(1 for s, t, _ in st.mine if st.table[s][0] == "R" and (t == JOKER or rank_of(t) == 1))
                if ub < need:
                    return True
            if self.open_pure and self.aao_pure and not self.is_pure(st) and not self._pure_possible(st):
                return True
        return False

    def _avail(self, st: St):
        """Over-approximation of the cards that could still join a meld with a given card: per suit the run
        positions covered by hand/pending naturals and naturals a TAKE could free (``pos_new``), the same plus
        every cell of a table run (``pos_all``, for lay-offs), per rank the suits present (hand/pending,
        takeable table naturals), and the jokers obtainable (own, pending, freed, table jokers that a SWAP or a
        TAKE could free)."""
        pos_new = [set() for _ in range(4)]
        suits = [0] * 14
        jokers = st.own[JOKER] + st.pend[JOKER] + st.freed
        own_ranks = {rank_of(t) for t in range(52) if st.own[t]}
        for t in range(52):
            if st.own[t] or st.pend[t]:
                self._add_nat(pos_new, suits, t)
        cells = [set() for _ in range(4)]
        own_jk = st.own[JOKER] + st.freed
        own_in_suit = [sum(st.own[13 * q:13 * q + 13]) for q in range(4)]      # card_type(r, q) = 13q + r - 1
        for m in st.table:
            if m is None:
                continue
            size = meld_size(m)
            # lay-offs of own cards can lengthen a meld before cards are taken from it
            if m[0] == "R":
                grow = own_in_suit[m[1]] + own_jk
            else:
                grow = sum(st.own[card_type(m[1], q)] for q in range(4) if not m[2] >> q & 1) + own_jk
            big = size + grow >= 4 and self.take_ok
            if m[0] == "R":
                _, suit, lo, hi, jpos, _o = m
                cells[suit].update(range(lo, hi + 1))
                if big:
                    extra = size + grow - 3   # at most this many cards can leave the run, from its ends
                    for p in list(range(lo, lo + extra)) + list(range(hi - extra + 1, hi + 1)):
                        if p != jpos:
                            self._add_nat(pos_new, suits, pos_type(suit, p))
                if jpos and ((st.opened or not self.opened_at_start) and st.own[pos_type(suit, jpos)]
                             or (big and self.take_jk)):
                    jokers += 1
            else:
                _, rank, mask, jk, js, _o = m
                if big:
                    for q in range(4):
                        if mask >> q & 1:
                            self._add_nat(pos_new, suits, card_type(rank, q))
                if jk and (rank in own_ranks or (big and self.take_jk)):
                    jokers += 1
        pos_all = [pos_new[s] | self._wrap(cells[s]) for s in range(4)]
        return pos_all, pos_new, suits, jokers

    def _wrap(self, cells: set) -> set:
        out = set(cells)
        for p in cells:
            out.update(self.run_positions[pos_rank(p)])
        return out

    def _add_nat(self, pos, suits, t):
        r, s = rank_of(t), suit_of(t)
        suits[r] |= 1 << s
        pos[s].update(self.run_positions[r])

    def _placeable(self, st: St, t: int, avail, new_meld_only: bool = False) -> bool:
        """Over-approximation: could card type t end in some meld (a new one; or also a table one) this turn?"""
        pos_all, pos_new, suits, jokers = avail
        if t == JOKER:
            return True
        r, s = rank_of(t), suit_of(t)
        others = bin(suits[r] & ~(1 << s)).count("1")
        if others >= 2 or (others >= 1 and jokers >= 1):
            return True
        if not new_meld_only:
            for m in st.table:
                if m is not None and m[0] == "S" and m[1] == r and (meld_size(m) == 4 or not m[2] >> s & 1):
                    return True
        ps = pos_new[s] if new_meld_only else pos_all[s]
        for p in self.run_positions[r]:
            for q in range(p - 2, p + 1):
                missing = sum(1 for x in range(q, q + 3) if x != p and x not in ps)
                if missing == 0 or (missing == 1 and jokers >= 1):
                    return True
        return False

    def _pure_possible(self, st: St) -> bool:
        if self.take_jk and any(st.table[s] is not None and st.table[s][0] == "R" and st.table[s][4] for s in st.pslots):
            return True   # a joker laid on this turn's pure run may be taken off again, making it pure once more
        src = [st.own[t] + (0 if self.pure_own_only else st.pend[t]) for t in range(52)]
        later = [set() for _ in range(4)] if self.pure_own_only else self._avail(st)[1]   # cards still to be taken
        for s in range(4):
            have = set(later[s])
            for r in range(1, 14):
                if src[card_type(r, s)]:
                    have.update(self.run_positions[r])
            if any(q in have and q + 1 in have and q + 2 in have for q in range(1, 24)):
                return True
        return False

    def finish(self, st: St) -> bool:
        """Can the turn still be finished legally from st? (I1: a remaining undo + a tentative play suffices.)"""
        if st.tent and st.undos < self.max_undos:
            return True
        return self._memoised(self.memo_finish, self._finish, st)

    def _memoised(self, memo: dict, search, st: St) -> bool:
        """``search(st)`` remembered in ``memo`` under ``key(st)``."""
        k = self.key(st)
        if k in memo:
            return memo[k]
        memo[k] = False                             # in progress: a path back here is not a way out
        try:
            result = search(st)
        except BaseException:                       # interrupted (a caller's time-out): unproven, not False
            del memo[k]
            raise
        memo[k] = result
        return result

    def _finish(self, st: St) -> bool:
        for t in range(NT):
            if st.own[t] and self.discard_legal(st, t):
                return True
        if self.hopeless(st):
            return False
        if self.commit_valid(st) and self.finish(self.after_commit(st)):
            return True
        rel = self._relevance(st)
        moves = []
        for _a, nxt, slot in self.plays(st):
            if rel is not None and not self._relevant_play(st, nxt, slot, rel):
                continue
            moves.append((self._priority(st, nxt), nxt, slot))
        moves.sort(key=lambda x: x[0])              # try plays that settle an obligation first (speed only)
        for _p, nxt, slot in moves:
            if self.play_legal(st, nxt, slot):
                return True
        return False

    def _priority(self, st: St, nxt: St) -> int:
        if nxt.freed < st.freed or sum(nxt.pend) < sum(st.pend) or (nxt.tlaid and not st.tlaid):
            return 0
        if nxt.pts > st.pts and not st.opened:
            return 1 if self.is_pure(nxt) and not self.is_pure(st) else 2
        return 3

    # ---------------------------------------------------------------- relevance restriction (P2 in the module docstring)
    def _relevance(self, st: St):
        """(suits, ranks) of the open obligations when the search may skip plays unrelated to them, else None.

        Applies only to an opened player under final_discard "required", without "every_pickup" points, without the
        Lebanese burnt rule, with no freed or pending joker and a natural taken card: then any finishing line can
        be cut down to the plays that lead to placing the obligation cards (taken card, pending cards) and those
        consuming what they produce; every other play only uses up cards that could as well stay in hand."""
        if (self.no_relevance or not st.opened or self.final != "required" or self.dpml_every or self.burnt or st.freed
                or st.pend[JOKER]):
            return None
        obl = [t for t in range(52) if st.pend[t]]
        if self.taken is not None and not st.tlaid:
            if self.taken == JOKER:
                return None
            obl.append(self.taken)
        if not obl:
            return None
        return {suit_of(t) for t in obl}, {rank_of(t) for t in obl}

    def _relevant_play(self, st: St, nxt: St, slot, rel) -> bool:
        rs, rr = rel
        if nxt.freed > st.freed:                                   # SWAP
            return True
        if self.take_jk:                                           # a joker taken from a meld may join any obligation
            if nxt.pend[JOKER] > st.pend[JOKER]:
                return True
            if slot is not None and meld_has_joker(st.table[slot]):
                return True
        for t in range(NT):
            if nxt.pend[t] < st.pend[t]:                           # consumes a pending card
                return True
            if nxt.own[t] < st.own[t]:
                if t == JOKER:
                    continue
                if t == self.taken or suit_of(t) in rs or rank_of(t) in rr:
                    return True
            if nxt.pend[t] > st.pend[t] and t != JOKER and (suit_of(t) in rs or rank_of(t) in rr):
                return True                                        # TAKE of a related card
        if slot is not None:
            m = st.table[slot]
            if m[0] == "R":
                if m[1] in rs:
                    return True
                if any(pos_rank(p) in rr for p in range(m[2], m[3] + 1) if p != m[4]):
                    return True
            else:
                if m[1] in rr or any(m[2] >> q & 1 for q in rs):
                    return True
        return False

    def commit_reach(self, st: St) -> bool:
        """Is a legal COMMIT reachable from st without undo (and without ending the turn)?"""
        if st.opened:
            return False
        return self._memoised(self.memo_commit, self._commit_reach, st)

    def _commit_reach(self, st: St) -> bool:
        if self.commit_valid(st) and self.finish(self.after_commit(st)):
            return True
        if self.hopeless(st):
            return False
        return any(nxt.hand_n() and self.commit_reach(nxt) for _a, nxt, _slot in self.plays(st))


# --------------------------------------------------------------------------------------------------------------
# Live turn
# --------------------------------------------------------------------------------------------------------------

class RamiTurn:
    """Replays one turn of ``position['current']`` from a turn-start position dict (see module docstring)."""

    def __init__(self, position: dict, rules, layoff_prefer: str = "low"):
        if position.get("ruleset", "rami51") != "rami51":
            raise ValueError("not a rami51 position")
        self.rules = rules
        self.pos = position
        self.layoff_prefer = layoff_prefer
        self.me = int(position["current"])
        self.n = int(position["num_players"])
        self.lay = layout(rules)
        phase = position["phase"]
        self.first_turn = bool(position.get("first_turn", False))
        if phase == "draw":
            self.phase = "draw"
        elif phase == "play" and self.first_turn:
            self.phase = "play"
        else:
            raise ValueError(f"RamiTurn needs a turn-start position (phase 'draw', or 'play' with first_turn); "
                             f"got phase {phase!r}, first_turn={self.first_turn}")
        self.stock = [int(c) for c in position.get("stock", [])]
        self.discard = [int(c) for c in position.get("discard", [])]
        self.mode = knob(rules, "dead_ends")
        if self.mode not in ("take_back", "prevent"):
            raise ValueError(f"unknown dead_ends {self.mode!r}")
        self.take_back_mode = self.mode == "take_back"
        self.reshuffles = int(position.get("reshuffles", 0))
        self.opened_at_start = bool(position["opened"][self.me])
        self.turns_done = int(position.get("turn", 0))
        self.start_hand_n = len(position["hands"][self.me])
        st = St.__new__(St)
        st.own = [0] * NT
        for c in position["hands"][self.me]:
            st.own[int(c)] += 1
        st.pend = [0] * NT
        st.freed = 0
        st.table = [None] * S
        for d in position.get("table", []):
            s = int(d["slot"])
            if st.table[s] is not None:
                raise ValueError(f"duplicate slot {s}")
            st.table[s] = meld_from_dict(d)
        st.opened = self.opened_at_start
        st.tent = False
        st.undos = 0
        st.pts = 0
        st.mine = ()
        st.pslots = frozenset()
        st.tlaid = False
        st.touched = False
        st.jl = 0
        st.acted = False
        self.st = st
        self.orig = frozenset(s for s in range(S) if st.table[s] is not None)
        self.taken: Optional[int] = None
        self.snapshot: Optional[St] = None          # post-draw state, restored by UNDO
        self.ends_turn = False
        self.goes_out = False
        self.announced = True
        self.penalty_cards_due = 0
        self.search: Optional[Search] = None
        self._drawn_stock = None
        # R25 (I19): the take-back and its draws
        self.took_back = False
        self.take_back_drawn: list = []             # the cards the take-back drew that the oracle could follow
        self.unseen_draws = 0                       # cards drawn from a rebuilt stock (order unknown to the oracle)
        self.rebuilt: list = []                     # the cards that the rebuild moved into the stock
        self.needs_sync = False                     # ``sync_after_rebuild`` is owed
        self.doomed = False                         # a rebuild beyond max_reshuffles was needed (R17)
        self._moves_cache = None
        if self.phase == "play":
            self._start_play()

    # ---------------------------------------------------------------- helpers
    def _discard_counts(self) -> list:
        counts = [0] * NT
        for c in self.discard:
            counts[c] += 1
        return counts

    def _make_search(self, taken) -> Search:
        return Search(self.rules, self.me, taken, self.opened_at_start, self.orig, self._discard_counts(),
                      self.first_turn, self.layoff_prefer)

    def _start_play(self) -> None:
        self.phase = "play"
        self.search = self._make_search(self.taken)
        self.snapshot = self.st.copy()

    def can_use_top(self) -> bool:
        """R23 can_use(top): after taking the discard top, the turn can be finished without any undo."""
        if not self.discard:
            return False
        top = self.discard[-1]
        saved = self.discard
        self.discard = saved[:-1]
        try:
            search = self._make_search(top)
        finally:
            self.discard = saved
        st = self.st.copy()
        st.own[top] += 1
        st.undos = search.max_undos          # no undo
        return search.finish(st)

    # ---------------------------------------------------------------- public API
    def legal_actions(self) -> set:
        if self.ends_turn:
            return set()
        self._check_synced()
        if self.phase == "draw":
            acts = set()
            if self.stock:
                acts.add(DRAW_STOCK)
            if (self.discard and self.start_hand_n != 1
                    and not (knob(self.rules, "discard_pickup_from_second_round") and self.turns_done < self.n)
                    and (self.take_back_mode or self.can_use_top())):
                acts.add(DRAW_DISCARD)
            return acts
        return {a for a, _ in self._moves()}

    def _moves(self) -> list:
        """``_legal_moves()`` of the current state, remembered until the state changes (``apply`` asks again)."""
        key = (id(self.st), self.took_back, self.ends_turn)
        if self._moves_cache is None or self._moves_cache[0] != key or self._moves_cache[2] is not self.st:
            self._moves_cache = (key, self._legal_moves(), self.st)
        return self._moves_cache[1]

    def take_back_legal(self) -> bool:
        """R25: once a turn, in the play phase, when the turn has laid or taken something (not undone) or a card
        must still be laid (the discard-pile card, a pending card, a freed joker)."""
        if not self.take_back_mode or self.took_back or self.phase != "play" or self.ends_turn:
            return False
        st = self.st
        owes = (self.taken is not None and not st.tlaid) or any(st.pend) or st.freed > 0
        return st.acted or owes

    def _legal_moves(self):
        se, st = self.search, self.st
        out = []
        for t in range(NT):
            if st.own[t] and se.discard_legal(st, t):
                out.append((self.lay.disc_id(t), ("discard", t, True)))
                if se.manual and st.hand_n() == 2:
                    out.append((self.lay.disc_id(t, False), ("discard", t, False)))
        if self.took_back:                            # R25: only a discard after a take-back
            return out
        if self.take_back_mode:                       # R25 "take_back": local legality only, no search (I19)
            if se.commit_valid(st):
                out.append((COMMIT, ("state", se.after_commit(st))))
            if st.tent and st.undos < se.max_undos:
                out.append((UNDO, ("undo",)))
            if self.take_back_legal():
                out.append((TAKE_BACK, ("take_back",)))
            for a, nxt, _slot in se.plays(st):
                if se.play_legal_local(nxt):
                    out.append((a, ("state", nxt)))
            return out
        if se.commit_valid(st):
            nxt = se.after_commit(st)
            if se.finish(nxt):
                out.append((COMMIT, ("state", nxt)))
        if st.tent and st.undos < se.max_undos:
            out.append((UNDO, ("undo",)))
        for a, nxt, slot in se.plays(st):
            if se.play_legal(st, nxt, slot):
                out.append((a, ("state", nxt)))
        return out

    def _possible_moves(self):
        """Every move the model allows now, without the no-dead-end search (``apply(check=False)``)."""
        se, st = self.search, self.st
        out = []
        for t in range(NT):
            if st.own[t]:
                out.append((self.lay.disc_id(t), ("discard", t, True)))
                if se.manual and st.hand_n() == 2:
                    out.append((self.lay.disc_id(t, False), ("discard", t, False)))
        if self.took_back:
            return out
        if se.commit_valid(st):
            out.append((COMMIT, ("state", se.after_commit(st))))
        if st.tent:
            out.append((UNDO, ("undo",)))
        if self.take_back_legal():
            out.append((TAKE_BACK, ("take_back",)))
        for a, nxt, _slot in se.plays(st):
            out.append((a, ("state", nxt)))
        return out

    def legal_action_names(self) -> list:
        return [self.lay.name(a) for a in sorted(self.legal_actions())]

    def apply(self, a: int, check: bool = True) -> None:
        """Perform ``a``. ``check=False`` skips the legality search (for a position whose legality a caller
        gave up on, e.g. after a time-out): the move is then only required to be possible in the model."""
        if self.ends_turn:
            raise ValueError("the turn is over")
        self._check_synced()
        if self.phase == "draw":
            self._moves_cache = None
            if a not in ((DRAW_STOCK, DRAW_DISCARD) if not check else self.legal_actions()):
                raise ValueError(f"illegal draw {a}")
            if a == DRAW_STOCK:
                c = self.stock.pop()
                self._drawn_stock = c
            else:
                c = self.discard.pop()
                self.taken = c
            self.st.own[c] += 1
            self._start_play()
            return
        moves = dict(self._moves() if check else self._possible_moves())
        self._moves_cache = None
        if a not in moves:
            raise ValueError(f"illegal action {a} ({self.lay.name(a) if 0 <= a < self.lay.A else '?'})")
        eff = moves[a]
        if eff[0] == "discard":
            _, t, announce = eff
            self.st.own[t] -= 1
            self.discard.append(t)
            self.ends_turn = True
            self.goes_out = self.st.hand_n() == 0
            self.announced = announce
            if not announce:
                self.penalty_cards_due = int(knob(self.rules, "announcement_penalty_cards"))
            return
        if eff[0] == "undo":
            undos = self.st.undos + 1
            self.st = self.snapshot.copy()
            self.st.undos = undos
            return
        if eff[0] == "take_back":
            self._take_back()
            return
        self.st = eff[1]
        if self.st.hand_n() == 0:
            self.ends_turn = True
            self.goes_out = True

    # ---------------------------------------------------------------- R25 take-back (I19)
    def _check_synced(self) -> None:
        if self.needs_sync:
            raise RuntimeError("the take-back's draws rebuilt the stock: call sync_after_rebuild first")

    def _take_back(self) -> None:
        """The table and the hand as right after the draw (a COMMIT of this turn undone too), the discard-pile
        card back on the pile, one card drawn in its place, then ``take_back_penalty_cards`` more (R17 rebuilds);
        the turn is no longer a pickup turn."""
        undos = self.st.undos
        self.st = self.snapshot.copy()
        self.st.undos = undos
        draws = int(knob(self.rules, "take_back_penalty_cards"))
        if self.taken is not None:
            self.st.own[self.taken] -= 1
            self.discard.append(self.taken)
            self.taken = None
            draws += 1
        self.took_back = True
        self._penalty_draws(draws)
        self.search = self._make_search(None)

    def _penalty_draws(self, n: int) -> None:
        """Draw ``n`` stock cards; an empty stock is rebuilt from the discard pile (R17: all of it, or all but
        its top with ``reshuffle_keep_top``), counted in ``reshuffles``; nothing to rebuild: the cards left are not
        drawn; a rebuild beyond ``max_reshuffles``: nothing more is drawn and the round is ``doomed``. The cards
        drawn from a rebuilt stock are not known here (the shuffle): ``unseen_draws`` counts them and
        ``sync_after_rebuild`` must be given them."""
        keep = 1 if knob(self.rules, "reshuffle_keep_top") else 0
        cap = knob(self.rules, "max_reshuffles")
        for k in range(n):
            if not self.stock:
                if len(self.discard) - keep < 1:
                    return
                if cap is not None and self.reshuffles >= int(cap):
                    self.doomed = True
                    return
                cut = len(self.discard) - keep
                self.rebuilt = sorted(self.discard[:cut])
                self.discard = self.discard[cut:]
                self.reshuffles += 1
                # the pile is now empty (or only its top): no second rebuild within these draws
                self.unseen_draws = min(n - k, len(self.rebuilt))
                self.needs_sync = True
                self.stock = []
                return
            c = self.stock.pop()
            self.st.own[c] += 1
            self.take_back_drawn.append(c)

    def sync_after_rebuild(self, drawn, discard, stock) -> None:
        """Feed the cards the engine drew from its rebuilt stock, and its discard pile and stock afterwards, into
        the oracle, after checking them against what the oracle knows: as many cards drawn as ``unseen_draws``,
        drawn + stock = the rebuilt cards, the discard pile = what the rebuild left of it."""
        if not self.needs_sync:
            raise ValueError("no stock rebuild to synchronise")
        drawn = [int(c) for c in drawn]
        stock = [int(c) for c in stock]
        discard = [int(c) for c in discard]
        if len(drawn) != self.unseen_draws:
            raise ValueError(f"{len(drawn)} cards drawn from the rebuilt stock, expected {self.unseen_draws}")
        if sorted(drawn + stock) != self.rebuilt:
            raise ValueError(f"the rebuilt stock and the cards drawn from it {sorted(drawn + stock)} are not the "
                             f"discard pile moved into it {self.rebuilt}")
        if discard != self.discard:
            raise ValueError(f"discard pile after the rebuild {discard}, expected {self.discard}")
        for c in drawn:
            self.st.own[c] += 1
        self.take_back_drawn += drawn
        self.stock = stock
        self.needs_sync = False
        self._moves_cache = None

    # ---------------------------------------------------------------- accessors
    def hand_after(self) -> list:
        st = self.st
        cards = []
        for t in range(NT):
            cards += [t] * (st.own[t] + st.pend[t])
        cards += [JOKER] * st.freed
        return sorted(cards)

    def table_after(self) -> list:
        return [meld_to_dict(s, m) for s, m in enumerate(self.st.table) if m is not None]

    def discard_after(self) -> list:
        return list(self.discard)

    def stock_after(self) -> list:
        return list(self.stock)

    @property
    def opened(self) -> bool: return self.st.opened
    @property
    def taken_laid(self) -> bool: return self.st.tlaid
    @property
    def pending(self) -> list: return [t for t in range(NT) for _ in range(self.st.pend[t])]
    @property
    def freed(self) -> int: return self.st.freed
    @property
    def tentative(self) -> bool: return self.st.tent
    @property
    def undos(self) -> int: return self.st.undos
    @property
    def turn_points(self) -> int: return self.st.pts
    @property
    def pure_run(self) -> bool: return self.search.is_pure(self.st) if self.search else False
    @property
    def jokers_laid(self) -> int: return self.st.jl
    @property
    def touched_table(self) -> bool: return self.st.touched

    @property
    def all_at_once(self) -> bool:
        """True if the turn ended by going out in a turn that started not opened (R16)."""
        return self.goes_out and not self.opened_at_start


# --------------------------------------------------------------------------------------------------------------
# Hand-made positions (tests)
# --------------------------------------------------------------------------------------------------------------

def full_deck() -> list:
    return sorted([t for t in range(52) for _ in range(2)] + [JOKER] * 4)


def run_bounds(ids, circular=False):
    """(lo, hi, joker_at) of a run given in ORDER (low to high), 'JK' allowed once, aces placed by context."""
    nat = [(i, c) for i, c in enumerate(ids) if c != JOKER]
    i0, c0 = nat[0]
    r0 = rank_of(c0)
    # choose the position of the first natural so that every natural matches its index
    for p0 in ((r0, r0 + 13) if circular or r0 == 1 else (r0,)):
        lo = p0 - i0
        if all(pos_rank(lo + i) == rank_of(c) for i, c in nat):
            if not circular and (lo < 1 or lo + len(ids) - 1 > 14):
                continue
            if circular and lo < 1:
                lo += 13
            hi = lo + len(ids) - 1
            j = [lo + i for i, c in enumerate(ids) if c == JOKER]
            return lo, hi, (j[0] if j else None)
    raise ValueError(f"not a run in order: {[card_name(c) for c in ids]}")


def make_position(hand, table=(), *, rules=None, phase="draw", current=0, num_players=2, opened=None,
                  discard=(), other_hands=None, first_turn=False, turn=5, dealer=None, stock=None) -> dict:
    """A turn-start position dict. ``table``: (owner, 'cards in order', kind?) tuples; runs listed low to high
    with 'JK' at its place; sets: a 4-card set with a joker gets ``joker_at`` = the missing suit. Every card not
    placed anywhere goes into the stock (in a fixed order) unless ``stock`` is given (then its LAST card is drawn
    next). Raises if more than two copies / four jokers are used."""
    rules = rules if rules is not None else default_rules()
    circular = bool(knob(rules, "circular_runs"))
    hands = [[] for _ in range(num_players)]
    hands[current] = parse_cards(hand)
    for seat, cards in (other_hands or {}).items():
        hands[seat] = parse_cards(cards)
    entries = []
    for s, item in enumerate(table):
        owner, cards = item[0], parse_cards(item[1])
        nat = [c for c in cards if c != JOKER]
        if len({rank_of(c) for c in nat}) == 1 and len(nat) >= 2 and len({suit_of(c) for c in nat}) == len(nat) \
                and (len(item) < 3 or item[2] == "set"):
            mask = {suit_of(c) for c in nat}
            ja = None
            if JOKER in cards and len(cards) == 4:
                ja = [q for q in range(4) if q not in mask][0]
            entries.append({"slot": s, "owner": owner, "kind": "set", "cards": sorted(cards),
                            "lo": rank_of(nat[0]), "hi": rank_of(nat[0]), "joker_at": ja})
        else:
            lo, hi, ja = run_bounds(cards, circular)
            entries.append({"slot": s, "owner": owner, "kind": "run", "cards": sorted(cards), "lo": lo, "hi": hi,
                            "joker_at": ja})
    discard_ids = parse_cards(discard)
    remaining = full_deck()
    for c in [c for h in hands for c in h] + [c for e in entries for c in e["cards"]] + discard_ids:
        remaining.remove(c)          # ValueError if a card is used too often
    stock_ids = remaining if stock is None else parse_cards(stock)
    if opened is None:
        opened = [False] * num_players
    return {
        "num_players": num_players, "ruleset": "rami51", "phase": phase, "current": current,
        "dealer": (current if first_turn else (current - 1) % num_players) if dealer is None else dealer,
        "first_turn": first_turn, "hands": [sorted(h) for h in hands], "stock": stock_ids, "discard": discard_ids,
        "table": entries, "opened": list(opened), "turn": turn, "reshuffles": 0, "rounds_played": 0,
        "totals": [0] * num_players, "hand_scores": [0] * num_players, "winner": None, "end_reason": None,
    }

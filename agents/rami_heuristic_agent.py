"""``RamiHeuristicAgent``: a rule-based player for the rami51 ruleset (and its Lebanese "14" preset).

It acts on the player's own observation and the exact action mask only, and only ever picks a
masked-in action. Per row:

* **draw**: take the discard top when the mask allows it — under ``dead_ends="prevent"`` the engine
  allows it only when the card can be laid this turn (R6); under ``"take_back"`` (R25) it is allowed
  whenever there is one, and the planner must find a plan that lays it — and, before opening, only
  when the planner finds an opening that lays it (71 points after a Lebanese pickup, R21.3);
  otherwise draw from the stock.
* **open** (R11): plan the combination of new melds and lay-offs worth the most hand value among
  those that reach the threshold with a pure run; lay it one action at a time (MELD of a meld's first
  three cards, then LAY_OFFs), replanning after each, and COMMIT as soon as the mask allows. The
  opening is tentative until then: if the plan breaks down, UNDO (the engine's budget, R24) and
  discard; a turn that owes a card (the discard top) then takes the turn back (TAKE_BACK, R25), or,
  under ``"prevent"``, follows the mask, which is exact once the undos are spent.
* **once opened**: SWAP for a table joker whenever the mask allows it (R14), melding the freed joker
  at once; lay the best combination of new melds, natural lay-offs on any meld, own or opponents',
  and new melds of two hand cards around a card TAKEn from a meld of 4+ (R13); lay off a joker only
  when that leaves at most one card (jokers stay for own melds).
* **discard**: the legal card that helps least — fewest partners in the hand (same rank, same suit
  one or two apart; before opening run partners weigh more, the pure run being the harder part)
  and table melds it would fit — and among those the one worth most once opened (penalties, R19),
  least before (high cards help reach the opening); a joker only when nothing else may go.
  Going out is the discard of the last card, which the plan reaches by laying all the others.

Every decision either lays cards, draws, discards or commits; UNDO is picked only when the plan
fails and the engine's undo budget allows it, so each turn progresses and ends.
"""

from __future__ import annotations

import numpy as np

from rummy_env.agents.base import InputCheck
from rummy_env import cards
from rummy_env.actions import COMMIT, DRAW_DISCARD, DRAW_STOCK, TAKE_BACK, UNDO, ActionLayout
from rummy_env.engine.config import kernel_config
from rummy_env.engine.rami51.planner import MAX_PIECES
from rummy_env.engine.rami51.policy import plan_actions
from rummy_env.observations import ObservationLayout
from rummy_env.melds import KIND_RUN, KIND_SET
from rummy_env.rules import RummyRules

JOKER = cards.JOKER

JOKER_WEIGHT = 1000.0  # a joker's usefulness: never discarded while another card may go


def partner_matrices() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Between naturals ``a`` and ``b`` (53 x 53, the joker row and column empty): same rank in
    another suit; same suit one position apart; same suit two apart (the ace at both ends)."""
    same_rank, next_to, two_apart = (np.zeros((JOKER + 1, JOKER + 1)) for _ in range(3))
    for a in range(JOKER):
        for b in range(JOKER):
            ra, rb = cards.rank_of(a), cards.rank_of(b)
            if a != b and ra == rb:
                same_rank[a, b] = 1.0
            elif cards.suit_of(a) == cards.suit_of(b):
                gap = min(abs(ra - rb), abs((ra if ra > 1 else 14) - (rb if rb > 1 else 14)))
                next_to[a, b], two_apart[a, b] = gap == 1, gap == 2
    return same_rank, next_to, two_apart


class RamiHeuristicAgent:
    """See the module docstring; ``act(observation, action_mask, rng) -> actions`` over a batch."""

    def __init__(self, rules: RummyRules):
        if rules.ruleset != "rami51":
            raise ValueError(f"RamiHeuristicAgent plays ruleset 'rami51', not {rules.ruleset!r}")
        self.rules = rules
        self.check_inputs = InputCheck(rules)
        self.layout = ActionLayout.for_rules(rules)
        layout = ObservationLayout(rules)
        self.blocks = [(name, layout.offsets[name], layout.offsets[name] + int(np.prod(layout.shapes[name])),
                        layout.shapes[name]) for name in layout.blocks]  # for a faster split
        cfgs, self.tables = kernel_config(rules, self.layout)  # for the compiled planner (``plan_actions``)
        self.cfg = cfgs[0]
        self.values = np.array(rules.card_values, dtype=np.float64)
        self.same_rank, self.next_to, self.two_apart = partner_matrices()
        layout = self.layout
        self.plays = slice(COMMIT, layout.discard_offset)
        self.discards = slice(layout.discard_offset, layout.discard_offset + layout.num_card_types)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        observations, masks = self.check_inputs(observation, action_mask)
        blocks = {name: observations[:, start:stop].reshape((len(observations),) + shape)
                  for name, start, stop, shape in self.blocks}
        actions = np.full(len(masks), DRAW_STOCK, dtype=np.int64)
        drawing = (masks[:, DRAW_STOCK] > 0) | (masks[:, DRAW_DISCARD] > 0)
        for row in np.flatnonzero(drawing & (masks[:, DRAW_DISCARD] > 0)):
            if not masks[row, DRAW_STOCK] or self._wants_top(self._row(blocks, row)):
                actions[row] = DRAW_DISCARD
        playing = ~drawing
        may_play = playing & masks[:, self.plays].any(axis=1)
        for row in np.flatnonzero(may_play):
            actions[row] = self._play(self._row(blocks, row), masks[row])
        discarding = playing & ~may_play | (actions < 0)
        if discarding.any():
            chosen = {name: block[discarding] for name, block in blocks.items()}
            actions[discarding] = self._discards(chosen, masks[discarding])
        return actions

    @staticmethod
    def _row(blocks: dict[str, np.ndarray], row: int) -> dict[str, np.ndarray]:
        return {name: block[row] for name, block in blocks.items()}

    # ------------------------------------------------------------------ draw
    def _wants_top(self, b: dict[str, np.ndarray]) -> bool:
        """Opened: under ``dead_ends="prevent"`` the mask already says the top can be laid, under ``"take_back"``
        a plan must lay it. Not opened: an opening must lay it."""
        opened = bool(b["opened"][0])
        if opened and self.rules.dead_ends == "prevent":
            return True
        top = int(np.flatnonzero(b["discard_top"])[0])
        hand = b["hand"].astype(np.int64)
        hand[top] += 1
        need = 0 if opened else self.rules.discard_pickup_min_lay or self.rules.opening_threshold
        need_pure = not opened and self.rules.opening_requires_pure_run
        return self._plan(b, hand, (need, need_pure, [top]), opened) is not None

    # ------------------------------------------------------------------ plays
    def _play(self, b: dict[str, np.ndarray], mask: np.ndarray) -> int:
        """The play to make, or -1 to discard."""
        opened = bool(b["opened"][0])
        if not opened and mask[COMMIT]:
            return COMMIT
        if opened:
            swaps = np.flatnonzero(mask[self.layout.swap_offset:self.layout.discard_offset])
            if swaps.size:
                return self.layout.swap(int(swaps[0]))
        hand = b["hand"].astype(np.int64)
        plan = self._plan(b, hand, self._goal(b, opened), opened)
        for action in plan or ():
            if mask[action]:
                return action
        if opened and hand.sum() <= 2 and hand[JOKER]:
            joker_lay_offs = [self.layout.lay_off(slot, code) for slot in range(self.rules.num_slots)
                              for code in (JOKER, JOKER + 1)]
            for action in joker_lay_offs:
                if mask[action]:
                    return action
        if not opened and b["turn_state"][3] and mask[UNDO]:
            return UNDO  # the opening plan broke down: take it back (the engine's budget, R24)
        if mask[self.discards].any():
            return -1
        if mask[TAKE_BACK]:
            return TAKE_BACK  # the plan broke down and no undo is left: take the turn back (R25)
        return self._any_play(mask)

    def _goal(self, b: dict[str, np.ndarray], opened: bool) -> tuple[int, bool, list[int]]:
        """What this turn's plays must still achieve, read from the turn state (R11, R6, R14): the opening points
        still missing, whether a pure run is, and the cards that must be laid (repeated for several copies)."""
        turn = b["turn_state"]
        taken = np.flatnonzero(b["taken"])
        required = [] if not taken.size or turn[1] else [int(taken[0])]
        required += [JOKER] * int(turn[2])
        required += [int(c) for c in np.flatnonzero(b["pending"]) for _ in range(int(b["pending"][c]))]
        if opened:
            return 0, False, required
        threshold = self.rules.opening_points_needed(bool(taken.size))
        points = 128 * int(b["turn_points"][0]) + int(b["turn_points"][1])
        mine = (b["slot_tentative"] > 0) & (b["slot_kind"] == KIND_RUN) & (b["slot_cards"][:, JOKER] == 0)
        need_pure = self.rules.opening_requires_pure_run and not mine.any()
        return max(threshold - points, 0), need_pure, required

    def _plan(self, b: dict[str, np.ndarray], hand: np.ndarray, goal: tuple[int, bool, list[int]],
              opened: bool) -> list[int] | None:
        """The actions that start laying each piece of the best plan for ``goal`` (``_goal``), in laying order, or
        None when no plan meets it: the compiled planner (``rummy_env.engine.rami51.planner``) over the table this
        observation shows."""
        need, need_pure, required = goal
        melds = self._table(b, opened)
        takes = self._takes(b, melds) if opened else np.zeros((0, 3), dtype=np.int64)
        out = np.empty(MAX_PIECES, dtype=np.int64)
        size = plan_actions(hand, b["pending"].astype(np.int64), b["slot_cards"].sum(axis=0).astype(np.int64), melds,
                            takes, int(need), bool(need_pure), np.bincount(required, minlength=JOKER + 1),
                            self.tables, self.cfg, out)
        return out[:size].tolist() if size >= 0 else None

    def _takes(self, b: dict[str, np.ndarray], melds: np.ndarray) -> np.ndarray:
        """Rows ``(slot, choice, card)`` of every natural a TAKE may remove (R13): an end of a run of 4+
        cards, any natural of a 4-card set."""
        rules = self.rules
        takes = []
        for slot, kind, key, lo, hi, suits, _ in melds.tolist() if rules.allow_take_from_meld else ():
            members = b["slot_cards"][slot]
            if members.sum() < 4 or (b["slot_owner"][slot] == 1 and not rules.take_from_own_melds):
                continue
            if kind == KIND_SET:
                takes += [(slot, suit, cards.card_type(key, suit)) for suit in range(4) if suits >> suit & 1]
                continue
            for choice, position in enumerate((lo, hi)):
                if b["slot_joker"][slot] != position + 1:
                    takes.append((slot, choice, cards.card_type((position - 1) % 13 + 1, key)))
        return np.array(takes, dtype=np.int64).reshape(-1, 3)

    def _table(self, b: dict[str, np.ndarray], opened: bool) -> np.ndarray:
        """The table melds this player may extend now (before opening: its tentative ones, and the
        others with ``opening_may_use_table``, R11.3), as rows ``(slot, kind, key, lo, hi, suits bits,
        count)``: a set of rank ``key``, a run of suit ``key`` over ``lo..hi``; runs round the corner are
        left out."""
        melds = []
        may_use_all = opened or self.rules.opening_may_use_table
        for slot in np.flatnonzero(b["slot_kind"]):
            if not (may_use_all or b["slot_tentative"][slot]):
                continue
            members = b["slot_cards"][slot]
            naturals = np.flatnonzero(members[:JOKER])
            count = int(members.sum())
            if b["slot_kind"][slot] == KIND_SET:
                suits = sum(1 << cards.suit_of(int(c)) for c in naturals)
                melds.append((int(slot), KIND_SET, cards.rank_of(int(naturals[0])), 0, 0, suits, count))
            elif not self.rules.circular_runs:
                span = self._run_span(naturals, int(b["slot_joker"][slot]), count)
                if span:
                    melds.append((int(slot), KIND_RUN, cards.suit_of(int(naturals[0])), *span, 0, count))
        return np.array(melds, dtype=np.int64).reshape(-1, 7)

    @staticmethod
    def _run_span(naturals: np.ndarray, joker: int, count: int) -> tuple[int, int] | None:
        """``(lo, hi)`` positions of a run of ``count`` cards from its naturals and its joker's
        position (+1; 0: none): an ace is low (1) or high (14), a 14-card run holds both."""
        ranks = [cards.rank_of(int(c)) for c in naturals]
        positions = [rank for rank in ranks if rank > 1] + ([joker - 1] if joker else [])
        for aces in ((1,), (14,), (1, 14)) if 1 in ranks else ((),):
            spots = positions + list(aces)
            if max(spots) - min(spots) + 1 == count:
                return min(spots), max(spots)
        return None

    def _any_play(self, mask: np.ndarray) -> int:
        """A turn that owes cards and has no plan: the first legal play (COMMIT, MELD, LAY_OFF, ...)."""
        plays = np.flatnonzero(mask[self.plays])
        plays = plays[plays != UNDO - COMMIT]
        if plays.size:
            return COMMIT + int(plays[0])
        return int(np.flatnonzero(mask)[0])

    # ------------------------------------------------------------------ discard
    def _discards(self, b: dict[str, np.ndarray], masks: np.ndarray) -> np.ndarray:
        """The legal discard of each row that helps least (module docstring), vectorised. Helping:
        partners in the hand (before opening, run partners count more: the pure run is the harder
        part, R11.2) and table melds the card would fit, now or after one more card."""
        hands = b["hand"].astype(np.float64)
        opened = b["opened"][:, 0] > 0
        run_weight = np.where(opened, 1.0, 1.5)[:, None]
        set_partners = hands @ self.same_rank
        usefulness = (set_partners + run_weight * (hands @ self.next_to + 0.5 * hands @ self.two_apart)
                      - 0.5 * (hands > 1))  # a second copy is less needed than the first
        fits_now, fits_later = self._table_fits(b)
        usefulness += fits_now + np.where(opened, 0.4, 0.0)[:, None] * fits_later
        usefulness[:, JOKER] = JOKER_WEIGHT
        sign = np.where(opened, -1.0, 1.0)[:, None]  # opened: shed points; not opened: keep high cards
        legal = masks[:, self.discards] > 0
        score = np.where(legal, usefulness + 0.01 * sign * self.values, np.inf)
        actions = self.layout.discard_offset + score.argmin(axis=1)
        none = ~legal.any(axis=1)
        actions[none] = [int(np.flatnonzero(row)[0]) for row in masks[none]]
        return actions

    def _table_fits(self, b: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Per row, the naturals that fit a table meld now (a run end, a set's missing suit) and
        those two positions beyond a run end."""
        members = b["slot_cards"] > 0
        kind = b["slot_kind"][..., None]
        outside = ~members
        near = (members @ self.next_to > 0) & outside
        far = (members @ self.two_apart > 0) & outside & ~near
        open_set = (kind == KIND_SET) & (members.sum(axis=2, keepdims=True) < 4)
        fits_now = ((kind == KIND_RUN) & near | open_set & (members @ self.same_rank > 0) & outside).any(axis=1)
        fits_later = ((kind == KIND_RUN) & far).any(axis=1)
        return fits_now.astype(np.float64), fits_later.astype(np.float64)

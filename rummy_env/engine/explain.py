"""Words for why an action is illegal, for error messages (not on the hot path).

The verdict itself always comes from the compiled legality predicates; this module only finds the
first reason that applies, in the order a player would check them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rummy_env import cards
from rummy_env.engine import kernels
from rummy_env.engine.state import PHASE_DRAW, PHASE_NAMES, PHASE_PLAY

if TYPE_CHECKING:
    from rummy_env.engine.core import RummyEngine


def explain(engine: "RummyEngine", row: int, action: int) -> str:
    layout, rules = engine.layout, engine.rules
    r = engine.state[row]
    if not 0 <= action < layout.num_actions:
        return f"action {action} is outside the action space 0..{layout.num_actions - 1}"
    seat, phase = int(r["current"]), int(r["phase"])
    described = f"player_{seat} cannot {layout.to_str(action)}"
    if engine.is_legal(row, action):
        return f"action {action} ({layout.to_str(action)}) is legal"
    if phase not in (PHASE_DRAW, PHASE_PLAY):
        return f"{described}: the {'hand' if PHASE_NAMES[phase] == 'hand_over' else 'game'} is over"
    kind, a, b = layout.decode(action)
    if engine.rami:  # the basic reasons below do not apply (and lay-off code 53 is no card type)
        return f"{described}: the rami51 rules do not allow it in this position (R6-R24, no-dead-end mask R23)"
    if phase == PHASE_DRAW:
        if kind == "draw_stock":
            return f"{described}: the stock is empty (B11)"
        if kind == "draw_discard":
            return f"{described}: the discard pile is empty"
        return f"{described}: a turn starts with a draw from the stock or the discard pile (B6)"
    if kind in ("draw_stock", "draw_discard"):
        return f"{described}: player_{seat} has already drawn this turn (B6)"
    hand = r["hand"][seat]
    if kind == "discard":
        if hand[a] == 0:
            return f"{described}: {cards.symbol(a)} is not in the hand"
        return f"{described}: {cards.symbol(a)} was taken from the discard pile this turn (B7)"
    if kind == "meld":
        missing = [cards.symbol(int(card)) for card in layout.catalogue.cards[a] if hand[card] == 0]
        if missing:
            return f"{described}: {' '.join(missing)} not in the hand"
        if r["slot_n"] >= rules.num_slots:
            return f"{described}: the table has no free slot"
        return f"{described}: {_dead_end(engine, row)}"
    slot, card = a, b
    if slot >= r["slot_n"]:
        return f"{described}: slot {slot} holds no meld"
    if hand[card] == 0:
        return f"{described}: {cards.symbol(card)} is not in the hand"
    if rules.must_meld_before_layoff and not r["has_melded"][seat]:
        return f"{described}: must_meld_before_layoff requires a meld of one's own first (B9)"
    if kernels.fit_end(int(r["slot_kind"][slot]), int(r["slot_key"][slot]), int(r["slot_lo"][slot]),
                       int(r["slot_hi"][slot]), int(r["slot_count"][slot]), card, engine.cfg) == 0:
        members = " ".join(cards.symbol(int(c)) for c in range(rules.num_card_types) if r["slot_cards"][slot][c])
        return f"{described}: {cards.symbol(card)} does not extend the meld {members} (B8, B9, B15)"
    return f"{described}: {_dead_end(engine, row)}"


def _dead_end(engine: "RummyEngine", row: int) -> str:
    r = engine.state[row]
    if engine.rules.must_discard_to_go_out:
        return "it would leave no card to discard, and must_discard_to_go_out requires going out by a discard (B10, B18)"
    taken = int(r["taken"])
    return (f"it would leave only {cards.symbol(taken)}, taken from the discard pile this turn, which can be "
            f"neither discarded (B7) nor laid off: the turn could not be finished (B18)")

"""Words for why an action is illegal, for error messages (not on the hot path).

The verdict itself always comes from the compiled legality predicates; this module only finds the
first reason that applies, in the order a player would check them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rummy_env import cards
from rummy_env.engine import kernels, rami
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
    if engine.rami:
        return f"{described}: {_rami_reason(engine, row, kind, a, b)}"
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


def _rami_reason(engine: "RummyEngine", row: int, kind: str, a: int, b: int) -> str:
    """The first rami51 reason that applies; a locally valid play that is still illegal breaks the
    no-dead-end rule (R23)."""
    r, cfg = engine.state[row], engine.cfg
    seat, phase = int(r["current"]), int(r["phase"])
    opened = bool(r["opened"][seat])
    if phase == PHASE_DRAW:
        if kind == "draw_stock":
            return "the stock is empty (R17)"
        if kind != "draw_discard":
            return "a turn starts with a draw from the stock or the discard pile (R6)"
        if int(r["pile_n"]) == 0:
            return "the discard pile is empty"
        if int(r["hand_n"][seat]) == 1:
            return "a player with one card left may not take the discard top (R7)"
        if engine.rules.discard_pickup_from_second_round and int(r["turns"]) < engine.rules.num_players:
            return "nobody takes the discard top before every player has had a turn (discard_pickup_from_second_round)"
        return ("the discard top can be taken only if that card can be laid this turn, and no legal way to lay it "
                "exists (R6, AR2; for a player who has not opened: within a valid opening, R11)")
    if kind in ("draw_stock", "draw_discard"):
        return "the player has already drawn this turn, or it is the dealer's first turn, which has no draw (R5, R6)"
    if kind == "undo":
        return "nothing tentative to take back, or the undos of this turn are used up (max_undos_per_turn, R24)"
    if kind == "commit":
        if opened:
            return "the player has already opened (R11.5)"
        if int(r["tentative"]) == 0:
            return "no tentative play to commit (R11.5)"
        if int(r["taken"]) >= 0 and not r["taken_laid"]:
            return f"the opening must contain {cards.symbol(int(r['taken']))}, taken from the discard pile (R6, AR2)"
        need = int(rami.threshold(r, cfg))
        if int(r["turn_points"]) < need:
            return f"the opening counts {int(r['turn_points'])} points, below {need} (R10, R11.1)"
        if engine.rules.opening_requires_pure_run and not rami.has_pure_run(r):
            return "the opening has no pure run (a joker-free run of own cards, R11.2, AR8)"
        return "after the commit the turn could not be finished (R23)"
    hand = r["hand"][seat]
    if kind == "discard":
        if hand[a] == 0:
            return f"{cards.symbol(a)} is not in the hand"
        if a == int(r["taken"]):
            return f"{cards.symbol(a)} was taken from the discard pile this turn and must be laid (R6)"
        if int(r["pending"].sum()) + int(r["freed_jokers"]) > 0:
            return "cards taken from melds or a freed joker must go into a new meld first (R13, R14)"
        if int(r["taken"]) >= 0 and not r["taken_laid"]:
            return f"{cards.symbol(int(r['taken']))}, taken from the discard pile, must be laid first (R6)"
        if int(r["tentative"]) > 0:
            return "tentative plays are on the table: COMMIT the opening or UNDO them first (R11.5)"
        if not b:
            return "discarding without announcing applies only to the discard that leaves one card (R7)"
        return "this discard would end the turn against R15/R16 (final discard, all-at-once requirements)"
    if not rami.may_play(r, cfg):
        return "the dealer's first turn allows only a discard (dealer_first_turn_may_meld = false, R5)"
    action = engine.layout.meld(a) if kind == "meld" else (
        engine.layout.lay_off(a, b) if kind == "lay_off" else engine.layout.take(a, b) if kind == "take" else engine.layout.swap(a))
    if rami.play_ok(r, action, engine.catalogue, cfg):
        return "after it the turn could not be finished: no legal discard, opening or out would remain (R23)"
    if kind == "meld":
        return "its cards are not all in the hand (own cards: pending ones need an own card beside them), " \
               "the table is full, or a joker run's card is not burnt (R8, R9, R13, R21.2)"
    if kind == "lay_off":
        return ("the card is not held as an own card or does not extend that meld; a joker never goes onto an "
                "opponent's run or into a meld that has one (R9, R12, AR6)")
    if kind == "take":
        return "a card can be taken only from a meld of 4+ cards that keeps a valid meld of 3, never a joker (R13, AR7)"
    return ("a joker can be swapped only by a player who has opened, for the natural card it stands for, "
            "and not in a 3-card set (R14, AR13)")

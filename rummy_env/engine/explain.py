"""Words for why an action is illegal, from the reason code the legality check returned
(``rummy_env.engine.reasons``): error messages, never on the hot path, never a second verdict."""

from __future__ import annotations

from rummy_env import cards
from rummy_env.actions import ActionLayout
from rummy_env.engine import reasons as why
from rummy_env.engine.families import family
from rummy_env.engine.positions import meld_cards
from rummy_env.engine.table import card_at
from rummy_env.melds import KIND_RUN
from rummy_env.rules import RummyRules

# the words of every family that has these codes (a family's ``WORDS`` adds its own)
SHARED_WORDS = {
    why.HAND_OVER: "the hand is over",
    why.GAME_OVER: "the game is over",
    why.PILE_EMPTY: "the discard pile is empty",
    why.NOT_IN_HAND: "{card} is not in the hand",
    why.TABLE_FULL: "the table has no free slot",
    why.NO_MELD_IN_SLOT: "slot {slot} holds no meld",
    why.NOT_IN_RULESET: "that action does not exist in this ruleset",
}


def explain(rules: RummyRules, layout: ActionLayout, r, action: int, code: int) -> str:
    """Why ``action`` is illegal in game record ``r``, given the ``code`` its legality check returned."""
    if code == why.OUTSIDE_SPACE:
        return f"action {action} is outside the action space 0..{layout.num_actions - 1}"
    if code == why.LEGAL:
        return f"action {action} ({layout.to_str(action)}) is legal"
    seat = int(r["current"])
    described = f"player_{seat} cannot {layout.to_str(action)}"
    return f"{described}: {_reason(rules, layout, r, action, code, seat)}"


def _reason(rules: RummyRules, layout: ActionLayout, r, action: int, code: int, seat: int) -> str:
    kind, a, b = layout.decode(action)
    words = family(rules.ruleset).words
    if code == why.DEAD_END:
        return words.dead_end_words(rules, r, kind)
    card = a if kind == "discard" else b if kind == "lay_off" else -1
    if kind == "meld":
        missing = [cards.symbol(c) for c in layout.catalogue.members(a) if r["hand"][seat][c] == 0]
        if code == why.NOT_IN_HAND:
            return f"{' '.join(missing)} not in the hand"
    text = words.WORDS.get(code, words.WORDS.get(why.NOT_NOW, ""))
    return text.format(**words.word_context(rules, layout, r, kind, a, card, seat))


def table_context(rules: RummyRules, layout: ActionLayout, r, kind: str, slot: int, card: int, seat: int) -> dict:
    """The figures the basic and rami51 words quote: the player, the slot and its meld, the card, the card taken from
    the pile, the turn's points and the opening threshold (R10, R11), the joker a SWAP names (R14)."""
    taken, on_table = int(r["taken"]), slot < r["slot_n"]
    return {
        "player": f"player_{seat}", "slot": slot, "points": int(r["turn_points"]),
        "card": cards.symbol(min(card, cards.JOKER)) if card >= 0 else "",
        "taken": cards.symbol(taken) if taken >= 0 else "",
        "threshold": _threshold(rules, r), "minimum": rules.discard_pickup_min_lay,
        "members": " ".join(cards.symbol(c) for c in meld_cards(rules, r, slot)) if on_table and kind == "lay_off" else "",
        "represented": _represented(r, slot) if on_table and kind == "swap" else "",
    }


def _threshold(rules: RummyRules, r) -> int:
    if int(r["taken"]) >= 0 and rules.discard_pickup_min_lay is not None:
        return rules.discard_pickup_min_lay
    return rules.opening_threshold


def _represented(r, slot: int) -> str:
    joker_at = int(r["slot_joker"][slot])
    if joker_at < 0:
        return "card"
    if r["slot_kind"][slot] == KIND_RUN:
        return cards.symbol(card_at(int(r["slot_key"][slot]), joker_at))
    return cards.symbol(card_at(joker_at, int(r["slot_key"][slot])))

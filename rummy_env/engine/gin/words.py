"""Why a gin action is illegal, in words (G3-G14): the family's wording of the reason codes and the figures
they quote, worked out from the record for the message only (``rummy_env.engine.explain`` formats them)."""

from __future__ import annotations

import numpy as np

from rummy_env import cards
from rummy_env.engine import reasons as why
from rummy_env.engine.gin import deadwood
from rummy_env.engine.state import PHASE_NAMES, PHASE_WALL

WORDS = {
    why.HAND_OVER: "the hand is over",
    why.GAME_OVER: "the game is over",
    why.MUST_DRAW: "a turn starts with a draw: the stock or the upcard (G4)",
    why.ALREADY_DREW: "{player} has already drawn this turn (G4)",
    why.STOCK_EMPTY: "the stock is empty",
    why.PILE_EMPTY: "there is no upcard to take",
    why.NOT_IN_HAND: "{card} is not in the hand",
    why.DISCARD_TAKEN: "{card} was taken from the discard pile this turn (forbid_discarding_taken_card, G4)",
    why.DOES_NOT_FIT: "{card} extends none of the knocker's melds{cap} (G8)",
    why.UPCARD_OFFER: "the first upcard is on offer: take it or pass (G3)",
    why.UPCARD_PASSED: "both players passed the first upcard: the non-dealer draws from the stock (G3, EG5)",
    why.STOCK_AT_WALL: 'two cards are left in the stock: take the discard or declare the hand dead '
                       '(wall_rule = "pickup_or_dead", G14)',
    why.CANNOT_KNOCK: "the least deadwood after an allowed discard would be {deadwood}, above the knock card {limit} "
                      "(G6)",
    why.SHORTCUT_REFUSES: 'OpenSpiel\'s 11-card deadwood (knock_deadwood = "openspiel_shortcut") is {shortcut}, above '
                          'the knock card {limit}, although a discard would leave {deadwood} (G13, EG9)',
    why.GIN_FORCED: "a discard can leave gin, and gin_forced allows only the gin knock (G14)",
    why.KNOCK_DISCARD_TOO_HIGH: "after discarding {card} the deadwood would be {after}, above the knock card {limit} "
                                "(G6)",
    why.NO_BIG_GIN: "big gin needs all 11 cards in melds, and big_gin_bonus > 0 (G7)",
    why.MELD_TOO_COSTLY: "no arrangement of the hand with this meld leaves deadwood within {limit} (G6, EG12)",
    why.DEADWOOD_LEFT: "the cards left count {left}, above {limit}: lay more melds first (G6)",
    why.LAYOFFS_OVER: "lay-offs come before the defender's melds, and none are allowed on gin or with layoffs = false "
                      "(G8, EG3)",
    why.NOT_NOW: "{now}",
}
GIN_NOW = {  # phase -> what it allows (why.NOT_NOW)
    "upcard": "the first upcard is on offer: take it or pass (G3)",
    "draw": "a turn starts with a draw (G4)",
    "play": "after the draw a player discards or knocks (G4, G6)",
    "wall": "at the wall a player knocks with the upcard or passes (G10)",
    "knock": "the knocker discards (or declares big gin), then lays melds and passes (G6, G7)",
    "layoff": "the defender lays off onto the knocker's melds, or passes (G8)",
    "defend": "the defender lays his melds, or passes (G8)",
}


def word_context(rules, layout, r, kind: str, slot: int, card: int, seat: int) -> dict:
    """The figures the gin words quote (G6, G13), worked out from the record for the message only."""
    ubuf, ibuf = (buf[0] for buf in deadwood.scratch(1))
    hand = deadwood.hand_mask(r["hand"][seat])
    avoid = np.uint64(0)
    if rules.forbid_discarding_taken_card and int(r["taken"]) >= 0:
        avoid = deadwood.bit(int(r["taken"]))
    if int(r["phase"]) == PHASE_WALL:
        top = int(r["pile"][int(r["pile_n"]) - 1])
        hand |= deadwood.bit(top)
        avoid = deadwood.bit(top) if rules.forbid_discarding_taken_card else np.uint64(0)
    exact, shortcut, _ = deadwood.knock_figures(hand, avoid, ubuf, ibuf)
    after = deadwood.deadwood(hand & ~deadwood.bit(card), ubuf, ibuf) if card >= 0 else 0
    cap = rules.max_layoffs_per_run_end
    return {"player": f"player_{seat}", "card": cards.symbol(card) if card >= 0 else "", "limit": int(r["knock_limit"]),
            "deadwood": exact, "shortcut": shortcut, "after": after, "left": deadwood.cards_value(hand),
            "cap": f", or that run end already took {cap} cards (max_layoffs_per_run_end)" if cap else "",
            "now": GIN_NOW.get(PHASE_NAMES[int(r["phase"])], "")}


__all__ = ["WORDS", "word_context"]  # no dead end: a gin turn can always be finished

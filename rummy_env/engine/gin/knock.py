"""Knocking (G6, G7, G13, G14, EG8, EG9, EG12): who may knock, the knocker's discard, big gin, which melds
he may lay and when he may stop, each as a check returning a reason code.

The knocker lays the arrangement he chooses (EG12): a meld is legal when some arrangement of his hand that
contains it leaves deadwood within the limit (``knock_limit``, or 0 after declaring big gin), so the mask always
leaves him a way to finish, and the best arrangement is always among the ways offered.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.engine import reasons as why
from rummy_env.engine.config import KNOCK_SHORTCUT
from rummy_env.engine.gin.deadwood import (
    NO_DISCARD, bit, cards_value, deadwood, hand_mask, knock_figures, melded_points,
)
from rummy_env.engine.jit import JIT

STAGE_DISCARD, STAGE_LAYING, STAGE_BIG_GIN = 0, 1, 2  # r.knock_stage


@nb.njit(**JIT)
def avoid_bits(r, cfg) -> np.uint64:
    """The card that may not be discarded this turn (G4, EG4), as bits."""
    if cfg.forbid_discarding_taken_card and r.taken >= 0:
        return bit(r.taken)
    return np.uint64(0)


@nb.njit(**JIT)
def gin_discard_possible(h: np.uint64, avoid: np.uint64, ubuf, ibuf) -> bool:
    """Some allowed discard leaves an 11-card hand ``h`` with no deadwood."""
    return knock_figures(h, avoid, ubuf, ibuf)[0] == 0


@nb.njit(**JIT)
def knock_check(h: np.uint64, avoid: np.uint64, r, cfg, ubuf, ibuf) -> int:
    """May the player holding the 11 cards ``h`` knock (G6, G7)? The least deadwood after an allowed discard
    must be within the knock limit, and with ``knock_deadwood="openspiel_shortcut"`` OpenSpiel's figure too
    (G13, EG9); big gin (every card melded, ``big_gin_bonus`` > 0) may knock without a discard."""
    exact, shortcut, unmelded = knock_figures(h, avoid, ubuf, ibuf)
    if cfg.big_gin_bonus > 0 and unmelded == 0:
        return why.LEGAL
    if exact == NO_DISCARD or exact > r.knock_limit:
        return why.CANNOT_KNOCK
    if cfg.knock_deadwood == KNOCK_SHORTCUT and shortcut > r.knock_limit:
        return why.SHORTCUT_REFUSES
    return why.LEGAL


@nb.njit(**JIT)
def knock_discard_check(r, p: int, card: int, cfg, ubuf, ibuf) -> int:
    """The knocker's discard (G6): in hand, allowed (G4), and leaving deadwood within the limit; only a gin
    discard when gin is forced and possible (G14)."""
    if r.hand[p, card] == 0:
        return why.NOT_IN_HAND
    avoid = avoid_bits(r, cfg)
    if avoid & bit(card):
        return why.DISCARD_TAKEN
    h = hand_mask(r.hand[p])
    left = deadwood(h & ~bit(card), ubuf, ibuf)
    if cfg.gin_forced and left > 0 and gin_discard_possible(h, avoid, ubuf, ibuf):
        return why.GIN_FORCED
    return why.LEGAL if left <= r.knock_limit else why.KNOCK_DISCARD_TOO_HIGH


@nb.njit(**JIT)
def big_gin_check(r, p: int, cfg, ubuf, ibuf) -> int:
    """Big gin (G7, EG8): before the knock discard, every card of the hand melds, and big gin is played."""
    if cfg.big_gin_bonus <= 0:
        return why.NO_BIG_GIN
    h = hand_mask(r.hand[p])
    return why.LEGAL if melded_points(h, ubuf, ibuf) == cards_value(h) else why.NO_BIG_GIN


@nb.njit(**JIT)
def laying_limit(r) -> int:
    return 0 if r.knock_stage == STAGE_BIG_GIN else r.knock_limit


@nb.njit(**JIT)
def knocker_meld_check(r, p: int, cards: np.uint64, cfg, ubuf, ibuf) -> int:
    """A meld of the knocker (G6, EG12): its cards in hand, and some arrangement of the hand containing it
    within the limit."""
    h = hand_mask(r.hand[p])
    if cards & ~h:
        return why.NOT_IN_HAND
    rest = h & ~cards
    if cards_value(rest) - melded_points(rest, ubuf, ibuf) > laying_limit(r):
        return why.MELD_TOO_COSTLY
    return why.LEGAL


@nb.njit(**JIT)
def knocker_pass_check(r, p: int) -> int:
    """The knocker stops laying melds (G6): what is left is within the limit."""
    return why.LEGAL if cards_value(hand_mask(r.hand[p])) <= laying_limit(r) else why.DEADWOOD_LEFT

"""The stock as OpenSpiel chance nodes (B11, R17, R25): which cards a player draws is decided when he draws them.

The engine keeps the stock as an ordered array and draws from its top. An OpenSpiel game must put every
random event in a chance node, so the games never let that order decide anything: before an action that
draws from the stock is applied, chance nodes choose the cards it draws, one at a time, from the stock's
cards (each with probability copies / cards left), and those cards are put on top in that order. The rest
of the stock keeps whatever order it had; no one ever draws from it without a chance node first.

When the stock runs out during an action (a rami51 penalty draw, R17, R25), the engine draws what is left
(no choice), rebuilds the stock from the discard pile with its own shuffle and draws on. The cards drawn
after the rebuild are chosen again by chance nodes from the rebuilt stock, and the hand and the stock are
corrected to that choice. Which cards the rebuild took is read from the same action applied with spare cards
under the stock, so that no rebuild happens: its discard pile is the one the real action rebuilt from.

The engine's UNDO and TAKE_BACK copy (R24, R25) holds the stock of the turn's start; while its lower part
is the stock now, it is reordered with it, so that a take-back draws what the chance nodes chose.
"""

from __future__ import annotations

import numpy as np

def counts(card_list, types: int) -> np.ndarray:
    """Copies of each card type in ``card_list``, ``(types,)`` int64."""
    return np.bincount(np.asarray(card_list, dtype=np.int64), minlength=types)


def stock_counts(record: np.ndarray, types: int) -> np.ndarray:
    """The cards of a one-record array's stock, by type."""
    return counts(record["stock"][0, :record["stock_n"][0]], types)


def pile_counts(record: np.ndarray, types: int, keep_top: bool) -> np.ndarray:
    """The cards a rebuild of the record's stock would take from its discard pile (all, or all but the top)."""
    n = int(record["pile_n"][0]) - int(keep_top)
    return counts(record["pile"][0, :max(n, 0)], types)


def shares_stock(record: np.ndarray, undo: np.ndarray, n: int) -> bool:
    """Whether the UNDO copy's stock starts with the record's ``n`` stock cards (the copy was taken this turn
    and only draws changed the stock since)."""
    return int(undo["stock_n"][0]) >= n and np.array_equal(undo["stock"][0, :n], record["stock"][0, :n])


def put_on_top(record: np.ndarray, undo: np.ndarray, chosen: list[int]) -> None:
    """Reorder the stock so that ``chosen[0]`` is drawn first, then ``chosen[1]``, ...; the UNDO copy's
    stock gets the same order where it shares the stock's cards."""
    n = int(record["stock_n"][0])
    shared = shares_stock(record, undo, n)
    order = [int(card) for card in record["stock"][0, :n]]
    for card in chosen:
        order.remove(card)
    order += chosen[::-1]
    record["stock"][0, :n] = order
    if shared:
        undo["stock"][0, :n] = order


def with_spare_cards(record: np.ndarray, undo: np.ndarray, turn_copy: bool) -> tuple[np.ndarray, np.ndarray]:
    """Copies of the record and its UNDO copy with spare cards (card type 0) in every free place under the stock,
    so that no rebuild happens: the UNDO copy gets them too where the family keeps one (``turn_copy``, rami51)
    and it shares the stock's cards."""
    record, undo = record.copy(), undo.copy()
    n = int(record["stock_n"][0])
    copies = [record] + ([undo] if turn_copy and shares_stock(record, undo, n) else [])
    spare = record["stock"].shape[1] - max(int(copy["stock_n"][0]) for copy in copies)
    for copy in copies:
        size = int(copy["stock_n"][0])
        copy["stock"][0, spare:spare + size] = copy["stock"][0, :size].copy()
        copy["stock"][0, :spare] = 0
        copy["stock_n"][0] = size + spare
    return record, undo


def replace_drawn(record: np.ndarray, seat: int, drawn: np.ndarray, chosen: np.ndarray, pool: np.ndarray,
                  history: list[int]) -> None:
    """Give ``seat`` the cards ``chosen`` (by type) instead of ``drawn`` after a rebuild that took ``pool``;
    the stock becomes the rest of the pool (``unordered``)."""
    record["hand"][0, seat, :len(drawn)] += (chosen - drawn).astype(np.int8)  # hand rows span every card type
    order = unordered(pool - chosen, history)
    record["stock"][0, :len(order)] = order
    record["stock_n"][0] = len(order)


def unordered(copies: np.ndarray, history: list[int]) -> np.ndarray:
    """The cards ``copies`` (by type) in an order shuffled by the game's history: no draw reads it (chance nodes
    choose every card drawn), but code that plays on from the record (a compiled rollout) draws from the top, and
    a sorted stock would give it the jokers and kings first. The same history gives the same order, so that a
    game replayed from its history is the same to the byte."""
    order = np.repeat(np.arange(len(copies)), copies)
    np.random.default_rng([int(action) for action in history] or [0]).shuffle(order)
    return order


def outcomes(pool: np.ndarray) -> list[tuple[int, float]]:
    """The chance outcomes of drawing one card from ``pool`` (copies by type): each type with copies / total."""
    total = float(pool.sum())
    return [(int(card), int(copies) / total) for card, copies in enumerate(pool) if copies]

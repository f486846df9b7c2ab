"""Worlds consistent with what one seat has seen: the kernels behind ``rummy_env.beliefs`` (every family).

From one seat's view, a game record hides three things: the cards of the other hands that are not publicly
known (``known``), the order of the stock, and the game's random generator (the next rebuilds of the stock).
``unseen`` counts the cards the seat cannot locate **from public fields only** (the deck less its own hand,
the discard pile, the table and the cards known in other hands); ``deal_world`` writes a copy of the record
with those cards re-dealt: each other hand keeps its known cards and gets as many unseen ones as it hides,
the stock the rest, in the dealt order, and the generator a fresh state. Every hidden field of the copy is
overwritten (the stale tails of the stock and pile arrays are zeroed, an UNDO copy that is not in use is
replaced by the world itself), so nothing hidden in the source reaches a world.

``world_features`` gives the statistics of a world that ``rummy_env.beliefs.BeliefModel`` weighs: how the
re-dealt cards of each other seat relate to that seat's public history (``engine.history``) and to each other.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.cards import JOKER
from rummy_env.engine.common import next_random, seeded_state, shuffle_prefix
from rummy_env.engine.jit import JIT
from rummy_env.engine.table import card_at, rank_of, slot_cards, suit_of
from rummy_env.melds import KIND_RUN, KIND_SET
from rummy_env.observations import H_DISCARDED, H_PASSED, H_TOOK

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
FEATURES = ("passed_rank", "passed_run1", "passed_run2", "discarded_rank", "discarded_run1", "discarded_run2",
            "took_rank", "took_run1", "took_run2", "fits_table", "passed_itself", "discarded_itself",
            "melds_in_hand", "partner_pairs", "jokers", "passed_melds", "discarded_melds", "kept_less_useful")
NUM_FEATURES = len(FEATURES)


@nb.njit(**JIT)
def unseen(r, seat: int, players: int, deck_counts, table, counts, out) -> int:
    """The cards ``seat`` cannot locate, as counts per type (``counts``) and as a list sorted by type
    (``out``); returns how many. Reads only fields ``seat`` sees; ``table`` is scratch."""
    types = deck_counts.shape[0]
    table[:] = 0
    for slot in range(r.slot_n):
        slot_cards(r, slot, table)
    for t in range(types):
        counts[t] = deck_counts[t] - r.hand[seat, t] - table[t]
        for q in range(players):
            if q != seat:
                counts[t] -= r.known[q, t]
    for j in range(r.pile_n):
        counts[r.pile[j]] -= 1
    n = 0
    for t in range(types):
        for _ in range(counts[t]):
            out[n] = t
            n += 1
    return n


@nb.njit(**JIT)
def hidden_in_hand(r, q: int) -> int:
    """Cards of seat ``q``'s hand that are not publicly known."""
    known = 0
    for t in range(r.known.shape[1]):
        known += r.known[q, t]
    return r.hand_n[q] - known


@nb.njit(**JIT)
def deal_world(src, src_undo, seat: int, players: int, cards, n: int, keep_hands: bool, generator: np.uint64,
               dst, dst_undo, turn_copy: bool) -> None:
    """``dst[0]``: the record ``src[0]`` with the cards ``cards[:n]`` dealt, in order, to the other hands (their
    hidden part; kept as they are with ``keep_hands``) and then to the stock (bottom to top); ``dst_undo[0]``
    the matching copy UNDO and TAKE_BACK return to (``turn_copy``: the family keeps one, ``families``). ``generator`` seeds the world's random generator."""
    dst[0] = src[0]
    r = dst[0]
    k = 0
    if not keep_hands:
        for q in range(players):
            if q == seat:
                continue
            r.hand[q, :] = r.known[q, :]
            for _ in range(hidden_in_hand(src[0], q)):
                r.hand[q, cards[k]] += 1
                k += 1
    for j in range(r.stock.shape[0]):
        r.stock[j] = cards[k + j] if j < r.stock_n else 0
    for j in range(r.pile_n, r.pile.shape[0]):
        r.pile[j] = 0
    r.rng = generator
    if turn_copy and r.played_turn > 0:  # the copy UNDO and TAKE_BACK return to: the same hidden cards and public difference
        dst_undo[0] = src_undo[0]
        u = dst_undo[0]
        for q in range(players):
            if q != seat:
                for t in range(r.hand.shape[1]):
                    u.hand[q, t] = r.hand[q, t] + src_undo[0].hand[q, t] - src[0].hand[q, t]
        u.stock[:] = r.stock
        u.stock_n = r.stock_n
        u.pile[u.pile_n:] = 0
        u.rng = generator
    else:
        dst_undo[0] = r


@nb.njit(**JIT)
def sample_rows(src, src_undo, seat: int, players: int, seed: np.uint64, keep_hands: bool, turn_copy: bool, deck_counts, worlds,
                world_undos) -> int:
    """``len(worlds)`` worlds of ``src[0]`` seen by ``seat``, world ``k`` shuffled by its own generator
    (``seed``, ``k``): uniform over the deals consistent with the seat's view (with ``keep_hands``, only the
    stock is re-dealt: the other hands stay as they are, an oracle's view). Returns the number of unseen
    cards, or -1 if the record's counts are inconsistent."""
    types = deck_counts.shape[0]
    table = np.zeros(types, dtype=np.int64)
    counts = np.zeros(types, dtype=np.int64)
    pool = np.zeros(src[0].stock.shape[0] + 1, dtype=np.int8)
    n = unseen(src[0], seat, players, deck_counts, table, counts, pool)
    r = src[0]
    if keep_hands:  # the oracle's view: the other hands as they are, only the stock re-dealt
        for q in range(players):
            if q != seat:
                for t in range(types):
                    counts[t] -= r.hand[q, t] - r.known[q, t]
        n = 0
        for t in range(types):
            if counts[t] < 0:
                return -1
            for _ in range(counts[t]):
                pool[n] = t
                n += 1
        if n != r.stock_n:
            return -1
    else:
        hidden = r.stock_n
        for q in range(players):
            if q != seat:
                hidden += hidden_in_hand(r, q)
        if hidden != n:
            return -1
    cards = np.empty_like(pool)
    for k in range(worlds.shape[0]):
        cards[:n] = pool[:n]
        worlds[k].rng = seeded_state(seed ^ (np.uint64(k + 1) * GOLDEN))
        shuffle_prefix(worlds[k], cards, n)
        generator = seeded_state(next_random(worlds[k]))
        deal_world(src, src_undo, seat, players, cards, n, keep_hands, generator, worlds[k:k + 1], world_undos[k:k + 1],
                   turn_copy)
    return n


# ---------------------------------------------------------------------------------------- what a model weighs
@nb.njit(**JIT)
def _near(a: int, b: int, gap: int) -> bool:
    """Naturals ``a`` and ``b``: same rank (``gap`` 0), or same suit ``gap`` ranks apart."""
    if gap == 0:
        return a != b and rank_of(a) == rank_of(b)
    return suit_of(a) == suit_of(b) and abs(rank_of(a) - rank_of(b)) == gap


@nb.njit(**JIT)
def _partner_sum(w, q: int, kind: int, card: int, gap: int) -> int:
    """How often seat ``q`` did ``kind`` with the partners of ``card`` at ``gap`` (``_near``)."""
    rank, suit = rank_of(card), suit_of(card)
    total = 0
    if gap == 0:
        for other_suit in range(4):
            if other_suit != suit:
                total += w.history[q, kind, card_at(other_suit, rank)]
        return total
    for other_rank in (rank - gap, rank + gap):
        if 1 <= other_rank <= 13:
            total += w.history[q, kind, card_at(suit, other_rank)]
    return total


@nb.njit(**JIT)
def _fits_table(r, card: int) -> bool:
    """A natural that would extend a table meld: a set's missing suit, a run's next card at either end."""
    for slot in range(r.slot_n):
        key = r.slot_key[slot]
        if r.slot_kind[slot] == KIND_SET:
            if rank_of(card) == key and not (r.slot_suits[slot] >> suit_of(card)) & 1:
                return True
        elif r.slot_kind[slot] == KIND_RUN and suit_of(card) == key:
            rank = rank_of(card)
            if rank == (r.slot_lo[slot] - 2) % 13 + 1 or rank == r.slot_hi[slot] % 13 + 1:
                return True
    return False


@nb.njit(**JIT)
def world_features(w, seat: int, players: int, catalogue_bits, out) -> None:
    """``out[f]`` (``FEATURES``), summed over the seats other than ``seat`` and over the cards of their hands
    that are not publicly known in world ``w``: per card, how often the seat passed, discarded or took its
    partners (same rank; same suit one or two apart), whether it fits a table meld, whether the seat passed
    or discarded that very card; per hand, the 3-card melds it holds and its partner pairs (each with a card
    not publicly known), its hidden jokers, the pairs of its cards that make a 3-card meld with a card it
    passed, or with a card it discarded, and the cards it kept that were less useful than its last discard
    (fewer partners in its hand then, or as many and worth more: the heuristic discards the least useful)."""
    out[:] = 0.0
    kinds = (H_PASSED, H_DISCARDED, H_TOOK)
    for q in range(players):
        if q == seat:
            continue
        bits = np.uint64(0)
        hidden_bits = np.uint64(0)
        for t in range(JOKER):
            if w.hand[q, t] > 0:
                bits |= np.uint64(1) << np.uint64(t)
                if w.hand[q, t] > w.known[q, t]:
                    hidden_bits |= np.uint64(1) << np.uint64(t)
        for t in range(JOKER):
            hidden = w.hand[q, t] - w.known[q, t]
            if hidden <= 0:
                continue
            for k in range(3):
                for gap in range(3):
                    out[3 * k + gap] += hidden * _partner_sum(w, q, kinds[k], t, gap)
            if _fits_table(w, t):
                out[9] += hidden
            if w.history[q, H_PASSED, t] > 0:
                out[10] += hidden
            if w.history[q, H_DISCARDED, t] > 0:
                out[11] += hidden
        if w.hand.shape[1] > JOKER:
            jokers = w.hand[q, JOKER] - w.known[q, JOKER]
            out[14] += jokers
            if w.hand[q, JOKER] > 0:
                bits |= np.uint64(1) << np.uint64(JOKER)
                if jokers > 0:
                    hidden_bits |= np.uint64(1) << np.uint64(JOKER)
        for entry in range(catalogue_bits.shape[0]):
            meld = catalogue_bits[entry]
            if meld & hidden_bits == 0:
                continue
            missing = meld & ~bits
            if missing == 0:
                out[12] += 1
            elif missing & (missing - np.uint64(1)) == 0:  # one card short: was it passed or discarded?
                card = 0
                while (missing >> np.uint64(card)) & np.uint64(1) == 0:
                    card += 1
                if w.history[q, H_PASSED, card] > 0:
                    out[15] += 1
                if w.history[q, H_DISCARDED, card] > 0:
                    out[16] += 1
        out[17] += kept_less_useful(w, q)
        for a in range(JOKER):
            if not (bits >> np.uint64(a)) & np.uint64(1):
                continue
            for b in range(a + 1, JOKER):
                if (bits >> np.uint64(b)) & np.uint64(1) and ((hidden_bits >> np.uint64(a)) & np.uint64(1)
                                                               or (hidden_bits >> np.uint64(b)) & np.uint64(1)):
                    if _near(a, b, 0) or _near(a, b, 1) or _near(a, b, 2):
                        out[13] += 1


@nb.njit(**JIT)
def _partners_in(w, q: int, card: int, extra: int) -> int:
    """Meld partners of ``card`` (same rank; same suit one or two apart) in seat ``q``'s hand plus ``extra``."""
    total = 0
    for other in range(JOKER):
        count = w.hand[q, other] + (1 if other == extra else 0)
        if count > 0 and (_near(card, other, 0) or _near(card, other, 1) or _near(card, other, 2)):
            total += count
    return total


@nb.njit(**JIT)
def kept_less_useful(w, q: int) -> int:
    """Cards of seat ``q``'s hand less useful than the card it discarded last, in the hand it discarded from
    (the hand now plus that card; it has not drawn since)."""
    last = w.last_discard[q]
    if last < 0 or last >= JOKER:
        return 0
    discarded = _partners_in(w, q, last, last)
    count = 0
    for t in range(JOKER):
        if w.hand[q, t] > 0:
            useful = _partners_in(w, q, t, last)
            if useful < discarded or (useful == discarded and min(rank_of(t), 10) > min(rank_of(last), 10)):
                count += w.hand[q, t]
    return count


@nb.njit(**JIT)
def features_rows(worlds, seat: int, players: int, catalogue_bits, out) -> None:
    """``world_features`` of every world: ``out`` ``(len(worlds), NUM_FEATURES)``."""
    for k in range(worlds.shape[0]):
        world_features(worlds[k], seat, players, catalogue_bits, out[k])


# ---------------------------------------------------------------------------------------- weighted worlds
@nb.njit(**JIT)
def mcmc_rows(src, src_undo, seat: int, players: int, seed: np.uint64, turn_copy: bool, deck_counts, weights, catalogue_bits,
              burn: int, thin: int, worlds, world_undos, scratch, scratch_undo) -> float:
    """``len(worlds)`` worlds from a Metropolis chain over the deals consistent with ``seat``'s view, whose
    stationary law weighs a deal by ``exp(weights @ world_features)``: a move swaps a random hidden card of
    one other hand with a random unseen card outside it (another hand's hidden part or the stock; a
    symmetric proposal), accepted with probability ``min(1, exp(change of log-weight))``. The chain starts
    from a uniform deal, runs ``burn`` moves, then keeps a world every ``thin`` moves. Returns the
    acceptance rate (-1 if the record's counts are inconsistent)."""
    if sample_rows(src, src_undo, seat, players, seed, False, turn_copy, deck_counts, scratch, scratch_undo) < 0:
        return -1.0
    types = deck_counts.shape[0]
    table = np.zeros(types, dtype=np.int64)
    counts = np.zeros(types, dtype=np.int64)
    pool = np.zeros(src[0].stock.shape[0] + 1, dtype=np.int8)
    n = unseen(src[0], seat, players, deck_counts, table, counts, pool)
    # the chain's state: the unseen cards in dealing order (each hand's hidden part, then the stock), read
    # back from the uniform start
    cards = np.zeros_like(pool)
    owner = np.zeros(n, dtype=np.int64)
    k = 0
    start = scratch[0]
    for q in range(players):
        if q == seat:
            continue
        for t in range(types):
            for _ in range(start.hand[q, t] - start.known[q, t]):
                cards[k] = t
                owner[k] = q
                k += 1
    hand_cards = k
    for j in range(start.stock_n):
        cards[k + j] = start.stock[j]
        owner[k + j] = -1
    features = np.zeros(weights.shape[0])
    world_features(start, seat, players, catalogue_bits, features)
    log_weight = (features * weights).sum()
    generator = start.rng
    accepted = 0
    moves = burn + thin * worlds.shape[0]
    kept = 0
    for move in range(1, moves + 1):
        if hand_cards > 0 and n > 1:
            scratch[0].rng = generator
            a = int(((next_random(scratch[0]) >> np.uint64(32)) * np.uint64(hand_cards)) >> np.uint64(32))
            b = int(((next_random(scratch[0]) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))
            u = float(next_random(scratch[0]) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
            generator = scratch[0].rng
            if owner[b] != owner[a] and cards[a] != cards[b]:
                cards[a], cards[b] = cards[b], cards[a]
                deal_world(src, src_undo, seat, players, cards, n, False, generator, scratch, scratch_undo, turn_copy)
                world_features(scratch[0], seat, players, catalogue_bits, features)
                proposal = (features * weights).sum()
                if u < np.exp(min(proposal - log_weight, 0.0)):
                    log_weight = proposal
                    accepted += 1
                else:
                    cards[a], cards[b] = cards[b], cards[a]
        if move > burn and (move - burn) % thin == 0:
            deal_world(src, src_undo, seat, players, cards, n, False, seeded_state(generator ^ GOLDEN),
                       worlds[kept:kept + 1], world_undos[kept:kept + 1], turn_copy)
            kept += 1
    return accepted / moves

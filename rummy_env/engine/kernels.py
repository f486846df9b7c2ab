"""Compiled per-game kernels: dealing, the legal-action mask, legality of one action, transitions.

Each public kernel loops over the rows of the batch and calls a ``*_row`` function on one game
record. The mask and the step share the same legality predicates (``meld_legal``, ``lay_off_legal``,
``discard_legal``), so the mask is by construction what the step accepts. The no-dead-end
obligation (B18) lives in ``finishable_after_play``: a play is masked in only if the turn can still
be finished afterwards.

Numbers in comments refer to RULES.md.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.engine.config import (
    C_CORNER, C_DEAD_SCORING, C_DECK, C_DISCARD_OFFSET, C_END_MODE, C_EPISODE, C_FIRST_DEALER,
    C_FORBID_TAKEN, C_HAND_SIZE, C_KEEP_TOP, C_LAYOFF_OFFSET, C_MAX_HANDS, C_MAX_POS,
    C_MAX_RESHUFFLES, C_MAX_TURNS, C_MELD_BEFORE_LAYOFF, C_MELDS, C_MUST_DISCARD, C_NUM_HANDS, C_PLAYERS,
    C_RAMI, C_REWARD, C_RUMMY_MULT, C_SLOTS, C_TARGET, C_TYPES, C_WINNER_DEALS, F_PENALTY, F_REWARD_SCALE,
)
from rummy_env.engine.state import (
    END_DEAD_NO_DRAW, END_DEAD_RESHUFFLES, END_DEAD_TURN_CAP, END_ILLEGAL, END_NONE, END_OUT,
    PHASE_DRAW, PHASE_GAME_OVER, PHASE_HAND_OVER, PHASE_PLAY,
)
from rummy_env.melds import KIND_EMPTY, KIND_RUN, KIND_SET

JIT = dict(cache=True, nogil=True)

# catalogue columns
CAT_KIND, CAT_KEY, CAT_LO, CAT_HI = 3, 4, 5, 6


# ---------------------------------------------------------------------------------------- random numbers
@nb.njit(**JIT)
def next_random(r) -> np.uint64:
    """Advance the row's xorshift64* generator and return 64 random bits."""
    x = r.rng
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    r.rng = x
    return x * np.uint64(2685821657736338717)


@nb.njit(**JIT)
def seeded_state(seed: np.uint64) -> np.uint64:
    """A non-zero generator state from any 64-bit seed (splitmix64 finaliser, so that nearby seeds
    give unrelated games)."""
    z = seed + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return z if z != np.uint64(0) else np.uint64(0x9E3779B97F4A7C15)


@nb.njit(**JIT)
def random_below(r, n: int) -> int:
    """A uniform integer in ``0..n-1`` (multiply-shift on the high 32 bits)."""
    return int(((next_random(r) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@nb.njit(**JIT)
def shuffle_prefix(r, cards, n: int) -> None:
    """Fisher-Yates shuffle of ``cards[:n]`` in place."""
    for i in range(n - 1, 0, -1):
        j = random_below(r, i + 1)
        tmp = cards[i]
        cards[i] = cards[j]
        cards[j] = tmp


# ---------------------------------------------------------------------------------------- meld geometry
@nb.njit(**JIT)
def rank_of(card: int) -> int:
    return card % 13 + 1


@nb.njit(**JIT)
def suit_of(card: int) -> int:
    return card // 13


@nb.njit(**JIT)
def rank_at(position: int) -> int:
    return (position - 1) % 13 + 1


@nb.njit(**JIT)
def fit_end(kind: int, key: int, lo: int, hi: int, count: int, card: int, cfg) -> int:
    """Where ``card`` joins a meld: 0 = it does not fit, 1 = low end of a run, 2 = high end of a run,
    3 = into a set (B9, B15). ``count`` is the meld's size."""
    if kind == KIND_SET:
        if rank_of(card) == key and count < 4:
            return 3
        return 0
    if kind != KIND_RUN or suit_of(card) != key:
        return 0
    rank = rank_of(card)
    if cfg[C_CORNER]:
        if hi - lo + 1 >= 13:
            return 0
        if rank == rank_at(hi + 1):
            return 2
        if rank == rank_at(lo - 1):
            return 1
        return 0
    if lo - 1 >= 1 and rank == lo - 1:
        return 1
    if hi + 1 <= cfg[C_MAX_POS] and rank == rank_at(hi + 1):
        return 2
    return 0


@nb.njit(**JIT)
def fits_any_slot(r, card: int, skip_slot: int, cfg) -> bool:
    """Whether ``card`` can be laid off on some table meld other than ``skip_slot``."""
    for s in range(r.slot_n):
        if s != skip_slot and fit_end(r.slot_kind[s], r.slot_key[s], r.slot_lo[s], r.slot_hi[s], r.slot_count[s], card, cfg) != 0:
            return True
    return False


# ---------------------------------------------------------------------------------------- legality
@nb.njit(**JIT)
def finishable_after_play(r, p: int, played_a: int, played_b: int, played_c: int,
                          kind: int, key: int, lo: int, hi: int, count: int, changed_slot: int, cfg) -> bool:
    """No-dead-end check (B18) for a play that removes cards ``played_*`` (-1 = none) from seat ``p``'s
    hand and leaves the meld ``(kind, key, lo, hi, count)`` in slot ``changed_slot`` (new or extended).

    The play empties the hand: legal unless the last card must be discarded (B10). It leaves two or
    more cards: one of them is not the taken card, so a discard ends the turn. It leaves one card: a
    discard ends the turn unless that card is the one taken from the discard pile (B7); then the
    only way on is laying it off, which empties the hand."""
    left = r.hand_n[p] - (played_a >= 0) - (played_b >= 0) - (played_c >= 0)
    if left == 0:
        return not cfg[C_MUST_DISCARD]
    if left >= 2:
        return True
    taken = r.taken
    if taken < 0 or not cfg[C_FORBID_TAKEN] or r.hand[p, taken] == 0:  # no taken card left in hand
        return True
    # the single card left: the taken card unless the play used it
    if taken == played_a or taken == played_b or taken == played_c:
        return True
    if cfg[C_MUST_DISCARD]:
        return False
    if fit_end(kind, key, lo, hi, count, taken, cfg) != 0:
        return True
    return fits_any_slot(r, taken, changed_slot, cfg)


@nb.njit(**JIT)
def meld_legal(r, p: int, entry: int, catalogue, cfg) -> bool:
    """MELD ``entry``: its three cards are in hand, a slot is free, and the turn stays finishable."""
    a, b, c = catalogue[entry, 0], catalogue[entry, 1], catalogue[entry, 2]
    if r.hand[p, a] == 0 or r.hand[p, b] == 0 or r.hand[p, c] == 0 or r.slot_n >= cfg[C_SLOTS]:
        return False
    return finishable_after_play(r, p, a, b, c, catalogue[entry, CAT_KIND], catalogue[entry, CAT_KEY],
                                 catalogue[entry, CAT_LO], catalogue[entry, CAT_HI], 3, r.slot_n, cfg)


@nb.njit(**JIT)
def extended(lo: int, hi: int, end: int) -> tuple:
    """Run ends after a card joins at ``end`` (1 low, 2 high); a set keeps its ends."""
    if end == 1:
        return lo - 1, hi
    if end == 2:
        return lo, hi + 1
    return lo, hi


@nb.njit(**JIT)
def lay_off_legal(r, p: int, slot: int, card: int, cfg) -> bool:
    """LAY_OFF ``card`` on ``slot`` (B9): in hand, fits the meld, and the turn stays finishable."""
    if slot >= r.slot_n or r.hand[p, card] == 0:
        return False
    if cfg[C_MELD_BEFORE_LAYOFF] and not r.has_melded[p]:
        return False
    kind, key, lo, hi, count = r.slot_kind[slot], r.slot_key[slot], r.slot_lo[slot], r.slot_hi[slot], r.slot_count[slot]
    end = fit_end(kind, key, lo, hi, count, card, cfg)
    if end == 0:
        return False
    new_lo, new_hi = extended(lo, hi, end)
    return finishable_after_play(r, p, card, -1, -1, kind, key, new_lo, new_hi, count + 1, slot, cfg)


@nb.njit(**JIT)
def discard_legal(r, p: int, card: int, cfg) -> bool:
    """DISCARD ``card``: in hand, and not the card just taken from the discard pile (B7)."""
    if r.hand[p, card] == 0:
        return False
    return not (cfg[C_FORBID_TAKEN] and card == r.taken)


@nb.njit(**JIT)
def action_legal(r, action: int, catalogue, cfg) -> bool:
    """Whether ``action`` is legal for the player to act in game ``r``."""
    p = r.current
    if r.phase == PHASE_DRAW:
        if action == 0:
            return r.stock_n > 0
        if action == 1:
            return r.pile_n > 0
        return False
    if r.phase != PHASE_PLAY or action < 2:
        return False
    types = cfg[C_TYPES]
    if action < cfg[C_LAYOFF_OFFSET]:
        return meld_legal(r, p, action - 2, catalogue, cfg)
    if action < cfg[C_DISCARD_OFFSET]:
        offset = action - cfg[C_LAYOFF_OFFSET]
        return lay_off_legal(r, p, offset // types, offset % types, cfg)
    if action < cfg[C_DISCARD_OFFSET] + types:
        return discard_legal(r, p, action - cfg[C_DISCARD_OFFSET], cfg)
    return False


@nb.njit(**JIT)
def card_bit(card: int) -> np.uint64:
    return np.uint64(1) << np.uint64(card)


@nb.njit(**JIT)
def presence_bits(counts, types: int) -> np.uint64:
    """Bit ``t`` set where ``counts[t] > 0`` (card types fit in 64 bits)."""
    bits = np.uint64(0)
    for card in range(types):
        if counts[card] > 0:
            bits |= card_bit(card)
    return bits


@nb.njit(**JIT)
def accepted_bits(r, slot: int, cfg) -> np.uint64:
    """Cards that ``fit_end`` lets join the meld in ``slot``: the set's rank in every suit, or the
    cards just past either end of the run."""
    kind, key, lo, hi, count = r.slot_kind[slot], r.slot_key[slot], r.slot_lo[slot], r.slot_hi[slot], r.slot_count[slot]
    bits = np.uint64(0)
    if kind == KIND_SET:
        for suit in range(4):
            card = suit * 13 + key - 1
            if fit_end(kind, key, lo, hi, count, card, cfg) != 0:
                bits |= card_bit(card)
    elif kind == KIND_RUN:
        for position in (lo - 1, hi + 1):
            card = key * 13 + rank_at(position) - 1
            if fit_end(kind, key, lo, hi, count, card, cfg) != 0:
                bits |= card_bit(card)
    return bits


@nb.njit(**JIT)
def mask_row(r, out, catalogue, catalogue_bits, cfg) -> None:
    """Write the exact legal-action mask of game ``r`` into ``out`` (int8, zeroed here).

    Bitsets only pre-select candidates (the melds whose cards are all in hand, the cards a meld
    accepts); every candidate is then decided by the same predicate ``step`` uses."""
    out[:] = 0
    p = r.current
    if r.phase == PHASE_DRAW:
        out[0] = r.stock_n > 0
        out[1] = r.pile_n > 0
        return
    if r.phase != PHASE_PLAY:
        return
    types = cfg[C_TYPES]
    hand = presence_bits(r.hand[p], types)
    if r.slot_n < cfg[C_SLOTS]:
        for entry in range(cfg[C_MELDS]):
            if catalogue_bits[entry] & ~hand == 0 and meld_legal(r, p, entry, catalogue, cfg):
                out[2 + entry] = 1
    layoff, discard = cfg[C_LAYOFF_OFFSET], cfg[C_DISCARD_OFFSET]
    for slot in range(r.slot_n):
        candidates = accepted_bits(r, slot, cfg) & hand
        if candidates == 0:
            continue
        for card in range(types):
            if candidates & card_bit(card) and lay_off_legal(r, p, slot, card, cfg):
                out[layoff + slot * types + card] = 1
    for card in range(types):
        if hand & card_bit(card) and discard_legal(r, p, card, cfg):
            out[discard + card] = 1


@nb.njit(**JIT)
def mask_rows(state, out, catalogue, catalogue_bits, cfg) -> None:
    for i in range(state.shape[0]):
        mask_row(state[i], out[i], catalogue, catalogue_bits, cfg)


@nb.njit(**JIT, parallel=True)
def mask_rows_parallel(state, out, catalogue, catalogue_bits, cfg) -> None:
    for i in nb.prange(state.shape[0]):
        mask_row(state[i], out[i], catalogue, catalogue_bits, cfg)


@nb.njit(**JIT)
def row_done(r, cfg) -> bool:
    """Whether the row's episode is over: its hand ("hand" episodes) or its game has ended."""
    if cfg[C_EPISODE] == 0:
        return r.phase == PHASE_HAND_OVER or r.phase == PHASE_GAME_OVER
    return r.phase == PHASE_GAME_OVER


@nb.njit(**JIT)
def done_rows(state, cfg, out) -> None:
    for i in range(state.shape[0]):
        out[i] = row_done(state[i], cfg)


@nb.njit(**JIT)
def check_actions(state, actions, active, catalogue, cfg, legal) -> int:
    """``legal[i] = 1`` where ``actions[i]`` is legal in game ``i``; returns the first active row
    whose episode is not over and whose action is illegal, or -1."""
    first = -1
    for i in range(state.shape[0]):
        legal[i] = action_legal(state[i], actions[i], catalogue, cfg)
        if first < 0 and active[i] and legal[i] == 0 and not row_done(state[i], cfg):
            first = i
    return first


# ---------------------------------------------------------------------------------------- dealing
@nb.njit(**JIT)
def clear_hand_state(r) -> None:
    r.hand[:, :] = 0
    r.hand_n[:] = 0
    r.known[:, :] = 0
    r.slot_n = 0
    r.slot_kind[:] = KIND_EMPTY
    r.slot_owner[:] = -1
    r.slot_key[:] = 0
    r.slot_lo[:] = 0
    r.slot_hi[:] = 0
    r.slot_count[:] = 0
    r.slot_cards[:, :] = 0
    r.slot_joker[:] = -1
    r.slot_tentative[:] = 0
    r.table_by_seat[:, :] = 0
    r.has_played[:] = 0
    r.has_melded[:] = 0
    r.taken = -1
    r.played_turn = 0
    r.undos = 0
    r.turns = 0
    r.reshuffles = 0


@nb.njit(**JIT)
def deal_row(r, deck, use_deck: bool, values, cfg) -> None:
    """Deal a new hand with ``r.dealer`` dealing (B4): shuffle (or take ``deck`` in dealing order),
    one card at a time clockwise from the dealer's left, then the upcard; the rest is the stock with
    the next card of the deck on top."""
    players, hand_size, n = cfg[C_PLAYERS], cfg[C_HAND_SIZE], cfg[C_DECK]
    clear_hand_state(r)
    if use_deck:
        for k in range(n):
            r.stock[k] = deck[k]
    else:
        for k in range(n):
            r.stock[k] = k
        shuffle_prefix(r, r.stock, n)
    # r.stock now holds the deck in dealing order; deal from its front
    k = 0
    for _ in range(hand_size):
        for offset in range(1, players + 1):
            seat = (r.dealer + offset) % players
            card = r.stock[k]
            r.hand[seat, card] += 1
            r.hand_n[seat] += 1
            k += 1
    r.pile[0] = r.stock[k]
    r.pile_n = 1
    k += 1
    remaining = n - k
    for j in range(remaining):  # the undealt cards move to the bottom of the array …
        r.stock[j] = r.stock[k + j]
    for j in range(remaining // 2):  # … reversed, so that the next card of the deck is the top
        tmp = r.stock[j]
        r.stock[j] = r.stock[remaining - 1 - j]
        r.stock[remaining - 1 - j] = tmp
    r.stock_n = remaining
    r.current = (r.dealer + 1) % players
    r.phase = PHASE_DRAW
    start_turn(r, values, cfg)


@nb.njit(**JIT)
def new_game_row(r, seed: np.uint64, deck, use_deck: bool, dealer: int, values, cfg) -> None:
    """Start a game: zero totals, seed the row's generator, choose the dealer, deal."""
    r.rng = seeded_state(seed)
    r.totals[:] = 0
    r.hand_scores[:] = 0
    r.game_winners[:] = 0
    r.hands_played = 0
    r.illegal_by = -1
    r.winner = -1
    r.rummy = 0
    r.end_reason = END_NONE
    if dealer >= 0:
        r.dealer = dealer
    elif cfg[C_FIRST_DEALER] >= 0:
        r.dealer = cfg[C_FIRST_DEALER]
    else:
        r.dealer = random_below(r, cfg[C_PLAYERS])
    deal_row(r, deck, use_deck, values, cfg)
    while cfg[C_EPISODE] == 1 and r.phase == PHASE_HAND_OVER:  # dead at the deal (B17): deal on
        next_hand_row(r, values, cfg)


@nb.njit(**JIT)
def new_game_rows(state, rows, seeds, decks, use_decks: bool, dealers, values, cfg) -> None:
    """Start new games in the rows where ``rows`` is true."""
    for i in range(state.shape[0]):
        if rows[i]:
            new_game_row(state[i], seeds[i], decks[i], use_decks, dealers[i], values, cfg)


# ---------------------------------------------------------------------------------------- turns and hands
@nb.njit(**JIT)
def start_turn(r, values, cfg) -> None:
    """Turn start (B18): the turn cap, the stock rebuild (B11) and the dead-hand checks (B17)."""
    if r.turns >= cfg[C_MAX_TURNS]:
        end_hand_dead(r, END_DEAD_TURN_CAP, values, cfg)
        return
    if r.stock_n == 0:
        keep = 1 if cfg[C_KEEP_TOP] else 0
        if r.pile_n - keep >= 1:
            if cfg[C_MAX_RESHUFFLES] >= 0 and r.reshuffles >= cfg[C_MAX_RESHUFFLES]:
                end_hand_dead(r, END_DEAD_RESHUFFLES, values, cfg)
                return
            moved = r.pile_n - keep
            for j in range(moved):
                r.stock[j] = r.pile[j]
            if keep:
                r.pile[0] = r.pile[r.pile_n - 1]
            r.pile_n = keep
            r.stock_n = moved
            shuffle_prefix(r, r.stock, moved)
            r.reshuffles += 1
    if r.stock_n == 0 and r.pile_n == 0:
        end_hand_dead(r, END_DEAD_NO_DRAW, values, cfg)
        return
    r.phase = PHASE_DRAW


@nb.njit(**JIT)
def end_turn(r, values, cfg) -> None:
    p = r.current
    if r.played_turn:
        r.has_played[p] = 1
    r.played_turn = 0
    r.taken = -1
    r.undos = 0
    r.turns += 1
    r.current = (p + 1) % cfg[C_PLAYERS]
    start_turn(r, values, cfg)


@nb.njit(**JIT)
def hand_value(r, seat: int, values) -> int:
    total = 0
    for card in range(values.shape[0]):
        total += r.hand[seat, card] * values[card]
    return total


@nb.njit(**JIT)
def end_hand_out(r, values, cfg) -> None:
    """Seat ``current`` went out: credit it with the others' hands, doubled for going rummy (B12, B13)."""
    p = r.current
    score = 0
    for seat in range(cfg[C_PLAYERS]):
        if seat != p:
            score += hand_value(r, seat, values)
    r.rummy = 1 if r.has_played[p] == 0 else 0
    if r.rummy:
        score *= cfg[C_RUMMY_MULT]
    r.hand_scores[:] = 0
    r.hand_scores[p] = score
    r.totals[p] += score
    r.winner = p
    r.end_reason = END_OUT
    finish_hand(r, p, cfg)


@nb.njit(**JIT)
def end_hand_dead(r, reason: int, values, cfg) -> None:
    """A dead hand (B17): nobody scores ("none"), or ("lowest_hand_wins") the single lowest hand
    is credited with the sum of the others' hand values; a tie for lowest scores nothing."""
    r.hand_scores[:] = 0
    r.winner = -1
    r.rummy = 0
    r.end_reason = reason
    scorer = -1
    if cfg[C_DEAD_SCORING] == 1:
        players = cfg[C_PLAYERS]
        lowest, ties, total = 1 << 30, 0, 0
        for seat in range(players):
            value = hand_value(r, seat, values)
            total += value
            if value < lowest:
                lowest, ties, scorer = value, 1, seat
            elif value == lowest:
                ties += 1
        if ties == 1:
            r.hand_scores[scorer] = total - lowest
            r.totals[scorer] += total - lowest
        else:
            scorer = -1
    finish_hand(r, scorer, cfg)


@nb.njit(**JIT)
def finish_hand(r, scorer: int, cfg) -> None:
    """Count the hand as played and decide whether the game is over (B14). ``scorer`` is the one
    seat credited this hand, or -1."""
    r.hands_played += 1
    r.phase = PHASE_HAND_OVER
    over = False
    if cfg[C_END_MODE] == 0:
        if scorer >= 0 and r.totals[scorer] >= cfg[C_TARGET]:
            over = True
            r.game_winners[:] = 0
            r.game_winners[scorer] = 1
    elif r.hands_played >= cfg[C_NUM_HANDS]:
        over = True
        mark_highest_totals(r, cfg)
    if not over and r.hands_played >= cfg[C_MAX_HANDS]:
        over = True
        mark_highest_totals(r, cfg)
    if over:
        r.phase = PHASE_GAME_OVER


@nb.njit(**JIT)
def mark_highest_totals(r, cfg) -> None:
    best = r.totals[0]
    for seat in range(cfg[C_PLAYERS]):
        best = max(best, r.totals[seat])
    for seat in range(cfg[C_PLAYERS]):
        r.game_winners[seat] = 1 if r.totals[seat] == best else 0


@nb.njit(**JIT)
def next_hand_row(r, values, cfg) -> None:
    """Deal the game's next hand, passing the deal clockwise, or to the winner (B5)."""
    if cfg[C_WINNER_DEALS] and r.winner >= 0:
        r.dealer = r.winner
    else:
        r.dealer = (r.dealer + 1) % cfg[C_PLAYERS]
    deal_row(r, r.stock, False, values, cfg)


@nb.njit(**JIT)
def next_hand_rows(state, rows, values, cfg) -> None:
    for i in range(state.shape[0]):
        if rows[i] and state[i].phase == PHASE_HAND_OVER:
            next_hand_row(state[i], values, cfg)


# ---------------------------------------------------------------------------------------- actions
@nb.njit(**JIT)
def take_from_hand(r, p: int, card: int) -> None:
    r.hand[p, card] -= 1
    r.hand_n[p] -= 1
    if r.known[p, card] > 0:  # the public sees this card leave: one known copy fewer
        r.known[p, card] -= 1


@nb.njit(**JIT)
def put_on_slot(r, p: int, slot: int, card: int) -> None:
    take_from_hand(r, p, card)
    r.slot_cards[slot, card] += 1
    r.slot_count[slot] += 1
    r.table_by_seat[p, card] += 1


@nb.njit(**JIT)
def apply_row(r, action: int, catalogue, values, cfg) -> None:
    """Apply a legal ``action`` of the player to act (B6-B10)."""
    p = r.current
    types = cfg[C_TYPES]
    if action == 0:  # DRAW_STOCK
        r.stock_n -= 1
        card = r.stock[r.stock_n]
        r.hand[p, card] += 1
        r.hand_n[p] += 1
        r.taken = -1
        r.phase = PHASE_PLAY
        return
    if action == 1:  # DRAW_DISCARD: the card is public, so the others know p holds it
        r.pile_n -= 1
        card = r.pile[r.pile_n]
        r.hand[p, card] += 1
        r.hand_n[p] += 1
        r.known[p, card] += 1
        r.taken = card
        r.phase = PHASE_PLAY
        return
    if action >= cfg[C_DISCARD_OFFSET]:
        card = action - cfg[C_DISCARD_OFFSET]
        take_from_hand(r, p, card)
        r.pile[r.pile_n] = card
        r.pile_n += 1
        if r.hand_n[p] == 0:
            end_hand_out(r, values, cfg)
        else:
            end_turn(r, values, cfg)
        return
    if action >= cfg[C_LAYOFF_OFFSET]:
        offset = action - cfg[C_LAYOFF_OFFSET]
        slot, card = offset // types, offset % types
        end = fit_end(r.slot_kind[slot], r.slot_key[slot], r.slot_lo[slot], r.slot_hi[slot], r.slot_count[slot], card, cfg)
        r.slot_lo[slot], r.slot_hi[slot] = extended(r.slot_lo[slot], r.slot_hi[slot], end)
        put_on_slot(r, p, slot, card)
    else:
        entry = action - 2
        slot = r.slot_n
        r.slot_n += 1
        r.slot_kind[slot] = catalogue[entry, CAT_KIND]
        r.slot_key[slot] = catalogue[entry, CAT_KEY]
        r.slot_lo[slot] = catalogue[entry, CAT_LO]
        r.slot_hi[slot] = catalogue[entry, CAT_HI]
        r.slot_owner[slot] = p
        for k in range(3):
            put_on_slot(r, p, slot, catalogue[entry, k])
        r.has_melded[p] = 1
    r.played_turn = 1
    if r.hand_n[p] == 0:
        end_hand_out(r, values, cfg)


@nb.njit(**JIT)
def add_end_rewards(r, cfg, fcfg, rewards) -> None:
    """Add the rewards of a hand that just ended: each seat's centred score
    ``(P * s_q - sum s) / ((P - 1) * reward_scale)`` ("score"; negated for rami51's penalties), or at the episode's end the centred
    win share ``(P * w_q - 1) / (P - 1)`` with ``w_q = 1/k`` for each of ``k`` joint winners ("win")."""
    players = cfg[C_PLAYERS]
    if cfg[C_REWARD] == 0:
        total = 0.0
        for q in range(players):
            total += r.hand_scores[q]
        sign = -1.0 if cfg[C_RAMI] else 1.0  # rami51 scores are penalties (R19)
        for q in range(players):
            rewards[q] += sign * (players * r.hand_scores[q] - total) / ((players - 1) * fcfg[F_REWARD_SCALE])
    elif cfg[C_EPISODE] == 0 or r.phase == PHASE_GAME_OVER:
        winners = 0
        for q in range(players):
            winners += won_episode(r, q, cfg)
        if winners > 0:
            for q in range(players):
                rewards[q] += (players * won_episode(r, q, cfg) / winners - 1.0) / (players - 1)


@nb.njit(**JIT)
def won_episode(r, seat: int, cfg) -> int:
    """1 if ``seat`` won the episode: the game ("game" episodes), or the hand: credited points
    (basic), went out (rami51, whose hand scores are penalties)."""
    if cfg[C_EPISODE] == 1:
        return r.game_winners[seat]
    if cfg[C_RAMI]:
        return 1 if r.winner == seat else 0
    return 1 if r.hand_scores[seat] > 0 else 0


@nb.njit(**JIT)
def episode_winners_rows(records, cfg, out) -> None:
    """``out[i, q] = won_episode(records[i], q)`` for finished game records."""
    for i in range(records.shape[0]):
        for q in range(cfg[C_PLAYERS]):
            out[i, q] = won_episode(records[i], q, cfg)


@nb.njit(**JIT)
def step_row(r, action: int, legal: bool, catalogue, values, cfg, fcfg, rewards) -> bool:
    """One step of one game; writes the seats' rewards and returns whether a hand ended."""
    rewards[:] = 0.0
    if r.phase == PHASE_HAND_OVER or r.phase == PHASE_GAME_OVER:
        return False
    players = cfg[C_PLAYERS]
    if not legal:  # only reached under the "penalty" policy: the game ends, the offender pays
        r.illegal_by = r.current
        r.end_reason = END_ILLEGAL
        r.winner = -1
        r.hand_scores[:] = 0
        r.game_winners[:] = 0
        r.phase = PHASE_GAME_OVER
        for q in range(players):
            rewards[q] = -fcfg[F_PENALTY] / (players - 1)
        rewards[r.current] = fcfg[F_PENALTY]
        return True
    apply_row(r, action, catalogue, values, cfg)
    if r.phase != PHASE_HAND_OVER and r.phase != PHASE_GAME_OVER:
        return False
    add_end_rewards(r, cfg, fcfg, rewards)
    if cfg[C_EPISODE] == 1:
        while r.phase == PHASE_HAND_OVER:  # a hand can be dead at its deal (B17): deal on
            next_hand_row(r, values, cfg)
            if r.phase == PHASE_HAND_OVER or r.phase == PHASE_GAME_OVER:
                add_end_rewards(r, cfg, fcfg, rewards)
    return True


@nb.njit(**JIT)
def step_rows(state, actions, active, legal, catalogue, values, cfg, fcfg, rewards, hand_ended) -> None:
    """Step the rows where ``active`` is set; the others keep their position and get no reward."""
    for i in range(state.shape[0]):
        if active[i]:
            hand_ended[i] = step_row(state[i], actions[i], legal[i] != 0, catalogue, values, cfg, fcfg, rewards[i])
        else:
            rewards[i, :] = 0.0
            hand_ended[i] = False


@nb.njit(**JIT, parallel=True)
def step_rows_parallel(state, actions, active, legal, catalogue, values, cfg, fcfg, rewards, hand_ended) -> None:
    for i in nb.prange(state.shape[0]):
        if active[i]:
            hand_ended[i] = step_row(state[i], actions[i], legal[i] != 0, catalogue, values, cfg, fcfg, rewards[i])
        else:
            rewards[i, :] = 0.0
            hand_ended[i] = False

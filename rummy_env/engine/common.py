"""What every rule family shares (B4, B11, B14, R4, R17, R22): the per-game RNG, dealing, the stock rebuild,
cards leaving a hand face up, the illegal-action policy, end rewards, done/winners, decoding an action id.

A rule family supplies only its rules (deal details, the mask, legality, applying an action, scoring);
``rummy_env.engine.drivers`` runs them over a batch.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.actions import (
    A_DISCARD, A_DRAW_DISCARD, A_DRAW_STOCK, A_INVALID, A_LAY_OFF, A_MELD, A_SWAP, A_TAKE, DRAW_DISCARD, DRAW_STOCK,
    FIRST_SPECIAL, TAKE_CHOICES,
)
from rummy_env.engine.config import EPISODE_GAME, REWARD_SCORE
from rummy_env.engine.reasons import GAME_OVER, HAND_OVER, OUTSIDE_SPACE
from rummy_env.engine.jit import JIT
from rummy_env.engine.state import END_ILLEGAL, PHASE_GAME_OVER, PHASE_HAND_OVER
from rummy_env.engine.table import clear_table


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


# ---------------------------------------------------------------------------------------- a new game, a deal
@nb.njit(**JIT)
def start_game(r, seed: np.uint64, dealer: int, cfg) -> None:
    """A new game: seed the row's generator, zero the totals, choose the first dealer (B4, R4)."""
    r.rng = seeded_state(seed)
    r.totals[:] = 0
    r.hand_scores[:] = 0
    r.game_winners[:] = 0
    r.hands_played = 0
    r.illegal_by = -1
    r.winner = -1
    r.rummy = 0
    r.all_at_once = 0
    r.joker_finish = 0
    r.end_reason = 0
    if dealer >= 0:
        r.dealer = dealer
    elif cfg.first_dealer >= 0:
        r.dealer = cfg.first_dealer
    else:
        r.dealer = random_below(r, cfg.num_players)


@nb.njit(**JIT)
def clear_hand(r) -> None:
    """Empty hands and table: the state of a hand about to be dealt."""
    r.hand[:, :] = 0
    r.hand_n[:] = 0
    r.known[:, :] = 0
    clear_table(r)
    r.table_by_seat[:, :] = 0
    r.has_played[:] = 0
    r.has_melded[:] = 0
    r.opened[:] = 0
    r.pending[:] = 0
    r.taken = -1
    r.played_turn = 0
    r.undos = 0
    r.turns = 0
    r.reshuffles = 0
    r.pile_n = 0
    r.doomed = 0
    r.knocker = -1
    r.knock_stage = 0
    r.upcard_passes = 0
    r.repeated = 0
    r.upcard_draws = 0
    r.history[:, :, :] = 0
    r.last_discard[:] = -1
    r.take_backs[:] = 0


@nb.njit(**JIT)
def deal_hands(r, deck, use_deck: bool, cfg) -> int:
    """Shuffle the deck (or take ``deck`` in dealing order) into ``r.stock`` and deal ``hand_size`` cards
    one at a time, clockwise from the dealer's left (B4, R4); returns how many cards were dealt."""
    n = cfg.deck_size
    if use_deck:
        for k in range(n):
            r.stock[k] = deck[k]
    else:
        for k in range(n):  # natural types 0..51 once per pack, then the jokers (type 52)
            r.stock[k] = k % 52 if k < 52 * (n // 52) else 52
        shuffle_prefix(r, r.stock, n)
    k = 0
    for _ in range(cfg.hand_size):
        for offset in range(1, cfg.num_players + 1):
            to_hand(r, (r.dealer + offset) % cfg.num_players, r.stock[k])
            k += 1
    return k


@nb.njit(**JIT)
def to_hand(r, seat: int, card: int) -> None:
    r.hand[seat, card] += 1
    r.hand_n[seat] += 1


@nb.njit(**JIT)
def stock_from(r, k: int, cfg) -> None:
    """The deck's cards from index ``k`` on become the stock, the next card of the deck on top."""
    remaining = cfg.deck_size - k
    for j in range(remaining):
        r.stock[j] = r.stock[k + j]
    for j in range(remaining // 2):
        tmp = r.stock[j]
        r.stock[j] = r.stock[remaining - 1 - j]
        r.stock[remaining - 1 - j] = tmp
    r.stock_n = remaining


# ---------------------------------------------------------------------------------------- stock and hands
@nb.njit(**JIT)
def rebuild_stock(r, keep_top: bool) -> None:
    """Shuffle the discard pile into a new stock, all of it or all but its top card (B11, R17, AR17);
    the caller checks that something can be rebuilt and the ``max_reshuffles`` cap."""
    keep = 1 if keep_top else 0
    moved = r.pile_n - keep
    for j in range(moved):
        r.stock[j] = r.pile[j]
    if keep:
        r.pile[0] = r.pile[r.pile_n - 1]
    r.pile_n = keep
    r.stock_n = moved
    shuffle_prefix(r, r.stock, moved)
    r.reshuffles += 1


@nb.njit(**JIT)
def rebuild_allowed(r, cfg) -> bool:
    """Another rebuild stays within ``max_reshuffles`` (B11, R17; -1 = no cap)."""
    return cfg.max_reshuffles < 0 or r.reshuffles < cfg.max_reshuffles


@nb.njit(**JIT)
def draw_stock(r, seat: int) -> int:
    r.stock_n -= 1
    card = r.stock[r.stock_n]
    to_hand(r, seat, card)
    return card


@nb.njit(**JIT)
def draw_pile(r, seat: int) -> int:
    """Take the discard top: public, so the others know ``seat`` holds it."""
    r.pile_n -= 1
    card = r.pile[r.pile_n]
    to_hand(r, seat, card)
    r.known[seat, card] += 1
    return card


@nb.njit(**JIT)
def leave_hand(r, seat: int, card: int) -> None:
    """One copy of ``card`` leaves ``seat``'s hand face up: the public knows one copy fewer. Which copy
    left is not public (two copies are identical), so ``known`` drops by one whatever the hand holds."""
    r.hand[seat, card] -= 1
    r.hand_n[seat] -= 1
    if r.known[seat, card] > 0:
        r.known[seat, card] -= 1


@nb.njit(**JIT)
def to_pile(r, seat: int, card: int) -> None:
    leave_hand(r, seat, card)
    r.pile[r.pile_n] = card
    r.pile_n += 1


# ---------------------------------------------------------------------------------------- end of a hand, a game
@nb.njit(**JIT)
def mark_game_winners(r, cfg) -> None:
    """The game is over: the highest totals win (basic), the lowest (penalty scoring, rami51); ties are joint."""
    best = r.totals[0]
    for seat in range(cfg.num_players):
        best = min(best, r.totals[seat]) if cfg.penalty_scoring else max(best, r.totals[seat])
    for seat in range(cfg.num_players):
        r.game_winners[seat] = 1 if r.totals[seat] == best else 0
    r.phase = PHASE_GAME_OVER


@nb.njit(**JIT)
def over(r) -> bool:
    return r.phase == PHASE_HAND_OVER or r.phase == PHASE_GAME_OVER


@nb.njit(**JIT)
def row_done(r, cfg) -> bool:
    """Whether the row's episode is over: its hand ("hand" episodes) or its game has ended."""
    if cfg.episode == EPISODE_GAME:
        return r.phase == PHASE_GAME_OVER
    return over(r)


@nb.njit(**JIT)
def won_episode(r, seat: int, cfg) -> int:
    """1 if ``seat`` won the episode: the game ("game" episodes), or the hand: was credited points
    (basic), went out (penalty scoring)."""
    if cfg.episode == EPISODE_GAME:
        return r.game_winners[seat]
    if cfg.penalty_scoring:
        return 1 if r.winner == seat else 0
    return 1 if r.hand_scores[seat] > 0 else 0


@nb.njit(**JIT)
def add_end_rewards(r, cfg, rewards) -> None:
    """Add the rewards of a hand that just ended: each seat's centred score
    ``(P * s_q - sum s) / ((P - 1) * reward_scale)`` ("score"; negated for penalty scoring), or at the
    episode's end the centred win share ``(P * w_q - 1) / (P - 1)``, ``w_q = 1/k`` for each of ``k`` joint
    winners ("win")."""
    players = cfg.num_players
    if cfg.reward == REWARD_SCORE:
        total = 0.0
        for q in range(players):
            total += r.hand_scores[q]
        sign = -1.0 if cfg.penalty_scoring else 1.0
        for q in range(players):
            rewards[q] += sign * (players * r.hand_scores[q] - total) / ((players - 1) * cfg.reward_scale)
    elif cfg.episode != EPISODE_GAME or r.phase == PHASE_GAME_OVER:
        winners = 0
        for q in range(players):
            winners += won_episode(r, q, cfg)
        if winners > 0:
            for q in range(players):
                rewards[q] += (players * won_episode(r, q, cfg) / winners - 1.0) / (players - 1)


@nb.njit(**JIT)
def end_game_illegal(r, cfg, rewards) -> None:
    """The "penalty" illegal-action policy: the offender's game ends, the offender receiving
    ``illegal_action_penalty`` and the others sharing its negation."""
    r.illegal_by = r.current
    r.end_reason = END_ILLEGAL
    r.winner = -1
    r.hand_scores[:] = 0
    r.game_winners[:] = 0
    r.phase = PHASE_GAME_OVER
    for q in range(cfg.num_players):
        rewards[q] = -cfg.illegal_action_penalty / (cfg.num_players - 1)
    rewards[r.current] = cfg.illegal_action_penalty


# ---------------------------------------------------------------------------------------- action ids
@nb.njit(**JIT)
def closed_reason(r, kind: int) -> int:
    """Why no action can be taken: an id outside the space (``kind`` A_INVALID), or the row's hand or game is
    over; 0 when the row is open to an action of the space."""
    if kind < 0:
        return OUTSIDE_SPACE
    if over(r):
        return GAME_OVER if r.phase == PHASE_GAME_OVER else HAND_OVER
    return 0


@nb.njit(**JIT)
def decode(action: int, cfg) -> tuple:
    """``(kind, a, b)`` of an action id (``rummy_env.actions``): A_MELD with its catalogue entry,
    A_LAY_OFF with slot and code, A_TAKE with slot and choice, A_SWAP with slot, A_DISCARD with the card
    and whether "carte" is announced, a special action (A_COMMIT, A_UNDO; A_PASS, A_KNOCK) alone; A_INVALID
    outside the space."""
    if action < 0 or action >= cfg.num_actions:
        return A_INVALID, -1, -1
    if action == DRAW_STOCK:
        return A_DRAW_STOCK, -1, -1
    if action == DRAW_DISCARD:
        return A_DRAW_DISCARD, -1, -1
    if action < cfg.meld_offset:  # the ruleset's special actions (COMMIT, UNDO; PASS, KNOCK)
        return cfg.special_kind + action - FIRST_SPECIAL, -1, -1
    if action < cfg.layoff_offset:
        return A_MELD, action - cfg.meld_offset, -1
    if action < cfg.take_offset:
        offset = action - cfg.layoff_offset
        return A_LAY_OFF, offset // cfg.layoff_codes, offset % cfg.layoff_codes
    if action < cfg.swap_offset:
        offset = action - cfg.take_offset
        return A_TAKE, offset // TAKE_CHOICES, offset % TAKE_CHOICES
    if action < cfg.discard_offset:
        return A_SWAP, action - cfg.swap_offset, -1
    card = action - cfg.discard_offset
    types = cfg.num_card_types
    return A_DISCARD, card % types, 1 if card < types else 0


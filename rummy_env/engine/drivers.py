"""The batch drivers, written once for every rule family: a family supplies its row functions and
``make_drivers`` returns the compiled loops over a batch (serial and parallel), the step driver with the
illegal-action policy and end rewards, and the legality check of a batch of actions.

A family's row functions (all compiled):

* ``new_game_row(r, seed, deck, use_deck, dealer, work, tabs, cfg)`` and ``next_hand_row(r, work, tabs, cfg)``;
* ``mask_row(r, out, work, tabs, cfg)``: the exact legal-action mask;
* ``legal_reason(r, action, work, tabs, cfg)``: 0 if ``action`` is legal, else the code of the first rule
  it breaks (``rummy_env.engine.reasons``);
* ``apply_row(rows, undo, action, work, tabs, cfg)``: apply a legal action to ``rows[0]`` (``rows`` and ``undo``
  are the row and the copy UNDO and TAKE_BACK return to, as one-element arrays, so that whole records can be
  copied);
* ``worker_buffers(work, thread)``: one thread's share of the family's scratch buffers ``work``.

``tabs`` is a ``config.Tables`` (``catalogue``, ``catalogue_bits``, ``values``) and ``cfgs`` a one-element array
holding the config record (``rummy_env.engine.config``; a record passed by value does not reach numba's parallel
loops). Numba caches these
closures on disk like any kernel, their kernels given fixed identities under the family's ``tag``
(``jit.fix_identities``; rami51 makes one set per ``dead_ends`` mode). The parallel loops hand rows to threads in
chunks (``numba.set_parallel_chunksize``, chosen by ``RummyEngine``), each thread using its own buffers.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.actions import A_TAKE_BACK
from rummy_env.engine.common import add_end_rewards, decode, end_game_illegal, over, row_done, won_episode
from rummy_env.engine.history import note_action, note_hand_change, noted_from_action
from rummy_env.engine.config import EPISODE_GAME
from rummy_env.engine.jit import INLINE, JIT, fix_identities
from rummy_env.engine.state import PHASE_HAND_OVER


class Drivers:
    """The compiled batch loops of one rule family (see the module docstring)."""

    def __init__(self, new_game_rows, next_hand_rows, mask_rows, mask_rows_parallel, step_rows, step_rows_parallel,
                 check_actions, legal_reason, play):
        self.new_game_rows = new_game_rows
        self.next_hand_rows = next_hand_rows
        self.mask_rows = mask_rows
        self.mask_rows_parallel = mask_rows_parallel
        self.step_rows = step_rows
        self.step_rows_parallel = step_rows_parallel
        self.check_actions = check_actions
        self.legal_reason = legal_reason
        self.play = play  # the row function applying a legal action (with its history), for rollouts


def make_drivers(new_game_row, next_hand_row, mask_row, legal_reason, apply_row, worker_buffers, tag: str) -> Drivers:
    @nb.njit(**INLINE)
    def deal_on(r, work, tabs, cfg, rewards) -> None:
        """A "game" episode goes on at once: deal the next hand (again, while a deal is dead, B17, R17),
        adding the rewards of a hand dead at its deal."""
        while cfg.episode == EPISODE_GAME and r.phase == PHASE_HAND_OVER:
            next_hand_row(r, work, tabs, cfg)
            if over(r):
                add_end_rewards(r, cfg, rewards)

    @nb.njit(**JIT)
    def new_game_rows(state, rows, seeds, decks, use_decks: bool, dealers, work, tabs, cfgs) -> None:
        cfg = cfgs[0]
        own = worker_buffers(work, 0)
        for i in range(state.shape[0]):
            if rows[i]:
                new_game_row(state[i], seeds[i], decks[i], use_decks, dealers[i], own, tabs, cfg)
                while cfg.episode == EPISODE_GAME and state[i].phase == PHASE_HAND_OVER:
                    next_hand_row(state[i], own, tabs, cfg)  # dead at the deal (B17, R17): deal on

    @nb.njit(**JIT)
    def next_hand_rows(state, rows, work, tabs, cfgs) -> None:
        cfg = cfgs[0]
        own = worker_buffers(work, 0)
        for i in range(state.shape[0]):
            if rows[i] and state[i].phase == PHASE_HAND_OVER:
                next_hand_row(state[i], own, tabs, cfg)

    @nb.njit(**JIT)
    def mask_rows(state, out, work, tabs, cfgs) -> None:
        cfg = cfgs[0]
        own = worker_buffers(work, 0)
        for i in range(state.shape[0]):
            mask_row(state[i], out[i], own, tabs, cfg)

    @nb.njit(**JIT, parallel=True)
    def mask_rows_parallel(state, out, work, tabs, cfgs) -> None:
        for i in nb.prange(state.shape[0]):  # cfgs[0] read inside: a record does not enter a parallel loop
            mask_row(state[i], out[i], worker_buffers(work, nb.get_thread_id()), tabs, cfgs[0])

    @nb.njit(**JIT)
    def play(rows, undo, action: int, work, tabs, cfg, seen) -> None:
        """Apply a legal action to ``rows[0]``, noting it in the public history (``engine.history``); ``seen`` is
        a card-type buffer for the hand before (the caller's, so that no step allocates one)."""
        r = rows[0]
        kind, a, _ = decode(action, cfg)
        if noted_from_action(kind, r.phase):
            note_action(r, kind, a)
            apply_row(rows, undo, action, work, tabs, cfg)
            return
        if kind == A_TAKE_BACK:  # noted by the family as it goes: its penalty draws are hidden (R25)
            apply_row(rows, undo, action, work, tabs, cfg)
            return
        seat, pile_before = r.current, r.pile_n
        for card in range(seen.shape[0]):
            seen[card] = r.hand[seat, card]
        apply_row(rows, undo, action, work, tabs, cfg)
        note_hand_change(r, seat, seen, pile_before)

    @nb.njit(**JIT)
    def step_row(rows, undo, action: int, legal: bool, work, tabs, cfg, rewards, seen) -> bool:
        """One step of the game ``rows[0]``; writes the seats' rewards and returns whether a hand ended."""
        r = rows[0]
        rewards[:] = 0.0
        if over(r):
            return False
        if not legal:  # only reached under the "penalty" policy
            end_game_illegal(r, cfg, rewards)
            return True
        play(rows, undo, action, work, tabs, cfg, seen)
        if not over(r):
            return False
        add_end_rewards(r, cfg, rewards)
        deal_on(r, work, tabs, cfg, rewards)
        return True

    @nb.njit(**JIT)
    def step_rows(state, undo, actions, active, legal, work, tabs, cfgs, rewards, hand_ended) -> None:
        cfg = cfgs[0]
        own = worker_buffers(work, 0)
        seen = np.empty(cfg.num_card_types, dtype=np.int8)
        for i in range(state.shape[0]):
            if active[i]:
                hand_ended[i] = step_row(state[i:i + 1], undo[i:i + 1], actions[i], legal[i] != 0, own, tabs, cfg,
                                         rewards[i], seen)
            else:
                rewards[i, :] = 0.0
                hand_ended[i] = False

    @nb.njit(**JIT, parallel=True)
    def step_rows_parallel(state, undo, actions, active, legal, work, tabs, cfgs, rewards, hand_ended) -> None:
        for i in nb.prange(state.shape[0]):
            if active[i]:
                own = worker_buffers(work, nb.get_thread_id())
                seen = np.empty(cfgs[0].num_card_types, dtype=np.int8)
                hand_ended[i] = step_row(state[i:i + 1], undo[i:i + 1], actions[i], legal[i] != 0, own, tabs,
                                         cfgs[0], rewards[i], seen)
            else:
                rewards[i, :] = 0.0
                hand_ended[i] = False

    @nb.njit(**JIT)
    def check_actions(state, actions, active, work, tabs, cfgs, legal) -> int:
        """``legal[i] = 1`` where ``actions[i]`` is legal in game ``i``; returns the first active row whose
        episode is not over and whose action is illegal, or -1."""
        cfg = cfgs[0]
        own = worker_buffers(work, 0)
        first = -1
        for i in range(state.shape[0]):
            legal[i] = legal_reason(state[i], actions[i], own, tabs, cfg) == 0
            if first < 0 and active[i] and legal[i] == 0 and not row_done(state[i], cfg):
                first = i
        return first

    @nb.njit(**JIT)
    def reason_of(state, row: int, action: int, work, tabs, cfgs) -> int:
        cfg = cfgs[0]
        return legal_reason(state[row], action, worker_buffers(work, 0), tabs, cfg)

    kernels = (new_game_rows, next_hand_rows, mask_rows, mask_rows_parallel, step_rows, step_rows_parallel,
               check_actions, reason_of, play)
    fix_identities(tag, *kernels)
    return Drivers(*kernels)


@nb.njit(**JIT)
def done_rows(state, cfgs, out) -> None:
    cfg = cfgs[0]
    for i in range(state.shape[0]):
        out[i] = row_done(state[i], cfg)


@nb.njit(**JIT)
def episode_winners_rows(records, cfgs, out) -> None:
    """``out[i, q] = won_episode(records[i], q)`` for finished game records."""
    cfg = cfgs[0]
    for i in range(records.shape[0]):
        for q in range(cfg.num_players):
            out[i, q] = won_episode(records[i], q, cfg)


@nb.njit(**JIT)
def check_actions_by_mask(state, actions, active, mask, legal, cfgs) -> int:
    """``check_actions`` read off a mask computed for this very state (no search repeated)."""
    cfg = cfgs[0]
    first = -1
    for i in range(state.shape[0]):
        action = actions[i]
        legal[i] = mask[i, action] if 0 <= action < mask.shape[1] else 0
        if first < 0 and active[i] and legal[i] == 0 and not row_done(state[i], cfg):
            first = i
    return first

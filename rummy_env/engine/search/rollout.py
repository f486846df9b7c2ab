"""Compiled rollouts: games played to the end of the hand by compiled policies, inside the engine's kernels.

A rule family supplies ``choose(r, code, u, mask, work, tabs, cfg) -> action``: the action of policy
``code`` (``POLICY_RANDOM``, ``POLICY_HEURISTIC``) for the player to act in record ``r``, given a uniform
``u`` in [0, 1) and a scratch mask row (``engine/basic/policy.py``, ``engine/rami51/policy.py``).
``make_rollouts(play, choose, worker_buffers, tag)`` builds, once per family (and per rami51 ``dead_ends`` mode:
``tag``, ``jit.fix_identities``), the loops that play rows out:

* ``play_out(rows, undo, codes, prng, mask, work, tabs, cfg, cap) -> steps``: play ``rows[0]`` until its
  hand is over (or ``cap`` steps), seat ``q`` acting by ``codes[q]``; ``prng`` is a one-element uint64
  array, the policies' own xorshift64* stream (the game's generator, which shuffles the stock, is left to
  the game);
* ``play_out_rows(state, undo, codes, prng, work, tabs, cfgs, cap, steps)``: ``play_out`` for every row of
  a batch (``codes`` ``(B, P)``, ``prng`` ``(B,)``), one thread;
* ``choose_rows(state, codes, uniforms, work, tabs, cfgs, out)``: one decision per row, for tests;
* ``evaluate(...)``: every candidate action played out in every world (determinized search).

**The random number convention.** Before every decision the driver draws ``u = (x >> 11) * 2**-53`` from
the row's stream; the random policy plays the ``floor(u * n)``-th of the ``n`` legal actions in id order,
exactly what ``RandomAgent`` (``rummy_env.sampling.pick_legal_row``) plays for the uniform ``u`` that
``rng.random()`` gives it. The heuristics are deterministic and ignore ``u``.

The moves go through the family's ``play`` (``engine/drivers.py``), the public history included; the hand's
end is left as the rules leave it (no reward, no next deal): ``hand_won`` reads the outcome.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from rummy_env.engine.common import over, seeded_state
from rummy_env.engine.jit import JIT, fix_identities

POLICY_RANDOM, POLICY_HEURISTIC = 0, 1
POLICY_CODES = {"random": POLICY_RANDOM, "heuristic": POLICY_HEURISTIC}


class Policies(NamedTuple):
    """A family's compiled rollout loops (module docstring) and its ISMCTS iterations (``engine.search.ismcts``),
    for one set of rules."""

    play_out: object
    play_out_rows: object
    choose_rows: object
    evaluate: object
    ismcts_iterate: object


@nb.njit(**JIT)
def held_types(hand, types: int):
    """``(held, n)``: the first ``n`` entries of ``held`` are the card types below ``types`` that ``hand``
    holds, in order (the compiled heuristics' discard scores loop over them)."""
    held = np.empty(types, dtype=np.int64)
    n = 0
    for card in range(types):
        if hand[card] > 0:
            held[n] = card
            n += 1
    return held, n


@nb.njit(**JIT)
def next_uniform(prng) -> float:
    """A uniform in [0, 1) from the xorshift64* stream ``prng[0]`` (53 random bits)."""
    x = prng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    prng[0] = x
    return float((x * np.uint64(2685821657736338717)) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@nb.njit(**JIT)
def hand_won(r, seat: int, cfg) -> float:
    """``seat``'s share of the hand just over: 1 if it went out (penalty scoring) or was credited points,
    0 otherwise (a dead hand in which nobody scores: 0 for all)."""
    if cfg.penalty_scoring:
        return 1.0 if r.winner == seat else 0.0
    return 1.0 if r.hand_scores[seat] > 0 else 0.0


def make_rollouts(play, choose, worker_buffers, tag: str):
    """The rollout loops of one family (module docstring)."""

    @nb.njit(**JIT)
    def play_out(rows, undo, codes, prng, mask, work, tabs, cfg, cap: int) -> int:
        r = rows[0]
        steps = 0
        seen = np.empty(cfg.num_card_types, dtype=np.int8)
        while not over(r) and steps < cap:
            u = next_uniform(prng)
            action = choose(r, codes[r.current], u, mask, work, tabs, cfg)
            play(rows, undo, action, work, tabs, cfg, seen)
            steps += 1
        return steps

    @nb.njit(**JIT)
    def play_out_rows(state, undo, codes, prng, work, tabs, cfgs, cap: int, steps) -> None:
        cfg = cfgs[0]
        own = worker_buffers(work, 0)
        mask = np.zeros(cfg.num_actions, dtype=np.int8)
        for i in range(state.shape[0]):
            steps[i] = play_out(state[i:i + 1], undo[i:i + 1], codes[i], prng[i:i + 1], mask, own, tabs, cfg, cap)

    @nb.njit(**JIT)
    def choose_rows(state, codes, uniforms, work, tabs, cfgs, out) -> None:
        """``out[i]``: the action policy ``codes[i]`` picks in row ``i`` for the uniform ``uniforms[i]``."""
        cfg = cfgs[0]
        own = worker_buffers(work, 0)
        mask = np.zeros(cfg.num_actions, dtype=np.int8)
        for i in range(state.shape[0]):
            out[i] = choose(state[i], codes[i], uniforms[i], mask, own, tabs, cfg)

    @nb.njit(**JIT)
    def evaluate(worlds, world_undos, actions, seat: int, codes, seed: np.uint64, work, tabs, cfgs, cap: int,
                 scratch, scratch_undo, values) -> int:
        """Determinized evaluation: ``values[k, j]`` = ``seat``'s share of the hand (``hand_won``) after
        action ``actions[j]`` in world ``k``, played out by ``codes``; every action of a world meets the same
        policy random numbers (``seed``, ``k``), so that differences between actions are paired. ``scratch``
        and ``scratch_undo``: one-record arrays. Returns the steps played."""
        cfg = cfgs[0]
        own = worker_buffers(work, 0)
        mask = np.zeros(cfg.num_actions, dtype=np.int8)
        prng = np.zeros(1, dtype=np.uint64)
        seen = np.empty(cfg.num_card_types, dtype=np.int8)
        steps = 0
        for k in range(worlds.shape[0]):
            for j in range(actions.shape[0]):
                scratch[0] = worlds[k]
                scratch_undo[0] = world_undos[k]
                play(scratch, scratch_undo, actions[j], own, tabs, cfg, seen)
                prng[0] = seeded_state(seed + np.uint64(k))
                steps += 1 + play_out(scratch, scratch_undo, codes, prng, mask, own, tabs, cfg, cap)
                values[k, j] = hand_won(scratch[0], seat, cfg)
        return steps

    fix_identities(tag, play_out, play_out_rows, choose_rows, evaluate)
    return play_out, play_out_rows, choose_rows, evaluate

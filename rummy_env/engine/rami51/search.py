"""The rami51 no-dead-end search (R23, R24): can the player to act still finish the turn legally?

A depth-first search over the engine's own plays (``moves.apply_play``), applied to copies of the record,
until some legal end of the turn is reached: a discard, or going out by a play. While an UNDO remains and a
tentative play exists, a position counts as finishable (R24). Positions met twice (the orders of commuting
plays, and cycles such as a TAKE laid back) are looked up in a table and skipped, ``prune.hopeless`` cuts
positions with no way out, and a search that cut no play at ``SEARCH_DEPTH`` has met every reachable position, so
it proves a dead end. (Iterative deepening, passes of 2, 4, 8 ... plays, tried twice as many plays in random play
for the same dead ends; it found a short way out behind a long first subtree sooner, but give-ups were no rarer
with it. One pass is kept.)

A player who has not opened and has no undo left must open: after ``ASK_BOUND`` plays the search asks the
opening bound (``witness.opening_verdict``, a DP over the shapes an opening can leave), which proves that no
opening is reachable, or lays one; when it cannot decide (its table fills on a crowded table), a narrower DP
that holds at most one more taken card at a time is asked for a plan (``opening_dp``, ``narrow``).
``SEARCH_NODES`` bounds one search: past it, the search gives up and the play is masked out (safe: no masked-in
play can strand the turn, but a legal play can be hidden). Counted as ``gave_up``, with the searches cut at
``SEARCH_DEPTH`` plays; the README's table gives the rate per preset.
A full table of explored positions only costs speed (counted as ``memo_full``).

Scratch buffers, one set per thread (``search_buffers``): record copies per search level, candidate lists per
level, the table of explored positions, counters (searches, plays tried, positions not remembered, bounds
asked and settled) and the opening bound's buffers.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rummy_env.actions import A_COMMIT, A_LAY_OFF, A_SWAP, A_TAKE, COMMIT
from rummy_env.cards import JOKER
from rummy_env.engine import reasons as why
from rummy_env.engine.common import decode
from rummy_env.engine.jit import INLINE, JIT
from rummy_env.engine.rami51.candidates import focused, play_candidates
from rummy_env.engine.rami51.moves import apply_play, can_end_now
from rummy_env.engine.rami51.opening_dp import dp_buffers
from rummy_env.engine.rami51.opening import out_check
from rummy_env.engine.rami51.prune import hopeless
from rummy_env.engine.rami51.witness import COMMITTED, NO, YES, opening_verdict

SEARCH_DEPTH = 40         # plays explored in one turn (each play lays or takes a card)
CANDIDATES = 1024         # local candidates kept per search level
VISITED = 1 << 20         # positions remembered per row check (open addressing; 24 MiB a thread); beyond it, no memo
SEARCH_NODES = 1 << 23    # plays tried by one search at most (then it gives up: see ``search``)
DEAD, FINISHED, UNDECIDED = 0, 1, 2  # what ``explore`` found
# what ``remember`` says of a position besides its table index
KNOWN_DEAD, NO_MEMO, MET_BEFORE = -1, -2, -3
ASK_BOUND = 1 << 15       # plays tried before a search asks the opening bound (``witness.opening_verdict``)
WITNESS_ROW = SEARCH_DEPTH + 2     # the row the bound's plan is laid in
SCRATCH_ROWS = SEARCH_DEPTH + 3    # per thread: the search levels, one row for the tested action, the witness row
CANDIDATE_ROWS = SEARCH_DEPTH + 1  # per thread: the search levels, plus the mask's own list
# counters after the owners table: next search id, first id of the row check, searches given up (at SEARCH_NODES
# or SEARCH_DEPTH: each masks a play out unproven), positions not remembered, plays tried, searches that asked the
# opening bound, searches it settled
NEXT_ID, CALL_START, GAVE_UP, MEMO_FULL, PLAYS_TRIED, BOUNDS, SETTLED = (2 * VISITED + k for k in range(7))
OWNERS_SIZE = 2 * VISITED + 7


def search_buffers(threads: int, record_dtype: np.dtype) -> tuple:
    """``(scratch, candidates, visited, owners, dp)`` for ``threads`` threads (``dp``: the buffers of ``opening_dp``,
    one byte row per thread). Five arrays, as few as the searches need: every kernel that receives them pays an
    atomic reference count per array each way, on the mask's and the step's hot path too."""
    scratch = np.zeros(threads * SCRATCH_ROWS, dtype=record_dtype)
    candidates = np.zeros((threads * CANDIDATE_ROWS, CANDIDATES), dtype=np.int16)
    visited = np.zeros((threads, VISITED), dtype=np.uint64)
    owners = np.zeros((threads, OWNERS_SIZE), dtype=np.int64)
    owners[:, NEXT_ID] = 1
    return scratch, candidates, visited, owners, dp_buffers(threads)


@nb.njit(**JIT)
def worker_buffers(work, thread: int):
    """One thread's share of the search buffers."""
    scratch, candidates, visited, owners, dp = work
    return (scratch[thread * SCRATCH_ROWS:(thread + 1) * SCRATCH_ROWS],
            candidates[thread * CANDIDATE_ROWS:(thread + 1) * CANDIDATE_ROWS], visited[thread], owners[thread],
            dp[thread])


# ---------------------------------------------------------------------------------------- the end of a turn
@nb.njit(**JIT)
def node_status(r, allow_undo: bool, catalogue_bits, cfg) -> int:
    """1: the turn can be finished from here at once; -1: it cannot be finished; 0: search on."""
    if r.hand_n[r.current] == 0:
        return 1 if out_check(r, cfg) == why.LEGAL else -1
    if allow_undo and r.tentative > 0 and r.undos < cfg.max_undos_per_turn:
        return 1
    if can_end_now(r, cfg):
        return 1
    if hopeless(r, catalogue_bits, cfg):
        return -1
    return 0


# ---------------------------------------------------------------------------------------- explored positions
@nb.njit(**JIT)
def position_hash(r) -> np.uint64:
    p = r.current
    h = np.uint64(1469598103934665603)
    prime = np.uint64(1099511628211)
    for card in range(JOKER + 1):
        h = (h ^ np.uint64(r.hand[p, card] * 8 + r.pending[card])) * prime
    h = (h ^ np.uint64(r.freed_jokers * 64 + r.opened[p] * 16 + r.taken_laid * 4 + r.tentative)) * prime
    h = (h ^ np.uint64(r.turn_points)) * prime
    for slot in range(r.slot_n):
        h = (h ^ np.uint64(r.slot_suits[slot] * 4096 + r.slot_lo[slot] * 64 + r.slot_hi[slot])) * prime
        h = (h ^ np.uint64(r.slot_joker[slot] + 64 + r.slot_pure[slot] * 256 + r.slot_key[slot] * 1024
                           + r.slot_kind[slot] * 32768 + r.slot_jokers[slot] * 131072)) * prime
        h = (h ^ np.uint64(r.slot_mine[slot])) * prime
    if h == np.uint64(0):
        h = np.uint64(1)
    return h


@nb.njit(**JIT)
def remember(visited, owners, search_id: int, h: np.uint64) -> int:
    """Record position ``h`` as being explored by search ``search_id``: returns its table index, ``KNOWN_DEAD`` if
    a search of the same row check proved it dead, ``MET_BEFORE`` if this search has met it already (skip it
    either way), ``NO_MEMO`` if the table is crowded (explore without memo). Open addressing; entries of earlier
    row checks are stale."""
    wrap = np.int64(VISITED - 1)
    start = owners[CALL_START]
    index = np.int64(h >> np.uint64(40)) & wrap
    for _ in range(64):
        owner = owners[index]
        if owner < start:  # empty or stale
            visited[index] = h
            owners[index] = search_id
            owners[VISITED + index] = 0
            return index
        if visited[index] == h:
            if owners[VISITED + index] == start:
                return KNOWN_DEAD
            if owner == search_id:
                return MET_BEFORE
            owners[index] = search_id  # met by a search that succeeded elsewhere: not known dead
            return index
        index = (index + np.int64(1)) & wrap
    owners[MEMO_FULL] += 1
    return NO_MEMO


@nb.njit(**JIT)
def mark_dead(owners, index: int) -> None:
    """The position at table ``index`` was fully explored without a way to finish the turn."""
    if index >= 0:
        owners[VISITED + index] = owners[CALL_START]


@nb.njit(**JIT)
def begin_row_check(work) -> None:
    """Forget the positions explored for another row or an earlier state (they are stale)."""
    owners = work[3]
    owners[CALL_START] = owners[NEXT_ID]


# ---------------------------------------------------------------------------------------- the search
@nb.njit(**INLINE)
def finishable(r, allow_undo: bool, work, catalogue, catalogue_bits, cfg) -> bool:
    """Whether the player to act can still finish the turn legally from position ``r`` (R23)."""
    return search(r, allow_undo, False, work, catalogue, catalogue_bits, cfg)


@nb.njit(**JIT)
def search(r, allow_undo: bool, commit_first: bool, work, catalogue, catalogue_bits, cfg) -> bool:
    """Whether a legal end of the turn (``node_status``) can be reached from ``r`` by locally legal plays. With
    ``commit_first`` the turn must pass through a COMMIT before it may end (R11.5 under
    ``all_at_once_may_use_table = false``). A player who must open with no undo left gets ``ASK_BOUND`` plays;
    then the opening bound (``witness.opening_verdict``) may settle it: no opening at all, an opening laid to its
    end, or a COMMIT laid whose turn ``explore`` finishes (the narrower DP's plan is tried when the bound's table
    fills or its plan does not finish); else the search goes on to ``SEARCH_NODES`` plays, past
    which it gives up and answers "not finishable" (counted in ``GAVE_UP``)."""
    if not commit_first:
        status = node_status(r, allow_undo, catalogue_bits, cfg)
        if status != 0:
            return status == 1
    scratch, owners, dp_work = work[0], work[3], work[4]
    must_open = not commit_first and not r.opened[r.current] \
        and (not allow_undo or r.undos >= cfg.max_undos_per_turn)
    found = explore(r, allow_undo, commit_first, ASK_BOUND if must_open else SEARCH_NODES, work, catalogue,
                    catalogue_bits, cfg)
    if found == UNDECIDED and must_open:
        witness = scratch[WITNESS_ROW:WITNESS_ROW + 1]
        verdict = opening_verdict(r, witness, dp_work, catalogue, catalogue_bits, cfg)
        owners[BOUNDS] += 1
        # when the DP's table filled, or its plan did not finish, a narrower DP's plan is tried
        if verdict == NO or plan_finishes(verdict, witness, work, catalogue, catalogue_bits, cfg) or plan_finishes(
                opening_verdict(r, witness, dp_work, catalogue, catalogue_bits, cfg, True), witness, work, catalogue,
                catalogue_bits, cfg):
            owners[SETTLED] += 1
            return verdict != NO
        found = explore(r, allow_undo, commit_first, SEARCH_NODES, work, catalogue, catalogue_bits, cfg)
    if found == UNDECIDED:
        owners[GAVE_UP] += 1
    return found == FINISHED


@nb.njit(**JIT)
def plan_finishes(verdict: int, witness, work, catalogue, catalogue_bits, cfg) -> bool:
    """The opening bound's plan ends the turn: laid to its end (YES), or laid to a COMMIT (in ``witness``) from
    which ``explore`` finishes the turn."""
    return verdict == YES or verdict == COMMITTED and explore(witness[0], False, False, ASK_BOUND, work, catalogue,
                                                              catalogue_bits, cfg) == FINISHED


@nb.njit(**JIT)
def explore(r, allow_undo: bool, commit_first: bool, budget: int, work, catalogue, catalogue_bits, cfg) -> int:
    """The depth-first search behind ``search``, over locally legal plays each applied to a copy of the record:
    FINISHED, DEAD, or UNDECIDED past ``budget`` plays or ``SEARCH_DEPTH`` levels (the positions still on the
    path are not marked dead)."""
    scratch, candidates, visited, owners = work[0], work[1], work[2], work[3]
    salt = np.uint64(1 + allow_undo * 2 + commit_first * 4)
    counts = np.zeros(SEARCH_DEPTH, dtype=np.int64)
    index = np.zeros(SEARCH_DEPTH, dtype=np.int64)
    committed = np.zeros(SEARCH_DEPTH, dtype=np.bool_)
    where = np.zeros(SEARCH_DEPTH, dtype=np.int64)
    cut = np.zeros(SEARCH_DEPTH, dtype=np.bool_)
    search_id = owners[NEXT_ID]
    owners[NEXT_ID] += 1
    committed[0] = not commit_first
    deep = False  # a play cut at SEARCH_DEPTH
    scratch[0] = r
    where[0] = remember(visited, owners, search_id, position_hash(r) * salt)
    if where[0] == KNOWN_DEAD:
        return DEAD  # proved dead by an earlier search of this row check
    where[0] = max(where[0], NO_MEMO)
    nodes = expand(0, scratch, candidates, counts, committed, allow_undo, catalogue, catalogue_bits, cfg)
    if nodes < 0:
        return FINISHED
    owners[PLAYS_TRIED] += nodes
    level = 0
    while level >= 0:
        if index[level] >= counts[level]:
            if not cut[level]:  # explored to the end: no way out from here
                mark_dead(owners, where[level])
            elif level > 0:
                cut[level - 1] = True
            level -= 1
            continue
        action = candidates[level, index[level]]
        index[level] += 1
        if action < 0:
            continue
        if level + 1 >= SEARCH_DEPTH:
            cut[level] = True
            deep = True
            continue
        scratch[level + 1] = scratch[level]
        child = scratch[level + 1]
        kind, a, b = decode(action, cfg)
        apply_play(child, kind, a, b, catalogue, cfg)
        committed_child = committed[level] or action == COMMIT
        slot = remember(visited, owners, search_id, position_hash(child) * (salt + np.uint64(8 * committed_child)))
        if slot == MET_BEFORE:  # explored already, or on the path (a cycle): not a proof of a dead end
            cut[level] = True
            continue
        if slot == KNOWN_DEAD:
            continue
        level += 1
        where[level] = slot
        committed[level] = committed_child
        index[level] = 0
        cut[level] = False
        used = expand(level, scratch, candidates, counts, committed, allow_undo, catalogue, catalogue_bits, cfg)
        if used < 0:
            return FINISHED
        nodes += used
        owners[PLAYS_TRIED] += used
        if nodes > budget:
            return UNDECIDED
    # every position was reached (one met twice was skipped: a cycle, or explored): none ends the turn, unless a
    # way out longer than SEARCH_DEPTH plays was cut
    return UNDECIDED if deep else DEAD


@nb.njit(**JIT)
def expand(level: int, scratch, candidates, counts, committed, allow_undo: bool, catalogue, catalogue_bits, cfg) -> int:
    """List the plays of the position at ``level`` and check each child: returns -1 if one ends the turn
    legally, else the number of children tried; dead children are marked -1 in the candidate list."""
    n = play_candidates(scratch[level], candidates[level], catalogue, catalogue_bits, cfg, focused(scratch[level], cfg))
    counts[level] = n
    for k in range(n):
        action = candidates[level, k]
        scratch[level + 1] = scratch[level]
        child = scratch[level + 1]
        kind, a, b = decode(action, cfg)
        apply_play(child, kind, a, b, catalogue, cfg)
        if committed[level] or action == COMMIT:
            status = node_status(child, allow_undo, catalogue_bits, cfg)
        elif child.hand_n[child.current] == 0 or hopeless(child, catalogue_bits, cfg):
            status = -1
        else:
            status = 0
        if status == 1:
            return -1
        if status == -1:
            candidates[level, k] = -1
    return n


@nb.njit(**JIT)
def play_slot(kind: int, a: int) -> int:
    """Table slot a LAY_OFF, TAKE or SWAP acts on, else -1."""
    return a if kind == A_LAY_OFF or kind == A_TAKE or kind == A_SWAP else -1


@nb.njit(**INLINE)
def play_finishable(r, kind: int, a: int, b: int, work, catalogue, catalogue_bits, cfg) -> bool:
    """A locally legal play is legal if the turn can be finished after it (R23; E70's rule for a non-opened
    player touching an old meld under ``all_at_once_may_use_table = false``)."""
    p = r.current
    slot = play_slot(kind, a)
    needs_commit = not cfg.all_at_once_may_use_table and not r.opened[p] and kind != A_COMMIT \
        and 0 <= slot < r.start_slots
    if not needs_commit and not r.opened[p] and r.undos < cfg.max_undos_per_turn and r.hand_n[p] > 3:
        return True  # a tentative play with an undo left that keeps cards in hand: undo is a way out (R24)
    scratch = work[0]
    top = SEARCH_DEPTH + 1
    scratch[top] = r
    child = scratch[top]
    apply_play(child, kind, a, b, catalogue, cfg)
    if child.hand_n[p] == 0:
        return not needs_commit and out_check(child, cfg) == why.LEGAL
    return search(child, True, needs_commit, work, catalogue, catalogue_bits, cfg)  # scratch rows below ``top``


def search_stats(work) -> dict[str, int]:
    """Searches run, plays tried, searches given up (``gave_up``: at ``SEARCH_NODES`` plays or ``SEARCH_DEPTH``
    levels; each masks a play out unproven), positions the full memo could not remember, and the searches that
    asked the opening bound and were settled by it, over every thread."""
    owners = work[3]
    return {"searches": int((owners[:, NEXT_ID] - 1).sum()), "plays_tried": int(owners[:, PLAYS_TRIED].sum()),
            "gave_up": int(owners[:, GAVE_UP].sum()), "memo_full": int(owners[:, MEMO_FULL].sum()),
            "bounds_asked": int(owners[:, BOUNDS].sum()), "bounds_settled": int(owners[:, SETTLED].sum())}

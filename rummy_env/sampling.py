"""Uniform sampling of a legal action per row of a 0/1 action mask (compiled)."""

from __future__ import annotations

import numba as nb
import numpy as np


BLOCK = 64  # mask entries summed at once while looking for the chosen one


@nb.njit(cache=True, nogil=True)
def pick_legal_row(row: np.ndarray, uniform: float) -> int:
    """The ``floor(u * n)``-th legal action of a 0/1 mask row with ``n`` legal actions (0 if none). The row is
    counted, then skipped ``BLOCK`` entries at a time (fixed-length sums vectorise) up to the block holding the
    choice, which is scanned entry by entry."""
    size = row.shape[0]
    count = 0
    for a in range(size):
        count += row[a]
    if count == 0:
        return 0
    target = min(int(uniform * count), count - 1)
    start = 0
    while start + BLOCK <= size:
        block = 0
        for k in range(BLOCK):
            block += row[start + k]
        if target < block:
            break
        target -= block
        start += BLOCK
    for a in range(start, size):
        target -= row[a]
        if target < 0:
            return a
    return 0


@nb.njit(cache=True, nogil=True)
def pick_legal(mask: np.ndarray, uniforms: np.ndarray, out: np.ndarray) -> None:
    """``out[i] = pick_legal_row(mask[i], uniforms[i])`` for every row."""
    for i in range(mask.shape[0]):
        out[i] = pick_legal_row(mask[i], uniforms[i])


@nb.njit(cache=True, nogil=True, parallel=True)
def pick_legal_parallel(mask: np.ndarray, uniforms: np.ndarray, out: np.ndarray) -> None:
    for i in nb.prange(mask.shape[0]):
        out[i] = pick_legal_row(mask[i], uniforms[i])


def pick_legal_actions(mask: np.ndarray, uniforms: np.ndarray, out: np.ndarray, parallel: bool = False,
                       chunk_size: int = 0) -> None:
    """``out[i] = pick_legal_row(mask[i], uniforms[i])``, under the engine's thread setting
    (``RummyEngine.parallel`` and ``.chunk_size``, ``rummy_env/engine/threads.py``)."""
    if parallel:
        with nb.parallel_chunksize(chunk_size):
            pick_legal_parallel(mask, uniforms, out)
    else:
        pick_legal(mask, uniforms, out)


def uniform_legal_actions(action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``action_mask`` ``(B, A)`` (one thread, as the engine); a row
    with no legal action (a finished game's) gets action 0, which ``RummyEngine.step`` ignores for such a row."""
    mask = np.atleast_2d(action_mask)
    actions = np.empty(mask.shape[0], dtype=np.int64)
    pick_legal_actions(mask, rng.random(mask.shape[0]), actions)
    return actions

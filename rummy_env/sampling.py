"""Uniform sampling of a legal action per row of a 0/1 action mask (compiled)."""

from __future__ import annotations

import numba as nb
import numpy as np


ONES = np.uint64(0x0101010101010101)  # times a word of 0/1 bytes: their sum in the top byte
BLOCK = 8  # words summed at once while looking for the chosen entry


@nb.njit(cache=True, nogil=True)
def pick_legal_row(row: np.ndarray, uniform: float) -> int:
    """The ``floor(u * n)``-th legal action of a 0/1 mask row with ``n`` legal actions (0 if none). A row of
    one-byte entries is read eight entries to a word (their sum is one multiplication), counted, then skipped
    ``BLOCK`` words at a time up to the block holding the choice, which is scanned entry by entry."""
    size = row.shape[0]
    words = size // 8 if row.itemsize == 1 else 0
    packed = row[:words * 8].view(np.uint64)
    count = 0
    for k in range(words):
        count += (packed[k] * ONES) >> np.uint64(56)
    for a in range(words * 8, size):
        count += row[a]
    if count == 0:
        return 0
    target = min(int(uniform * count), count - 1)
    k = 0
    while k + BLOCK <= words:
        block = np.uint64(0)
        for j in range(BLOCK):
            block += (packed[k + j] * ONES) >> np.uint64(56)
        if target < int(block):
            break
        target -= int(block)
        k += BLOCK
    for a in range(k * 8, size):
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
    (``RummyEngine.parallel`` and ``.chunk_size``, ``rummy_env/engine/threads.py``). A mask whose rows are not
    contiguous is copied first (the rows are read eight entries at a time)."""
    mask = np.ascontiguousarray(mask)
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

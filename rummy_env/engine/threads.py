"""How the batched kernels use threads: one thread unless asked, and how rows are handed out when asked.

Measured with ``benchmarks/threads.py`` (the random-policy loop: mask, pick, step, reset) on the project's
2-core machine while other processes ran (a learner always runs beside the env):

* basic, B = 4096: one thread 548k steps/s; the parallel kernels 117k-149k (0.2-0.3x), and at B = 256 0.01-0.06x.
  numba's default threading layer here is OpenMP, whose threads spin while they wait; beside busy processes
  they take the cores from each other. With ``OMP_WAIT_POLICY=passive`` the same loop ran at 1.3-1.4x one
  thread, with ``NUMBA_THREADING_LAYER=workqueue`` at 1.4-1.6x.
* rami51, B = 4096: parallel 0.99-1.09x one thread (its rows are long searches, few and uneven).

So the engine runs one thread by default at every batch size: never slower than one thread, quiet or busy.
``RummyEngine(rules, B, parallel=True)`` runs the parallel kernels (worth it with idle cores; beside busy
processes set ``OMP_WAIT_POLICY=passive`` or ``NUMBA_THREADING_LAYER=workqueue`` before numba starts). They
hand out ``chunk_size`` rows at a time (``numba.parallel_chunksize``; ``0``: numba's static equal shares), so
a free thread takes the rows a held-up one has not reached. The number of threads is numba's:
``NUMBA_NUM_THREADS`` before import, or ``numba.set_num_threads(n)``.
"""

from __future__ import annotations

import numpy as np

PARALLEL = False  # the default of ``RummyEngine(parallel=...)`` and the envs built on it
CHUNK_SIZE = 64   # rows a thread takes at a time in the parallel kernels (0: numba's static split)


def checked_parallel(parallel: bool | None) -> bool:
    """``parallel`` as given (``None``: the default, ``PARALLEL``), refused unless a bool (numpy's too)."""
    if parallel is None:
        return PARALLEL
    if not isinstance(parallel, (bool, np.bool_)):
        raise ValueError(f"parallel must be True, False or None (the default: one thread), got {parallel!r}")
    return bool(parallel)


def checked_chunk_size(chunk_size: int | None) -> int:
    """``chunk_size`` as given (``None``: the default), refused unless it is an int >= 0 (numpy's too)."""
    if chunk_size is None:
        return CHUNK_SIZE
    if isinstance(chunk_size, (bool, np.bool_)) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 0:
        raise ValueError(f"chunk_size must be an int >= 0 (0: numba's static split), got {chunk_size!r}")
    return int(chunk_size)

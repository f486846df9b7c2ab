"""How the batched kernels use threads: from which batch size they run in parallel, and how rows are handed out.

A parallel kernel (``prange`` over rows) hands rows to numba's threads. numba's default splits the rows into
equal static shares up front, so one thread held up by another process (a learner always runs beside the env)
makes the whole call wait for it: on a 2-core machine beside a busy process, the static split fell below one
thread's rate. Handing out ``CHUNK_SIZE`` rows at a time instead (``numba.parallel_chunksize``) lets a free
thread take the rows a busy one has not reached. ``benchmarks/threads.py`` measures one thread, the static split
and several chunk sizes, quiet and beside a busy process; the README's "Threads" section has the table.

Users choose per engine: ``RummyEngine(rules, B, parallel=False)`` for one thread, ``parallel=True`` to force
the parallel kernels, ``chunk_size=k`` (``0``: numba's static split). The number of threads is numba's:
``NUMBA_NUM_THREADS`` before import, or ``numba.set_num_threads(n)`` at run time.
"""

from __future__ import annotations

PARALLEL_FROM_BATCH = 256  # batches from this size run the parallel kernels when ``parallel`` is not given
CHUNK_SIZE = 64            # rows a thread takes at a time in the parallel kernels (0: numba's static split)


def checked_chunk_size(chunk_size: int | None) -> int:
    """``chunk_size`` as given (``None``: the default), refused unless it is an int >= 0."""
    if chunk_size is None:
        return CHUNK_SIZE
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int,)) or chunk_size < 0:
        raise ValueError(f"chunk_size must be an int >= 0 (0: numba's static split), got {chunk_size!r}")
    return int(chunk_size)

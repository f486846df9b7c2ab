"""One compile of each kernel across the test processes: pytest-xdist's workers and the warm-up processes
(``warm_kernels.py``) share numba's on-disk cache, but a kernel that two of them meet before either has saved it is
compiled twice. ``install()`` makes each compile of a cached kernel hold an exclusive file lock beside the kernel's
cache index: a process that needs a kernel another is compiling waits, then loads it from the cache.

A compile takes the locks of the kernels it calls while it holds its own, in the order of the call graph, which has
no cycle, so no two processes wait on each other; a process takes a lock it already holds (a kernel calling itself)
without waiting."""

from __future__ import annotations

import fcntl

from numba.core import dispatcher, sigutils


def install() -> None:
    """Wrap ``numba``'s ``Dispatcher.compile`` (once per process) as the module docstring says."""
    compile_alone = dispatcher.Dispatcher.compile
    if getattr(compile_alone, "once_across_processes", False):
        return
    held: set[str] = set()

    def compile_once(self, sig):
        index = getattr(getattr(getattr(self, "_cache", None), "_cache_file", None), "_index_path", None)
        args, _ = sigutils.normalize_signature(sig)
        if index is None or index in held or tuple(args) in self.overloads:
            return compile_alone(self, sig)
        try:
            lock = open(index + ".lock", "a")
        except OSError:  # no writable cache folder: numba compiles in memory, nothing to share
            return compile_alone(self, sig)
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            held.add(index)
            try:
                return compile_alone(self, sig)
            finally:
                held.discard(index)  # the lock is released when the file closes

    compile_once.once_across_processes = True
    dispatcher.Dispatcher.compile = compile_once

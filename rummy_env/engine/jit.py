"""Numba options shared by every kernel, and an on-disk cache keyed by the package's sources.

Numba's own cache notices an edit to the file a kernel is defined in, but not to the files of the
kernels it calls, so a stale compiled kernel could outlive a change. The cache therefore lives in a
folder named after a hash of every ``rummy_env`` source file: any edit compiles afresh. The folder is
``$RUMMY_ENV_CACHE_DIR`` (else ``$NUMBA_CACHE_DIR``, else ``~/.cache/rummy_env``) ``/numba-<hash>``;
folders of other versions unused for a week are removed. While kernels compile, ``compile_notice`` says so
on stderr. This module must be imported before any kernel is defined
(every kernel module imports ``JIT`` from here).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

import numba
from numba.core.caching import FunctionCache
from numba.core.serialize import dumps

from rummy_env.engine import compile_notice

JIT = dict(cache=True, nogil=True)
# A step between the kernels and rami51's look-ahead search (R25 "prevent"): numba links a callee's compiled code
# into every function that calls it and optimises the whole again, so each compiled step above the search costs
# about 6 s of compiling; a step inlined into its callers (numba IR) costs none.
INLINE = dict(JIT, inline="always")

PACKAGE = Path(__file__).resolve().parent.parent


def sources_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _configure_cache() -> None:
    base = os.environ.get("RUMMY_ENV_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR") \
        or os.path.join(os.path.expanduser("~"), ".cache", "rummy_env")
    folder = Path(base) / f"numba-{sources_hash()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        folder.touch()
        for stale in Path(base).glob("numba-*"):
            if stale != folder and time.time() - stale.stat().st_mtime > 7 * 86400:
                shutil.rmtree(stale, ignore_errors=True)
    except OSError:
        compile_notice.install(None)
        return  # no writable cache: numba compiles in memory
    numba.config.CACHE_DIR = str(folder)
    compile_notice.install(str(folder))


_configure_cache()


def _code_names(code) -> set:
    """The global names a code object and the code objects nested in it read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _code_names(const)
    return names


def reachable_kernels(*kernels):
    """``kernels`` and every kernel they reach through the globals and closure cells of their Python functions,
    each once."""
    seen, todo = set(), list(kernels)
    while todo:
        kernel = todo.pop()
        if id(kernel) in seen:
            continue
        seen.add(id(kernel))
        yield kernel
        func = kernel.py_func
        reached = [func.__globals__.get(name) for name in sorted(_code_names(func.__code__))]
        reached += [cell.cell_contents for cell in func.__closure__ or ()]
        todo += [target for target in reached if isinstance(target, numba.core.registry.CPUDispatcher)]


class ClosureCache(FunctionCache):
    """Numba's on-disk cache of a closure kernel, keyed by what the closure captures named by identity.

    Numba keys a closure's cache by pickling the captured values. A captured kernel pickles its Python function by
    value, and those bytes differ between processes that loaded the same modules differently (whether a module's
    ``__file__`` and its code's file name are one string object depends on how it was imported): a process then
    misses entries another saved and compiles them again (a cold ``make test`` recompiled rami51's ``"prevent"``
    kernels for minutes). The closures capture kernels (named by their fixed identity, ``fix_identities``) and
    flags; the sources they run are already in the cache folder's name (``sources_hash``)."""

    def _index_key(self, sig, codegen):
        func = self._py_func
        captured = tuple(captured_key(cell.cell_contents) for cell in func.__closure__ or ())
        return (sig, codegen.magic_tuple(), (hashlib.sha256(func.__code__.co_code).hexdigest(),
                                             hashlib.sha256(repr(captured).encode()).hexdigest()))


def captured_key(value):
    """What stands for ``value``, captured by a closure kernel, in its cache key: a kernel's fixed identity, a
    flag or number itself; anything else as numba keys it (pickled)."""
    if isinstance(value, numba.core.registry.CPUDispatcher):
        identity = getattr(value, "_MemoMixin__uuid", None)
        if identity is None:
            raise RuntimeError(f"{value.py_func.__qualname__} is captured before it has a fixed identity")
        return identity
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return hashlib.sha256(dumps(value)).hexdigest()


def fix_identities(tag: str, *kernels) -> None:
    """Give ``kernels``, and every kernel they reach (``reachable_kernels``), a fixed identity.

    A kernel's identity is by default a fresh ``uuid4`` in every process. Here it is ``module.qualname`` of the
    Python function, and ``[tag]`` after it for a function defined in another (one set of closures per rule family,
    and per rami51 ``dead_ends`` mode); a kernel that has one keeps it. Such a closure gets cache files of its own
    (its qualname tagged too: numba rewrites a function's whole index file when it saves an entry, so two processes
    compiling two families side by side, ``tests/ci_profile.py``, could each drop the other's entries) and its cache
    is keyed by the identities of what it captures (``ClosureCache``).
    """
    for kernel in reachable_kernels(*kernels):
        if getattr(kernel, "_MemoMixin__uuid", None) is None:
            func = kernel.py_func
            local = "<locals>" in func.__qualname__
            identity = f"{func.__module__}.{func.__qualname__}" + (f"[{tag}]" if local else "")
            if kernel._memo.get(identity) not in (None, kernel):
                raise RuntimeError(f"two kernels would share the identity {identity!r}: give each family its own tag")
            kernel._set_uuid(identity)
            if local:  # cache files of its own: no two processes warming two families rewrite one index file
                func.__qualname__ += f"[{tag}]"
                kernel._cache = ClosureCache(func)

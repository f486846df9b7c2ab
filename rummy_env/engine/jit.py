"""Numba options shared by every kernel, and an on-disk cache keyed by the package's sources.

Numba's own cache notices an edit to the file a kernel is defined in, but not to the files of the
kernels it calls, so a stale compiled kernel could outlive a change. The cache therefore lives in a
folder named after a hash of every ``rummy_env`` source file: any edit compiles afresh. The folder is
``$RUMMY_ENV_CACHE_DIR`` (else ``$NUMBA_CACHE_DIR``, else ``~/.cache/rummy_env``) ``/numba-<hash>``;
folders of other versions unused for a week are removed. This module must be imported before any kernel is defined
(every kernel module imports ``JIT`` from here).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

import numba

JIT = dict(cache=True, nogil=True)

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
        return  # no writable cache: numba compiles in memory
    numba.config.CACHE_DIR = str(folder)


_configure_cache()

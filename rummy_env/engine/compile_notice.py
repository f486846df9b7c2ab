"""Says on stderr that kernels are being compiled, while they are: the first run after installing, upgrading or
editing the package compiles them for this machine (under a minute for each of basic, gin and rami51, about five
more for rami51's look-ahead under ``dead_ends = "prevent"``, on two cores) and caches them
(``rummy_env.engine.jit``), and a command must not sit silent meanwhile.

A numba listener sees each compilation of a ``rummy_env`` kernel that the cache did not hold. Once such
compilations have run for ``FIRST_NOTICE_S`` seconds (a small new specialization says nothing), one line
says what is happening and how long it takes, then one line every ``PROGRESS_EVERY_S`` seconds of compiling
until it is done. ``RUMMY_ENV_COMPILE_NOTICE=0`` silences it.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from numba.core import event

FIRST_NOTICE_S, PROGRESS_EVERY_S = 2.0, 30.0
NOTICE = ("rummy_env: compiling its kernels for this machine, once after installing, upgrading or editing the package "
          "(under a minute for each rule family, about 3 more for rami51's dead_ends=\"prevent\" look-ahead, on 2 "
          "cores); later runs load them from {folder}")


class CompileNotice(event.Listener):
    """Counts the seconds spent compiling ``rummy_env`` kernels and reports them from a watcher thread."""

    def __init__(self, folder: str):
        self.folder, self.depth, self.compiling_since, self.spent = folder, 0, 0.0, 0.0
        self.announced, self.reported, self.kernels = False, 0.0, 0
        self.lock = threading.Lock()
        self.watcher: threading.Thread | None = None

    @staticmethod
    def ours(ev) -> bool:
        dispatcher = (ev.data or {}).get("dispatcher")
        return getattr(getattr(dispatcher, "py_func", None), "__module__", "").startswith("rummy_env")

    def on_start(self, ev) -> None:
        if not self.ours(ev):
            return
        with self.lock:
            self.kernels += 1
            self.depth += 1
            if self.depth == 1:
                self.compiling_since = time.perf_counter()
                if self.watcher is None or not self.watcher.is_alive():
                    self.watcher = threading.Thread(target=self.watch, name="rummy_env-compile-notice", daemon=True)
                    self.watcher.start()

    def on_end(self, ev) -> None:
        if not self.ours(ev):
            return
        with self.lock:
            self.depth -= 1
            if self.depth == 0:
                self.spent += time.perf_counter() - self.compiling_since

    def seconds(self) -> float:
        """Seconds spent compiling so far, the compilation under way included."""
        with self.lock:
            return self.spent + (time.perf_counter() - self.compiling_since if self.depth else 0.0)

    def watch(self) -> None:
        """Report while compiling; the thread ends when a compilation has finished and none followed it."""
        while True:
            time.sleep(0.5)
            seconds = self.seconds()
            with self.lock:
                if self.depth == 0:
                    return
            if not self.announced and seconds >= FIRST_NOTICE_S:
                self.announced, self.reported = True, seconds
                self.say(NOTICE.format(folder=self.folder))
            elif self.announced and seconds - self.reported >= PROGRESS_EVERY_S:
                self.reported = seconds
                self.say(f"rummy_env: still compiling ({seconds:.0f} s so far, {self.kernels} kernels)")

    @staticmethod
    def say(line: str) -> None:
        if sys.stderr is None:  # no stderr (pythonw): nobody to tell, and print(file=None) would go to stdout
            return
        try:
            print(line, file=sys.stderr, flush=True)
        except (OSError, ValueError):  # stderr closed: nobody to tell
            pass


def install(folder: str | None) -> None:
    """Listen to numba's compilations (unless ``RUMMY_ENV_COMPILE_NOTICE=0``)."""
    if os.environ.get("RUMMY_ENV_COMPILE_NOTICE", "1") != "0":
        event.register("numba:compile", CompileNotice(f"the cache in {folder}" if folder else
                                                      "nowhere: no writable cache folder, they compile in every run"))

"""The CI profile of the test suite (``make test``), laid out so that compiling never leaves a core idle.

On a cold kernel cache (a fresh clone, or any edit under ``rummy_env/``) most of the compiling is rami51's look-ahead
search under ``dead_ends = "prevent"`` (R25), one process's work for about three and a half minutes. So:

1. that compile starts at once, in a process of its own (``warm_kernels.py rami51_prevent``);
2. beside it, the other kernels compile (``warm_kernels.py others``); then one pytest run on two workers
   (``-m "not slow and not wheel"``) plays every test that does not need the ``"prevent"`` kernels first, while the
   compile goes on, and the tests marked ``prevent`` last: each of those waits until the compile has finished (the
   file named by ``RUMMY_ENV_PREVENT_READY``, ``conftest.py``), then loads what it compiled. The tests run at a
   lower priority (nice 10), so that the compile, the longest piece of work, keeps a core of its own.

``conftest.py`` marks the tests that play rami51 under ``"prevent"``, orders them last, and fails an unmarked test
that makes those kernels, so none compiles them before the compile has finished. On a warm cache each warm-up is a
few seconds of loading. The libraries guide's snippets (marked ``wheel``) are left to ``make test-wheel``, which runs
them from the installed wheel (CI runs both); plain ``pytest`` and ``make test-all`` run them too. Arguments after
``--`` go to pytest. Exit status: pytest's.

    python tests/ci_profile.py [-- PYTEST_ARGS]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

TESTS = os.path.dirname(os.path.abspath(__file__))
WARM = os.path.join(TESTS, "warm_kernels.py")


def _yield_to_the_compile() -> None:
    """Run the tests at nice 10 beside the "prevent" compile (see the module docstring)."""
    os.nice(10)


def main(extra: list[str]) -> int:
    start = time.perf_counter()

    def say(text: str) -> None:
        print(f"[ci profile {time.perf_counter() - start:4.0f} s] {text}", file=sys.stderr, flush=True)

    say("compiling (or loading) the kernels: rami51 'prevent' in the background, the others now")
    prevent = subprocess.Popen([sys.executable, WARM, "rami51_prevent"])
    others = subprocess.call([sys.executable, WARM, "others"])
    with tempfile.TemporaryDirectory() as folder:
        ready = Path(folder) / "prevent-kernels-ready"

        def announce() -> None:
            failed = prevent.wait() != 0
            say("the 'prevent' kernels are " + ("NOT compiled (failed: their tests will compile them and say why)"
                                                if failed else "warm") + "; their tests may start")
            ready.touch()

        threading.Thread(target=announce, daemon=True).start()
        say(f"the other kernels are warm{'' if others == 0 else ' (failed: the tests will compile and say why)'}; "
            "the tests, those of rami51 under 'prevent' last")
        env = dict(os.environ, RUMMY_ENV_TESTS_WARMED="1", RUMMY_ENV_PREVENT_READY=str(ready))
        status = subprocess.call([sys.executable, "-m", "pytest", "-q", "-n", "2", "-m", "not slow and not wheel",
                                  *extra], env=env, preexec_fn=_yield_to_the_compile)
        prevent.wait()
    say(f"done: {'passed' if status == 0 else 'FAILED'}")
    return status


if __name__ == "__main__":
    args = sys.argv[1:]
    sys.exit(main(args[args.index("--") + 1:] if "--" in args else args))

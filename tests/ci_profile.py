"""The CI profile of the test suite (``make test``), laid out so that compiling never leaves a core idle.

On a cold kernel cache (a fresh clone, or any edit under ``rummy_env/``) most of the compiling is rami51's look-ahead
search under ``dead_ends = "prevent"`` (R25), one process's work for about five minutes. So:

1. that compile starts at once, in a process of its own (``warm_kernels.py rami51_prevent``);
2. beside it, the other kernels compile (``warm_kernels.py others``), then every test that does not need the
   ``"prevent"`` kernels runs on two workers (``-m "not slow and not prevent"``) while the compile goes on;
3. once it has finished, the tests marked ``prevent`` run, loading what it compiled.

The libraries guide's snippets (marked ``wheel``) are left to ``make test-wheel``, which runs them from the installed
wheel (CI runs both); plain ``pytest`` and ``make test-all`` run them too.

``conftest.py`` marks the tests that play rami51 under ``"prevent"`` and fails an unmarked test that makes those
kernels, so none compiles them in the first stage. On a warm cache each warm-up is a few seconds of loading.
Arguments after ``--`` go to both pytest runs. Exit status: the first failure's.

    python tests/ci_profile.py [-- PYTEST_ARGS]
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

TESTS = os.path.dirname(os.path.abspath(__file__))
WARM = os.path.join(TESTS, "warm_kernels.py")


def pytest(marks: str, extra: list[str]) -> int:
    """One pytest run of the CI profile's tests with ``marks``; the kernels are warm (``WARMED``), so its workers
    start at once."""
    env = dict(os.environ, RUMMY_ENV_TESTS_WARMED="1")
    return subprocess.call([sys.executable, "-m", "pytest", "-q", "-n", "2", "-m", marks, *extra], env=env)


def main(extra: list[str]) -> int:
    start = time.perf_counter()

    def say(text: str) -> None:
        print(f"[ci profile {time.perf_counter() - start:4.0f} s] {text}", file=sys.stderr, flush=True)

    say("compiling (or loading) the kernels: rami51 'prevent' in the background, the others now")
    prevent = subprocess.Popen([sys.executable, WARM, "rami51_prevent"])
    others = subprocess.call([sys.executable, WARM, "others"])
    say(f"the other kernels are warm{'' if others == 0 else ' (failed: the tests will compile and say why)'}; "
        "the tests that do not play rami51 under 'prevent'")
    first = pytest("not slow and not prevent and not wheel", extra)
    if prevent.poll() is None:
        say("waiting for the 'prevent' kernels")
    prevent.wait()
    say("the tests of rami51 under 'prevent'")
    second = pytest("prevent and not slow", extra)
    say(f"done: {'passed' if first == second == 0 else 'FAILED'}")
    return first or second


if __name__ == "__main__":
    args = sys.argv[1:]
    sys.exit(main(args[args.index("--") + 1:] if "--" in args else args))

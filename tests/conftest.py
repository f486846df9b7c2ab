"""Shared test setup: ``tests/`` on ``sys.path`` (so ``import oracle`` works) and the Hypothesis profiles.

Profiles (choose with ``HYPOTHESIS_PROFILE=<name>``):

* ``ci`` (default): derandomized, no shrinking, sized so that ``tests/test_properties.py`` runs in about
  three minutes on two cores. A failure is reported with the seed, knobs and position that reproduce it.
* ``thorough``: random, with shrinking, and ``THOROUGH_SCALE`` times more examples per property test;
  it also enables the tests marked ``slow`` in ``tests/test_properties.py``. Run it with
  ``HYPOTHESIS_PROFILE=thorough python -m pytest tests/test_properties.py -n 2``.
* ``dev``: a quick smoke run (a few examples per test).
"""

from __future__ import annotations

import os
import sys

from hypothesis import HealthCheck, Phase, settings

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
if TESTS_DIR not in sys.path:
    sys.path.insert(0, TESTS_DIR)

_COMMON = dict(deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])

settings.register_profile("ci", derandomize=True, database=None,
                          phases=(Phase.explicit, Phase.reuse, Phase.generate), **_COMMON)
settings.register_profile("thorough", **_COMMON)
settings.register_profile("dev", derandomize=True, database=None, max_examples=3,
                          phases=(Phase.explicit, Phase.reuse, Phase.generate), **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config) -> None:
    """Before pytest-xdist starts its workers, compile the kernels once, one rule-family group per process
    (``tests/warm_kernels.py``), instead of once in every worker; a warm cache makes this a few seconds."""
    import subprocess
    import time

    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        return
    from warm_kernels import GROUPS  # tests/ is on sys.path (above)

    start = time.perf_counter()
    print(f"warming the compiled kernels ({', '.join(GROUPS)}; minutes on a cold cache, seconds on a warm one)",
          file=sys.stderr, flush=True)
    script = os.path.join(TESTS_DIR, "warm_kernels.py")
    processes = {group: subprocess.Popen([sys.executable, script, group]) for group in GROUPS}
    failed = [group for group, process in processes.items() if process.wait() != 0]
    if failed:  # the tests themselves will compile and report what is wrong
        print(f"warming {', '.join(failed)} failed (see above)", file=sys.stderr, flush=True)
    print(f"kernels warm in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)

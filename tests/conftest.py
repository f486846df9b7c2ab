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

import pytest
from hypothesis import HealthCheck, Phase, settings

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
if TESTS_DIR not in sys.path:
    sys.path.insert(0, TESTS_DIR)

import compile_once  # noqa: E402  (tests/ on sys.path: above)

compile_once.install()  # the workers (and the warm-up processes) compile each kernel once between them

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

    config.addinivalue_line("markers", "prevent: plays rami51 under dead_ends='prevent' (its kernels compile the "
                                       "look-ahead search; tests/ci_profile.py runs these last)")
    config.addinivalue_line("markers", "wheel: also run from the installed wheel by make test-wheel "
                                       "(.ci/wheel_check.py), so tests/ci_profile.py leaves it out")
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None) \
            or os.environ.get("RUMMY_ENV_TESTS_WARMED"):
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


def pytest_collection_modifyitems(items) -> None:
    """Mark ``prevent`` every test that runs under ``dead_ends = "prevent"`` by its name or a parameter; in the CI
    profile (``RUMMY_ENV_PREVENT_READY``, ``tests/ci_profile.py``) those run last."""
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "prevent" in item.nodeid or "'prevent'" in repr(params):
            item.add_marker(pytest.mark.prevent)
    if os.environ.get("RUMMY_ENV_PREVENT_READY"):
        items.sort(key=lambda item: item.get_closest_marker("prevent") is not None)  # stable: the order otherwise kept


@pytest.fixture(autouse=True)
def _prevent_kernels_after_their_compile(request, monkeypatch):
    """rami51's ``"prevent"`` kernels are compiled in the background by the CI profile (``tests/ci_profile.py``). A
    test marked ``prevent`` waits there until that compile has finished (it creates the file
    ``RUMMY_ENV_PREVENT_READY`` names), so that it loads them; an unmarked test that builds those drivers fails, as it
    would compile them itself before the compile has finished."""
    if request.node.get_closest_marker("prevent") is not None:
        ready = os.environ.get("RUMMY_ENV_PREVENT_READY")
        if ready:
            import time

            deadline = time.monotonic() + 1800
            while not os.path.exists(ready):
                if time.monotonic() > deadline:
                    pytest.fail(f"the 'prevent' kernels' compile did not finish within 30 minutes ({ready} absent)")
                time.sleep(0.5)
    else:
        from rummy_env.engine import rami51

        make = rami51.drivers

        def drivers(rules):
            if rules.dead_ends == "prevent":
                pytest.fail(f"{request.node.nodeid} plays rami51 under dead_ends='prevent': mark it "
                            "@pytest.mark.prevent (tests/ci_profile.py runs those after their compile)", pytrace=False)
            return make(rules)

        monkeypatch.setattr(rami51, "drivers", drivers)
    yield

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

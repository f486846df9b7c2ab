"""The on-disk kernel cache (``rummy_env.engine.jit``): a later process compiles nothing again."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

FIRST_STEP = ("import numpy as np, rummy_env; e = rummy_env.RummyEngine(rummy_env.RummyRules.preset('basic', "
              "num_players=2)); e.reset(seed=0); m = e.legal_action_mask(); e.observe(); "
              "e.step([int(np.flatnonzero(m[0])[0])])")


def test_a_later_process_loads_every_kernel_from_the_cache(tmp_path):
    """The batch drivers are closures, one set per rule family; numba keys their cache by pickling what they
    capture, which held a fresh identity per process, so every process compiled them again (seconds) and stored
    one more copy. With fixed identities (``jit.fix_identities``) the second process only loads, even when the
    first compiled the package's modules from source (its own ``PYTHONPYCACHEPREFIX``) and the second loads them from
    bytecode: numba's pickled key of a closure differed between the two (``jit.ClosureCache``)."""
    env = dict(os.environ, RUMMY_ENV_CACHE_DIR=str(tmp_path / "kernels"), NUMBA_DEBUG_CACHE="1")
    envs = [dict(env, PYTHONPYCACHEPREFIX=str(tmp_path / "bytecode")), env]
    runs = [subprocess.run([sys.executable, "-c", FIRST_STEP], env=run_env, capture_output=True, text=True,
                           timeout=900) for run_env in envs]
    assert all(run.returncode == 0 for run in runs), runs[-1].stderr[-2000:]
    first, second = (run.stdout + run.stderr for run in runs)
    assert "drivers.make_drivers.locals.step_rows" in first and "data saved" in first
    saved_again = [line for line in second.splitlines() if "data saved" in line or "index saved" in line]
    assert saved_again == [], saved_again[:5]
    assert "data loaded" in second


def test_every_kernel_the_closures_reach_has_a_fixed_identity():
    """Without compiling: every family's drivers, rollouts and ISMCTS loops (rami51's under both ``dead_ends``
    modes), and every kernel they reach, carry a fixed identity (none drawn at random), and no two share one."""
    from rummy_env.engine.basic import policy as basic_policy, step as basic_step
    from rummy_env.engine.gin import step as gin_step
    from rummy_env.engine.jit import reachable_kernels
    from rummy_env.engine.rami51 import policy as rami51_policy, step as rami51_step

    modes = rami51_step.DEAD_ENDS  # rami51 compiles one set per dead_ends mode
    drivers = [basic_step.DRIVERS, gin_step.DRIVERS] + [rami51_step.kernels(mode).drivers for mode in modes]
    roots = [kernel for family in drivers for kernel in vars(family).values()]
    for policies in [basic_policy.POLICIES] + [rami51_policy.policies_for(mode) for mode in modes]:
        roots += list(policies)
    identities = [getattr(kernel, "_MemoMixin__uuid", None) for kernel in reachable_kernels(*roots)]
    assert all(identity is not None and identity.startswith("rummy_env.") for identity in identities), identities
    assert len(identities) > 100 and len(set(identities)) == len(identities)


TAKE_BACK_STEPS = """
import numpy as np, rummy_env
from rummy_env.engine.rami51 import search
from rummy_env.sampling import pick_legal_actions
engine = rummy_env.RummyEngine(rummy_env.RummyRules.preset("rami51", num_players=4), 4)
engine.reset(seed=0)
rng, actions = np.random.default_rng(0), np.zeros(4, dtype=np.int64)
for _ in range(400):
    pick_legal_actions(engine.legal_action_mask(), rng.random(4), actions)
    engine.step(actions)
    engine.reset(rows=engine.done.copy())
entries = (search.begin_row_check, search.finishable, search.play_finishable)
searched = [kernel.py_func.__name__ for kernel in entries if kernel.signatures]
drivers = engine.drivers
print("compiled:", len(drivers.mask_rows.signatures), len(drivers.step_rows.signatures), "searched:", searched)
"""


@pytest.mark.slow  # a cold compile of rami51, about 40 s: make test-all
def test_take_back_rami51_compiles_no_search_and_a_later_process_only_loads(tmp_path):
    """Under ``dead_ends = "take_back"`` (the default) rami51's kernels are compiled with the mode fixed, so the
    look-ahead search, most of a cold compile, is never compiled: from an empty cache, hands of random play compile
    the mask and the step and none of the search's entry points. A second process loads those closures (their
    cache keys pickle the mode and the kernels they capture) and saves nothing."""
    env = dict(os.environ, RUMMY_ENV_CACHE_DIR=str(tmp_path), RUMMY_ENV_COMPILE_NOTICE="0", NUMBA_DEBUG_CACHE="1")
    runs = [subprocess.run([sys.executable, "-c", TAKE_BACK_STEPS], env=env, capture_output=True, text=True,
                           timeout=900) for _ in range(2)]
    assert all(run.returncode == 0 for run in runs), runs[-1].stderr[-2000:]
    first, second = runs
    assert "compiled: 1 1 searched: []" in first.stdout, first.stdout[-2000:]
    saved_again = [line for line in (second.stdout + second.stderr).splitlines()
                   if "data saved" in line or "index saved" in line]
    assert saved_again == [], saved_again[:5]

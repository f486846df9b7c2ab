"""The on-disk kernel cache (``rummy_env.engine.jit``): a later process compiles nothing again."""

from __future__ import annotations

import os
import subprocess
import sys

FIRST_STEP = ("import numpy as np, rummy_env; e = rummy_env.RummyEngine(rummy_env.RummyRules.preset('basic', "
              "num_players=2)); e.reset(seed=0); m = e.legal_action_mask(); e.observe(); "
              "e.step([int(np.flatnonzero(m[0])[0])])")


def test_a_later_process_loads_every_kernel_from_the_cache(tmp_path):
    """The batch drivers are closures, one set per rule family; numba keys their cache by pickling what they
    capture, which held a fresh identity per process, so every process compiled them again (seconds) and stored
    one more copy. With fixed identities (``jit.fix_identities``) the second process only loads."""
    env = dict(os.environ, RUMMY_ENV_CACHE_DIR=str(tmp_path), NUMBA_DEBUG_CACHE="1")
    runs = [subprocess.run([sys.executable, "-c", FIRST_STEP], env=env, capture_output=True, text=True, timeout=900)
            for _ in range(2)]
    assert all(run.returncode == 0 for run in runs), runs[-1].stderr[-2000:]
    first, second = (run.stdout + run.stderr for run in runs)
    assert "drivers.make_drivers.locals.step_rows" in first and "data saved" in first
    saved_again = [line for line in second.splitlines() if "data saved" in line or "index saved" in line]
    assert saved_again == [], saved_again[:5]
    assert "data loaded" in second


def test_every_kernel_the_closures_reach_has_a_fixed_identity():
    """Without compiling: every family's drivers, rollouts and ISMCTS loops, and every kernel they reach, carry a
    fixed identity (none drawn at random), and no two share one."""
    from rummy_env.engine import basic, basic_policy
    from rummy_env.engine.gin import step as gin_step
    from rummy_env.engine.jit import reachable_kernels
    from rummy_env.engine.rami51 import policy as rami51_policy, step as rami51_step

    roots = [kernel for family in (basic, gin_step, rami51_step) for kernel in vars(family.DRIVERS).values()]
    for policy in (basic_policy, rami51_policy):
        roots += [policy.play_out, policy.play_out_rows, policy.choose_rows, policy.evaluate, policy.ismcts_iterate]
    identities = [getattr(kernel, "_MemoMixin__uuid", None) for kernel in reachable_kernels(*roots)]
    assert all(identity is not None and identity.startswith("rummy_env.") for identity in identities), identities
    assert len(identities) > 100 and len(set(identities)) == len(identities)

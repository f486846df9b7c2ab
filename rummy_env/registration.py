"""Gymnasium registration of ``rummy_env/Rummy-v0`` without importing Gymnasium eagerly.

``import rummy_env`` (and so ``import rummy_env.engine``) must not import Gymnasium or PettingZoo: the
engine depends on numpy and numba only. The id is registered as soon as Gymnasium is imported,
whichever of the two packages is imported first: at once if Gymnasium is already loaded, otherwise by
a one-shot import hook that registers right after ``import gymnasium`` completes.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys

GYM_ID = "rummy_env/Rummy-v0"


def register() -> None:
    """Register ``GYM_ID`` with Gymnasium (once)."""
    import gymnasium

    if GYM_ID not in gymnasium.registry:
        # gymnasium.make returns RummyGymEnv itself, so that env.action_masks() works on it: the env checks
        # its own call order (step before reset: RuntimeError) and passes Gymnasium's check_env (tested), which
        # is what OrderEnforcing and PassiveEnvChecker would add. (A registered wrapper forwarding
        # action_masks() would bar make_vec's vector_entry_point mode.)
        gymnasium.register(id=GYM_ID, entry_point="rummy_env.envs.single_agent:RummyGymEnv",
                           vector_entry_point="rummy_env.envs.single_agent:RummyGymVectorEnv",
                           order_enforce=False, disable_env_checker=True)


class _RegisterAfterGymnasium(importlib.abc.MetaPathFinder):
    """Finds ``gymnasium`` through the usual finders, then registers once its module has run."""

    def find_spec(self, fullname, path, target=None):
        if fullname != "gymnasium":
            return None
        sys.meta_path.remove(self)  # one shot: the real finders locate the package
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_then_register(module) -> None:
            load(module)
            register()

        spec.loader.exec_module = exec_then_register
        return spec


def register_when_gymnasium_loads() -> None:
    if "gymnasium" in sys.modules:
        register()
    elif not any(isinstance(finder, _RegisterAfterGymnasium) for finder in sys.meta_path):
        sys.meta_path.insert(0, _RegisterAfterGymnasium())

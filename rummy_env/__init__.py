"""rummy_env: Rummy as a fast, rules-exact, leak-free multi-agent RL environment.

>>> import rummy_env
>>> env = rummy_env.env(rules="basic", num_players=2)
>>> env.reset(seed=0)

The environments (``env``, ``raw_env``, ``RummyGymEnv``, ``RummyGymVectorEnv``, ``RummyVectorEnv``) load
on first use, so that ``import rummy_env.engine`` needs only numpy and numba; ``rummy_env/Rummy-v0`` is
registered with Gymnasium as soon as Gymnasium is imported (``rummy_env.registration``).
"""

from __future__ import annotations

import importlib

from rummy_env.engine import IllegalActionError, RummyEngine
from rummy_env.registration import GYM_ID, register_when_gymnasium_loads
from rummy_env.rules import RummyRules

_LAZY = {
    "env": "rummy_env.envs.aec", "raw_env": "rummy_env.envs.aec",
    "RummyGymEnv": "rummy_env.envs.single_agent", "RummyGymVectorEnv": "rummy_env.envs.single_agent",
    "RummyVectorEnv": "rummy_env.envs.vector",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'rummy_env' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_LAZY))


register_when_gymnasium_loads()

__all__ = ["GYM_ID", "IllegalActionError", "RummyEngine", "RummyGymEnv", "RummyGymVectorEnv", "RummyRules",
           "RummyVectorEnv", "env", "raw_env"]
__version__ = "0.1.0"

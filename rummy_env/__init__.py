"""rummy_env: Rummy as a fast, rules-exact, leak-free multi-agent RL environment.

>>> import rummy_env
>>> env = rummy_env.env(rules="basic", num_players=2)
>>> env.reset(seed=0)

The environments (``env``, ``raw_env``, ``RummyGymEnv``, ``RummyGymVectorEnv``, ``RummyVectorEnv``) load
on first use, so that ``import rummy_env.engine`` needs only numpy and numba; ``rummy_env/Rummy-v0`` is
registered with Gymnasium as soon as Gymnasium is imported (``rummy_env.registration``).

``PHASE_NAMES`` and ``END_NAMES`` are the code tables of the ``phase`` and ``end_reason`` numbers the
envs put in their infos (``PHASE_NAMES[code]`` is the name; ``rummy_env.envs.aec`` lists them).
"""

from __future__ import annotations

import importlib

from rummy_env.engine import IllegalActionError, RowIndexError, RummyEngine
from rummy_env.engine.state import END_NAMES, PHASE_NAMES
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

__all__ = ["END_NAMES", "GYM_ID", "IllegalActionError", "PHASE_NAMES", "RowIndexError", "RummyEngine", "RummyGymEnv", "RummyGymVectorEnv", "RummyRules",
           "RummyVectorEnv", "env", "raw_env"]
__version__ = "0.1.0"

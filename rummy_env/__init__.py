"""rummy_env: Rummy as a fast, rules-exact, leak-free multi-agent RL environment.

>>> import rummy_env
>>> env = rummy_env.env(rules="basic", num_players=2)
>>> env.reset(seed=0)
"""

import gymnasium

from rummy_env.engine import IllegalActionError, RummyEngine
from rummy_env.envs.aec import env, raw_env
from rummy_env.envs.single_agent import RummyGymEnv, RummyGymVectorEnv
from rummy_env.envs.vector import RummyVectorEnv
from rummy_env.rules import RummyRules

GYM_ID = "rummy_env/Rummy-v0"
if GYM_ID not in gymnasium.registry:
    gymnasium.register(id=GYM_ID, entry_point="rummy_env.envs.single_agent:RummyGymEnv",
                       vector_entry_point="rummy_env.envs.single_agent:RummyGymVectorEnv")

__all__ = ["GYM_ID", "IllegalActionError", "RummyEngine", "RummyGymEnv", "RummyGymVectorEnv", "RummyRules",
           "RummyVectorEnv", "env", "raw_env"]
__version__ = "0.1.0"

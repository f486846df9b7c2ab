"""rummy_env: Rummy as a fast, rules-exact, leak-free multi-agent RL environment.

>>> import rummy_env
>>> env = rummy_env.env(rules="basic", num_players=2)
>>> env.reset(seed=0)
"""

from rummy_env.envs.aec import env, raw_env
from rummy_env.rules import RummyRules
from rummy_env.engine import IllegalActionError, RummyEngine

__all__ = ["IllegalActionError", "RummyEngine", "RummyRules", "env", "raw_env"]
__version__ = "0.1.0"

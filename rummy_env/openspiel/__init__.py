"""Every rule family as an OpenSpiel game (needs ``pip install "rummy_env[openspiel]"``).

Importing this module registers one game per preset with ``pyspiel``: ``rummy_basic``, ``rummy_rami51``,
``rummy_lebanese14``, ``rummy_gin``, ``rummy_gin_openspiel`` and ``rummy_gin_rlcard``. Their parameters are
``players`` and the preset's knobs (``rummy_env.openspiel.game``), so OpenSpiel's algorithms, bots and tools
play the same rules as the envs:

>>> import pyspiel
>>> import rummy_env.openspiel
>>> game = pyspiel.load_game("rummy_rami51", {"players": 4, "dead_ends": "prevent"})
>>> state = game.new_initial_state()
>>> state.is_chance_node()   # the first dealer, then the deal, card by card
True

``game_for_rules(rules)`` gives the game of any ``RummyRules`` (a rules file's, the arena's). A game is one
hand; its returns are the env's rewards for that hand (zero-sum). Chance nodes deal the cards and choose
every card drawn from the stock when it is drawn (``rummy_env.openspiel.stock``); a seat's information state
is what it has seen, in order, and its tensors are the project's observation (``rummy_env.openspiel.state``).
``state.resample_from_infostate(seat, sampler)`` re-deals what the seat has not seen, for OpenSpiel's ISMCTS
(agent ``openspiel_ismcts``, ``rummy_env.agents.openspiel_ismcts``). ``state.start_from(record, undo)`` makes
a new state the position of an engine row.
"""

from __future__ import annotations

from rummy_env.extras import needs_extra
from rummy_env.rules import PRESETS

with needs_extra("openspiel", "the OpenSpiel games (rummy_env.openspiel)"):
    import pyspiel  # noqa: F401

from rummy_env.openspiel.game import RummyGame, game_for_rules, register  # noqa: E402
from rummy_env.openspiel.state import RummyState  # noqa: E402

GAMES = {preset: register(preset) for preset in PRESETS}  # the game class of each preset, registered

__all__ = ["GAMES", "RummyGame", "RummyState", "game_for_rules"]

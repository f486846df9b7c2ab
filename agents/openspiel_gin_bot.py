"""``AgentBot``: any agent of this package as a ``pyspiel.Bot`` playing OpenSpiel's own ``gin_rummy`` (G13), so that
OpenSpiel users can put our heuristic, searchers or learned policies against their bots on their game.

At each decision the bot replays the OpenSpiel state's history into this package's OpenSpiel game of the same
rules (``rummy_gin_openspiel``, ``rummy_env.openspiel``): OpenSpiel's deal becomes our deal's chance outcomes
(its player 0's ten cards and player 1's, dealt alternately as we deal, then the upcard), each card it draws
from the stock our draw's chance outcome, each action ours (``rummy_env.openspiel_gin.ActionMap``). It checks
that both games then offer the same legal actions, asks the agent with our observation, mask and record, and
returns the agent's action as OpenSpiel's.

    import pyspiel
    from rummy_env.agents.openspiel_gin_bot import AgentBot

    game = pyspiel.load_game("gin_rummy")
    bots = [AgentBot("heuristic", seed=0), pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), 1)]
"""

from __future__ import annotations

import numpy as np
import pyspiel

import rummy_env.openspiel  # noqa: F401  (registers rummy_gin_openspiel)
from rummy_env.agents.base import act_on
from rummy_env.agents.registry import make_agent
from rummy_env.engine.state import PHASE_LAYOFF
from rummy_env.openspiel_gin import ActionMap, from_openspiel_card

DEAL = 21  # OpenSpiel's first chance outcomes: ten cards to player 0, ten to player 1, the upcard


class AgentBot(pyspiel.Bot):
    """See the module docstring. ``agent``: an agent spec (``make_agent``) or an agent for gin's rules."""

    def __init__(self, agent="heuristic", seed: int = 0):
        pyspiel.Bot.__init__(self)
        self.game = pyspiel.load_game("rummy_gin_openspiel")
        self.rules = self.game.rules
        self.agent = make_agent(agent, self.rules) if isinstance(agent, str) else agent
        self.actions = ActionMap(self.game.engine.layout)
        self.rng = np.random.default_rng(seed)

    def mirror(self, state):
        """Our state after the history of OpenSpiel's ``state`` (a ``gin_rummy`` state past its deal)."""
        history = state.history()
        if len(history) < DEAL:
            raise ValueError("AgentBot acts once the deal is over")
        ours = self.game.new_initial_state()
        dealt = history[:DEAL]
        for first, second in zip(dealt[:10], dealt[10:20]):
            ours.apply_action(from_openspiel_card(first))
            ours.apply_action(from_openspiel_card(second))
        ours.apply_action(from_openspiel_card(dealt[20]))
        theirs = state.get_game().new_initial_state()
        for action in dealt:
            theirs.apply_action(action)
        for action in history[DEAL:]:
            if theirs.is_chance_node():  # a card drawn from the stock: our draw's chance outcome
                ours.apply_action(from_openspiel_card(action))
            else:
                laying_off = int(ours.record["phase"][0]) == PHASE_LAYOFF
                ours.apply_action(self.actions.from_openspiel(action, laying_off))
            theirs.apply_action(action)
        return ours

    def step(self, state) -> int:
        ours = self.mirror(state)
        player = state.current_player()
        if ours.current_player() != player or self.actions.mask_to_openspiel(self._mask(ours)) != sorted(
                state.legal_actions()):
            raise RuntimeError("our gin and OpenSpiel's gin_rummy disagree on this position (please report it):\n"
                               f"{state}")
        observation = self.game.engine.observe_records(ours.record, np.array([player]))
        mask = self._mask(ours)[None]
        action = int(np.asarray(act_on(self.agent, observation, mask, self.rng, ours.record, ours.undo))[0])
        return self.actions.to_openspiel(action)

    def _mask(self, ours) -> np.ndarray:
        mask = np.zeros(self.game.engine.num_actions, dtype=np.int8)
        mask[ours.legal_actions()] = 1
        return mask

    def restart_at(self, state) -> None:  # the bot keeps nothing between decisions
        pass

    def inform_action(self, state, player_id, action) -> None:
        pass

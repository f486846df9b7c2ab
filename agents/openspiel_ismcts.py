"""``OpenSpielISMCTSAgent``: OpenSpiel's own information-set MCTS bot (``open_spiel.python.algorithms.ismcts``)
searching this package's OpenSpiel game of the rules (``rummy_env.openspiel``), as an arena agent (spec
``openspiel_ismcts``, options ``openspiel_ismcts:simulations=200,uct=2``; needs the ``openspiel`` extra).

For each decision with a choice, the agent makes the OpenSpiel state of the row's record (``start_from``), and
OpenSpiel's bot runs ``simulations`` simulations on it. Each one starts from a world the bot asks the state
for (``resample_from_infostate``: the hidden cards re-dealt as the searching seat may believe them,
``rummy_env.beliefs``), descends the bot's tree by UCT (``uct``) and evaluates the leaf by playing the hand
out with the package's compiled heuristic (``rollout="heuristic"``; ``"random"`` plays uniformly). The game it
searches is one hand scored as a win (knob ``reward="win"``), which is what a rollout measures. The move is the
most visited one.

It is slow beside the package's own searchers (OpenSpiel's bot is Python, and every node of its tree is a Python
state): 200 simulations took 0.14-0.16 s per decision in basic 2-player rummy, where ``ismcts:iterations=200``
took 0.007 s (README). It is here to show OpenSpiel's algorithms at work on the game
and to be measured against the package's own searchers in the arena, not as the strongest player.
"""

from __future__ import annotations

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from rummy_env.actions import ActionLayout
from rummy_env.agents.base import InputCheck
from rummy_env.agents.search import ROLLOUT_CAP, parse_options
from rummy_env.engine.config import kernel_config
from rummy_env.engine.families import family
from rummy_env.engine.drivers import done_rows
from rummy_env.engine.families import policies
from rummy_env.engine.search.rollout import POLICY_CODES, hand_won
from rummy_env.engine.state import state_dtype
from rummy_env.openspiel import game_for_rules
from rummy_env.rules import RummyRules

OPTIONS = {"simulations": int, "uct": float, "rollout": str, "seed": int}


class CompiledRollouts(mcts.Evaluator):
    """Leaf values from the package's compiled rollouts (``rummy_env.engine.search.rollout``): the hand played out
    by ``rollout`` at every seat, then each seat's centred win share, as the ``reward="win"`` game scores it
    (0 for every seat if the rollout was cut before the hand's end)."""

    def __init__(self, rules: RummyRules, rollout: str, seed: int):
        self.rules = rules
        self.cfgs, self.tables = kernel_config(rules, ActionLayout.for_rules(rules))
        self.kernels = policies(rules)
        self.codes = np.full((1, rules.num_players), POLICY_CODES[rollout], dtype=np.int64)
        self.rng = np.random.default_rng(seed)
        self.steps = np.zeros(1, dtype=np.int64)
        self.done = np.zeros(1, dtype=np.bool_)
        self.work = family(rules.ruleset).work_buffers(1, state_dtype(rules))

    def evaluate(self, state) -> np.ndarray:
        record, undo = state.record.copy(), state.undo.copy()
        prng = self.rng.integers(1, 2**63, size=1, dtype=np.int64).astype(np.uint64)
        self.kernels.play_out_rows(record, undo, self.codes, prng, self.work, self.tables, self.cfgs, ROLLOUT_CAP,
                                   self.steps)
        done_rows(record, self.cfgs, self.done)
        if not self.done[0]:  # cut at ROLLOUT_CAP: no winner
            return np.zeros(self.rules.num_players)
        return win_shares([hand_won(record[0], seat, self.cfgs[0]) for seat in range(self.rules.num_players)])

    def prior(self, state):
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]


def win_shares(won) -> np.ndarray:
    """Each seat's centred win share of a finished hand, ``(P w_q / winners - 1) / (P - 1)``, from whether each
    seat won it (``rummy_env.engine.search.rollout.hand_won``); 0 for all when nobody won."""
    won = np.asarray(won, dtype=np.float64)
    players = len(won)
    if not won.any():
        return np.zeros(players)
    return (players * won / won.sum() - 1.0) / (players - 1)


class OpenSpielISMCTSAgent:
    """See the module docstring; ``act(observation, action_mask, rng, records, undo) -> actions``."""

    needs_records = True

    def __init__(self, rules: RummyRules, simulations: int = 200, uct: float = 2.0, rollout: str = "heuristic",
                 seed: int = 0):
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations}")
        if not uct >= 0:
            raise ValueError(f"uct must be a number >= 0, got {uct!r}")
        if rollout not in POLICY_CODES:
            raise ValueError(f"rollout must be one of {list(POLICY_CODES)}, got {rollout!r}")
        self.rules = rules
        self.check_inputs = InputCheck(rules)
        self.game = game_for_rules(rules, reward="win")
        random_state = np.random.RandomState(seed)
        self.bot = ismcts.ISMCTSBot(self.game, CompiledRollouts(self.game.rules, rollout, seed), uct, simulations,
                                    random_state=random_state,
                                    allow_inconsistent_action_sets=True)
        # the worlds drawn from the agent's own seed (OpenSpiel's default sampler is seeded afresh every time)
        self.bot.set_resampler(lambda state, player: state.resample_from_infostate(player, random_state.uniform))

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator,
            records: np.ndarray | None = None, undo: np.ndarray | None = None) -> np.ndarray:
        observations, masks = self.check_inputs(observation, action_mask)
        if records is None or undo is None:
            raise ValueError("OpenSpielISMCTSAgent searches from the rows' game records: call act(observation, "
                             "action_mask, rng, records=engine.state[rows], undo=engine.undo_copies[rows]) (the "
                             "arena and the env wrappers do, through rummy_env.agents.base.act_on)")
        records, undo = np.atleast_1d(records), np.atleast_1d(undo)
        actions = np.zeros(len(masks), dtype=np.int64)
        for i, mask in enumerate(masks):
            legal = np.flatnonzero(mask)
            if legal.size == 1:
                actions[i] = legal[0]
                continue
            state = self.game.new_initial_state()
            state.start_from(records[i:i + 1], undo[i:i + 1])
            actions[i] = int(self.bot.step(state))
            if not mask[actions[i]]:
                raise RuntimeError(f"OpenSpiel's ISMCTS chose action {actions[i]}, which the mask does not allow")
        return actions


def make(options: str, rules: RummyRules) -> OpenSpielISMCTSAgent:
    """The agent of spec ``openspiel_ismcts:OPTIONS``."""
    return OpenSpielISMCTSAgent(rules, **parse_options(options, OPTIONS))

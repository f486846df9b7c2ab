"""``OpponentPool``: what each row of a ``ppo_selfplay`` run plays against, and past policies' snapshots.

When a row starts an episode it draws an opponent kind (``PPOConfig.opponents``): ``self`` (the
learner in every seat), ``past`` (one of the last ``pool_size`` snapshots of the policy), ``heuristic``
or ``random`` (the baselines of ``rummy_env.agents``), and, for the non-self rows, the learner's seat.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from rummy_env.agents.heuristic_agent import HeuristicAgent
from rummy_env.agents.ppo_agent import ActorCritic, LegalActions
from rummy_env.agents.random_agent import RandomAgent
from rummy_env.rules import RummyRules
from rummy_env.training.ppo_config import OPPONENT_KINDS, PPOConfig

SELF, PAST, HEURISTIC, RANDOM = range(len(OPPONENT_KINDS))


class OpponentPool:
    """What each row plays against in its current episode, and the snapshots of past policies."""

    def __init__(self, config: PPOConfig, rules: RummyRules):
        self.config = config
        self.probabilities = np.array([config.opponents.get(kind, 0.0) for kind in OPPONENT_KINDS])
        self.heuristic, self.random = HeuristicAgent(rules), RandomAgent()
        self.snapshots: list[ActorCritic] = []
        self.make_network = lambda: ActorCritic(rules, config.hidden_size, config.num_layers, config.card_features)
        self.kind = np.zeros(config.num_envs, dtype=np.int64)          # OPPONENT_KINDS index per row
        self.snapshot = np.zeros(config.num_envs, dtype=np.int64)      # which past policy, for PAST rows
        self.learner_seat = np.zeros(config.num_envs, dtype=np.int64)  # the learner's seat, non-self rows

    def draw(self, rows: np.ndarray, rng: np.random.Generator) -> None:
        """New opponents (and learner seats) for the episodes starting in ``rows``."""
        probabilities = self.probabilities.copy()
        if not self.snapshots:
            probabilities[SELF] += probabilities[PAST]
            probabilities[PAST] = 0.0
        count = rows.size
        self.kind[rows] = rng.choice(len(OPPONENT_KINDS), size=count, p=probabilities / probabilities.sum())
        self.snapshot[rows] = rng.integers(0, max(len(self.snapshots), 1), size=count)
        self.learner_seat[rows] = rng.integers(0, self.config.num_players, size=count)

    def add_snapshot(self, network: ActorCritic) -> None:
        snapshot = self.make_network()
        snapshot.load_state_dict(network.state_dict())
        self.snapshots = (self.snapshots + [snapshot.eval()])[-self.config.pool_size:]

    def learner_moves(self, seats: np.ndarray) -> np.ndarray:
        """Rows whose seat to act is the learner's (every seat of a self-play row)."""
        return (self.kind == SELF) | (seats == self.learner_seat)

    @torch.no_grad()
    def act(self, actions: np.ndarray, observations: np.ndarray, masks: np.ndarray, seats: np.ndarray,
            rng: np.random.Generator) -> None:
        """Overwrite ``actions`` in the rows where a pool opponent is to move."""
        theirs = ~self.learner_moves(seats)
        for kind, agent in ((HEURISTIC, self.heuristic), (RANDOM, self.random)):
            rows = np.flatnonzero(theirs & (self.kind == kind))
            if rows.size:
                actions[rows] = agent.act(observations[rows], masks[rows], rng)
        for index, snapshot in enumerate(self.snapshots):
            rows = np.flatnonzero(theirs & (self.kind == PAST) & (self.snapshot == index))
            if rows.size:
                legal = LegalActions.from_mask(masks[rows])
                log_probs, _ = snapshot(torch.from_numpy(observations[rows]), legal)
                actions[rows] = legal.sample(log_probs, torch.rand(rows.size)).numpy()

    def state_dict(self) -> dict[str, Any]:
        return {"snapshots": [s.state_dict() for s in self.snapshots], "kind": torch.from_numpy(self.kind.copy()),
                "snapshot": torch.from_numpy(self.snapshot.copy()),
                "learner_seat": torch.from_numpy(self.learner_seat.copy())}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.snapshots = []
        for weights in state["snapshots"]:
            snapshot = self.make_network()
            snapshot.load_state_dict(weights)
            self.snapshots.append(snapshot.eval())
        for name in ("kind", "snapshot", "learner_seat"):
            getattr(self, name)[:] = state[name].numpy()

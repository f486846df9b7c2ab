"""``Policy``: what every agent of ``agents/`` is, for the arena, the trainers and the env wrappers.

A policy acts on a **batch** of decisions at once: row ``i`` of the inputs is one game (one row of
``RummyEngine`` / ``RummyVectorEnv``, or a single PettingZoo observation with a leading axis of 1),
seen by the player to move there.

* ``observation``: int8 ``(B, O)``, the acting player's observation of each row
  (``rummy_env.observations``; ``ObservationLayout(rules).split`` names its blocks);
* ``action_mask``: int8 ``(B, A)``, 1 where the action is legal in that row (``rummy_env.actions``);
* ``rng``: a ``np.random.Generator``, where a stochastic policy draws its randomness (a seed replays the play);
* returns: integer action ids ``(B,)``, with ``action_mask[i, actions[i]] == 1`` for every row.

A policy must only pick masked-in actions (the engine raises on an illegal one by default); callers
do not pass it rows whose mask is empty (finished games). ``O`` and ``A`` depend on the rules
(``ObservationLayout(rules).size``, ``ActionLayout.for_rules(rules).num_actions``).

>>> import numpy as np
>>> from rummy_env.agents.random_agent import RandomAgent
>>> isinstance(RandomAgent(), Policy)
True
>>> RandomAgent().act(np.zeros((2, 3), np.int8), np.array([[0, 1, 0], [0, 0, 1]], np.int8),
...                   np.random.default_rng(0)).tolist()
[1, 2]
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Policy(Protocol):
    """A batched agent: ``act(observation, action_mask, rng) -> actions`` (see the module docstring).
    ``isinstance(agent, Policy)`` checks only that ``act`` exists, not its signature."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One legal action per row: ``(B, O)`` int8 observations and ``(B, A)`` int8 masks in,
        ``(B,)`` integer action ids out, each with ``action_mask[i, actions[i]] == 1``."""
        ...


def game_shape(rules) -> str:
    """``"ruleset 'basic', 2 players (observation width 1306, 1034 actions)"``: what an agent is built for."""
    from rummy_env.actions import ActionLayout
    from rummy_env.observations import ObservationLayout

    return (f"ruleset {rules.ruleset!r}, {rules.num_players} players (observation width "
            f"{ObservationLayout(rules).size}, {ActionLayout.for_rules(rules).num_actions} actions)")


def check_agent_fits(agent: object, rules, role: str = "the agent") -> None:
    """Refuse, with a ``ValueError`` naming both, an agent built for another game than ``rules``:
    another ruleset, player count, observation width or number of actions. Agents built for no
    particular rules (no ``rules`` attribute, e.g. ``RandomAgent``) fit every game."""
    built = getattr(agent, "rules", None)
    if built is None:
        return
    if game_shape(built) != game_shape(rules):
        raise ValueError(f"{role} ({type(agent).__name__}) was built for {game_shape(built)}, but this game is "
                         f"{game_shape(rules)}; build the agent for these rules")


class InputCheck:
    """Called on each batch an agent built for ``rules`` gets: observations or masks of another width
    (e.g. 4-player observations given to a 2-player policy) raise a ``ValueError`` instead of being
    misread; returns them as 2-D arrays."""

    def __init__(self, rules):
        from rummy_env.actions import ActionLayout
        from rummy_env.observations import ObservationLayout

        self.widths = (ObservationLayout(rules).size, ActionLayout.for_rules(rules).num_actions)
        self.built_for = game_shape(rules)

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        observations, masks = np.atleast_2d(observation), np.atleast_2d(action_mask)
        if (observations.shape[-1], masks.shape[-1]) != self.widths:
            raise ValueError(f"this agent was built for {self.built_for}, but was given observations of width "
                             f"{observations.shape[-1]} and masks of width {masks.shape[-1]}: another ruleset or "
                             "player count")
        return observations, masks


def act_on(agent, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator,
           records: np.ndarray | None = None, undo: np.ndarray | None = None) -> np.ndarray:
    """``agent.act(observation, action_mask, rng)``, with the rows' game records (and their UNDO copies)
    for an agent that searches from them (``needs_records = True``: ``rummy_env.agents.search``). Callers
    that own an engine (the arena, the env wrappers) act through this."""
    if getattr(agent, "needs_records", False):
        return agent.act(observation, action_mask, rng, records=records, undo=undo)
    return agent.act(observation, action_mask, rng)

"""Single-agent Gymnasium envs: the learner holds one seat, opponents act inside the env.

``RummyGymEnv`` (one game) and ``RummyGymVectorEnv`` (``num_envs`` games, natively batched) share one
mechanism, ``LearnerSeats``: after the learner's action, every opponent move of every row is played
by the ``opponent`` policy — batched over the rows, each opponent seeing only its own observation
(``engine.observe()`` for the seat to act) — until it is the learner's turn again or the episode is
over. The reward is the learner's own seat's reward, summed over the learner's action and the
opponents' moves that followed it.

``opponent`` is ``None`` (uniform random legal actions), an agent spec of
``rummy_env.agents.registry`` (``"random"``, ``"greedy"``, ``"heuristic"``, ``"ppo:PATH"``, …, built
for the env's rules), an object with ``act(observation, action_mask, rng) -> actions`` (a batched
``Policy``, e.g. ``rummy_env.agents.random_agent.RandomAgent``), or a callable ``(observation,
action_mask) -> actions``. An agent built for other rules (another ruleset or player count) is
refused when the env is made, not in the middle of an episode. ``learner_seat`` is a seat, or
``"random"`` for a fresh seat each episode.

Observation: ``Box(0, 127, (O,), int8)`` (the learner's view, ``rummy_env.engine.observation``);
action: ``Discrete(A)``, an integer id (``0.7``, ``"0"``, ``True`` are refused); ``action_masks()``
gives the legal actions (sb3-contrib's convention), also in ``info["action_mask"]``. ``gymnasium.make``
returns the env itself (no ``OrderEnforcing``/``PassiveEnvChecker``: the env checks its call order and
passes ``check_env``), so ``env.action_masks()`` works on it; through wrappers of your own, use
``env.get_wrapper_attr("action_masks")()`` (what sb3-contrib does). A hand in which the learner never gets to act (an opponent goes rummy
before the learner's first turn) is not shown to the learner: that row is dealt again.

``RummyGymVectorEnv`` auto-resets in Gymnasium's ``SAME_STEP`` mode: the observation returned for a
finished row is the first of its next episode; the last one is in ``infos["final_obs"]`` (with the
mask ``infos["_final_obs"]``) and the learner's final hand score in ``infos["final_hand_score"]``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from rummy_env.engine import RummyEngine
from rummy_env.agents.base import act_on, check_agent_fits
from rummy_env.engine.state import truncated
from rummy_env.inputs import as_action, as_actions, count
from rummy_env.rules import RummyRules, make_rules
from rummy_env.sampling import uniform_legal_actions

Opponent = Any  # a batched Policy (``act(observation, action_mask, rng)``) or a callable (observation, mask)


class LearnerSeats:
    """The batched engine with a learner seat per row and opponents that play the other seats."""

    def __init__(self, num_envs: int, rules: RummyRules, opponent: Opponent | None, learner_seat: int | str,
                 parallel: bool | None = None):
        if isinstance(learner_seat, np.integer):
            learner_seat = int(learner_seat)
        if not (learner_seat == "random" or (type(learner_seat) is int and 0 <= learner_seat < rules.num_players)):
            raise ValueError(f"learner_seat must be a seat 0..{rules.num_players - 1} or 'random', got {learner_seat!r}")
        num_envs = count(num_envs, "num_envs")
        self.engine = RummyEngine(rules, batch_size=num_envs, parallel=parallel)
        self.opponent = opponent_for(opponent, rules)
        self.learner_seat = learner_seat
        self.seats = np.zeros(num_envs, dtype=np.int8)
        self.rows = np.arange(num_envs)
        self.rng = np.random.default_rng()

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)
        self.engine.reset(seed=seed)

    def opponent_actions(self, observation: np.ndarray, mask: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The opponents' actions in ``rows`` (bool), whose observations and masks are given; a search agent
        also gets those rows' game records (``act_on``)."""
        if self.opponent is None:
            return uniform_legal_actions(mask, self.rng)
        if hasattr(self.opponent, "act"):
            actions = act_on(self.opponent, observation, mask, self.rng, self.engine.state[rows],
                             self.engine.undo_copies[rows])
        else:
            actions = self.opponent(observation, mask)
        actions = as_actions(actions)  # integer ids only, as the learner's
        if actions.shape != (mask.shape[0],):
            raise ValueError(f"the opponent must return one action per row it was given ({mask.shape[0]}), got an "
                             f"array of shape {actions.shape}")
        return actions

    def start(self, rows: np.ndarray) -> None:
        """New episodes in ``rows``, advanced to the learner's first decision."""
        while rows.any():
            self.engine.reset(rows=rows)
            if self.learner_seat == "random":
                self.seats[rows] = self.rng.integers(0, self.engine.rules.num_players, size=int(rows.sum()))
            else:
                self.seats[rows] = self.learner_seat
            self.play_opponents(np.zeros(self.engine.batch_size, dtype=np.float32))
            rows = rows & self.engine.done  # ended before the learner acted: deal again

    def play_opponents(self, learner_rewards: np.ndarray) -> None:
        """Let the opponents move until every row is over or waits for its learner."""
        engine = self.engine
        while True:
            waiting = ~engine.done & (engine.current_player != self.seats)
            if not waiting.any():
                return
            # the policy sees only the rows where an opponent is to act, each from that seat's view
            actions = np.zeros(engine.batch_size, dtype=np.int64)
            actions[waiting] = self.opponent_actions(engine.observe()[waiting], engine.legal_action_mask()[waiting],
                                                     waiting)
            result = engine.step(actions, rows=waiting)
            learner_rewards += result.rewards[self.rows, self.seats]

    def learner_step(self, actions: np.ndarray) -> np.ndarray:
        """Apply the learner's actions, then the opponents'; the learner's rewards ``(B,)``."""
        result = self.engine.step(as_actions(actions).reshape(-1))
        rewards = result.rewards[self.rows, self.seats].astype(np.float32)
        self.play_opponents(rewards)
        return rewards

    def observation(self) -> np.ndarray:
        return self.engine.observe(self.seats)

    def action_masks(self) -> np.ndarray:
        return self.engine.legal_action_mask().astype(bool)


def opponent_for(opponent: Opponent | str | None, rules: RummyRules) -> Opponent | None:
    """The opponent policy of an env under ``rules``: a spec is built, an agent checked to fit."""
    if opponent is None:
        return None
    if isinstance(opponent, str):
        from rummy_env.agents.registry import make_agent

        return make_agent(opponent, rules)
    if hasattr(opponent, "act"):
        check_agent_fits(opponent, rules, "the opponent")
        return opponent
    if callable(opponent):
        return opponent
    raise TypeError(f"opponent must be None, an agent spec such as 'heuristic', an agent with act() or a callable, "
                    f"got {type(opponent).__name__}")


def _spaces(engine: RummyEngine) -> tuple[gymnasium.spaces.Box, gymnasium.spaces.Discrete]:
    return (gymnasium.spaces.Box(0, 127, (engine.observation_size,), np.int8),
            gymnasium.spaces.Discrete(engine.num_actions))


class RummyGymEnv(gymnasium.Env):
    """One game, the learner in one seat; see the module docstring."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, rules: str | RummyRules = "basic", num_players: int | None = None,
                 opponent: Opponent | str | None = None, learner_seat: int | str = 0, render_mode: str | None = None,
                 **overrides: Any):
        self.rules = make_rules(rules, num_players, **overrides)
        self.core = LearnerSeats(1, self.rules, opponent, learner_seat, parallel=False)
        self.observation_space, self.action_space = _spaces(self.core.engine)
        self.render_mode = render_mode

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.core.seed(seed)
        self.core.start(np.ones(1, dtype=np.bool_))
        return self.core.observation()[0].copy(), self._info()

    def step(self, action: int):
        if self.core.engine.done[0]:
            raise RuntimeError("the episode is over: call reset() to start a new one")
        reward = float(self.core.learner_step(np.array([as_action(action)]))[0])
        done = bool(self.core.engine.done[0])
        cut = done and bool(truncated(self.core.engine.state[0]))
        return self.core.observation()[0].copy(), reward, done and not cut, cut, self._info()

    def action_masks(self) -> np.ndarray:
        return self.core.action_masks()[0]

    def _info(self) -> dict[str, Any]:
        state = self.core.engine.state[0]
        seat = int(self.core.seats[0])
        return {"action_mask": self.core.engine.legal_action_mask()[0].copy(), "learner_seat": seat,
                "hand_score": int(state["hand_scores"][seat]), "total": int(state["totals"][seat])}

    def render(self) -> str | None:
        from rummy_env.render import render_text

        return render_text(self.core.engine, 0) if self.render_mode == "ansi" else None


class RummyGymVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games natively batched, the learner in one seat of each; see the module docstring."""

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int = 1, rules: str | RummyRules = "basic", num_players: int | None = None,
                 opponent: Opponent | str | None = None, learner_seat: int | str = 0, parallel: bool | None = None,
                 **overrides: Any):
        self.rules = make_rules(rules, num_players, **overrides)
        self.num_envs = num_envs
        self.core = LearnerSeats(num_envs, self.rules, opponent, learner_seat, parallel=parallel)
        self.single_observation_space, self.single_action_space = _spaces(self.core.engine)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self._final_obs = np.zeros((num_envs, self.core.engine.observation_size), dtype=np.int8)
        self._final_hand_score = np.zeros(num_envs, dtype=np.int32)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.core.seed(seed)
        self.core.start(np.ones(self.num_envs, dtype=np.bool_))
        return self.core.observation(), self._infos(np.zeros(self.num_envs, dtype=np.bool_))

    def step(self, actions: np.ndarray):
        rewards = self.core.learner_step(actions)
        finished = self.core.engine.done.copy()
        rows = np.flatnonzero(finished)
        truncations = np.zeros(self.num_envs, dtype=np.bool_)
        truncations[rows] = truncated(self.core.engine.state[rows])
        terminations = finished & ~truncations
        if rows.size:
            seats = self.core.seats[rows]
            ended = self.core.engine.state[rows]  # a copy of just the finished records
            self._final_obs[rows] = self.core.engine.observe_records(ended, seats)
            self._final_hand_score[rows] = ended["hand_scores"][np.arange(rows.size), seats]
            self.core.start(finished)
        return self.core.observation(), rewards, terminations, truncations, self._infos(finished)

    def action_masks(self) -> np.ndarray:
        """``(num_envs, A)`` bool: the learner's legal actions in each row."""
        return self.core.action_masks()

    def _infos(self, finished: np.ndarray) -> dict[str, np.ndarray]:
        return {"action_mask": self.core.engine.legal_action_mask(), "learner_seat": self.core.seats,
                "final_obs": self._final_obs, "_final_obs": finished,
                "final_hand_score": self._final_hand_score, "_final_hand_score": finished}

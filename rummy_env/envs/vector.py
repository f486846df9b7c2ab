"""``RummyVectorEnv``: the batched engine as a native multi-agent vector env for self-play.

Each of the ``num_envs`` rows is one game. ``step(actions)`` takes one action per row, for that
row's player to act, and returns what the *next* player to act needs:

=====================  ===========================  =============================================
returned               shape                        content
=====================  ===========================  =============================================
``observation``        dict                         ``"observation"`` (B, O) int8 and
                                                    ``"action_mask"`` (B, A) int8, for the player
                                                    to act in each row (after any auto-reset)
``rewards``            (B, P) float32               every seat's reward from this step
``terminations``       (B,) bool                    the row's episode ended by the rules
``truncations``        (B,) bool                    it ended at the engine's turn cap
                                                    (``max_turns_per_round``, B17)
``infos``              dict of arrays               ``current_player`` (B,), ``phase`` (B,),
                                                    ``totals`` (B, P); for rows that ended:
                                                    ``final_observation`` (B, O), ``final_hand_scores``
                                                    (B, P), ``final_totals`` (B, P), ``final_winners``
                                                    (B, P) and the mask ``_final`` (B,)
=====================  ===========================  =============================================

Auto-reset follows Gymnasium's ``SAME_STEP`` mode: a row whose episode ends is reset inside the same
``step``; the observation returned for it is the first of its new episode, and its last observation
(seen by the seat that acted last), hand scores and totals are kept under ``final_*`` in ``infos``.
No step ever crosses an episode boundary. Rewards are zero-sum per row (RULES knobs ``reward``,
``reward_scale``); whose reward is whose is the seat axis.

Arrays returned are the engine's buffers, reused by the next ``step``/``reset`` (copy to keep them),
so that the interface adds no copies to the engine's throughput.

Gymnasium's vector conventions hold where they fit: ``num_envs``, ``single_observation_space``
(``Dict(observation=Box(0, 127, (O,), int8), action_mask=Box(0, 1, (A,), int8))``) and
``single_action_space`` (``Discrete(A)``), their batched forms ``observation_space`` (the same Dict
with a leading ``num_envs`` axis) and ``action_space`` (``MultiDiscrete([A] * num_envs)``),
``metadata["autoreset_mode"]``, ``reset(seed=None, options=None)``, ``close()``. Two differences are
inherent to a multi-agent env: ``rewards`` has a seat axis ``(B, P)``, and each row's action is for
the player to act there (``infos["current_player"]``). Actions are integer ids (an integer array or a
list of ints; floats and bools are refused), and ``step`` before ``reset`` raises ``RuntimeError``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from rummy_env.engine import RummyEngine
from rummy_env.engine.state import truncated
from rummy_env.inputs import count
from rummy_env.rules import RummyRules, make_rules


class RummyVectorEnv:
    """``num_envs`` games stepped together; see the module docstring."""

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int, rules: str | RummyRules = "basic", num_players: int | None = None,
                 seed: int | None = None, parallel: bool | None = None, **overrides: Any):
        self.rules = make_rules(rules, num_players, **overrides)
        self.num_envs = num_envs = count(num_envs, "num_envs")
        self.num_players = self.rules.num_players
        self.engine = RummyEngine(self.rules, batch_size=num_envs, parallel=parallel)
        self.single_observation_space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(0, 127, (self.engine.observation_size,), np.int8),
            "action_mask": gymnasium.spaces.Box(0, 1, (self.engine.num_actions,), np.int8),
        })
        self.single_action_space = gymnasium.spaces.Discrete(self.engine.num_actions)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        self.closed = False
        self._seed = seed
        self._final_observation = np.zeros((num_envs, self.engine.observation_size), dtype=np.int8)
        self._final_hand_scores = np.zeros((num_envs, self.num_players), dtype=np.float64)
        self._final_totals = np.zeros((num_envs, self.num_players), dtype=np.float64)
        self._final_winners = np.zeros((num_envs, self.num_players), dtype=np.int8)
        self._truncations = np.zeros(num_envs, dtype=np.bool_)
        self._terminations = np.zeros(num_envs, dtype=np.bool_)

    def reset(self, seed: int | None = None, options: dict | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Start every row afresh; returns the first observations and the infos (no ``options``
        are supported)."""
        if options:
            raise ValueError(f"RummyVectorEnv.reset takes no options, got {sorted(options)}")
        self.engine.reset(seed=self._seed if seed is None else seed)
        self._seed = None
        return self._observation(), self._infos(np.zeros(self.num_envs, dtype=np.bool_))

    def step(self, actions: np.ndarray):
        """One action per row for its player to act; see the module docstring for what comes back."""
        actors = self.engine.state["current"].copy()
        result = self.engine.step(actions)
        finished = self.engine.done.copy()
        self._truncations[:] = False
        self._terminations[:] = False
        rows = np.flatnonzero(finished)
        if rows.size:
            self._keep_final(rows, actors[rows])
            self.engine.reset(rows=finished)
        return self._observation(), result.rewards, self._terminations, self._truncations, self._infos(finished)

    def _keep_final(self, rows: np.ndarray, actors: np.ndarray) -> None:
        """Record how the episodes of ``rows`` ended before they are reset."""
        ended = self.engine.state[rows]  # a copy of just those records
        players = self.num_players
        self._truncations[rows] = truncated(ended)
        self._terminations[rows] = ~self._truncations[rows]
        self._final_observation[rows] = self.engine.observe_records(ended, actors)
        self._final_hand_scores[rows] = ended["hand_scores"][:, :players]
        self._final_totals[rows] = ended["totals"][:, :players]
        self._final_winners[rows] = self.engine.episode_winners(ended)

    def _observation(self) -> dict[str, np.ndarray]:
        # the mask first: it is what the policy reads last, so it is still in cache (measured: the
        # other order costs about a quarter of the throughput at B = 4096)
        mask = self.engine.legal_action_mask()
        return {"observation": self.engine.observe(), "action_mask": mask}

    def _infos(self, finished: np.ndarray) -> dict[str, np.ndarray]:
        state = self.engine.state
        return {
            "current_player": state["current"], "phase": state["phase"], "totals": state["totals"][:, :self.num_players],
            "final_observation": self._final_observation, "final_hand_scores": self._final_hand_scores,
            "final_totals": self._final_totals, "final_winners": self._final_winners, "_final": finished,
        }

    def close(self) -> None:
        self.closed = True

"""PettingZoo AEC environment: the batched engine at batch size 1.

``env(rules="basic", num_players=None, render_mode=None, **overrides)`` returns the wrapped env,
``raw_env(...)`` the bare one. ``rules`` is a preset name (2 players unless ``num_players`` says
otherwise), the path of a ``.toml`` rules file or a ``RummyRules``, which keeps its own values (a
contradicting argument is refused; see ``rummy_env.rules.make_rules``); ``overrides`` are rules knobs
(``ace_high_or_low=True``, ``episode="game"``, ``reward="win"``, …).

Agents ``player_0 … player_{N-1}``; the same agent acts several times in a row within its turn
(draw, plays, discard). Each agent observes ``{"observation": int8 (O,), "action_mask": int8 (A,)}``;
the observation is laid out in ``rummy_env.engine.observation`` (complete public information,
nothing hidden), the actions in ``rummy_env.actions``. The mask of an agent that is not to act is
all zeros. ``state()`` returns the perfect-information tensor (every hand and the stock order) for
centralised critics.

Rewards are zero-sum and come from the rules' reward knobs (``reward="score"``: each scored hand's
centred score difference over ``reward_scale``; ``reward="win"``: +1 to the winner, -1 shared by the
others, at the episode's end). One episode is one hand by default (``episode="game"``: until the
game ends); a hand cut by the engine's turn cap (``max_turns_per_round``, B17) ends the episode
as a truncation, every other end as a termination.

Every agent's ``info`` holds numbers and arrays only (clients such as TorchRL turn infos into
tensors): ``phase`` (an int code), ``hand_scores`` and ``totals`` (float64 arrays ``(P,)``; after a
hand or game ends, the final scores), ``end_reason`` (an int code) and ``winner`` (the seat that went
out in the last finished hand, -1 for none) and ``action_mask`` (the agent's legal actions, as in its
observation: a read-only view of one array that the next step overwrites, so copy it to keep it; for
libraries that read the mask from the infos, such as AgileRL; ``action_mask_in_infos=False`` leaves it out, for TorchRL's ``PettingZooWrapper``, which
fails when the mask is in both places). The code tables are ``rummy_env.PHASE_NAMES`` and
``rummy_env.END_NAMES`` (``PHASE_NAMES[info["phase"]]`` is the name):

====================  ====================================================================
``phase``             ``0`` draw, ``1`` play, ``2`` hand_over, ``3`` game_over; gin adds ``4``
                      upcard, ``5`` knock, ``6`` layoff, ``7`` defend, ``8`` wall (G3-G10)
``end_reason``        ``0`` none (the hand is not over), ``1`` out (a player went out),
                      ``2`` dead_no_draw (no card left to draw, B11/R17), ``3`` dead_reshuffles
                      (past ``max_reshuffles``), ``4`` dead_turn_cap (``max_turns_per_round``,
                      B17/R17), ``5`` illegal_action (``illegal_action="penalty"``); gin: ``6``
                      knock (the knocker scored, or a tie), ``7`` undercut, ``8`` gin, ``9`` big_gin,
                      ``10`` wall (a void hand, or a dead one under ``pickup_or_dead``), ``11``
                      repeated_discard, ``12`` upcard_draw_limit (G9, G10, G13)
====================  ====================================================================

Actions are integer ids (``int`` or a numpy integer); anything else (``0.7``, ``"0"``, ``True``, NaN)
is refused with a ``ValueError``. ``step``, ``last``, ``observe``, ``state`` or ``render`` before ``reset``
raise ``RuntimeError("... call reset() first")`` (``env()`` and ``raw_env()`` alike; PettingZoo's own
wrapper would raise an ``AssertionError``); after the episode's end each agent takes its ``None`` dead
step (PettingZoo's convention), and a ``step`` once every agent has left raises ``RuntimeError`` asking
for ``reset()``.

An illegal action raises ``ValueError`` (``IllegalActionError``) saying what was illegal and why;
with ``illegal_action="penalty"`` it ends the game with ``illegal_action_penalty`` for the offender.

``render()`` (``render_mode="ansi"`` or ``"human"``) is a **spectator's view**: it shows every hand
face up. ``render_observer="player_1"`` (a constructor argument, or the attribute
``env.unwrapped.render_observer``) shows what that player can see instead: his own hand, and of the
others only their sizes and the cards publicly known to be in them (``rummy_env.render``).

Version History

- v0 (rummy_env 0.1.0): initial release: rulesets basic and rami51 (with the Lebanese "14").
  Unreleased, same version (games and rewards unchanged): infos hold numbers and arrays only, and
  ``render_observer`` renders one player's view; ruleset gin (presets ``gin``, ``gin_openspiel``,
  ``gin_rlcard``), whose phase and end codes extend the tables above; ``action_mask`` in every agent's info
  (``action_mask_in_infos=False`` leaves it out, for TorchRL's ``PettingZooWrapper``). CHANGELOG.md lists every
  change.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from rummy_env.engine import RummyEngine
from rummy_env.engine.state import truncated
from rummy_env.inputs import as_action
from rummy_env.render import render_text
from rummy_env.rules import RummyRules, make_rules, rules_differences


def env(rules: str | RummyRules = "basic", num_players: int | None = None, render_mode: str | None = None,
        **overrides: Any):
    """The AEC env under PettingZoo's ``OrderEnforcingWrapper`` (call-order checks).

    ``AssertOutOfBoundsWrapper`` is not added: the engine itself rejects an out-of-range action with
    a ``ValueError`` that names the valid range."""
    return OrderEnforcing(raw_env(rules, num_players, render_mode, **overrides))


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` whose ``last``, ``step``, ``observe``, ``state`` and ``render``
    go to the bare env directly, which makes the same checks and raises what the module docstring says (a
    ``RuntimeError`` before ``reset()`` and for a step once every agent has left, where PettingZoo's wrapper
    raises an ``AssertionError`` or only warns); ``last()`` is then one call instead of eight attribute
    look-ups forwarded through the wrapper on every step."""

    def last(self, observe: bool = True):
        return self.env.last(observe)

    # read by ``agent_iter`` at every step: properties, not two forwards through ``__getattr__``
    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        return self.env.agents

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.agent_selection

    def step(self, action) -> None:
        self._has_updated = True
        self.env.step(action)

    def observe(self, agent: str):
        return self.env.observe(agent)

    def state(self) -> np.ndarray:
        return self.env.state()

    def render(self):
        return self.env.render()


class raw_env(AECEnv):
    """The bare AEC env; see the module docstring."""

    metadata = {"render_modes": ["human", "ansi"], "name": "rummy_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(self, rules: str | RummyRules = "basic", num_players: int | None = None,
                 render_mode: str | None = None, render_observer: str | None = None, action_mask_in_infos: bool = True,
                 **overrides: Any):
        super().__init__()
        if not isinstance(action_mask_in_infos, bool):
            raise ValueError(f"action_mask_in_infos must be True or False, got {action_mask_in_infos!r}")
        self.action_mask_in_infos = action_mask_in_infos
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"render_mode {render_mode!r} is not supported; use None, 'human' or 'ansi'")
        self.rules = make_rules(rules, num_players, **overrides)
        self.render_observer = render_observer
        self.engine = RummyEngine(self.rules, batch_size=1, parallel=False)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(self.rules.num_players)]
        self._check_observer()
        self.agent_name_mapping = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        size, actions = self.engine.observation_size, self.engine.num_actions
        space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(low=0, high=127, shape=(size,), dtype=np.int8),
            "action_mask": gymnasium.spaces.Box(low=0, high=1, shape=(actions,), dtype=np.int8),
        })
        self.observation_spaces = {agent: space for agent in self.possible_agents}
        self.action_spaces = {agent: gymnasium.spaces.Discrete(actions) for agent in self.possible_agents}
        self._seat = np.zeros(1, dtype=np.int8)
        self._action = np.zeros(1, dtype=np.int64)
        self._phase = self.engine.state["phase"]      # views into the engine's one row
        self._current = self.engine.state["current"]
        self._legal = np.zeros(actions, dtype=np.int8)  # the acting agent's mask, computed once per position
        self._legal_view, self._no_actions = self._legal.view(), np.zeros(actions, dtype=np.int8)
        self._legal_view.flags.writeable = self._no_actions.flags.writeable = False
        self._seeded = False

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ lifecycle
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or not self._seeded:
            self.engine.reset(seed=seed)
            self._seeded = True
        else:
            self.engine.reset()
        self._begin_episode()

    def _begin_episode(self) -> None:
        """The agents' bookkeeping for the game in the engine's row (a new one, or a restored one)."""
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self._update_infos()
        if self.engine.done[0]:  # possible only with hand sizes that leave no stock (B17)
            self._mark_episode_end()
        self.agent_selection = self.possible_agents[int(self._current[0])]
        self._refresh_mask()
        if self.render_mode == "human":
            self.render()

    def step(self, action: int | None) -> None:
        self._check_started()
        agent = self.agent_selection
        if not self.agents:
            raise RuntimeError("the episode is over and every agent has left it: call reset() to start a new one")
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act and must be given an action, not None")
        self._action[0] = as_action(action)
        result = self.engine.step(self._action)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict(zip(self.possible_agents, result.rewards[0].tolist()))
        done = bool(self.engine.done[0])
        if result.hand_ended[0] or done:
            self._update_infos()
        else:
            phase = int(self._phase[0])
            for name in self.agents:
                self.infos[name]["phase"] = phase
        if done:
            self._mark_episode_end()
            self.agent_selection = self.possible_agents[(self.agent_name_mapping[agent] + 1) % len(self.possible_agents)]
        else:
            self.agent_selection = self.possible_agents[self._current[0]]
        self._refresh_mask()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _mark_episode_end(self) -> None:
        """Every agent's episode is over: truncated at the engine's turn cap, terminated otherwise."""
        ended = self.truncations if truncated(self.engine.state[0]) else self.terminations
        for name in self.agents:
            ended[name] = True

    def _update_infos(self) -> None:
        r = self.engine.state[0]
        players = self.rules.num_players
        for name in self.agents:
            self.infos[name] = {"phase": int(r["phase"]), "hand_scores": r["hand_scores"][:players].copy(),
                                "totals": r["totals"][:players].copy(), "end_reason": int(r["end_reason"]),
                                "winner": int(r["winner"])}

    def _refresh_mask(self) -> None:
        """The legal actions of the position, computed once: ``observe`` copies them, and every agent's info
        holds its ``action_mask`` as a read-only view (all zeros for an agent not to act, as in ``observe``)."""
        np.copyto(self._legal, self.engine.legal_action_mask()[0])
        if not self.action_mask_in_infos:
            return
        acting = None if self.engine.done[0] else self.possible_agents[int(self._current[0])]
        for name in self.agents:
            self.infos[name]["action_mask"] = self._legal_view if name == acting else self._no_actions

    # ------------------------------------------------------------------ views
    def last(self, observe: bool = True):
        self._check_started()
        if not self.agents:
            raise RuntimeError("the episode is over: every agent has been stepped with None and removed; call "
                               "reset() to start another (each agent's final reward was in last() while it was done)")
        return super().last(observe)

    def _check_started(self) -> None:
        if getattr(self, "agent_selection", None) is None:
            raise RuntimeError("the game has not started: call reset() first")

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._check_started()
        seat = self.agent_name_mapping[agent]
        self._seat[0] = seat
        observation = self.engine.observe(self._seat)[0].copy()
        mask = self._legal.copy() if seat == self._current[0] else np.zeros_like(self._legal)
        return {"observation": observation, "action_mask": mask}

    def state(self) -> np.ndarray:
        self._check_started()
        return self.engine.state_tensor()[0]

    def action_to_str(self, action: int) -> str:
        """The action in words, e.g. ``"lay off 7♥ on slot 2"``."""
        return self.engine.action_to_str(action)

    def render(self) -> str | None:
        self._check_started()
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        observer = self._check_observer()
        text = render_text(self.engine, 0, observer=None if observer is None else self.agent_name_mapping[observer])
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def _check_observer(self) -> str | None:
        """``render_observer``: None or an agent's name, else a ``ValueError``."""
        observer = self.render_observer
        if observer is not None and observer not in self.possible_agents:
            raise ValueError(f"render_observer must be None (every hand) or one of {self.possible_agents}, "
                             f"got {observer!r}")
        return observer

    # ------------------------------------------------------------------ save / restore
    def save_game(self) -> dict[str, Any]:
        """Everything needed to restore this exact position: the rules and the engine's row."""
        return {"rules": self.rules.to_dict(), "position": self.engine.snapshot(0)}

    def restore_game(self, saved: dict[str, Any]) -> None:
        """Restore a ``save_game`` result (same rules required); the episode continues from there.

        The saved game is checked whole before anything is replaced: a bad one (unknown keys, other
        rules, a duplicated card, a seat that does not exist, …) raises a ``ValueError`` naming what
        is wrong, and the game in progress stays as it was."""
        if not isinstance(saved, dict) or set(saved) != {"rules", "position"}:
            keys = sorted(saved) if isinstance(saved, dict) else type(saved).__name__
            raise ValueError(f"a saved game is a dict with the keys ['position', 'rules'] (from save_game), got {keys}")
        try:
            rules = RummyRules.from_dict(saved["rules"])
        except (TypeError, ValueError) as error:
            raise ValueError(f"the saved game's 'rules' are not valid rules: {error}") from error
        if rules != self.rules:
            raise ValueError("the saved game was played under other rules than this env's: "
                             + "; ".join(rules_differences(rules, self.rules, ("saved", "env"))))
        self.engine.load(0, saved["position"])  # checks the whole position before it writes anything
        self._begin_episode()

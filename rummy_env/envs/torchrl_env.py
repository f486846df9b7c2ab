"""``RummyTorchRLEnv``: the batched engine as a native TorchRL environment (``torchrl.envs.EnvBase``).

    from torchrl.envs import ActionMask, TransformedEnv
    from rummy_env.envs.torchrl_env import RummyTorchRLEnv

    env = TransformedEnv(RummyTorchRLEnv(1024, "basic"), ActionMask())   # random actions become legal ones
    rollout = env.rollout(100, break_when_any_done=False)                # (1024, 100) steps, rows reset as they end

The env's ``batch_size`` is ``(num_envs,)``: each row is one game. What a step reads and writes:

==================  ================================  ==============================================
key                 spec (per row)                    content
==================  ================================  ==============================================
``observation``     ``Bounded(0, 127, (O,), int8)``   the view of the seat to act
                                                      (``rummy_env.engine.observation``); with
                                                      ``opponent``, the learner's
``action_mask``     ``Binary(A, bool)``               its legal actions (read by TorchRL's
                                                      ``ActionMask`` and ``MaskedCategorical``)
``current_player``  ``Categorical(P)``                the seat to act (the learner's seat with
                                                      ``opponent``); at a game's end, the seat that
                                                      made its last move, whose view the last
                                                      ``observation`` is
``action``          ``Categorical(A)``                an action id for that seat
``reward``          ``Unbounded((P,), float32)``      every seat's reward from the step (zero-sum);
                                                      with ``opponent``: ``(1,)``, the learner's own,
                                                      summed over the opponents' moves that followed
``done``            ``(1,) bool``                     the episode ended: ``terminated`` by the rules,
                                                      or ``truncated`` at the engine's turn cap
                                                      (``max_turns_per_round``, B17)
==================  ================================  ==============================================

Two ways to play, chosen by ``opponent``:

- ``opponent=None`` (self-play): one policy acts for whichever seat is to move in each row, as in
  ``RummyVectorEnv``; whose reward is whose is the last axis of ``reward``, and ``current_player`` says whose
  decision each step was.
- ``opponent`` an agent spec (``"random"``, ``"heuristic"``, ``"ppo:basic_2p"``, …), agent or callable, as in
  ``RummyGymVectorEnv``: the learner holds ``learner_seat`` (a seat, or ``"random"`` per episode) and the
  opponents move inside the step, so every row is a single-agent problem and TorchRL's losses apply as they are.

Rows end independently: TorchRL resets the finished ones (``step_and_maybe_reset``, collectors,
``rollout(break_when_any_done=False)``) through ``_reset`` with the ``"_reset"`` mask; the env's own
``step_and_maybe_reset`` does the step and those resets in one pass over the engine (a ``TransformedEnv``
takes TorchRL's slower generic path: give the bare env to a collector, and ``ActionMask`` only where random
actions are drawn, as ``check_env_specs`` does). The tensors returned are
one copy of the engine's buffers (no conversion layer): int8 observations, a bool view of the int8 mask.
``set_seed(seed)`` seeds the next full reset (the same deals as ``RummyVectorEnv(seed=seed)``); rows reset
one by one meanwhile draw on from the current seed stream. An illegal action
raises ``ValueError`` saying why; the ``ActionMask`` transform keeps TorchRL's random actions legal.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.extras import needs_extra
from rummy_env.envs.single_agent import LearnerSeats, Opponent
from rummy_env.inputs import as_actions, count
from rummy_env.rules import RummyRules, make_rules
from rummy_env.engine import RummyEngine
from rummy_env.engine.state import truncated

with needs_extra("interop", "RummyTorchRLEnv"):
    import torch
    from tensordict import TensorDict, TensorDictBase
    from torchrl.data import Binary, Bounded, Categorical, Composite, Unbounded
    from torchrl.envs import EnvBase


class RummyTorchRLEnv(EnvBase):
    """``num_envs`` games as one batched TorchRL env; see the module docstring."""

    batch_locked = True

    def __init__(self, num_envs: int, rules: str | RummyRules = "basic", num_players: int | None = None,
                 opponent: Opponent | str | None = None, learner_seat: int | str = 0, seed: int | None = None,
                 parallel: bool | None = None, **overrides: Any):
        num_envs = count(num_envs, "num_envs")
        super().__init__(batch_size=torch.Size([num_envs]), device="cpu")
        self.rules = make_rules(rules, num_players, **overrides)
        self.seats = None if opponent is None else LearnerSeats(num_envs, self.rules, opponent, learner_seat, parallel)
        self.engine = RummyEngine(self.rules, batch_size=num_envs, parallel=parallel) if self.seats is None \
            else self.seats.engine
        self._seed = seed
        self._started = False
        rows, players = (num_envs,), self.rules.num_players
        size, actions = self.engine.observation_size, self.engine.num_actions
        self.observation_spec = Composite(
            observation=Bounded(0, 127, shape=rows + (size,), dtype=torch.int8),
            action_mask=Binary(n=actions, shape=rows + (actions,), dtype=torch.bool),
            current_player=Categorical(players, shape=rows, dtype=torch.int64), shape=rows)
        self.action_spec = Categorical(actions, shape=rows, dtype=torch.int64)
        self.reward_spec = Unbounded(shape=rows + ((players,) if self.seats is None else (1,)), dtype=torch.float32)
        flag = Categorical(2, shape=rows + (1,), dtype=torch.bool)
        self.done_spec = Composite(done=flag, terminated=flag.clone(), truncated=flag.clone(), shape=rows)

    # ------------------------------------------------------------------ TorchRL's hooks
    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs) -> TensorDictBase:
        rows = np.ones(self.batch_size[0], dtype=np.bool_)
        if tensordict is not None and "_reset" in tensordict.keys():
            rows = tensordict.get("_reset").reshape(-1).numpy().astype(np.bool_)
        if not self._started or (rows.all() and self._seed is not None):  # a seed set applies to a full reset
            rows[:] = True
            self._deal(rows, self._seed, first=True)
            self._seed, self._started = None, True
        else:  # the rows TorchRL resets, and only those (a pending seed waits for a full reset)
            self._deal(rows)
        return self._tensors(*self._arrays(), np.zeros(self.batch_size[0], dtype=np.bool_))

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        rewards, done, cut, actors = self._advance(tensordict)
        observation, mask, seats = self._arrays()
        rows = np.flatnonzero(done)
        if rows.size:  # a finished game as the seat that made its last move sees it
            observation[rows], seats[rows] = self.engine.observe_records(self.engine.state[rows], actors[rows]), actors[rows]
        return self._tensors(observation, mask, seats, done, cut, rewards)

    def step_and_maybe_reset(self, tensordict: TensorDictBase) -> tuple[TensorDictBase, TensorDictBase]:
        """TorchRL's ``step`` then the reset of the rows that ended, in one pass over the engine: the ended
        rows' last observations are kept, the rows dealt again, and every row observed once (TorchRL's own
        ``step_and_maybe_reset`` observes twice and merges the reset rows with ``torch.where``, which cost about
        three quarters of a basic step at B = 1024). ``tensordict["next"]`` and the returned root hold what the
        generic path's do: the root keeps the input's other entries (the action, a policy's outputs), as
        ``step_mdp`` does (``tests/test_torchrl_env.py`` checks both paths key by key and against
        ``RummyVectorEnv``). A ``TransformedEnv`` does not call this method: it takes TorchRL's generic path."""
        rewards, done, cut, actors = self._advance(tensordict)
        rows = np.flatnonzero(done)
        if rows.size:
            final = self.engine.observe_records(self.engine.state[rows], actors[rows])
            self._deal(done)
        observation, mask, seats = self._arrays()
        root = tensordict.exclude("next", "reward", "_reset").update(
            self._tensors(observation, mask, seats, np.zeros_like(done)))
        if rows.size:
            observation, mask, seats = observation.copy(), mask.copy(), seats.copy()
            observation[rows], mask[rows], seats[rows] = final, 0, actors[rows]
        after = self._tensors(observation, mask, seats, done, cut, rewards)
        if "next" in tensordict.keys():  # entries a policy put there are kept, as ``EnvBase.step`` does
            after = tensordict.get("next").update(after)
        tensordict.set("next", after)
        return tensordict, root

    def _set_seed(self, seed: int | None) -> None:
        """The seed of the next reset (``RummyVectorEnv(seed=...)``'s deals)."""
        self._seed = seed

    # ------------------------------------------------------------------ helpers
    def _deal(self, rows: np.ndarray, seed: int | None = None, first: bool = False) -> None:
        """New games in ``rows`` (the first deal, or a reseeded one, of every row: ``first``), advanced to the
        learner's turn with ``opponent``."""
        if self.seats is None:
            self.engine.reset(rows=rows, seed=seed)
        else:
            if first:
                self.seats.seed(seed)
            self.seats.start(rows)

    def _advance(self, tensordict: TensorDictBase) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The step's action per row played (and the opponents' moves after it): the rewards, which rows ended,
        which of them at the turn cap, and the seat whose decision the step was."""
        actions = as_actions(tensordict.get("action").reshape(-1).numpy())
        actors = (self.engine.state["current"] if self.seats is None else self.seats.seats).astype(np.int64)
        if self.seats is None:
            rewards = self.engine.step(actions).rewards.astype(np.float32)
        else:
            rewards = self.seats.learner_step(actions)[:, None]
        done = self.engine.done.copy()
        cut = np.zeros_like(done)
        rows = np.flatnonzero(done)
        if rows.size:
            cut[rows] = truncated(self.engine.state[rows])
        return rewards, done, cut, actors

    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Observation, mask and seat to act of every row: one copy of each engine buffer (the next step writes
        over them, and a rollout keeps every step)."""
        mask = self.engine.legal_action_mask().copy()
        if self.seats is None:
            return self.engine.observe().copy(), mask, self.engine.state["current"].astype(np.int64)
        return self.seats.observation().copy(), mask, self.seats.seats.astype(np.int64)

    def _tensors(self, observation, mask, seats, done, cut=None, rewards=None) -> TensorDictBase:
        out = {"observation": torch.from_numpy(observation), "action_mask": torch.from_numpy(mask).view(torch.bool),
               "current_player": torch.from_numpy(seats), "done": torch.from_numpy(done[:, None])}
        cut = np.zeros_like(done) if cut is None else cut
        out |= {"terminated": torch.from_numpy((done & ~cut)[:, None]), "truncated": torch.from_numpy(cut[:, None])}
        if rewards is not None:
            out["reward"] = torch.from_numpy(np.array(rewards, dtype=np.float32))
        return TensorDict(out, batch_size=self.batch_size)

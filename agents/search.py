"""What the search agents share: the rows' game records, the compiled rollouts of the ruleset, the worlds a
seat may believe in, and the bookkeeping of time and decisions.

A search agent is a batched ``Policy`` that also reads the game records of the rows it acts on
(``needs_records = True``): ``act(observation, action_mask, rng, records=..., undo=...)``, ``records`` the
rows' engine records (``engine.state[rows]``) and ``undo`` their UNDO copies (``engine.undo_copies[rows]``).
The arena and the env wrappers pass them (``rummy_env.agents.base.act_on``); with the PettingZoo env,
``env.unwrapped.engine.state`` and ``.undo_copies``. A fair agent reads the records only through the belief
sampler (``rummy_env.beliefs.sample_worlds``), which reads only what the seat to act sees; each record is
checked against the observation it comes with. An **oracle** (``oracle=True``) keeps the other hands as
they are: it sees the hidden cards, a ceiling that measures what hidden information is worth, not a fair
agent.

Beliefs (``belief``): ``"uniform"`` (every consistent deal alike) or ``"model"`` (weighted by the fitted
opponent model ``BeliefModel.default(rules)`` over the whole public history: a Metropolis chain of ``burn``
moves, then a world every ``thin`` moves).
Rollouts (``rollout``): the compiled ``"heuristic"`` or ``"random"`` policy of the ruleset in every seat
(``rummy_env.engine.search.rollout``). ``stats`` counts decisions, searched decisions and the time spent. Times
are processor time (``time.process_time``): a budget of ``seconds`` means CPU seconds on the one core the
search runs on, however busy the machine is.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from rummy_env.actions import ActionLayout
from rummy_env.agents.base import InputCheck, act_on
from rummy_env.beliefs import BeliefModel, sample_worlds
from rummy_env.engine.config import kernel_config
from rummy_env.engine.families import family, policies
from rummy_env.engine.observation import observe_rows
from rummy_env.engine.search.rollout import POLICY_CODES
from rummy_env.engine.state import state_dtype
from rummy_env.observations import ObservationLayout
from rummy_env.rules import RummyRules

BELIEFS = ("uniform", "model")
ROLLOUT_CAP = 5000  # steps of one rollout at most (the turn cap ends every hand before it)


class SearchAgent:
    """The shared part of ``PIMCAgent`` and ``ISMCTSAgent`` (module docstring)."""

    needs_records = True

    def __init__(self, rules: RummyRules, blueprint: Any = "heuristic", rollout: str = "heuristic",
                 belief: str = "uniform", oracle: bool = False, burn: int = 500, thin: int = 50,
                 seconds: float | None = None):
        from rummy_env.agents.registry import make_agent

        if rollout not in POLICY_CODES:
            raise ValueError(f"rollout must be one of {list(POLICY_CODES)}, got {rollout!r}")
        if belief not in BELIEFS:
            raise ValueError(f"belief must be one of {list(BELIEFS)}, got {belief!r}")
        if oracle and belief != "uniform":
            raise ValueError(f"belief={belief!r}: an oracle sees the other hands and has no belief to weigh; "
                             "leave belief out (only 'uniform' is allowed)")
        if seconds is not None and not seconds > 0:
            raise ValueError(f"seconds must be a positive time per decision, got {seconds!r}")
        if burn < 0 or thin < 1:
            raise ValueError(f"the belief chain needs burn >= 0 and thin >= 1, got burn={burn}, thin={thin}")
        self.rules = rules
        self.check_inputs = InputCheck(rules)
        self.blueprint = make_agent(blueprint, rules) if isinstance(blueprint, str) else blueprint
        self.rollout, self.belief, self.oracle = rollout, belief, oracle
        self.burn, self.thin, self.seconds = burn, thin, seconds
        self.model = BeliefModel.default(rules) if belief == "model" else None
        self.layout = ActionLayout.for_rules(rules)
        self.observation_layout = ObservationLayout(rules)
        self.cfgs, self.tables = kernel_config(rules, self.layout)
        self.dtype = state_dtype(rules)
        self.work = family(rules.ruleset).work_buffers(1, self.dtype)
        self.kernels = policies(rules)
        self.codes = np.full(rules.num_players, POLICY_CODES[rollout], dtype=np.int64)
        self.scratch = np.zeros(1, dtype=self.dtype)
        self.scratch_undo = np.zeros(1, dtype=self.dtype)
        self.stats = {"decisions": 0, "searched": 0, "changed": 0, "seconds": 0.0, "rollout_steps": 0}
        self.bank = 0.0  # seconds this agent may still spend (``seconds`` per decision, at most 4 decisions' worth)

    # ------------------------------------------------------------------ the batched decision
    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator,
            records: np.ndarray | None = None, undo: np.ndarray | None = None) -> np.ndarray:
        observations, masks = self.check_inputs(observation, action_mask)
        records, undo = self._check_records(observations, records, undo)
        start = time.process_time()
        anchors = np.asarray(act_on(self.blueprint, observations, masks, rng, records, undo), dtype=np.int64)
        actions = anchors.copy()
        for i in range(len(masks)):
            legal = np.flatnonzero(masks[i])
            if self.seconds is not None:
                self.bank = min(self.bank + self.seconds, 4 * self.seconds)
            if legal.size > 1:
                began = time.process_time()
                actions[i] = self.decide(records[i:i + 1], undo[i:i + 1], legal, int(anchors[i]),
                                         int(rng.integers(2**63)))
                if self.seconds is not None:
                    self.bank -= time.process_time() - began
                self.stats["searched"] += 1
                self.stats["changed"] += int(actions[i] != anchors[i])
        self.stats["decisions"] += len(masks)
        self.stats["seconds"] += time.process_time() - start
        return actions

    def decide(self, record: np.ndarray, undo: np.ndarray, legal: np.ndarray, anchor: int, seed: int) -> int:
        raise NotImplementedError

    def _check_records(self, observations: np.ndarray, records, undo) -> tuple[np.ndarray, np.ndarray]:
        """The rows' records as a contiguous array, checked against the observations they come with."""
        if records is None:
            raise ValueError(f"{type(self).__name__} searches from the rows' game records: call act(observation, "
                             "action_mask, rng, records=engine.state[rows], undo=engine.undo_copies[rows]) "
                             "(the arena and the env wrappers do, through rummy_env.agents.base.act_on)")
        records = np.ascontiguousarray(np.atleast_1d(records))
        undo = records if undo is None else np.ascontiguousarray(np.atleast_1d(undo))
        if records.dtype != self.dtype or records.shape != (len(observations),) or undo.shape != records.shape:
            raise ValueError(f"records must be {len(observations)} game records of these rules (one per observation "
                             f"row), got {records.shape} of another type" if records.dtype != self.dtype else
                             f"records must be {len(observations)} game records (one per observation row) with as "
                             f"many UNDO copies, got {records.shape} and {undo.shape}")
        seen = np.zeros_like(observations)
        observe_rows(records, records["current"], seen, self.observation_layout.kernel_offsets,
                     self.rules.num_players, self.rules.num_card_types)
        if not np.array_equal(seen, observations):
            rows = np.flatnonzero((seen != observations).any(axis=1))
            raise ValueError(f"the records do not match the observations (rows {rows[:5].tolist()}): pass the "
                             "records of the very rows observed, in the same order")
        return records, undo

    # ------------------------------------------------------------------ worlds
    def worlds(self, record: np.ndarray, undo: np.ndarray, count: int, seed: int):
        """``count`` worlds of ``record`` for its player to act, per ``belief`` / ``oracle``."""
        seat = int(record[0]["current"])
        if self.model is not None:
            return sample_worlds(self.rules, record, seat, count, seed, undo=undo, model=self.model, burn=self.burn,
                                 thin=self.thin)
        return sample_worlds(self.rules, record, seat, count, seed, undo=undo, oracle=self.oracle)

    def spend(self, started: float) -> bool:
        """Whether the decision started at ``started`` has spent the time bank (``act`` takes what each
        decision spends from it: ``seconds`` per decision on average)."""
        return self.seconds is not None and time.process_time() - started >= self.bank


def parse_options(text: str, allowed: dict[str, type]) -> dict[str, Any]:
    """``"worlds=64,belief=model"`` as keyword arguments, each converted to the type ``allowed`` names;
    an unknown option or a bad value is a ``ValueError`` naming it."""
    options: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        key = key.strip()
        if key not in allowed:
            raise ValueError(f"search option {item!r} is not one of {', '.join(f'{k}=...' for k in allowed)}")
        if not sep:
            raise ValueError(f"search option {key!r} needs a value: {key}=VALUE")
        if key in options:
            raise ValueError(f"search option {key!r} is given twice")
        kind = allowed[key]
        try:
            options[key] = (value.strip().lower() in ("1", "true", "yes")) if kind is bool else kind(value.strip())
        except ValueError as error:
            raise ValueError(f"search option {key}={value!r}: expected {kind.__name__}") from error
    return options

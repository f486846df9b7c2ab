"""``PPOConfig``: every setting of a ``ppo_selfplay`` run, read from TOML and checked before a run starts.

``load_config(path, **overrides)`` reads ``configs/ppo/*.toml`` (``PPOConfig``'s fields as keys,
``[rule_knobs]`` and ``[opponents]`` as tables). Everything that would make a run fail or train on
nothing is refused up front with a ``ValueError`` naming the key, its value and what is allowed: an
unknown key, a value of the wrong type (a string where a number belongs, a bool for an integer), a
non-finite number, and values that guarantee failure (``learning_rate`` outside ``(0, 1]``,
``num_minibatches`` 0 or more than the transitions of an update, ``checkpoint_every = 0``,
``num_steps = 0``, ``total_steps`` smaller than one update, …). The rules (``rules`` preset,
``num_players``, ``rule_knobs``) are checked by ``RummyRules``.
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
import typing
from typing import Any

from rummy_env import assets
from rummy_env.rules import PRESETS, RummyRules, make_rules

OPPONENT_KINDS = ("self", "past", "heuristic", "random")


@dataclasses.dataclass
class PPOConfig:
    """Every setting of a run; ``configs/ppo/*.toml`` sets any of them."""

    rules: str = "basic"
    """ruleset preset: "basic", "rami51", "lebanese14", "gin", "gin_openspiel" or "gin_rlcard"."""
    num_players: int = 2
    rule_knobs: dict[str, Any] = dataclasses.field(default_factory=lambda: {"reward": "win"})
    """overrides of the preset's rule and env knobs (e.g. ``reward = "win"``), validated by ``RummyRules``."""
    num_envs: int = 1024
    """rows (games) stepped together."""
    num_steps: int = 32
    """env steps per row per rollout."""
    total_steps: int = 15_000_000
    """env steps (all rows, all seats) of the whole run."""
    hidden_size: int = 128
    num_layers: int = 2
    card_features: int = 8
    """features per card from the card-grid convolutions (``agents.ppo_agent.ActorCritic``); 0 = plain MLP."""
    learning_rate: float = 5e-4
    anneal_lr: bool = True
    """decay the learning rate linearly to 0 over ``total_steps``."""
    gamma: float = 0.995
    """discount per own decision."""
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 2
    clip_coef: float = 0.2
    ent_coef: float = 0.02
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    opponents: dict[str, float] = dataclasses.field(
        default_factory=lambda: {"self": 0.3, "past": 0.1, "heuristic": 0.55, "random": 0.05})
    """probability that a new episode of a row is played against each kind (``past`` falls back to
    ``self`` while the pool is empty)."""
    snapshot_every: int = 20
    """updates between snapshots of the policy added to the pool."""
    pool_size: int = 5
    """past snapshots kept (oldest dropped)."""
    checkpoint_every: int = 25
    """updates between checkpoints (and one at the end)."""
    seed: int = 0
    torch_threads: int = 1
    """torch's threads; on 2 shared cores one thread beside the engine measured fastest."""
    env_parallel: bool = False
    """numba's parallel engine kernels (their threads fight torch's on 2 cores)."""
    init_policy: str = ""
    """a policy file (a path, or a shipped checkpoint's name) whose weights the run starts from, e.g. a
    behaviour-cloned one of ``training/distill.py``; its network must fit this config's architecture."""
    kl_coef: float = 0.0
    """weight of the KL anchor ``KL(pi_init || pi)`` over each state's legal actions, pulling the policy
    toward ``init_policy`` (0 = none; needs ``init_policy``)."""

    @property
    def steps_per_update(self) -> int:
        return self.num_envs * self.num_steps


# numeric fields -> (lowest, highest, whether the lowest itself is allowed); num_players is the rules' to check
_RANGES: dict[str, tuple[float, float, bool]] = {
    "num_envs": (1, math.inf, True), "num_steps": (1, math.inf, True),
    "hidden_size": (1, math.inf, True), "num_layers": (0, math.inf, True), "card_features": (0, math.inf, True),
    "learning_rate": (0, 1, False), "gamma": (0, 1, True), "gae_lambda": (0, 1, True),
    "num_minibatches": (1, math.inf, True), "update_epochs": (1, math.inf, True), "clip_coef": (0, math.inf, False),
    "ent_coef": (0, math.inf, True), "vf_coef": (0, math.inf, True), "max_grad_norm": (0, math.inf, False),
    "snapshot_every": (1, math.inf, True), "pool_size": (1, math.inf, True), "checkpoint_every": (1, math.inf, True),
    "seed": (0, 2**63 - 1, True), "torch_threads": (1, 1024, True), "total_steps": (1, math.inf, True),
    "kl_coef": (0, math.inf, True),
}


def load_config(path: str | None, **overrides: Any) -> PPOConfig:
    """A checked ``PPOConfig`` from a TOML file (a path, or the name of a shipped config such as
    ``"basic_2p"``, ``rummy_env.assets``) and overrides (``None`` = keep)."""
    values: dict[str, Any] = {}
    if path is not None:
        with open(assets.find("ppo", path), "rb") as file:
            values = tomllib.load(file)
    values.update({k: v for k, v in overrides.items() if v is not None})
    return config_from_dict(values, source=path or "overrides")


def config_from_dict(values: dict[str, Any], source: str) -> PPOConfig:
    """A checked ``PPOConfig`` from a mapping of its fields (see ``check_config_values``)."""
    allowed = [field.name for field in dataclasses.fields(PPOConfig)]
    for key in values:
        if key not in allowed:
            raise ValueError(f"{source}: unknown config key {key!r}; allowed keys: {', '.join(allowed)}")
    config = PPOConfig(**values)
    check_config_values(config, source)
    return config


def check_config_values(config: PPOConfig, source: str = "config") -> RummyRules:
    """Refuse a config that cannot train (module docstring); returns its rules."""
    hints = typing.get_type_hints(PPOConfig)
    for field in dataclasses.fields(PPOConfig):
        value, kind = getattr(config, field.name), hints[field.name]
        if kind in (int, float) and not _number(value, integer=kind is int):
            raise ValueError(f"{source}: {field.name} = {value!r} must be {'an integer' if kind is int else 'a number'}")
        if kind in (bool, str) and not isinstance(value, kind):
            raise ValueError(f"{source}: {field.name} = {value!r} must be {'true or false' if kind is bool else 'a string'}")
        if typing.get_origin(kind) is dict and not isinstance(value, dict):
            raise ValueError(f"{source}: {field.name} = {value!r} must be a table of values")
        if field.name in _RANGES:
            low, high, low_allowed = _RANGES[field.name]
            if not ((value >= low if low_allowed else value > low) and value <= high):
                bounds = f"{'>=' if low_allowed else '>'} {low}" + (f" and <= {high}" if high != math.inf else "")
                raise ValueError(f"{source}: {field.name} = {value!r} must be {bounds}")
    if config.total_steps < config.steps_per_update:
        raise ValueError(f"{source}: total_steps = {config.total_steps} is less than one update (num_envs * num_steps "
                         f"= {config.steps_per_update} env steps): the run would train nothing")
    if config.num_minibatches > config.steps_per_update:
        raise ValueError(f"{source}: num_minibatches = {config.num_minibatches} is more than the transitions of an "
                         f"update (at most num_envs * num_steps = {config.steps_per_update})")
    if config.kl_coef > 0 and not config.init_policy:
        raise ValueError(f"{source}: kl_coef = {config.kl_coef} anchors the policy to init_policy, which is not set")
    if config.init_policy:
        try:
            assets.find("checkpoint", config.init_policy)
        except FileNotFoundError as error:
            raise ValueError(f"{source}: init_policy = {config.init_policy!r}: {error}") from error
    if config.rules not in PRESETS:
        raise ValueError(f"{source}: rules = {config.rules!r} must be a preset: {', '.join(PRESETS)}")
    unknown_kinds = set(config.opponents) - set(OPPONENT_KINDS)
    if unknown_kinds:
        raise ValueError(f"{source}: unknown opponent kind(s) {sorted(unknown_kinds)}; allowed: {OPPONENT_KINDS}")
    probabilities = list(config.opponents.values())
    if not all(_number(p) for p in probabilities) or sum(probabilities) <= 0 or min(probabilities) < 0:
        raise ValueError(f"{source}: opponent probabilities must be numbers >= 0 with a positive sum, got {config.opponents}")
    try:
        return make_rules(config.rules, config.num_players, **config.rule_knobs)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{source}: the rules (rules, num_players, rule_knobs) are invalid: {error}") from error


def _number(value: Any, integer: bool = False) -> bool:
    """A finite int or float (not a bool, not a string); an int when ``integer``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return isinstance(value, int) if integer else math.isfinite(value)

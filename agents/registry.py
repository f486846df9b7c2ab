"""``make_agent(spec, rules)``: an agent from a short text spec, for the arena and the command lines.

=====================  ==========================================================================
spec                   agent
=====================  ==========================================================================
``random``             ``RandomAgent``: uniform over the legal actions
``greedy``             ``GreedyAgent``: melds and lays off whenever it can, sheds its costliest card
``heuristic``          ``HeuristicAgent``: the documented rule-based player of the ruleset
``ppo:PATH``           ``PPOAgent.load(PATH, rules)``: a checkpoint of ``training/ppo_selfplay.py``
``sb3:PATH``           ``SB3Agent.load(PATH, rules)``: a ``MaskablePPO`` zip of ``training/train_sb3.py``
=====================  ==========================================================================

The learned agents (and torch) are imported only when asked for.

>>> from rummy_env.rules import RummyRules
>>> make_agent("random", RummyRules.preset("basic")).__class__.__name__
'RandomAgent'
>>> agent_name("ppo:checkpoints/basic_2p.pt")
'ppo:basic_2p'
"""

from __future__ import annotations

from pathlib import Path

from rummy_env.agents.base import Policy
from rummy_env.agents.greedy_agent import GreedyAgent
from rummy_env.agents.heuristic_agent import HeuristicAgent
from rummy_env.agents.random_agent import RandomAgent
from rummy_env.rules import RummyRules

BASELINES = {"random": lambda rules: RandomAgent(), "greedy": GreedyAgent, "heuristic": HeuristicAgent}
KINDS = ("random", "greedy", "heuristic", "ppo:PATH", "sb3:PATH")


def make_agent(spec: str, rules: RummyRules) -> Policy:
    """The agent named by ``spec`` (see the module docstring) for games under ``rules``; an unknown
    spec is a ``ValueError`` listing the known kinds, a missing checkpoint a ``FileNotFoundError``."""
    kind, _, path = spec.partition(":")
    if kind in BASELINES and not path:
        return BASELINES[kind](rules)
    if kind in ("ppo", "sb3") and path:
        if not Path(path).is_file():
            raise FileNotFoundError(f"agent {spec!r}: no checkpoint at {path}")
        if kind == "ppo":
            from rummy_env.agents.ppo_agent import PPOAgent

            return PPOAgent.load(path, rules)
        from rummy_env.agents.sb3_agent import SB3Agent

        return SB3Agent.load(path, rules)
    raise ValueError(f"unknown agent spec {spec!r}; known kinds: {', '.join(KINDS)}")


def agent_name(spec: str) -> str:
    """A short display name: the spec itself, or ``kind:file-stem`` for a checkpoint."""
    kind, _, path = spec.partition(":")
    return f"{kind}:{Path(path).stem}" if path else spec


"""``make_agent(spec, rules)``: an agent from a short text spec, for the arena and the command lines.

=====================  ==========================================================================
spec                   agent
=====================  ==========================================================================
``random``             ``RandomAgent``: uniform over the legal actions
``greedy``             ``GreedyAgent``: melds and lays off whenever it can, sheds its costliest card
``heuristic``          ``HeuristicAgent``: the documented rule-based player of the ruleset
``lookahead``          ``GinLookaheadAgent`` (ruleset gin): the gin heuristic with a one-draw look-ahead
``openspiel_bot``      ``OpenSpielBotAgent``: OpenSpiel's simple gin bot (ruleset gin, OpenSpiel's rules; the
                       ``openspiel`` extra)
``ppo:PATH``           ``PPOAgent.load(PATH, rules)``: a checkpoint of ``training/ppo_selfplay.py``;
                       ``ppo:NAME`` names a shipped one (``ppo:basic_2p``, ``ppo:rami51_2p``, ``ppo:rami51_4p``;
                       ``rummy_env.assets``), found without a repository path
``sb3:PATH``           ``SB3Agent.load(PATH, rules)``: a ``MaskablePPO`` zip of ``training/train_sb3.py``
``rllib:PATH``         ``RLlibAgent.load(PATH, rules)``: a run folder of ``training/train_rllib.py`` (its
                       last checkpoint), one of its ``checkpoint_*`` folders, or an RLModule folder
``pimc``               ``PIMCAgent``: anchored determinized search over the heuristic; options after
                       a colon, ``pimc:worlds=256,belief=model`` (``agents/pimc_agent.py``)
``ismcts``             ``ISMCTSAgent``: single-observer information-set MCTS,
                       ``ismcts:iterations=2000`` (``agents/ismcts_agent.py``)
``openspiel_ismcts``   ``OpenSpielISMCTSAgent``: OpenSpiel's own ISMCTS bot searching the OpenSpiel game of the
                       rules (``rummy_env.openspiel``), ``openspiel_ismcts:simulations=200`` (the ``openspiel``
                       extra; ``agents/openspiel_ismcts.py``)
``pimc-oracle``,       the same searches seeing the other hands (a ceiling, not a fair agent);
``ismcts-oracle``      they take the same options
``py:MODULE:CLASS``    an agent class of your own, importable as ``MODULE``, built as ``CLASS(rules)`` (it
                       needs ``act(observation, action_mask, rng)``, ``rummy_env.agents.base.Policy``)
=====================  ==========================================================================

The learned agents (and torch, Ray) are imported only when asked for; without the ``train`` extra a
``ppo:`` or ``sb3:`` spec raises a ``ModuleNotFoundError`` that says ``pip install "rummy_env[train]"``
(``rllib:``, the ``rllib`` extra).

>>> from rummy_env.rules import RummyRules
>>> make_agent("random", RummyRules.preset("basic")).__class__.__name__
'RandomAgent'
>>> agent_name("ppo:checkpoints/basic_2p.pt")
'ppo:basic_2p'
"""

from __future__ import annotations

from pathlib import Path

from rummy_env import assets
from rummy_env.agents.base import Policy
from rummy_env.agents.gin_lookahead import GinLookaheadAgent
from rummy_env.agents.greedy_agent import GreedyAgent
from rummy_env.agents.heuristic_agent import HeuristicAgent
from rummy_env.agents.random_agent import RandomAgent
from rummy_env.extras import needs_extra
from rummy_env.rules import RummyRules

BASELINES = {"random": lambda rules: RandomAgent(), "greedy": GreedyAgent, "heuristic": HeuristicAgent,
             "lookahead": GinLookaheadAgent}
KINDS = ("random", "greedy", "heuristic", "lookahead", "openspiel_bot", "ppo:PATH", "ppo:NAME", "sb3:PATH", "rllib:PATH",
         "pimc", "pimc-oracle", "ismcts", "ismcts-oracle", "pimc:OPTIONS", "openspiel_ismcts:OPTIONS",
         "py:MODULE:CLASS")
SEARCHES = ("pimc", "pimc-oracle", "ismcts", "ismcts-oracle")


def make_agent(spec: str, rules: RummyRules) -> Policy:
    """The agent named by ``spec`` (see the module docstring) for games under ``rules``; an unknown
    spec is a ``ValueError`` listing the known kinds, a missing checkpoint a ``FileNotFoundError``."""
    kind, _, path = spec.partition(":")
    if kind in BASELINES and not path:
        return BASELINES[kind](rules)
    if spec == "openspiel_bot":
        with needs_extra("openspiel", f"agent {spec!r}"):
            from rummy_env.agents.openspiel_bot import OpenSpielBotAgent

            return OpenSpielBotAgent(rules)
    if kind in SEARCHES:
        return _search_agent(kind, path, rules)
    if kind == "openspiel_ismcts":
        with needs_extra("openspiel", f"agent {spec!r}"):
            from rummy_env.agents.openspiel_ismcts import make

        return make(path, rules)
    if kind == "ppo" and path:
        with needs_extra("train", f"agent {spec!r}"):
            from rummy_env.agents.ppo_agent import PPOAgent
        return PPOAgent.load(str(_checkpoint(spec, "checkpoint", path)), rules)
    if kind == "sb3" and path:
        if not Path(path).is_file():
            raise FileNotFoundError(f"agent {spec!r}: no checkpoint at {path}")
        with needs_extra("train", f"agent {spec!r}"):
            from rummy_env.agents.sb3_agent import SB3Agent

            return SB3Agent.load(path, rules)
    if kind == "rllib" and path:
        if not Path(path).is_dir():
            raise FileNotFoundError(f"agent {spec!r}: no checkpoint at {path} (a train_rllib.py run or checkpoint folder)")
        from rummy_env.agents.rllib_agent import RLlibAgent

        return RLlibAgent.load(path, rules)
    if kind == "py":
        return _class_agent(spec, path, rules)
    if kind in ("ppo", "sb3", "rllib") and not path:
        raise ValueError(f"unknown agent spec {spec!r}: {kind} needs a checkpoint, {kind}:PATH"
                         + (f" or {kind}:NAME of a shipped one ({', '.join(assets.names('checkpoint'))})" if kind == "ppo" else ""))
    raise ValueError(f"unknown agent spec {spec!r}; known kinds: {', '.join(KINDS)}")


def _search_agent(kind: str, options: str, rules: RummyRules) -> Policy:
    from rummy_env.agents.search import parse_options

    if kind.startswith("pimc"):
        from rummy_env.agents.pimc_agent import OPTIONS, PIMCAgent as Agent
    else:
        from rummy_env.agents.ismcts_agent import OPTIONS, ISMCTSAgent as Agent  # type: ignore[assignment]
    return Agent(rules, oracle=kind.endswith("-oracle"), **parse_options(options, OPTIONS))


def _class_agent(spec: str, path: str, rules: RummyRules) -> Policy:
    """``py:MODULE:CLASS``: ``CLASS(rules)`` from the importable ``MODULE``."""
    import importlib

    module, _, name = path.rpartition(":")
    if not module or not name:
        raise ValueError(f"agent spec {spec!r}: expected py:MODULE:CLASS, e.g. py:my_package.bots:MyAgent")
    try:
        cls = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"agent spec {spec!r}: cannot import {name} from {module} ({error})") from error
    try:
        agent = cls(rules)
    except TypeError as error:
        raise ValueError(f"agent spec {spec!r}: {name}(rules) failed ({error}); the class is built with the rules "
                         "alone") from error
    if not callable(getattr(agent, "act", None)):
        raise ValueError(f"agent spec {spec!r}: {name}(rules) has no act(observation, action_mask, rng) method")
    return agent


def _checkpoint(spec: str, kind: str, path: str) -> Path:
    """The file a ``ppo:`` spec names: a path, or the name of a shipped checkpoint."""
    try:
        return assets.find(kind, path)
    except FileNotFoundError as error:
        shipped = ", ".join(f"ppo:{name}" for name in assets.names(kind))
        raise FileNotFoundError(f"agent {spec!r}: no checkpoint at {path}, nor a shipped one of that name "
                                f"(shipped: {shipped})") from error


def agent_name(spec: str) -> str:
    """A short display name: the spec itself, or ``kind:file-stem`` for a checkpoint."""
    kind, _, path = spec.partition(":")
    return f"{kind}:{Path(path).stem}" if path and kind not in SEARCHES + ("py",) else spec


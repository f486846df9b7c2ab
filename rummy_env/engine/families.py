"""The registry of rule families: each ruleset's package (``rummy_env.engine.basic``, ``.rami51``, ``.gin``), imported
when first asked for. Every family package exports the same interface, and nothing outside the packages tests a
ruleset's name (the traits below the engine are ``rummy_env.rulesets``):

* ``drivers(rules)``: its batch drivers (``engine.drivers.Drivers``; rami51 has a set per ``dead_ends`` mode);
* ``work_buffers(threads, record_dtype)``, ``search_stats(work)``: its scratch buffers and search counters;
* ``TURN_COPY``: whether it keeps a copy of the record from before the turn's first play (``RummyEngine.undo_copies``,
  R24, R25);
* ``policies(rules)``: its compiled rollout policies (``engine.search.rollout.Policies``);
* ``position``: its keys of a position (``PHASES``, ``fill``, ``check_no_turn_copy``, ``snapshot``;
  ``engine.loading``, ``engine.positions``);
* ``words``: its words for an illegal action (``WORDS``, ``word_context``, ``dead_end_words``; ``engine.explain``).
"""

from __future__ import annotations

import importlib
from types import ModuleType

FAMILIES = {"basic": "rummy_env.engine.basic", "rami51": "rummy_env.engine.rami51", "gin": "rummy_env.engine.gin"}


def family(ruleset: str) -> ModuleType:
    """The package of ``ruleset``'s rule family."""
    return importlib.import_module(FAMILIES[ruleset])


def policies(rules):
    """The compiled policies and rollout loops of ``rules`` (rami51's are compiled for its ``dead_ends`` mode)."""
    return family(rules.ruleset).policies(rules)

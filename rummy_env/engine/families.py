"""The registry of rule families: each ruleset's package (``rummy_env.engine.basic``, ``.rami51``, ``.gin``), imported
when first asked for. A family package exports its batch drivers for given rules (``drivers(rules)``: rami51 has a
set per ``dead_ends`` mode), its scratch buffers (``work_buffers``), its search counters (``search_stats``) and
``TURN_COPY``: whether it keeps a copy of the record from before the turn's first play (``RummyEngine.undo_copies``,
R24, R25)."""

from __future__ import annotations

import importlib
from types import ModuleType

FAMILIES = {"basic": "rummy_env.engine.basic", "rami51": "rummy_env.engine.rami51", "gin": "rummy_env.engine.gin"}


def family(ruleset: str) -> ModuleType:
    """The package of ``ruleset``'s rule family."""
    return importlib.import_module(FAMILIES[ruleset])

"""The rami51 rules family (R1-R25, with the Lebanese "14", R21; docs/rules.md): its batch drivers (one set per
``dead_ends`` mode, R25), search buffers and search counters, as ``RummyEngine`` uses them."""

from rummy_env.engine.rami51.search import search_buffers as work_buffers
from rummy_env.engine.rami51.search import search_stats
from rummy_env.engine.rami51.step import drivers

TURN_COPY = True  # UNDO and TAKE_BACK return to the record kept before the turn's first play (R24, R25)

__all__ = ["TURN_COPY", "drivers", "search_stats", "work_buffers"]

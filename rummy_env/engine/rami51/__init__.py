"""The rami51 rules family (R1-R25, with the Lebanese "14", R21; docs/rules.md): its batch drivers, search
buffers and search counters, as ``RummyEngine`` uses them."""

from rummy_env.engine.rami51.search import search_buffers as work_buffers
from rummy_env.engine.rami51.search import search_stats
from rummy_env.engine.rami51.step import DRIVERS

TURN_COPY = True  # UNDO and TAKE_BACK return to the record kept before the turn's first play (R24, R25)

__all__ = ["DRIVERS", "TURN_COPY", "search_stats", "work_buffers"]

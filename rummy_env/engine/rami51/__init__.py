"""The rami51 rules family (R1-R25, with the Lebanese "14", R21; docs/rules.md), as ``RummyEngine`` and the searches
use it (the interface every family exports, ``rummy_env.engine.families``): its batch drivers (one set per
``dead_ends`` mode, R25), search buffers and search counters, its compiled rollout policies (``policy``), its keys of
a position (``position``) and its words for an illegal action (``words``)."""

from rummy_env.engine.rami51 import position, words
from rummy_env.engine.rami51.policy import policies
from rummy_env.engine.rami51.search import search_buffers as work_buffers
from rummy_env.engine.rami51.search import search_stats
from rummy_env.engine.rami51.step import drivers

TURN_COPY = True  # UNDO and TAKE_BACK return to the record kept before the turn's first play (R24, R25)

__all__ = ["TURN_COPY", "drivers", "policies", "position", "search_stats", "words", "work_buffers"]

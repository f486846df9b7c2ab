"""The basic rules family (B1-B19; docs/rules.md), as ``RummyEngine`` and the searches use it (the interface every
family exports, ``rummy_env.engine.families``): its batch drivers (``step``), scratch buffers and search counters,
its compiled rollout policies (``policy``), its keys of a position (``position``) and its words for an illegal
action (``words``)."""

from rummy_env.engine.basic import position, words
from rummy_env.engine.basic.policy import policies
from rummy_env.engine.basic.step import drivers, search_stats, work_buffers

TURN_COPY = False  # basic has no tentative plays: nothing of a turn is taken back

__all__ = ["TURN_COPY", "drivers", "policies", "position", "search_stats", "words", "work_buffers"]

"""The gin rules family (docs/rules.md, G1-G14): its batch drivers and meld-scan buffers,
as ``RummyEngine`` uses them."""

from rummy_env.engine.gin.step import drivers, search_stats, work_buffers

TURN_COPY = False  # nothing of a gin turn is taken back

__all__ = ["TURN_COPY", "drivers", "search_stats", "work_buffers"]

"""The gin rules family (docs/rules.md, G1-G14): its batch drivers and meld-scan buffers,
as ``RummyEngine`` uses them."""

from rummy_env.engine.gin.step import DRIVERS, search_stats, work_buffers

TURN_COPY = False  # nothing of a gin turn is taken back

__all__ = ["DRIVERS", "TURN_COPY", "search_stats", "work_buffers"]

"""The gin rules family (G1-G14; docs/rules.md), as ``RummyEngine`` uses it (the interface every family exports,
``rummy_env.engine.families``): its batch drivers and meld-scan buffers, its compiled rollout policies (``policy``),
its keys of a position (``position``) and its words for an illegal action (``words``)."""

from rummy_env.engine.gin import position, words
from rummy_env.engine.gin.policy import policies
from rummy_env.engine.gin.step import drivers, search_stats, work_buffers

TURN_COPY = False  # nothing of a gin turn is taken back

__all__ = ["TURN_COPY", "drivers", "policies", "position", "search_stats", "words", "work_buffers"]

"""The gin rules family (G1-G14; docs/rules.md), as ``RummyEngine`` uses it (the interface every family exports,
``rummy_env.engine.families``): its batch drivers and meld-scan buffers, its keys of a position (``position``) and its
words for an illegal action (``words``). Gin has no compiled rollout policies (``policies`` is None): the package's
searches do not play gin."""

from rummy_env.engine.gin import position, words
from rummy_env.engine.gin.step import drivers, search_stats, work_buffers

TURN_COPY = False  # nothing of a gin turn is taken back
policies = None

__all__ = ["TURN_COPY", "drivers", "policies", "position", "search_stats", "words", "work_buffers"]

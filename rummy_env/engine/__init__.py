"""The batched rules engine: the only implementation of the rules (see ``RummyEngine``)."""

from rummy_env.engine.core import IllegalActionError, RowIndexError, RummyEngine, StepResult

__all__ = ["IllegalActionError", "RowIndexError", "RummyEngine", "StepResult"]

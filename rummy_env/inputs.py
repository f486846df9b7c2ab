"""Checks of the actions every env and the engine are given: integer action ids, nothing else.

An action id is an ``int`` or a numpy integer (``np.int64(3)``); an array of them has an integer
dtype. ``0.7``, ``"0"``, ``True``, ``None`` and NaN are refused with a ``ValueError`` that says what
was given, instead of becoming some id by conversion.

>>> as_action(np.int64(3))
3
>>> as_action(0.7)
Traceback (most recent call last):
...
ValueError: an action is an integer action id (int or numpy integer), got 0.7 (float)
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _refuse(shown: str, what: str = "an action is an integer action id (int or numpy integer)") -> ValueError:
    return ValueError(f"{what}, got {shown}")


def as_action(action: Any) -> int:
    """One action id as an ``int``; a 0-d or one-element integer array is accepted too."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        return int(action)
    if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
        return int(action.reshape(()))
    raise _refuse(f"{action!r} ({type(action).__name__})")


def as_actions(actions: Any) -> np.ndarray:
    """A batch of action ids as an int64 array (a list of ints, or any integer array)."""
    array = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
    if array.dtype.kind not in "iu":
        shown = f"{actions!r} ({array.dtype})" if array.size <= 8 else f"an array of {array.dtype}"
        raise _refuse(shown, "actions are integer action ids (an integer array or a list of ints)")
    return array if array.dtype == np.int64 else array.astype(np.int64)

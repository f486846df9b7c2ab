"""Checks of the integers every env and the engine are given (action ids, seeds, seats): integers, nothing else.

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

import argparse
from typing import Any, Callable

import numpy as np


def _refuse(shown: str, what: str = "an action is an integer action id (int or numpy integer)") -> ValueError:
    return ValueError(f"{what}, got {shown}")


def as_action(action: Any) -> int:
    """One action id as an ``int``; a 0-d or one-element integer array is accepted too. An id beyond int64 is
    refused here (it is outside every action space, and no int64 buffer could hold it)."""
    if is_integer(action):
        value = int(action)
    elif isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
        value = int(action.reshape(()))
    else:
        raise _refuse(f"{action!r} ({type(action).__name__})")
    if not -2**63 <= value < 2**63:
        raise ValueError(f"action {value} is outside the action space (action ids are 0..A-1)")
    return value


def as_actions(actions: Any) -> np.ndarray:
    """A batch of action ids as an int64 array (a list of ints, or any integer array)."""
    array = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
    if array.dtype.kind not in "iu":
        shown = f"{actions!r} ({array.dtype})" if array.size <= 8 else f"an array of {array.dtype}"
        raise _refuse(shown, "actions are integer action ids (an integer array or a list of ints)")
    return array if array.dtype == np.int64 else array.astype(np.int64)


def is_integer(value: Any) -> bool:
    """An ``int`` or numpy integer, not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def count(value: Any, name: str, low: int = 1) -> int:
    """A size such as ``batch_size`` or ``num_envs``: an integer ``>= low``, else a ``ValueError`` naming it."""
    if not is_integer(value) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def integers(values: Any, name: str, rows: int, low: int, high: int) -> np.ndarray:
    """``values`` (one integer for every row, or ``rows`` of them) as an array ``(rows,)`` (uint64 when ``low >= 0``,
    else int64), each in ``low..high``; floats, bools, strings or a wrong length are a ``ValueError`` naming ``name``.
    A list is checked item by item (numpy would turn ``[1, 2**64 - 1]`` into floats); other sequences (a ``range``,
    a tensor) are read as an array or a list first."""
    if hasattr(values, "__array__") and not isinstance(values, np.ndarray):
        values = np.asarray(values)
    elif hasattr(values, "__len__") and not isinstance(values, (np.ndarray, list, tuple, str, bytes)):
        values = list(values)
    array = values if isinstance(values, np.ndarray) else None
    size = array.size if array is not None else len(values) if isinstance(values, (list, tuple)) else 1
    shown = repr(values) if size <= 8 else f"{size} values"
    if array is not None:
        wrong_length = array.ndim > 1 or array.ndim == 1 and array.shape[0] != rows
    else:
        wrong_length = isinstance(values, (list, tuple)) and len(values) != rows
    if wrong_length:
        raise ValueError(f"{name} must be one integer or {rows} of them (one per row), got {shown}")
    if array is not None:
        ok = array.dtype.kind in "iu" and (array.size == 0 or low <= int(array.min()) and int(array.max()) <= high)
        items = array
    else:
        items = list(values) if isinstance(values, (list, tuple)) else [values]
        ok = all(is_integer(v) and low <= v <= high for v in items)
        items = [int(v) for v in items] if ok else items
    if not ok:
        raise ValueError(f"{name} must be integers {low}..{high}, got {shown}")
    return np.broadcast_to(np.asarray(items, dtype=np.uint64 if low >= 0 else np.int64), (rows,)).copy()


def seed_type(high: int = 2**64 - 1) -> Callable[[str], int]:
    """The argparse ``type`` of every command line's ``--seed``: an integer ``0..high``, else argparse's error naming
    the option (``argument --seed: ...``) instead of a failure further on that blames a config file."""

    def seed(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not 0 <= value <= high:
            raise argparse.ArgumentTypeError(f"a seed is an integer 0..{high}, got {text!r}")
        return value

    return seed

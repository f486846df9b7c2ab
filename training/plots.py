"""Plots for the arena and the training runs (matplotlib, Agg backend: files only, no display).

* ``win_rate_vs_steps(rows, path, title)``: win rate with its 95% interval against training steps;
* ``learning_curve(log, tag, path)``: one logged value against steps, read by ``read_scalars`` from a
  CSV file (SB3's ``progress.csv``, or any with a step column) or a TensorBoard run directory.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)

STEP_COLUMNS = ("global_step", "step", "time/total_timesteps")


def win_rate_vs_steps(rows: Sequence[dict[str, Any]], path: Path, title: str) -> Path:
    """Plot ``rows`` (``step``, ``win_rate``, ``ci_low``, ``ci_high``) to ``path``."""
    steps = [row["step"] for row in rows]
    figure, axes = plt.subplots(figsize=(6, 4))
    axes.fill_between(steps, [row["ci_low"] for row in rows], [row["ci_high"] for row in rows], alpha=0.3,
                      label="95% Wilson interval")
    axes.plot(steps, [row["win_rate"] for row in rows], marker="o", label="win rate")
    axes.axhline(0.5, color="grey", linestyle="--", linewidth=1)
    axes.set(xlabel="training steps", ylabel="win rate", ylim=(0, 1), title=title)
    axes.legend()
    return _save(figure, path)


def learning_curve(log: Path, tag: str | None, path: Path) -> Path:
    """Plot the value ``tag`` of ``log`` (see ``read_scalars``) against steps to ``path``."""
    steps, values = read_scalars(log, tag)
    figure, axes = plt.subplots(figsize=(6, 4))
    axes.plot(steps, values)
    axes.set(xlabel="training steps", ylabel=tag, title=f"{tag} ({log.name})")
    return _save(figure, path)


def read_scalars(log: Path, tag: str | None) -> tuple[list[float], list[float]]:
    """``(steps, values)`` of ``tag`` from a CSV file or a TensorBoard directory; without ``tag``, or
    with one the log lacks, a ``ValueError`` lists the tags it has."""
    if log.is_dir():
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        events = EventAccumulator(str(log), size_guidance={"scalars": 0}).Reload()
        tags = events.Tags()["scalars"]
        _check_tag(log, tag, tags)
        scalars = events.Scalars(tag)
        return [event.step for event in scalars], [event.value for event in scalars]
    with open(log, newline="") as handle:
        rows = list(csv.DictReader(handle))
    columns = list(rows[0]) if rows else []
    _check_tag(log, tag, columns)
    step_column = next((column for column in STEP_COLUMNS if column in columns), None)
    if step_column is None:
        raise ValueError(f"{log}: no step column (one of {STEP_COLUMNS})")
    kept = [row for row in rows if row[tag] != "" and row[step_column] != ""]
    return [float(row[step_column]) for row in kept], [float(row[tag]) for row in kept]


def _check_tag(log: Path, tag: str | None, tags: Sequence[str]) -> None:
    if tag not in tags:
        raise ValueError(f"{log}: choose a tag to plot (--log-tag) among {sorted(tags)}")


def _save(figure: plt.Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path

"""Run folders of the trainers (``ppo_selfplay``, ``train_rllib``): one run per folder, never overwritten.

A folder *holds a run* when it has checkpoints (``checkpoint_*``), a ``policy.pt``, TensorBoard
``logs`` or a ``run.json``. A new run refuses such a folder (``check_out_dir``) instead of overwriting
its checkpoints and mixing its logs; a resumed run continues in the folder of its checkpoint. ``Report``
is a run's progress line.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

RUN_FILES = ("checkpoint_*", "policy.pt", "logs", "run.json")


def check_out_dir(out: str, resume: str | None, option: str = "--out") -> None:
    """Refuse (``FileExistsError``) to write a run into a folder that holds another run (its checkpoints,
    ``policy.pt`` or TensorBoard logs would be overwritten or mixed). A resumed run may continue in the
    folder of its checkpoint. ``option`` is how the trainer's command line names the folder."""
    folder = Path(out)
    found = sorted({path.name for pattern in RUN_FILES for path in folder.glob(pattern)}) if folder.is_dir() else []
    if not found:
        return
    if resume is not None and Path(resume).resolve().parent == folder.resolve():
        return
    latest = sorted(folder.glob("checkpoint_*"))
    hint = f" or continue that run with --resume {latest[-1]} {option} {out}" if latest else ""
    raise FileExistsError(f"{option} {out} already holds a run ({', '.join(found[:4])}{', …' if len(found) > 4 else ''}); "
                          f"a new run needs a new or empty folder: choose another {option}{hint}")


def fresh_out_dir(out: str) -> str:
    """``out`` if it holds no run, else the first free ``out-2``, ``out-3``, …"""
    candidate, number = out, 1
    while True:
        try:
            check_out_dir(candidate, None)
            return candidate
        except FileExistsError:
            number += 1
            candidate = f"{out}-{number}"


def check_no_later_checkpoints(out: str, number: int, option: str = "--out") -> None:
    """Refuse to continue a run from checkpoint ``number`` in a folder holding later checkpoints of it:
    the continued run would overwrite them."""
    later = sorted(path.name for path in Path(out).glob("checkpoint_*")
                   if re.fullmatch(r"checkpoint_(\d+)(\.pt)?", path.name) and int(re.findall(r"\d+", path.name)[0]) > number)
    if later:
        raise FileExistsError(f"{option} {out} holds later checkpoints than the one resumed ({', '.join(later[:3])}"
                              f"{', …' if len(later) > 3 else ''}), which the continued run would overwrite; resume "
                              f"from the last one, or into a new {option}")


REPORT_EVERY = 5  # updates of a trainer per progress line on stdout


class Report:
    """The progress line: the means of the updates since the last line (a win rate over the updates that
    finished games against that opponent kind)."""

    def __init__(self):
        self.values: dict[str, list[float]] = {}

    def add(self, summary: dict[str, float]) -> None:
        for name in ("entropy", "steps_per_second", *(k for k in summary if k.startswith("win_rate/"))):
            if name in summary and np.isfinite(summary[name]):
                self.values.setdefault(name, []).append(float(summary[name]))

    def line(self, update: int, step: int, total_steps: int, checkpoint: bool) -> str:
        means = {name: float(np.mean(values)) for name, values in self.values.items() if values}
        self.values = {}
        wins = ", ".join(f"{name.split('/')[1]} {value:.1%}" for name, value in sorted(means.items())
                         if name.startswith("win_rate/"))
        text = (f"update {update}, step {step:,}/{total_steps:,}: win rate {wins or '-'}; "
                f"entropy {means.get('entropy', float('nan')):.3f}; {means.get('steps_per_second', 0.0):,.0f} steps/s")
        return text + (f"; checkpoint_{update:06d}.pt written" if checkpoint else "")

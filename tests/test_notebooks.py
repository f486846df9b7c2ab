"""The notebooks of ``notebooks/`` run top to bottom without an error (nbclient, with the repository
root as working directory, as ``notebooks/README.md`` says to run them; their first cell puts it on
``sys.path`` for ``training/``). Each keeps to a small budget, well under a minute on two cores;
what they write goes under ``runs/notebooks/`` (ignored by git)."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT_S = 300


def test_there_are_notebooks():
    assert [path.name for path in NOTEBOOKS][:4] == ["01_quickstart.ipynb", "02_training.ipynb",
                                                     "03_evaluation.ipynb", "04_hidden_information.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_notebook_runs_without_errors(path):
    if path.stem != "01_quickstart":
        pytest.importorskip("torch")  # training and the arena's PPO agent: the train extra
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()  # a cell that raises fails the test with CellExecutionError (cell source and traceback)
    errors = [output for cell in notebook.cells if cell.cell_type == "code"
              for output in cell.get("outputs", []) if output.get("output_type") == "error"]
    assert errors == []

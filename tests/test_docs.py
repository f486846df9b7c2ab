"""The documentation: every python block of README.md and of the guides runs as written (each in a
fresh interpreter, from the repository root; the snippets are written to be cheap; a block that starts with
``# needs: MODULE`` is skipped, saying so, where that optional library is not installed), and the
documentation site (docs/, Sphinx with the API reference from the docstrings) builds strictly."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(encoding="utf-8"), flags=re.S | re.M)


SNIPPETS = [(path, k, block) for path in DOCUMENTS for k, block in enumerate(python_blocks(path))]


def test_the_readme_has_python_snippets():
    assert len(python_blocks(ROOT / "README.md")) >= 3


def kernel_cache() -> dict[str, str]:
    """The compiled-kernel cache of this process (``rummy_env.engine.jit``): a snippet runs with a home of its own,
    but need not compile the kernels again (none when there is no writable cache)."""
    import importlib

    import numba

    importlib.import_module("rummy_env.engine.jit")  # chooses the cache folder
    folder = numba.config.CACHE_DIR
    return {"RUMMY_ENV_CACHE_DIR": str(Path(folder).parent)} if folder else {}


LIBRARIES_GUIDE = ROOT / "docs" / "guides" / "libraries.md"


def snippet_case(path: Path, number: int, code: str):
    """One snippet's test case; the libraries guide's are marked ``wheel``: ``make test-wheel`` runs them from the
    installed wheel (``.ci/wheel_check.py``), so the CI profile (``tests/ci_profile.py``) leaves them to it."""
    marks = [pytest.mark.wheel] if path == LIBRARIES_GUIDE else []
    return pytest.param(path, number, code, marks=marks, id=f"{path.relative_to(ROOT)}#{number}")


@pytest.mark.parametrize("path, number, code", [snippet_case(*snippet) for snippet in SNIPPETS])
def test_every_python_snippet_runs_as_written(path, number, code, tmp_path):
    needs = re.match(r"# needs: ([\w.]+)(.*)", code)  # a block for an optional library: skipped without it, saying so
    if needs:
        pytest.importorskip(needs.group(1), reason=f"{path.name} python block {number} needs {needs.group(1)}{needs.group(2)}")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "OMP_NUM_THREADS": "1",
                              "NUMBA_NUM_THREADS": "2", "MPLBACKEND": "Agg", **kernel_cache()})
    assert run.returncode == 0, f"{path.name} python block {number} failed:\n{code}\n--- stderr:\n{run.stderr[-3000:]}"


def test_the_documentation_builds_strictly(tmp_path):
    pytest.importorskip("sphinx", reason="the docs extra is not installed (pip install -e '.[docs]'; make test installs it)")
    pytest.importorskip("myst_parser", reason="the docs extra is not installed")
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "docs",
                          str(tmp_path / "html")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-5000:]
    rules = (tmp_path / "html" / "rules.html").read_text(encoding="utf-8")
    assert 'id="B7"' in rules and 'id="AR12"' in rules and 'id="E86"' in rules
    api = (tmp_path / "html" / "api" / "records.html").read_text(encoding="utf-8")
    assert "GameRecord" in api and "replay" in api
    for page in ("api/envs.html", "api/engine.html", "api/agents.html", "api/training.html", "guides/training.html",
                 "guides/evaluation.html", "guides/benchmarks.html", "play.html"):
        assert (tmp_path / "html" / page).stat().st_size > 5000, page

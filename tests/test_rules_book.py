"""The rules book (docs/rules.md): every rule id that the code, its messages, the configs, the README
and the docs cite (B*, R*, AB*, AR*, AL*, E*, G*, EG*) resolves to an anchor of the book, and nothing
meant for users points at a rules file outside the project."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "docs" / "rules.md"
# a rule id: B7, R11.5, AR12, E86, EG3 … (not part of a longer word, a hex colour or a ruff code)
RULE_ID = re.compile(r"(?<![\w#.\-/])(AB|AR|AL|EG|B|R|E|G)(\d+)(\.\d+)?(?![\w])")
NOT_RULES = re.compile(r"noqa:[ A-Z0-9,]*")  # a lint directive (noqa then a code such as E402), not a rule


def cited_files() -> list[Path]:
    """What users read: the package, the agents and training code and docs, configs, README, docs,
    notebooks, checkpoints/README.md."""
    files = [ROOT / "README.md", ROOT / "checkpoints" / "README.md", ROOT / "CHANGELOG.md"]
    for folder, patterns in (("rummy_env", ("*.py",)), ("agents", ("*.py", "*.md")), ("training", ("*.py", "*.md")),
                             ("configs", ("*.toml",)), ("docs", ("*.md",)), ("notebooks", ("*.ipynb",))):
        for pattern in patterns:
            files += sorted((ROOT / folder).rglob(pattern))
    return [path for path in files if path.is_file()]


def anchors() -> set[str]:
    return set(re.findall(r'<a id="([^"]+)"></a>', BOOK.read_text(encoding="utf-8")))


def citations(path: Path) -> set[str]:
    text = NOT_RULES.sub("", path.read_text(encoding="utf-8"))
    return {"".join(match.groups(default="")) for match in RULE_ID.finditer(text)}


def test_the_book_has_every_rule_id_once():
    found = re.findall(r'<a id="([^"]+)"></a>', BOOK.read_text(encoding="utf-8"))
    assert len(found) == len(set(found)), "an anchor appears twice"
    expected = ({f"B{n}" for n in range(1, 20)} | {f"R{n}" for n in range(1, 25)} | {f"AB{n}" for n in range(1, 13)}
                | {f"AR{n}" for n in range(1, 28)} | {f"AL{n}" for n in range(1, 8)} | {f"E{n}" for n in range(1, 87)}
                | {f"G{n}" for n in range(1, 15)} | {f"EG{n}" for n in range(1, 13)})
    assert expected <= set(found), sorted(expected - set(found))


def test_every_cited_rule_id_resolves_in_the_book():
    known = anchors()
    missing = {}
    for path in cited_files():
        for rule in citations(path) - known:
            missing.setdefault(rule, []).append(str(path.relative_to(ROOT)))
    assert not missing, f"rule ids with no anchor in docs/rules.md: {missing}"
    assert sum(len(citations(path)) for path in cited_files()) > 150  # the scan does find the citations


def test_the_scan_finds_ids_and_skips_what_is_not_one(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('import x  # noqa: E402\ncolour = "#E6E1D6"\nmessage = "see B7, R11.5 and AR12 (E86)"\n')
    assert citations(sample) == {"B7", "R11.5", "AR12", "E86"}


@pytest.mark.parametrize("path", [path for path in cited_files() if "engine" not in path.parts],
                         ids=lambda path: str(path.relative_to(ROOT)))
def test_user_facing_text_cites_the_book_not_a_file_outside_the_project(path):
    text = path.read_text(encoding="utf-8")
    assert "shared/RULES.md" not in text and "RULES.md §" not in text and "RULES.md R" not in text

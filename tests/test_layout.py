"""The package's layout keeps what the family interface promises (``rummy_env.engine.families``): no module outside
the family packages decides anything by a ruleset's name (a guard that refuses another ruleset is allowed), and the
modules import one another without a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

from rummy_env.knobs import PRESETS, RULESETS

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {"rummy_env": ROOT / "rummy_env", "rummy_env.agents": ROOT / "agents",
           "rummy_env.training": ROOT / "training"}
FAMILY_PACKAGES = tuple(ROOT / "rummy_env" / "engine" / name for name in RULESETS)
NAMES = set(RULESETS) | set(PRESETS)


def modules() -> dict[str, Path]:
    found = {}
    for package, folder in SOURCES.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            parts = parts[:-1] if parts[-1] == "__init__" else parts
            found[".".join((package,) + parts)] = path
    return found


def _mentions_ruleset(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "ruleset" or isinstance(n, ast.Name) and n.id == "ruleset"
               or isinstance(n, ast.Constant) and n.value == "ruleset" for n in ast.walk(node))


def _names_a_ruleset(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Constant) and n.value in NAMES for n in ast.walk(node))


def ruleset_branches(tree: ast.AST) -> list[int]:
    """Lines of ``if``s and conditional expressions that test a ruleset against a ruleset's name, other than a guard
    whose whole body raises."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.IfExp)) and _mentions_ruleset(node.test) and _names_a_ruleset(node.test):
            guard = isinstance(node, ast.If) and len(node.body) == 1 and isinstance(node.body[0], ast.Raise)
            if not guard:
                lines.append(node.lineno)
    return lines


def test_no_module_outside_the_family_packages_branches_on_a_ruleset():
    found = {}
    for name, path in modules().items():
        if path.is_relative_to(ROOT / "rummy_env" / "engine") and any(path.is_relative_to(p) for p in FAMILY_PACKAGES):
            continue
        lines = ruleset_branches(ast.parse(path.read_text()))
        if lines:
            found[name] = lines
    assert not found, f"ruleset branches outside the family packages (move them into a family's hook): {found}"


def test_the_scan_finds_a_ruleset_branch_and_lets_a_guard_pass():
    branch = "if rules.ruleset == 'gin':\n    x = 1\ny = 2 if snap.get('ruleset') != 'rami51' else 3\n"
    guard = "if rules.ruleset != 'gin':\n    raise ValueError('gin only')\n"
    assert ruleset_branches(ast.parse(branch)) == [1, 3]
    assert ruleset_branches(ast.parse(guard)) == []


def module_imports(path: Path, name: str, known: set[str]) -> set[str]:
    """The package's modules that ``path`` imports when it is imported (its top-level imports, not those inside
    functions, which run later)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        ancestors = {name.rsplit(".", k)[0] for k in range(1, name.count(".") + 1)}  # initialised first anyway
        out |= {target for target in targets if target in known and target != name and target not in ancestors}
    return out


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """A cycle of ``graph`` (module -> the modules it imports) as a list of modules, or []."""
    state: dict[str, int] = {}

    def visit(name: str, trail: list[str]) -> list[str]:
        state[name] = 1
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                return trail[trail.index(target):] + [name, target] if target in trail else [name, target]
            if target not in state:
                found = visit(target, trail + [name])
                if found:
                    return found
        state[name] = 2
        return []

    for name in sorted(graph):
        if name not in state:
            found = visit(name, [])
            if found:
                return found
    return []


def test_the_modules_import_one_another_without_a_cycle():
    found = modules()
    graph = {name: module_imports(path, name, set(found)) for name, path in found.items()}
    assert "rummy_env.engine.families" in graph["rummy_env.engine.core"]  # the scan reads the imports
    assert find_cycle(graph) == []
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]

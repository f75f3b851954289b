"""The layers, read from the source (ast): games never import host; a game's rules import
only ``games.core``, ``games.base`` and the game's own modules; no import cycles anywhere
(imports inside functions included)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("host", "games", "grammars")


def modules() -> Iterator[tuple[str, Path]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "tests" in path.relative_to(ROOT).parts:
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            yield name.removesuffix(".__init__"), path


MODULES = dict(modules())


def imports(name: str, path: Path) -> set[str]:
    """Project modules ``name`` imports, anywhere in the file."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")
                keep = parts[: len(parts) - node.level + (1 if path.name == "__init__.py" else 0)]
                base = ".".join([*keep, *([base] if base else [])])
            targets = [base, *(f"{base}.{a.name}" for a in node.names)]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


GRAPH = {name: imports(name, path) for name, path in MODULES.items()}


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("games")))
def test_games_never_import_the_host(name: str) -> None:
    assert not {m for m in GRAPH[name] if m.startswith("host")}, name


RULES = sorted(n for n in MODULES if n.startswith("games.") and n.endswith(".rules"))


@pytest.mark.parametrize("name", RULES)
def test_rules_import_only_the_core_and_their_own_game(name: str) -> None:
    own = name.rsplit(".", 1)[0]
    allowed = {"games.core", "games.base"}
    strays = {m for m in GRAPH[name] if m not in allowed and not m.startswith(own + ".")}
    assert not strays, f"{name} imports {sorted(strays)}"


def test_grammars_import_neither_games_nor_host() -> None:
    for name in (n for n in MODULES if n.startswith("grammars")):
        assert not {m for m in GRAPH[name] if m.startswith(("games", "host"))}, name


def test_no_import_cycles() -> None:
    """Tarjan's strongly connected components: every one must be a single module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in GRAPH[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for node in GRAPH:
        if node not in index:
            visit(node)
    assert not cycles, cycles


def test_the_host_names_no_game() -> None:
    """The registry decides: no string in host/ names a registered game (docstrings aside)."""
    from games.base import all_games

    names = {n.casefold() for s in all_games() for n in (s.name, s.title, *s.aliases) if len(n) > 4}
    found = []
    for name, path in MODULES.items():
        if not name.startswith("host"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and n.body
            and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                text = node.value.casefold()
                found += [f"{path.name}:{node.lineno}: {n}" for n in names if n in text]
    assert not found, found

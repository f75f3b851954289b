"""Every package the code imports is one pyproject.toml declares (or one a declared package
brings): a package installed by hand on one machine otherwise passes here and fails CI's
fresh clone, as scipy did (tests/speech/reverb.py) before it was a test extra."""

from __future__ import annotations

import ast
import sys
import tomllib
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
LOCAL = {"host", "games", "grammars", "tests"}
# Test code outside a tests folder: the oracle tests' common part, imported only by them.
TEST_CODE = {Path("games/oracle_report.py")}

# Imported only where a measured candidate that is off is tried again, never by a test.
OPTIONAL = {
    "nara_wpe": "tests/bench/bench_room.py's OnlineWpe candidate (measured worse, off)",
}


def _imports(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0]


def _third_party(folders: tuple[str, ...], *, tests: bool = True) -> dict[str, Path]:
    """Top-level modules imported under ``folders`` (with or without their ``tests``
    folders) that are neither the standard library, this project, nor a script's neighbour
    (the benches import each other by file)."""
    found: dict[str, Path] = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            where = path.relative_to(ROOT)
            if not tests and ("tests" in where.parts or where in TEST_CODE):
                continue
            for name in _imports(path):
                beside = path.parent / name
                if (
                    name in sys.stdlib_module_names
                    or name in LOCAL
                    or beside.with_suffix(".py").exists()
                    or beside.is_dir()
                ):
                    continue
                found.setdefault(name, path)
    return found


def _declared(extras: set[str]) -> set[str]:
    """The distributions pyproject.toml asks for with ``extras``, and all they require."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [Requirement(r) for r in project["dependencies"]]
    for extra in extras:
        wanted += [Requirement(r) for r in project["optional-dependencies"][extra]]
    seen: set[str] = set()
    while wanted:
        req = wanted.pop()
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue  # not for this platform or Python
        for line in requires:
            sub = Requirement(line)
            chosen = {""} | set(req.extras)
            if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in chosen):
                wanted.append(sub)
    return seen


def _undeclared(folders: tuple[str, ...], extras: set[str]) -> list[str]:
    providers = metadata.packages_distributions()
    declared = _declared(extras)
    wrong = []
    for module, path in _third_party(folders, tests=bool(extras)).items():
        if module in OPTIONAL:
            continue
        dists = {canonicalize_name(d) for d in providers.get(module, [])}
        if not dists & declared:
            where = path.relative_to(ROOT)
            wrong.append(f"{module} ({where}; installed from {sorted(dists) or 'nowhere'})")
    return sorted(wrong)


def test_the_host_imports_only_what_it_declares() -> None:
    assert _undeclared(("host", "games", "grammars"), set()) == []


def test_the_tests_and_benches_import_only_the_test_extras() -> None:
    assert _undeclared(("tests", "games"), {"test"}) == []


def test_the_check_finds_a_package_that_is_not_declared() -> None:
    # pyroomacoustics is a test extra: the host itself may not import it.
    assert "pyroomacoustics" in _third_party(("tests",))
    assert not {"pyroomacoustics", "scipy"} & _declared(set())

"""Every example in the source runs: a module with ``>>>`` in it has its examples run by
``doctest`` here, so an example that no longer holds fails the suite like any test.

Run one module's examples: ``pytest tests/test_doctests.py -k grammars.reader``.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("host", "games", "grammars")


def with_examples() -> list[str]:
    """Every module of the packages whose text has an example in it (``>>>``)."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>> " in path.read_text(encoding="utf-8"):
                name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
                found.append(name.removesuffix(".__init__"))
    return found


MODULES = with_examples()


def test_the_modules_with_examples_are_found() -> None:
    assert len(MODULES) >= 15 and "grammars.reader" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_hold(name: str) -> None:
    module = importlib.import_module(name)
    tests = doctest.DocTestFinder().find(module)
    said: list[str] = []
    runner = doctest.DocTestRunner()
    for test in tests:
        runner.run(test, out=said.append)
    results = runner.summarize(verbose=False)
    # An example doctest cannot see (in a comment, a nested function) would never run.
    assert results.attempted, f"{name}: '>>>' in the text, but no example doctest can run"
    assert not results.failed, "".join(said)

"""One folder layout for every registered game (``docs`` and README "A game is a folder"):

    games/<game>/__init__.py  the GameSpec        rules.py, talk.py (and the game's helpers)
    games/<game>/grammar/<lang>/words.yaml, tests.yaml   one folder per language it ships
    games/<game>/tests/       its own tests, golden.py and transcripts/

A language lives only in ``grammars/<lang>/`` and ``games/<game>/grammar/<lang>/``, so a new
one is a folder in each. A game's own tests need no host: those that play it through a
channel live with the channel (tests/sms/, tests/table/ ...)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

import pytest

from games.base import GameSpec, all_games
from grammars import ROOT as SHARED

GAMES = sorted(all_games(), key=lambda s: s.name)
IDS = [s.name for s in GAMES]


def folder(spec: GameSpec[Any, Any, Any]) -> Path:
    return Path(sys.modules[type(spec.talk).__module__].__file__ or "").parent


@pytest.mark.parametrize("spec", GAMES, ids=IDS)
def test_every_game_has_the_same_folders(spec: GameSpec[Any, Any, Any]) -> None:
    game = folder(spec)
    for name in ("__init__.py", "rules.py", "talk.py", "tests/__init__.py", "tests/golden.py"):
        assert (game / name).is_file(), f"{game.name}/{name}"
    assert list((game / "tests" / "transcripts").glob("*.txt")), f"{game.name} has no golden transcripts"
    grammar = game / "grammar"
    assert sorted(p.name for p in grammar.iterdir()) == sorted(spec.languages), grammar
    for lang in spec.languages:
        assert sorted(p.name for p in (grammar / lang).iterdir()) == ["tests.yaml", "words.yaml"], lang


@pytest.mark.parametrize("spec", GAMES, ids=IDS)
def test_a_game_ships_only_languages_the_host_has(spec: GameSpec[Any, Any, Any]) -> None:
    assert spec.languages[0] == "en"
    assert all((SHARED / lang / "numbers.yaml").is_file() for lang in spec.languages), spec.languages


@pytest.mark.parametrize("spec", GAMES, ids=IDS)
def test_a_games_own_tests_need_no_host(spec: GameSpec[Any, Any, Any]) -> None:
    for path in sorted((folder(spec) / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [n for n in names if n.split(".")[0] in ("host", "tests")], path

"""Every registered game shows a public board (``Talk.view``) for the table's screen:
JSON data, not empty, at the start, midway and at the end of its golden script."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.base import GameSpec, all_games
from host.referee import Referee
from host.store import Store
from tests.clock import Clock
from tests.golden import SCRIPTS

GAMES = sorted(all_games(), key=lambda s: s.name)


def _scalar_or_table(value: object) -> bool:
    """The shapes the page renders: text/number, a list of them, a label -> text/number table."""
    scalar = (str, int, float)
    if isinstance(value, scalar):
        return True
    if isinstance(value, list):
        return all(isinstance(v, scalar) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and isinstance(v, scalar) for k, v in value.items())
    return False


@pytest.mark.parametrize("spec", GAMES, ids=[s.name for s in GAMES])
def test_every_game_views_its_golden_script(spec: GameSpec[Any, Any, Any]) -> None:
    script = next(SCRIPTS[n] for n in SCRIPTS if SCRIPTS[n]()[0].game == spec.name)
    config, players, lines = script()
    referee = Referee(Store(":memory:"), Clock(1_000_000.0))
    session = referee.create(config, players)
    states = [referee.table(session).state]
    for i, line in enumerate(lines):
        speaker, _, words = line.partition(": ")
        referee.handle(session, words, speaker)
        if i == len(lines) // 2:
            states.append(referee.table(session).state)
    states.append(referee.table(session).state)
    for state in states:
        board = spec.talk.view(state, config.lang)
        assert board, f"{spec.name} shows an empty board"
        assert json.loads(json.dumps(board)) == board, "the board is plain JSON data"
        for label, value in board.items():
            assert isinstance(label, str) and label
            assert _scalar_or_table(value), f"{spec.name}: {label} = {value!r} has no generic rendering"

"""Every registered game shows a public board (``Talk.view``) for the table's screen, in
the vocabulary of ``games.base.View``: at the start, midway and at the end of its golden
script, plain JSON the page can draw without knowing the game."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import TypeAdapter

from games.base import GameSpec, View, all_games
from host.referee import Referee
from host.store import Store
from tests.clock import Clock
from tests.golden import SCRIPTS

GAMES = sorted(all_games(), key=lambda s: s.name)
VIEW = TypeAdapter(View)


def boards(spec: GameSpec[Any, Any, Any]) -> list[tuple[Any, View]]:
    """(state, view) at the start, midway and at the end of the game's golden script."""
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
    return [(state, spec.talk.view(state, config.lang)) for state in states]


@pytest.mark.parametrize("spec", GAMES, ids=[s.name for s in GAMES])
def test_every_game_views_its_golden_script(spec: GameSpec[Any, Any, Any]) -> None:
    for state, board in boards(spec):
        assert json.loads(json.dumps(board)) == board, "the board is plain JSON data"
        VIEW.validate_python(board, strict=True)  # only the vocabulary the page draws
        parts = board.get("parts", [])
        assert parts and parts[0]["label"], f"{spec.name} shows no board"
        assert sum(1 for p in parts if p.get("big")) == 1, f"{spec.name}: one thing to see from afar"
        for score in board.get("scores", []):
            assert set(score["values"]) <= set(state.players), "figures are per player"


def test_the_views_show_what_the_table_sees() -> None:
    """Each game's own board: the things the issue names, from its golden script."""
    by_name = {spec.name: boards(spec) for spec in GAMES}
    # Up-or-Down: the last number, and the range drawn with what may come next.
    _, mid = by_name["up-or-down"][1]
    main = mid["parts"][0]
    assert main["label"] == "Last number" and isinstance(main["number"], int)
    line = main["line"]
    assert line["at"] == main["number"] and (line["low"], line["high"]) == (1, 100)
    assert {s["text"] for s in line["spans"]} <= {"odd", "even"}
    # !nversion: the lane of 10, earlier tricks' cards used, this trick's follow card marked.
    state, mid = by_name["inversion"][1]
    lane = mid["parts"][0]["cards"]
    assert len(lane) == 10 and [c.get("mark") for c in lane].count("now") == 1
    assert [c.get("mark") for c in lane[: state.trick - 1]] == ["used"] * (state.trick - 1)
    assert {c["suit"] for c in lane} <= set("♣♠♥♦★")
    assert {c["colour"] for c in lane} <= {"red", "black", "purple"}
    assert {"label": "Trick", "value": f"{state.trick} / 10"} in mid["facts"]
    assert mid["scores"][0]["label"] == "Tricks" and mid["scores"][0]["big"]
    # Blófa: VP, the piles as coloured backs with their counts, no face value anywhere.
    state, mid = by_name["blofa"][1]
    assert mid["scores"][0]["label"] == "VP"
    piles = next(p for p in mid["parts"] if p["label"] == "Piles")["cards"]
    assert [(c["colour"], c["count"]) for c in piles] == [
        ("blue", state.piles.blue),
        ("yellow", state.piles.yellow),
    ]
    assert all(c.get("back") for p in mid["parts"] for c in p.get("cards", []))
    # Upside-Out: secrets and hands per player, the discard pile's top.
    state, end = by_name["upside-out"][-1]
    assert [s["label"] for s in end["scores"]] == ["Secrets", "Hand"]
    discard = next(p for p in end["parts"] if p["label"] == "Discard")["cards"][0]
    assert discard["count"] == state.discard

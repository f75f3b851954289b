"""``gamehost play inversion``: a scripted game from setup options, JSON events, bad options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from games.inversion.tests.deals import dealt_game
from host.cli import app

runner = CliRunner()


def events(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


@pytest.mark.parametrize("players", [["Ann", "Bob"], ["Ann", "Bob", "Cy"], ["Ann", "Bob", "Cy", "Dee"]])
def test_a_scripted_game_in_json_matches_the_engine(tmp_path: Path, players: list[str]) -> None:
    game = dealt_game(len(players), players, revoke=True)
    suits, lane, lines, final, kinds_expected = game.suits, game.lane, game.lines, game.final, game.kinds
    assert final is not None
    result = runner.invoke(
        app,
        [
            "play",
            "inversion",
            "--players",
            ",".join(players),
            "--db",
            str(tmp_path / "g.db"),
            "--json",
            "--suits",
            ",".join(s.value for s in suits),
            "--lane",
            ",".join(map(str, lane)),
            "--first",
            players[0].lower(),
        ],
        input="\n".join(lines) + "\n",
    )
    assert result.exit_code == 0, result.stderr
    ev = events(result.stdout)
    kinds = {e["type"] for e in ev}
    assert {"suits", "lane", "first", "card_played", "trick_won", "revoke", "game_over"} <= kinds
    assert ("bid" in kinds) == (len(players) > 2)
    assert sum(e["type"] == "card_played" for e in ev) == 10 * len(players)
    assert sum(e["type"] == "trick_won" for e in ev) == 10
    assert "inversion" in kinds_expected and "revoke" in kinds_expected  # the deal exercises both
    for kind in ("inversion", "revoke", "trick_won"):
        assert sum(e["type"] == kind for e in ev) == kinds_expected.count(kind)
    over = next(e for e in ev if e["type"] == "game_over")
    assert final.outcome is not None
    assert over["tricks"] == dict(final.outcome.scores)
    assert over.get("winners", []) == list(final.outcome.winners)
    accounted = next(e for e in ev if e["type"] == "cards_accounted")
    assert accounted == {
        "type": "cards_accounted",
        "total": 10 * (len(players) + 1),
        "missing": [],
        "doubled": [],
    }


def test_text_output_reads_like_a_referee(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "play",
            "inversion",
            "--players",
            "Ann,Bob",
            "--db",
            str(tmp_path / "g.db"),
            "--suits",
            "H,S,C",
            "--lane",
            "9H,1C,2C,3C,4C,5C,6C,7C,8C,10C",
            "--first",
            "Ann",
        ],
        input="8H\n2S\nscore\n",
    )
    assert result.exit_code == 0, result.stderr
    out = result.stdout.splitlines()
    assert out[:3] == [
        "Suits: hearts, spades, clubs.",
        "Lane 10 of 10: "
        + ", ".join(["9 of hearts"] + [f"{n} of clubs" for n in (1, 2, 3, 4, 5, 6, 7, 8, 10)])
        + ".",
        "Ann plays first.",
    ]
    assert "Inversion! Bob takes the 9 of hearts. Follow card now 2 of spades." in out
    assert out[-1].startswith("Trick 2, follow card 1 of clubs. Tricks: Ann 0, Bob 1.")


def test_setup_left_out_is_asked_for(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["play", "inversion", "--players", "Ann,Bob,Cy", "--db", str(tmp_path / "g.db")],
        input="hearts spades clubs clowns\n",
    )
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "Which 4 suits? Say them, like hearts, spades and clubs.",
        "Suits: hearts, spades, clubs, clowns.",
        "Lane card 1 of 10, nearest the reference card first? Say one or more.",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "A,B,C,D,E"], "2 to 4 players"),
        (["--players", "A,B", "--suits", "heart,spade"], "--suits: Choose 3 suits, not 2"),
        (["--players", "A,B", "--suits", "heart,spade,moon"], "--suits: Choose 3 suits, not 2"),
        (
            ["--players", "A,B", "--suits", "H,S,C", "--lane", "9H,9H"],
            "--lane: The 9 of hearts is in the lane already",
        ),
        (["--players", "A,B", "--suits", "H,S,C", "--lane", "9D"], "not in this game"),
        (["--players", "A,B", "--suits", "H,S,C", "--lane", "12H"], "--lane: Cards go from 1 to 10"),
        # Setup given as options is said in the game's order; a step left out is named.
        (["--players", "A,B", "--lane", "9H"], "--lane needs --suits too: the game asks first: Which 3"),
        (
            ["--players", "A,B", "--suits", "H,S,C", "--first", "A"],
            "--first needs --lane too: the game asks first: Lane card 1",
        ),
        (
            [
                "--players",
                "A,B",
                "--suits",
                "H,S,C",
                "--lane",
                "1H,2H,3H,4H,5H,6H,7H,8H,9H,10H",
                "--first",
                "Zed",
            ],
            "--first: I didn't catch that. Who plays first?",
        ),
    ],
)
def test_bad_setup_options_exit_2_with_a_message(tmp_path: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["play", "inversion", *args, "--db", str(tmp_path / "g.db")], input="")
    assert result.exit_code == 2
    assert message in result.stderr

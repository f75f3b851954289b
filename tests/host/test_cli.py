"""``gamehost play``: text play on stdin, JSON events, resume, and bad options."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from games.blofa.rules import Colour, PlayCards, Reveal
from games.blofa.talk import TALK as BLOFA
from host.cli import app
from host.config import Settings
from host.lobby import Lobby
from host.outbound import Outbound
from host.referee import Referee
from host.session import SessionConfig
from host.store import Store

runner = CliRunner()


def play(db: Path, stdin: str, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["play", "up-or-down", "--db", str(db), *args], input=stdin)
    return result.exit_code, result.stdout, result.stderr


def events(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_a_tournament_in_json(tmp_path: Path) -> None:
    code, out, _ = play(
        tmp_path / "g.db", "P1: 5\nP2: 7\nP3: 8\nP4: 10\n", "--players", "P1,P2,P3,P4", "--json"
    )
    assert code == 0
    ev = events(out)
    assert ev[0] == {"type": "turn", "player": "P1", "turn": 1}
    assert {"type": "move", "player": "P3", "number": 8, "valid": False, "previous": 7} in ev
    assert {"type": "out", "player": "P3", "reason": "mistake"} in ev
    assert ev[-1] == {"type": "turn", "player": "P1", "turn": 5}


def test_bare_lines_belong_to_the_current_player_and_text_is_readable(tmp_path: Path) -> None:
    code, out, _ = play(tmp_path / "g.db", "53\nsixty seven\nhello\n", "--players", "Ann,Bob,Cy")
    assert code == 0
    assert "Ann said 53." in out and "Bob said 67." in out
    assert "I didn't catch that. Cy: an odd number above 67 or an even number below 67." in out


def test_a_game_to_the_end_in_training(tmp_path: Path) -> None:
    script = "10\n11\n12\n14\nfinish\n"
    code, out, _ = play(tmp_path / "g.db", script, "--players", "Ann,Bob", "--mode", "training", "--json")
    assert code == 0
    over = [e for e in events(out) if e["type"] == "game_over"]
    assert over == [
        {"type": "game_over", "reason": "requested", "last_mistake": "Bob", "mistakes": {"Ann": 0, "Bob": 1}}
    ]


def test_winner_in_json(tmp_path: Path) -> None:
    code, out, _ = play(tmp_path / "g.db", "10\n11\n", "--players", "Ann,Bob", "--json")
    assert code == 0
    assert {"type": "game_over", "reason": "last_player_in", "winner": "Ann"} in events(out)


def test_resume_after_the_process_is_killed(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "host",
            "play",
            "up-or-down",
            "--players",
            "Ann,Bob,Cy",
            "--db",
            str(db),
            "--json",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    session = proc.stderr.readline().split()[1]
    proc.stdin.write("10\n12\n")
    proc.stdin.flush()
    seen: list[dict[str, object]] = []
    while not any(e.get("type") == "turn" and e.get("player") == "Cy" for e in seen):
        seen.append(json.loads(proc.stdout.readline()))
    proc.kill()
    proc.wait()
    code, out, _ = play(db, "Cy: 14\n", "--resume", session, "--json")
    assert code == 0
    assert {"type": "move", "player": "Cy", "number": 14, "valid": True, "previous": 12} in events(out)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "chess", "--players", "A,B"], "unknown game"),
        (["play", "up-or-down", "--players", "Ann"], "at least 2 players"),
        (["play", "up-or-down", "--players", "Ann,ann"], "must differ"),
        (["play", "up-or-down", "--players", "A,B", "--range", "5-6"], "three numbers"),
        (["play", "up-or-down", "--players", "A,B", "--range", "x"], "--range"),
        (["play", "up-or-down", "--players", "A,B", "--lang", "xx"], "xx"),
        (["play", "up-or-down", "--resume", "nope"], "no saved session"),
    ],
)
def test_bad_options_exit_non_zero_with_a_message(tmp_path: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, [*args, "--db", str(tmp_path / "g.db")], input="")
    assert result.exit_code != 0
    assert message in result.stderr


def test_version_and_the_answers_to_commands_in_json(tmp_path: Path) -> None:
    version = runner.invoke(app, ["--version"])
    assert version.exit_code == 0 and version.stdout.startswith("gamehost ")
    said = "Ann: status\nBob: whose turn\n"
    code, out, err = play(tmp_path / "g.db", said, "--players", "Ann,Bob", "--json")
    assert code == 0
    answers = [e["answer"] for e in events(out) if e["type"] == "command"]
    assert answers == [["Turn 1. No number yet. Players: Ann, Bob."], ["Ann: any number from 1 to 100."]]
    assert f"--db {tmp_path / 'g.db'}" in " ".join(err.split())  # the resume hint names its database


def test_resume_takes_no_new_players_or_options(tmp_path: Path) -> None:
    _, _, err = play(tmp_path / "g.db", "Ann: 53\n", "--players", "Ann,Bob")
    session = err.split()[1]
    code, _, err = play(tmp_path / "g.db", "", "--resume", session, "--players", "Cy,Dee")
    assert code == 2 and "--resume goes on with the saved game" in err
    code, _, err = play(tmp_path / "g.db", "", "--resume", session, "--lang", "ko")
    assert code == 2 and "--resume goes on with the saved game" in err
    result = runner.invoke(app, ["play", "blofa", "--db", str(tmp_path / "g.db"), "--resume", session])
    assert result.exit_code == 2 and "is a game of up-or-down, not blofa" in result.stderr


def test_each_game_takes_its_own_option_flags(tmp_path: Path) -> None:
    def run(*args: str, stdin: str = "") -> tuple[int, str, str]:
        result = runner.invoke(app, ["play", *args, "--db", str(tmp_path / "g.db")], input=stdin)
        return result.exit_code, result.stdout, result.stderr

    opening = "Cy: one blue card, two\n"
    code, out, _ = run("blofa", "--players", "Ann,Bob,Cy,Dana", "--dealer", "Cy", stdin=opening)
    assert code == 0 and "Cy plays one blue card, declares 2." in out
    code, out, _ = run("upside-out", "--players", "Ann,Bob", "--first", "Bob", stdin="draw\n")
    assert code == 0 and "Bob draws 1." in out
    code, _, err = run("up-or-down", "--players", "Ann,Bob", "--dealer", "Cy")
    assert code == 2 and "up-or-down has no option --dealer" in " ".join(err.split())


@pytest.mark.parametrize("command", ["play", "table", "games"])
def test_help_shows_flags_without_a_value(command: str) -> None:
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    rows = [line for line in result.stdout.splitlines() if "--json" in line or "--help" in line]
    assert len(rows) == 2 and not any("<bool>" in row for row in rows), rows
    root = runner.invoke(app, ["--help"], env={"COLUMNS": "120"}).stdout
    assert "--version" in root and "<bool>" not in root


def test_no_command_shows_a_value_for_a_flag() -> None:
    names = [c.name or c.callback.__name__ for c in app.registered_commands if c.callback is not None]
    assert {"serve", "migrate", "outbox"} <= set(names)
    for name in names:
        result = runner.invoke(app, [name, "--help"], env={"COLUMNS": "120"})
        assert result.exit_code == 0 and "--help" in result.stdout, name
        assert "<bool>" not in result.stdout, name


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["up-or-down", "--players", "Ann,Bob", "--suits", "heart,spade"], "--suits does not apply to up-or"),
        (["up-or-down", "--players", "Ann,Bob", "--first", "53"], "--first does not apply to up-or-down"),
        (["blofa", "--players", "Ann,Bob,Cy,Dana", "--lane", "9H"], "--lane does not apply to blofa"),
        (["upside-out", "--players", "Ann,Bob", "--suits", "9H"], "--suits: I didn't catch that."),
        (["inversion", "--players", "Ann,Bob", "--range", "1-50"], "inversion has no option --range"),
        (["inversion", "--players", "Ann,Bob", "--mode", "training"], "inversion has no option --mode"),
    ],
)
def test_options_a_game_does_not_take_exit_2_and_save_nothing(
    tmp_path: Path, args: list[str], message: str
) -> None:
    db = tmp_path / "g.db"
    result = runner.invoke(app, ["play", *args, "--db", str(db)], input="")
    assert result.exit_code == 2
    assert message in " ".join(result.stderr.split())
    assert "Session" not in result.stderr  # judged before a session was made
    store = Store(db)
    assert store.execute("SELECT COUNT(*) AS n FROM sessions")[0]["n"] == 0
    store.close()


def test_the_outbox_says_who_a_call_is_and_what_a_bare_twiml_update_said(tmp_path: Path) -> None:
    db = tmp_path / "o.db"
    store = Store(db)
    referee = Referee(store)
    lobby = Lobby(referee)
    lobby.create("+15550100001", "Ann", "voice", SessionConfig(game="up-or-down"))
    lobby.set_call("+15550100001", "CA" + "1" * 32)
    outbound = Outbound(Settings(db=db, twilio_account_sid=None), store)
    # A call update stored without a summary: its TwiML's words are what was said.
    outbound.update_call("CA" + "1" * 32, "<Response><Say>Bob said 50.</Say><Pause/></Response>")
    outbound.send_sms("+15550100001", "#2 Ann said 50.")
    store.close()
    result = runner.invoke(app, ["outbox", "--db", str(db)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert f"call to Ann, +15550100001 (CA{'1' * 32})" in out and "sms to Ann (+15550100001)" in out
    assert "said: Bob said 50." in out and "<Say>" not in out
    assert out.count("stored (no Twilio credentials)") == 2


def test_blofa_says_moves_back_with_numbers_in_words(tmp_path: Path) -> None:
    said = "Ann: one blue card, two\nBob: challenge\nAnn: zero\nundo\n"
    result = runner.invoke(
        app, ["play", "blofa", "--players", "Ann,Bob,Cy,Dana", "--db", str(tmp_path / "g.db")], input=said
    )
    assert result.exit_code == 0, result.output
    assert "Taken back: zero." in result.stdout.splitlines()  # the table's move, not "nobody took back 0"
    dana = (PlayCards("Dana", (Colour.BLUE,), 3), PlayCards("Dana", (Colour.YELLOW,), 3))
    assert BLOFA.ambiguous(dana, "en").text == (
        "Did you mean Dana: one blue card, three or Dana: one yellow card, three?"
    )
    assert BLOFA.move_text(Reveal((2, 1)), "en") == "two and one"

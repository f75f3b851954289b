"""The command line as a new user meets it in the first hour: a resume hint that works as
printed, setup flags that say what is missing, ``--say`` answered like typed lines, the
games listed in plain words, option errors naming the flag typed, ``table`` without a
microphone, ``serve`` on a busy port and its development warning said once."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import host.speech.audio
from host.cli import app
from host.config import Settings
from host.outbound import Outbound
from host.store import Store
from tests.servers import free_port, said_until_started, stop

runner = CliRunner()
BLOFA = ("play", "blofa", "--players", "A,B,C,D")
UP_OR_DOWN = ("play", "up-or-down", "--players", "A,B")


def gamehost(tmp_path: Path, *args: str, stdin: str = "") -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--db", str(tmp_path / "g.db")], input=stdin)
    return result.exit_code, result.stdout, " ".join(result.stderr.split())  # rich wraps long lines


def sessions(db: Path) -> int:
    if not db.exists():
        return 0
    store = Store(db)
    try:
        return len(store.sessions())
    finally:
        store.close()


def test_the_resume_hint_is_a_command_that_works_as_printed(tmp_path: Path) -> None:
    code, _, err = gamehost(tmp_path, "play", "up-or-down", "--players", "Ann,Bob", stdin="Ann: 53\n")
    assert code == 0
    hint = re.search(r"resume with: gamehost (play [^)]+)\)", err)
    assert hint, err
    args = hint[1].split()
    assert args[:2] == ["play", "--resume"] and args[-2:] == ["--db", str(tmp_path / "g.db")]
    # As printed (it once said only "--resume X", which failed: "Missing argument 'game'").
    result = runner.invoke(app, args, input="Bob: 40\n")
    assert result.exit_code == 0, result.output
    assert "Bob said 40." in result.stdout
    code, _, err = gamehost(tmp_path, "play")
    assert code == 2 and "which game?" in err


def test_a_setup_flag_without_the_one_before_it_says_what_is_missing(tmp_path: Path) -> None:
    code, _, err = gamehost(tmp_path, "play", "inversion", "--players", "Ann,Bob", "--lane", "9H,2C")
    assert code == 2
    assert "--lane needs --suits too" in err and "Which 3 suits?" in err
    assert "didn't catch" not in err  # it said "I didn't catch that. Which 3 suits?"
    args = ("play", "inversion", "--players", "Ann,Bob", "--suits", "H,S,C", "--first", "Ann")
    code, _, err = gamehost(tmp_path, *args)
    assert code == 2 and "--first needs --lane too" in err
    assert sessions(tmp_path / "g.db") == 0  # judged before anything is saved


def test_say_lines_are_answered_as_typed_lines_are(tmp_path: Path) -> None:
    game = ("play", "up-or-down", "--players", "Ann,Bob", "--json")
    typed = gamehost(tmp_path, *game, stdin="53\n40\n")
    said = gamehost(tmp_path, *game, "--say", "53", "--say", "40")
    assert typed[0] == said[0] == 0
    lines = [json.loads(line) for line in said[1].splitlines()]
    assert [e for e in lines if e["type"] == "turn"] == [
        {"type": "turn", "player": "Bob", "turn": 2},
        {"type": "turn", "player": "Ann", "turn": 3},
    ]
    # The typed game also opens with the first turn; after that the two say the same.
    assert typed[1].splitlines()[1:] == said[1].splitlines()


def test_games_are_listed_in_plain_words(tmp_path: Path) -> None:
    result = runner.invoke(app, ["games"])
    assert result.exit_code == 0
    listed = result.stdout
    assert "players 4;" in listed and "players 4-4" not in listed
    assert "players 2-4;" in listed and "players 2-10;" in listed  # every game has a limit (issue 42)
    assert "Default: None" not in listed
    assert "(default: the first seat)." in listed  # said once, in the help's words
    assert "Default: true." in listed and "Default: True" not in listed
    rows = [json.loads(line) for line in runner.invoke(app, ["games", "--json"]).stdout.splitlines()]
    blofa = next(r for r in rows if r["name"] == "blofa")
    dealer = next(o for o in blofa["options"] if o["name"] == "dealer")
    assert blofa["seats"] == "4" and dealer["default"] is None


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([*BLOFA, "--opt", "dry_tricks=x"], "--opt dry_tricks=x: must be a whole number"),
        ([*BLOFA, "--dry-tricks", "x"], "--dry-tricks x: must be a whole number"),
        ([*BLOFA, "--challenge-opening", "maybe"], "--challenge-opening maybe: must be true or false"),
        (
            ["play", "inversion", "--players", "A,B", "--revoke-penalty", "x"],
            "--revoke-penalty x: must be announce or trick",
        ),
        (
            [*UP_OR_DOWN, "--range", "1-100", "--opt", "low=5"],
            "--range 1-100 and --opt low=5 both set low: give it once",
        ),
        (
            [*UP_OR_DOWN, "--mode", "training", "--opt", "mode=tournament"],
            "--mode training and --opt mode=tournament both set mode",
        ),
    ],
)
def test_a_bad_option_names_the_flag_typed(tmp_path: Path, args: list[str], said: str) -> None:
    code, out, err = gamehost(tmp_path, *args)
    assert code == 2 and out == ""
    assert said in err
    assert "Input should" not in err
    assert sessions(tmp_path / "g.db") == 0


def test_the_same_option_twice_alike_is_no_error(tmp_path: Path) -> None:
    code, out, _ = gamehost(tmp_path, *UP_OR_DOWN, "--range", "5-50", "--opt", "low=5")
    assert code == 0 and "any number from 5 to 50" in out


class NoMicrophone:
    """sounddevice on a machine without an input device (the edge of the world: hardware)."""

    class PortAudioError(Exception):
        pass

    def check_input_settings(self, **_: Any) -> None:
        raise self.PortAudioError("Error querying device -1")


def test_table_without_a_microphone_says_so_first_and_saves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(host.speech.audio, "load_sounddevice", NoMicrophone)

    def no_model(*_: Any, **__: Any) -> Any:
        raise AssertionError("a speech model loaded before the microphone was checked")

    monkeypatch.setattr("host.speech.model.load_model", no_model)
    code, out, err = gamehost(tmp_path, "table", "up-or-down", "--players", "Ann,Bob", "--quiet")
    assert code == 2
    assert "no microphone" in err and "--audio FILE.wav" in err
    assert out == ""  # the game was announced before it failed
    assert sessions(tmp_path / "g.db") == 0  # no orphan session


def serve(tmp_path: Path, port: int, **env: str) -> subprocess.Popen[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("GAMEHOST_", "TWILIO_"))}
    environment.update(GAMEHOST_DB=str(tmp_path / "serve.sqlite3"), GAMEHOST_MODE="development", **env)
    return subprocess.Popen(
        [sys.executable, "-m", "host.cli", "serve", "--port", str(port)],
        env=environment,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_serve_on_a_busy_port_says_so_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = serve(tmp_path, port)
        try:
            _, err = proc.communicate(timeout=60)
        finally:
            stop(proc)
    assert proc.returncode == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert f"port {port}" in lines[0] and "--port" in lines[0]


def test_serve_warns_of_development_mode_once(tmp_path: Path) -> None:
    told = said_until_started(serve(tmp_path, free_port()))
    assert told.count("DEVELOPMENT MODE") == 1, told


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([*UP_OR_DOWN, "--bogus"], "up-or-down has no option --bogus (its flags: --mode, --range, --rounds"),
        ([*UP_OR_DOWN, "--bogus", "--mode", "training"], "up-or-down has no option --bogus"),
        ([*UP_OR_DOWN, "--bogus=1"], "up-or-down has no option --bogus"),
        ([*UP_OR_DOWN, "--quiet"], "--quiet is a `gamehost table` flag"),
        ([*UP_OR_DOWN, "--audio", "moves.wav"], "--audio is a `gamehost table` flag"),
        ([*UP_OR_DOWN, "-v"], "-v is a `gamehost table` flag"),
        ([*UP_OR_DOWN, "--port", "8000"], "--port is a `gamehost serve` flag"),
        (
            ["table", "up-or-down", "--players", "A,B", "--resume", "abc"],
            "--resume is a `gamehost play` flag",
        ),
    ],
)
def test_a_flag_the_command_does_not_have_is_named_as_such(
    tmp_path: Path, args: list[str], said: str
) -> None:
    code, out, err = gamehost(tmp_path, *args)
    assert code == 2 and out == ""
    assert said in err
    assert "needs a value" not in err
    assert sessions(tmp_path / "g.db") == 0


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([*UP_OR_DOWN, "--rounds", "3"], "--rounds 3 needs --mode training: rounds are for training games"),
        ([*UP_OR_DOWN, "--opt", "rounds=3"], "--opt rounds=3 needs --mode training"),
        (["play", "upside-out", "--players", "Ann,Bob", "--first", "Zed"], "--first: 'Zed' is not playing"),
        (["play", "up-or-down", "--players", f"Ann,{'B' * 300}"], "at most 20 letters"),
    ],
)
def test_an_error_names_the_flag_and_the_fix(tmp_path: Path, args: list[str], said: str) -> None:
    code, out, err = gamehost(tmp_path, *args)
    assert code == 2 and out == ""
    assert err.startswith("gamehost: --"), err
    assert said in err
    assert "B" * 40 not in err  # a long name is not echoed whole
    assert sessions(tmp_path / "g.db") == 0


def test_an_empty_wav_says_what_is_wrong_with_it(tmp_path: Path) -> None:
    empty = tmp_path / "empty.wav"
    empty.write_bytes(b"")
    code, _, err = gamehost(tmp_path, "table", "up-or-down", "--players", "Ann,Bob", "--audio", str(empty))
    assert code == 2
    assert f"{empty}: not a readable PCM WAV file (empty or cut short)" in err
    assert "()" not in err


def test_the_outbox_for_a_number_it_never_texted_says_so(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    store = Store(db)
    Outbound(Settings(db=db, twilio_account_sid=None), store).send_sms("+15550100001", "#2 Ann said 50.")
    store.close()
    result = runner.invoke(app, ["outbox", "--db", str(db), "--to", "nobody"])
    assert result.exit_code == 0
    assert result.stdout.strip() == "Nothing was sent to nobody (the outbox holds 1 item to other numbers)."
    result = runner.invoke(app, ["outbox", "--db", str(tmp_path / "empty.db"), "--to", "nobody"])
    assert result.stdout.strip() == "The outbox is empty."


def test_words_several_players_could_mean_get_what_is_allowed_not_a_question(tmp_path: Path) -> None:
    """Upside-Out, Ann and Bob each owing one discard: "discards two" said with no name once
    asked "Ann discards 2 or Bob discards 2?", two moves nobody may make."""
    said = "Cy: plays Windfall\ndiscards two\ndiscards one\nAnn: discards one\ndiscards two\ndiscards one\n"
    args = ("play", "upside-out", "--players", "Ann,Bob,Cy", "--first", "Cy")
    code, out, _ = gamehost(tmp_path, *args, stdin=said)
    assert code == 0
    waiting = "Waiting for Ann to discard 1 or reveal, Bob to discard 1 or reveal."
    assert f"\nAnn and Bob owe only 1 each. {waiting}\n" in out
    assert "Which one: Ann discards 1 or Bob discards 1?" in out  # both allowed: a question
    assert "Ann discards 2 or Bob discards 2" not in out
    # Once only Bob owes, the one who may is meant.
    assert "\nBob owes only 1. Waiting for Bob to discard 1 or reveal.\nBob discards 1." in out

"""The table knows who spoke (issue 44): `gamehost table --audio FILE.wav --json` hears the
players say their names in their own voices (Piper's joe, joe pitched down, espeak-ng male
and female), then a whole game of each kind in which one player calls out of turn: that
move is answered as out of turn for them, never ruled for the player on turn, and every
ruling says whose voice it heard. Real synthesised audio, real pocketsphinx."""

from __future__ import annotations

import functools
import json
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from host.cli import app
from host.speech.audio import SAMPLE_RATE, write_wav
from tests import voices
from tests.speech.conftest import silence, trim

runner = CliRunner()


def _pitched(pcm: bytes, cents: int) -> bytes:
    raw = ["-t", "raw", "-r", str(SAMPLE_RATE), "-e", "signed", "-b", "16", "-c", "1"]
    done = subprocess.run(["sox", *raw, "-", *raw, "-", "pitch", str(cents)], input=pcm, capture_output=True)
    if done.returncode != 0:
        pytest.skip("needs sox")
    return done.stdout


@functools.cache
def said(player: str, text: str) -> bytes:
    """``text`` in ``player``'s voice: Ann Piper's joe, Bob espeak-ng male, Cy espeak-ng
    female, Dana joe three semitones down."""
    if player == "Ann":
        return trim(voices.piper(text))
    if player == "Bob":
        return trim(voices.espeak(text, "en-us+m3"))
    if player == "Cy":
        return trim(voices.espeak(text, "en-us+f2"))
    return _pitched(trim(voices.piper(text)), -300)


def play(
    tmp_path: Path, game: str, players: Sequence[str], script: Sequence[tuple[str, str]], *args: str
) -> list[dict[str, Any]]:
    """The table's events for the players saying their names, then ``script`` (who, what)."""
    lines = [(p, p) for p in players] + list(script)
    audio = tmp_path / "game.wav"
    write_wav(audio, silence(0.8) + b"".join(said(who, what) + silence(1.2) for who, what in lines))
    command = [
        "table",
        game,
        "--players",
        ",".join(players),
        "--db",
        str(tmp_path / "t.db"),
        "--json",
        "--quiet",
    ]
    result = runner.invoke(app, [*command, *args, "--audio", str(audio)])
    assert result.exit_code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def asked_names(events: list[dict[str, Any]]) -> list[str]:
    return [e["player"] for e in events if e["type"] == "say_your_name"]


def out_of_turn(events: list[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    return [(e["player"], e["current"], e["speaker"]) for e in events if e["type"] == "not_your_turn"]


def test_up_or_down_by_voice(tmp_path: Path) -> None:
    # Cy calls "thirty eight" while it is Bob's turn: "Waiting for Bob.", not Bob's 38.
    script = [("Ann", "fifty three"), ("Cy", "thirty eight"), ("Bob", "forty"), ("Cy", "forty four")]
    events = play(tmp_path, "up-or-down", ("Ann", "Bob", "Cy"), script)
    assert asked_names(events) == ["Ann", "Bob", "Cy"]
    moves = [(e["player"], e["number"], e["speaker"]) for e in events if e["type"] == "move"]
    assert moves == [("Ann", 53, "Ann"), ("Bob", 40, "Bob"), ("Cy", 44, "Cy")]
    assert out_of_turn(events) == [("Cy", "Bob", "Cy")]
    assert all(0.5 < e["speaker_score"] <= 1.0 for e in events if e["type"] == "move")


def test_inversion_by_voice(tmp_path: Path) -> None:
    # Ann plays again before Bob has: out of turn.
    script = [("Ann", "eight of hearts"), ("Ann", "two of spades"), ("Bob", "two of spades")]
    setup = ("--suits", "H,S,C", "--lane", "9H,1C,2C,3C,4C,5C,6C,7C,8C,10C", "--first", "Ann")
    events = play(tmp_path, "inversion", ("Ann", "Bob"), script, *setup)
    played = [(e["player"], e["card"], e["speaker"]) for e in events if e["type"] == "card_played"]
    assert played == [("Ann", "8H", "Ann"), ("Bob", "2S", "Bob")]
    assert out_of_turn(events) == [("Ann", "Bob", "Ann")]


def test_blofa_by_voice(tmp_path: Path) -> None:
    # Dana says "pass yellow" while Bob is on turn; then the trick goes as it would, up to
    # Dana's challenge, read back to her.
    script = [
        ("Ann", "one blue card two"),
        ("Dana", "pass yellow"),
        ("Bob", "pass yellow"),
        ("Cy", "pass"),
        ("Dana", "challenge"),
    ]
    events = play(tmp_path, "blofa", ("Ann", "Bob", "Cy", "Dana"), script)
    kinds = ("declared", "passed", "confirm")
    ruled = [(e["type"], e["player"], e["speaker"]) for e in events if e["type"] in kinds]
    assert ruled == [
        ("declared", "Ann", "Ann"),
        ("passed", "Bob", "Bob"),
        ("passed", "Cy", "Cy"),
        ("confirm", "Dana", "Dana"),
    ]
    assert out_of_turn(events) == [("Dana", "Bob", "Dana")]


def test_upside_out_by_voice(tmp_path: Path) -> None:
    # Ann draws twice: the second is hers out of turn, not Bob's draw. ("draw" alone is too
    # short to tell voices by surely: host/listening/speakers.py SHORT_EXTRA.)
    script = [("Ann", "draw a card"), ("Ann", "draw a card"), ("Bob", "draw a card"), ("Ann", "draw a card")]
    events = play(tmp_path, "upside-out", ("Ann", "Bob"), script, "--first", "Ann")
    drew = [(e["player"], e["speaker"]) for e in events if e["type"] == "drew"]
    assert drew == [("Ann", "Ann"), ("Bob", "Bob"), ("Ann", "Ann")]
    assert out_of_turn(events) == [("Ann", "Bob", "Ann")]


def test_no_voices_rules_as_before(tmp_path: Path) -> None:
    # Without voices nobody is asked a name, and Ann's second "draw" is Bob's.
    events = play(
        tmp_path,
        "upside-out",
        ("Ann", "Bob"),
        [("Ann", "draw"), ("Ann", "draw")],
        "--first",
        "Ann",
        "--no-voices",
    )
    assert asked_names(events) == []
    assert [e["player"] for e in events if e["type"] == "drew"] == ["Ann", "Bob"]
    assert out_of_turn(events) == []
    assert all("speaker" not in e for e in events)

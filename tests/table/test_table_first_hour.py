"""`gamehost table` as a new user meets it: on a machine with no sound card it says so once
and makes no speech for a room that would hear none (it made every announcement's audio,
then failed to play it: 14.5 s against 7.8 s with --quiet), its resume hint is spelled as
`gamehost play` spells it and works as printed, and its help names the recogniser English
runs on."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import host.channels.table.loudspeaker
import host.speech.audio
import host.speech.tts
from host.cli import app
from host.speech.audio import write_wav
from tests import voices
from tests.speech.conftest import silence, trim

runner = CliRunner()


class NoSoundCard:
    """sounddevice on a machine without an output device (the edge of the world: hardware)."""

    class PortAudioError(Exception):
        pass

    def check_output_settings(self, **_: Any) -> None:
        raise self.PortAudioError("Error querying device -1")

    def play(self, *_: Any, **__: Any) -> None:
        raise self.PortAudioError("Error querying device -1")


def test_no_sound_card_is_found_once_before_any_speech_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(host.speech.audio, "load_sounddevice", NoSoundCard)
    monkeypatch.setattr(host.speech.tts, "load_sounddevice", NoSoundCard)
    made: list[str] = []

    def synthesize_stream(text: str, *_: Any) -> list[bytes]:
        made.append(text)
        return [silence(0.5)]

    def prepare_in_background(lang: str, *_: Any) -> None:
        made.append(f"the fixed phrases of {lang}")

    module = host.channels.table.loudspeaker
    monkeypatch.setattr(module, "synthesize_stream", synthesize_stream)
    monkeypatch.setattr(module, "prepare_in_background", prepare_in_background)
    audio = tmp_path / "moves.wav"
    said = [trim(voices.piper(words)) for words in ("fifty three", "forty")]
    write_wav(audio, silence(0.8) + b"".join(pcm + silence(1.2) for pcm in said))
    db = tmp_path / "t.db"
    with caplog.at_level(logging.WARNING):
        result = runner.invoke(
            app, ["table", "up-or-down", "--players", "Ann,Bob", "--audio", str(audio), "--db", str(db)]
        )
    assert result.exit_code == 0, result.output
    assert "Ann said 53." in result.stdout and "Bob said 40." in result.stdout
    assert made == []  # nothing synthesised for a room that hears nothing
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warned) == 1 and warned[0].startswith("no sound card to speak through"), warned
    assert "Error querying device -1" in warned[0]
    # The resume hint as `gamehost play` prints it, and it works as printed.
    err = " ".join(result.stderr.split())
    hint = re.search(r"resume as text with: gamehost (play [^)]+)\)", err)
    assert hint, err
    args = hint[1].split()
    assert args[:2] == ["play", "--resume"] and args[-2:] == ["--db", str(db)]
    resumed = runner.invoke(app, args, input="Ann: 41\n")
    assert resumed.exit_code == 0, resumed.output
    assert "Ann said 41." in resumed.stdout


def test_help_names_the_recogniser_english_runs_on() -> None:
    for args in (["--help"], ["table", "--help"]):
        shown = " ".join(runner.invoke(app, args, env={"COLUMNS": "200"}).stdout.split())
        assert "pocketsphinx" in shown, args

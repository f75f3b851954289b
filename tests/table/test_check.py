"""``gamehost table --check`` (host/channels/table/check.py): each player says two numbers;
the host reports what it heard, the room it measured and a plain verdict. Real Piper
speech, in a modelled room (tests/speech/reverb.py), real pocketsphinx."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from host.channels.table.check import check
from host.cli import app
from host.speech.audio import SAMPLE_RATE, as_int16, pcm_chunks, write_wav
from host.speech.model import SpeechModel, load_model
from tests import voices
from tests.speech.chatter import over_chatter
from tests.speech.conftest import trim
from tests.speech.reverb import said_in_room

SAID = {"Ann": ("twenty three", "seventy one"), "Bob": ("forty five", "eighteen")}


@pytest.fixture(scope="module")
def en_model() -> SpeechModel:
    return load_model(lang="en", engine="pocketsphinx", download=False)


def louder(pcm: bytes, gain: float) -> bytes:
    return bytes(np.clip(as_int16(pcm) * gain, -32768, 32767).astype("<i2").tobytes())


def table_says(rt60: float | None, bob_gain: float) -> bytes:
    # Piper's own level peaks near full scale: a phone's microphone hears players far lower.
    parts = [louder(trim(voices.piper(words)), 0.15 * (1.0 if name == "Ann" else bob_gain))
             for name, said in SAID.items() for words in said]  # fmt: skip
    audio, _ = said_in_room(parts, rt60, gap_s=1.5)
    return audio


def test_a_far_player_in_a_ringing_room_is_told_to_come_closer(en_model: SpeechModel) -> None:
    prompted: list[str] = []
    result = check(en_model, "en", list(SAID), pcm_chunks(table_says(0.8, 0.2)), prompted.append)
    assert prompted == ["Ann", "Bob"]
    assert [len(s.heard) for s in result.seats] == [2, 2]  # what, the echo may blur
    ann, bob = (s.level_db for s in result.seats)
    assert ann is not None and bob is not None and ann - bob == pytest.approx(14, abs=3)
    assert result.room.rt60 is not None and result.room.rt60 > 0.5
    assert "Bob is hard to hear: move the phone towards Bob." in result.verdicts
    assert any("echoes" in v for v in result.verdicts)
    assert "Ann is hard to hear" not in " ".join(result.lines())


def test_a_dry_table_heard_alike_is_told_all_is_well(en_model: SpeechModel) -> None:
    result = check(en_model, "en", list(SAID), pcm_chunks(table_says(None, 1.0)))
    assert [s.heard for s in result.seats] == [SAID["Ann"], SAID["Bob"]]
    assert result.verdicts == ("Everyone is heard well.",)


def test_a_table_where_others_chatter_is_told_moves_will_be_read_back(en_model: SpeechModel) -> None:
    quiet = table_says(None, 1.0)
    said = as_int16(louder(trim(voices.piper("forty five")), 0.15)).astype(np.float64)
    loud = float(np.sqrt(np.mean(said**2)))
    result = check(en_model, "en", list(SAID), pcm_chunks(over_chatter(quiet, 10.0, loud)))
    assert any(v.startswith("Others were talking near the phone") for v in result.verdicts), result.verdicts


def test_gamehost_table_check_reports_and_starts_no_game(tmp_path: Path) -> None:
    wav = tmp_path / "check.wav"
    write_wav(wav, table_says(None, 1.0), SAMPLE_RATE)
    db = tmp_path / "t.db"
    args = ["--players", "Ann,Bob", "--db", str(db), "--engine", "pocketsphinx", "--audio", str(wav)]
    result = CliRunner().invoke(app, ["table", "up-or-down", *args, "--check"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:2] == [
        f"Ann: heard twenty three, seventy one at {lines[0].split(' at ')[1]}",
        f"Bob: heard forty five, eighteen at {lines[1].split(' at ')[1]}",
    ]
    assert lines[2].startswith("The room: noise floor") and lines[-1] == "Everyone is heard well."
    assert "Ann, say two numbers" in result.stderr
    assert not db.exists()  # no game, no session

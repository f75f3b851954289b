"""A game's own deadline at the table: the clock runs with the audio, so a question nobody
answers in time is followed by the next one (Upside-Out's opening waits 30 seconds for a
secret, then asks who was alone), once, and not after someone has claimed the start."""

from __future__ import annotations

from pathlib import Path

from host.speech.audio import write_wav
from tests.speech.conftest import silence
from tests.table.test_english_table import piper, table


def opening_questions(tmp_path: Path, quiet_seconds: float, claim: str) -> tuple[list[str], list[str]]:
    path = tmp_path / "opening.wav"
    write_wav(path, silence(quiet_seconds) + piper(claim) + silence(1.5))
    events, _ = table(tmp_path, "upside-out", "--players", "Ann,Bob,Cy", "--audio", str(path))
    asked = [str(e["question"]) for e in events if e["type"] == "opening"]
    first = [str(e["player"]) for e in events if e["type"] == "first"]
    return asked, first


def test_the_second_question_after_30_quiet_seconds(tmp_path: Path) -> None:
    asked, first = opening_questions(tmp_path, 34.0, "Bob starts")
    assert asked == ["alone"]  # asked once, however long the quiet
    assert first == ["Bob"]


def test_no_second_question_when_someone_claims_in_time(tmp_path: Path) -> None:
    asked, first = opening_questions(tmp_path, 3.0, "Bob starts")
    assert asked == [] and first == ["Bob"]

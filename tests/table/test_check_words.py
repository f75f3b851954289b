"""The room check's report in the table's language (grammars/<lang>/check.yaml): every line
it prints or says worded whole in one language, from measurements made up here (no audio:
what is heard and measured is tested with real speech in test_check.py)."""

from __future__ import annotations

import re

import pytest

from grammars import REFERENCE, languages
from host.channels.table.check import Check, Seat, prompt, verdicts
from host.speech.room import RoomSound, Utterance

LATIN = re.compile(r"[A-Za-z]")


def _everything_wrong(names: tuple[str, str, str]) -> Check:
    """A loud first player who clips, a far second one, a third unheard, in a noisy
    kitchen with others chattering (``crowded``): every verdict at once."""
    a, b, c = names
    said = (Utterance(a, -12.0, -0.5, 0.9), Utterance(b, -30.0, -20.0, 0.9))
    room = RoomSound(-40.0, 0.9, said)
    seats = (Seat(a, ("53", "8"), -12.0), Seat(b, ("40",), -30.0), Seat(c, (), None))
    return Check("", seats, room, ())


def _report(lang: str, names: tuple[str, str, str]) -> list[str]:
    made = _everything_wrong(names)
    told = verdicts(made.seats, made.room, lang, crowded=True)
    return [prompt(names[0], lang), *Check(lang, made.seats, made.room, told).lines()]


def test_english_reads_as_the_command_line_always_printed() -> None:
    lines = _report("en", ("Ann", "Bob", "Cy"))
    assert lines == [
        "Ann, say two numbers, with a pause between them.",
        "Ann: heard 53, 8 at -12 dBFS",
        "Bob: heard 40 at -30 dBFS",
        "Cy: heard nothing",
        "The room: noise floor -40 dBFS, RT60 0.9 s.",
        "Bob is hard to hear: move the phone towards Bob.",
        "Cy was not heard: move the phone towards Cy, or check the microphone.",
        "The room is noisy: players will be asked to repeat moves; turn music or a fan down.",
        "The room echoes (RT60 0.9 s): any move not heard clearly will be read back. Put the phone closer"
        " to the players, on a cloth, or play in a room with softer furnishings.",
        "Others were talking near the phone: while they do, every move will be read back. Talk further"
        " from the phone, or more quietly, while someone plays.",
        "The microphone is too loud: turn its input level down, or move it away from the loudest player.",
    ]
    well = verdicts(
        (Seat("Ann", ("5",), -20.0),), RoomSound(-70.0, 0.2, (Utterance("Ann", -20, -9, 0.2),)), "en"
    )
    assert well == ("Everyone is heard well.",)


def test_korean_is_korean_through_and_through() -> None:
    lines = _report("ko", ("민수", "지아", "서연"))
    assert lines[0] == "민수 님, 숫자 두 개를 사이를 조금 띄워서 말해 주세요."
    assert lines[1] == "민수: 들은 숫자 53, 8, 크기 -12 데시벨"
    assert "지아 님 목소리가 잘 안 들려요. 휴대폰을 지아 님 쪽으로 옮겨 주세요." in lines
    assert any(line.startswith("서연 님 목소리가 들리지 않았어요.") for line in lines)
    assert "방: 배경 소음 -40 데시벨, 잔향 시간 0.9초." in lines
    assert not [line for line in lines if LATIN.search(line)]


def test_spanish_reads_in_spanish() -> None:
    lines = _report("es", ("Ana", "Beto", "Ciro"))
    assert lines[0] == "Ana, di dos números, con una pausa entre ellos."
    assert lines[1:4] == [
        "Ana: he oído 53, 8, a -12 dBFS",
        "Beto: he oído 40, a -30 dBFS",
        "Ciro: no he oído ningún número",
    ]
    assert "A Beto se le oye poco: acerca el teléfono a Beto." in lines
    assert "La sala tiene mucho eco (RT60 0.9 s)" in " ".join(lines)


@pytest.mark.parametrize("lang", [lang for lang in languages() if lang != REFERENCE])
def test_no_language_borrows_an_english_line(lang: str) -> None:
    english = set(_report("en", ("Ann", "Bob", "Cy")))
    assert not english & set(_report(lang, ("Ann", "Bob", "Cy")))

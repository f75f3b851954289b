"""Up-or-Down's grammar folders (``grammar/<lang>/``): the test file's cases read as they
say, every language has every phrase, faults name their file and line, and the spoken lines
of a call read as words."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

import grammars
from games.base import Answer, Command, Moves, Unclear
from games.up_or_down import SPEC
from games.up_or_down import rules as ud
from games.up_or_down.words import GRAMMAR, UpOrDownWords, load, voice_phrase, words_of
from grammars import GrammarError, load_file
from grammars.reader import spoken

PLAYERS = ("Ann", "Bob")


class Case(BaseModel):
    model_config = ConfigDict(extra="forbid")

    said: str
    after: list[int] = Field(default_factory=list)
    asked: int | None = None
    move: int | None = None
    command: str | None = None
    answer: bool | None = None
    unclear: Literal["ambiguous", "not_understood"] | None = None


class Cases(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cases: list[Case]


CASES = [
    (lang, case) for lang in SPEC.languages for case in load_file(GRAMMAR / lang / "tests.yaml", Cases).cases
]


@pytest.mark.parametrize(("lang", "case"), CASES, ids=[f"{lang}:{c.said}" for lang, c in CASES])
def test_grammar_cases(lang: str, case: Case) -> None:
    state = ud.new_game(PLAYERS)
    for number in case.after:
        state, _ = ud.play(state, number)
    asked = ud.Say(state.current_player, case.asked) if case.asked is not None else None
    said = SPEC.talk.read(case.said, state, PLAYERS, None, asked, lang)
    expected = [key for key in ("move", "command", "answer", "unclear") if getattr(case, key) is not None]
    assert len(expected) == 1, "a case expects one thing"
    if case.move is not None:
        assert said == Moves((ud.Say(state.current_player, case.move),))
    elif case.command is not None:
        assert said == Command(case.command)
    elif case.answer is not None:
        assert said == Answer(case.answer)
    else:
        assert isinstance(said, Unclear) and said.event["type"] == case.unclear, said


def test_english_and_korean_are_shipped() -> None:
    assert SPEC.languages[:1] == ("en",) and "ko" in SPEC.languages


@pytest.mark.parametrize("lang", SPEC.languages)
def test_the_game_says_its_own_lines_and_the_hosts(lang: str) -> None:
    own, host = set(words_of(lang).phrases), set(grammars.load(lang).phrases)
    assert not own & host, f"in both grammars/{lang}/phrases.yaml and the game's words: {sorted(own & host)}"
    assert set(load(lang).phrases) == own | host


def test_a_missing_phrase_is_named_with_its_file(tmp_path: Path) -> None:
    shutil.copytree(GRAMMAR, tmp_path / "grammar")
    words = tmp_path / "grammar" / "ko" / "words.yaml"
    kept = [line for line in words.read_text(encoding="utf-8").splitlines() if "why_same:" not in line]
    words.write_text("\n".join(kept) + "\n", encoding="utf-8")
    with pytest.raises(GrammarError, match=r"ko/words\.yaml:1: missing phrases: why_same"):
        words_of("ko", tmp_path / "grammar")


def test_a_wrong_value_is_reported_with_file_and_line(tmp_path: Path) -> None:
    lines = (GRAMMAR / "en" / "words.yaml").read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip() == "odd: odd")
    lines[at] = "  odd: [odd]"
    (tmp_path / "words.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(GrammarError, match=rf"words\.yaml:{at + 1}: phrases\.odd"):
        load_file(tmp_path / "words.yaml", UpOrDownWords)


@pytest.mark.parametrize("lang", SPEC.languages)
def test_every_spoken_line_formats_and_reads_as_words(lang: str) -> None:
    fields = dict(player="Ann", low="one", high="ninety", parity="odd", up="odd", down="even", last="three")
    for key in words_of("en").spoken:
        assert spoken(voice_phrase(lang, key, **fields), lang), key


@pytest.mark.parametrize("lang", SPEC.languages)
def test_a_spoken_line_a_language_lacks_is_the_english_one(lang: str) -> None:
    fields = dict(player="Ann", low="1", high="100", parity="odd", up="odd", down="even", last="3")
    for key in set(words_of("en").spoken) - set(words_of(lang).spoken):
        assert voice_phrase(lang, key, **fields) == voice_phrase("en", key, **fields)

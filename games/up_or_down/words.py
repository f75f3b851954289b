"""Up-or-Down's own words: ``grammar/<lang>/words.yaml`` (what the game says, in a text and
on a call), read over the shared grammar of ``grammars/<lang>/`` (numbers, commands and the
lines every game shares). Errors name the file and line, as every grammar file's do.

>>> load("en").phrase("move", player="Ann", number=53)
'Ann said 53.'
>>> voice_phrase("en", "turn_up", player="Ann", up="odd", last="fifty three")
'Ann, your turn: odd above fifty three.'
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

import grammars
from grammars import Grammar, GrammarError, game_languages, load_file

GRAMMAR = Path(__file__).parent / "grammar"


class UpOrDownWords(BaseModel):
    """One language's ``words.yaml``."""

    model_config = ConfigDict(extra="forbid")

    # Every English phrase must be there too.
    phrases: dict[str, str]
    # On a phone call; a line a language lacks is spoken in English (as grammars' voice.yaml).
    spoken: dict[str, str] = Field(default_factory=dict)


@cache
def words_of(lang: str, grammar: Path = GRAMMAR) -> UpOrDownWords:
    """This game's words in ``lang``; a GrammarError names the file and line of a fault."""
    path = grammar / lang / "words.yaml"
    if not path.is_file():
        raise GrammarError(f"{path}: Up-or-Down has no words in {lang!r}")
    words = load_file(path, UpOrDownWords)
    if lang != "en":
        absent = sorted(set(words_of("en", grammar).phrases) - set(words.phrases))
        if absent:
            raise GrammarError(f"{path}:1: missing phrases: {', '.join(absent)}")
    return words


@cache
def load(lang: str) -> Grammar:
    """The shared grammar of ``lang`` with this game's phrases added (the game says both)."""
    shared = grammars.load(lang)
    return replace(shared, phrases={**shared.phrases, **words_of(lang).phrases})


def voice_phrase(lang: str, key: str, **fields: object) -> str:
    """A spoken line of this game in ``lang``, else in English."""
    spoken = {**words_of("en").spoken, **words_of(lang).spoken}
    try:
        return spoken[key].format(**fields)
    except KeyError as exc:
        path = GRAMMAR / lang / "words.yaml"
        raise GrammarError(f"{path}: no spoken line {key!r} (or field {exc})") from None


# Read when the game is loaded, as its phrases were with the shared grammar: a fault in any
# language's words is named (file and line) before anyone plays, not in the middle of a game.
for _lang in game_languages(__file__):
    words_of(_lang)

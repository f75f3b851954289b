"""What the host says on a phone call, and how it reads what callers say outside a move.
(A ruling as a caller hears it is ``host/channels/spoken.py``, shared with media streams.)

Pure functions over the grammar data: ``grammars/<lang>/voice.yaml`` holds the spoken
wording (all of it: no line is borrowed from another language), ``language.yaml`` the
language tag and Twilio's voice, ``numbers.yaml`` and ``commands.yaml`` the ``<Gather>``
hints. Numbers are read out as words
(``grammars.reader.spoken``), a join code digit by digit, and a code is heard either way:

>>> spoken_code("048213", "en")
'zero, four, eight, two, one, three'
>>> code_heard("four eight one, five nine two", "en")
'481592'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache

from grammars import language, language_named, languages, speaks, voice_phrase
from grammars.reader import command_phrases, normalise, number_phrases, parse, to_words

# Twilio allows 500 hint entries of at most 100 characters each.
MAX_HINTS = 500
CHANNEL = "voice"

_NAME_CHARS = re.compile(r"[^\w' -]+")


say = voice_phrase


def language_tag(lang: str) -> str:
    """The BCP-47 tag of ``<Say>`` and ``<Gather language>`` (``grammars/<lang>/language.yaml``)."""
    return language(lang).tag


def say_voice(lang: str) -> str:
    """Twilio's voice for ``<Say>`` in ``lang``."""
    return language(lang).say_voice


def language_heard(text: str) -> str | None:
    """A language a caller asked for by name ("한국어", "English", "español"), if it is one
    calls can be spoken in; the whole utterance or its first word or two."""
    words = normalise(text).split()
    for size in (len(words), 2, 1):
        lang = language_named(" ".join(words[:size])) if words else None
        if lang is not None and speaks(lang, CHANNEL):
            return lang
    return None


@cache
def language_hints(lang: str) -> tuple[str, ...]:
    """The names of the languages calls speak, for a menu's hints: those written in the
    script of ``lang``'s own name (a Korean menu's hints stay in Hangul)."""
    script = _script(language(lang).name)
    names: list[str] = []
    for other in languages():
        if speaks(other, CHANNEL):
            spec = language(other)
            names.extend(w for w in (spec.name, *spec.called) if _script(w) == script)
    return tuple(names)


def _script(word: str) -> str:
    """The script of a word's first letter ("LATIN", "HANGUL")."""
    letter = next((c for c in word if c.isalpha()), "")
    return unicodedata.name(letter, "").split(" ")[0]


def spoken_code(code: str, lang: str) -> str:
    """A join code digit by digit, with pauses: "four, eight, one"."""
    return ", ".join(to_words(int(d), lang) for d in code if d.isdigit())


# -- hints -------------------------------------------------------------------------------


def _hints(entries: Iterable[str]) -> str:
    seen: dict[str, None] = {}
    for entry in entries:
        entry = entry.replace(",", " ").strip()[:100]
        if entry:
            seen.setdefault(entry, None)
        if len(seen) >= MAX_HINTS:
            break
    return ", ".join(seen)


def move_hints(lang: str, moves: Sequence[str]) -> str:
    """Hints for a move: the commands, then what makes a move now (as much as fits)."""
    return _move_hints(lang, tuple(moves))


@lru_cache(maxsize=256)
def _move_hints(lang: str, moves: tuple[str, ...]) -> str:
    # The same few lists over and over (a game's whole range, each turn): made once.
    return _hints([*command_phrases(lang), *moves])


@cache
def confirm_hints(lang: str) -> str:
    return _hints([*command_phrases(lang, ["yes", "no"]), *number_phrases(range(0, 101), lang)])


@cache
def digit_hints(lang: str) -> str:
    return _hints(["$OOV_CLASS_DIGIT_SEQUENCE", *number_phrases(range(10), lang)])


def word_hints(lang: str, *keys: str, languages: bool = False) -> str:
    """Hints from voice.yaml word lists (menu entries); ``languages``: and the names of the
    languages a caller may switch to."""
    return _hints(
        [*(w for key in keys for w in _words(lang, key)), *(language_hints(lang) if languages else ())]
    )


def command_hints(lang: str, *names: str) -> str:
    return _hints(command_phrases(lang, names))


def count_hints(lang: str, low: int, high: int) -> str:
    return _hints(number_phrases(range(low, high + 1), lang))


# -- reading callers ---------------------------------------------------------------------


def _words(lang: str, key: str) -> list[str]:
    return [w.strip() for w in say(lang, key).split(",") if w.strip()]


def choice(text: str, lang: str, options: dict[str, str]) -> str | None:
    """Which option ``text`` names, from ``{option: voice.yaml word-list key}``. The longest
    phrase found wins, so "one phone" is not read as "one"."""
    tokens = normalise(text).split()
    candidates = sorted(
        ((tuple(normalise(w).split()), option) for option, key in options.items() for w in _words(lang, key)),
        key=lambda item: -len(item[0]),
    )
    for phrase, option in candidates:
        size = len(phrase)
        if size and any(tuple(tokens[i : i + size]) == phrase for i in range(len(tokens) - size + 1)):
            return option
    return None


def code_heard(text: str, lang: str) -> str:
    """Digits of a spoken or keyed code: "four eight one", "48 15 92", "oh" for zero (the
    language's ``code_zero`` words). Digit strings are kept as they are, so a leading zero
    survives."""
    out: list[str] = []
    run: list[str] = []
    zeros, zero = set(_words(lang, "code_zero")), to_words(0, lang)

    def flush() -> None:
        out.extend(str(n) for n in parse(" ".join(run), lang).numbers if n >= 0)
        run.clear()

    for token in normalise(text).split():
        if token.isdigit():
            flush()
            out.append(token)
        else:
            run.append(zero if token in zeros else token)
    flush()
    return "".join(out)


def count_heard(digits: str | None, speech: str | None, lang: str) -> int | None:
    if digits and digits.isascii() and digits.isdigit():
        # Keys for a head count: a long run is a held key or a forged request, not a count
        # (and int() refuses more than 4,300 digits).
        return int(digits) if len(digits) <= 3 else None
    numbers = parse(speech or "", lang).distinct_numbers
    return numbers[0] if len(numbers) == 1 else None


def name_heard(speech: str | None, lang: str, limit: int = 20) -> str | None:
    """A player's name from what they said: fillers before it and a polite ending after it
    dropped ("my name is Ann", "민수입니다"), at most two words, Title Case."""
    text = _NAME_CHARS.sub(" ", (speech or "").replace("\u2019", "'")).strip().lower()
    for filler in sorted(_words(lang, "name_fillers"), key=len, reverse=True):
        if text.startswith(filler + " "):
            text = text[len(filler) :].strip()
            break
    for ending in sorted(_words(lang, "name_endings"), key=len, reverse=True):
        if text.endswith(ending) and len(text) > len(ending):
            text = text[: -len(ending)].strip()
            break
    words = [w.strip("'-") for w in text.split() if w.strip("'-")][:2]
    name = " ".join(w[:1].upper() + w[1:] for w in words)[:limit].strip()
    return name or None


def unique_name(name: str, taken: Iterable[str]) -> str:
    """``name``, or ``name 2``, ``name 3``... when someone at the table already has it."""
    folded = {t.casefold() for t in taken}
    if name.casefold() not in folded:
        return name
    n = 2
    while f"{name} {n}".casefold() in folded:
        n += 1
    return f"{name} {n}"

"""The words of the texting protocol: keywords (the first word of a text, after fillers),
the carriers' opt-out words, and what starts each game playable by text.

The keywords are the protocol's own (NEW, JOIN, ...: understood whatever the language) and
each language's words for them (``grammars/<lang>/texts.yaml``: "새 게임", "참가"), which
also say which language the texter writes in."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from games.base import GameSpec, all_games
from grammars import languages, texts

CHANNEL = "sms"
OPT_OUT = frozenset({"STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "REVOKE", "OPTOUT"})
OPT_IN = frozenset({"START", "YES", "UNSTOP"})
HELP = frozenset({"HELP", "INFO"})
KEYWORDS = frozenset({"NEW", "JOIN", "START", "STATUS", "RULES", "LEAVE"}) | OPT_OUT | HELP
# Words people put before a keyword ("ok start", "please join 123456").
FILLERS = frozenset({"OK", "OKAY", "PLEASE", "PLS", "PLZ", "LETS", "HI", "HEY", "HELLO", "SO"})

_NON_WORD = re.compile(r"[\W_]+")


@dataclass(frozen=True)
class Words:
    raw: tuple[str, ...]  # whitespace-separated tokens as typed
    keys: tuple[str, ...]  # the same, punctuation dropped, upper case

    @classmethod
    def of(cls, text: str) -> Words:
        raw = tuple(text.split())
        return cls(raw, tuple(_NON_WORD.sub("", t).upper() for t in raw))

    def keyword(self) -> tuple[str | None, int]:
        """The keyword the text starts with (after fillers) and the index after it."""
        keyword, after, _ = self.keyword_said()
        return keyword, after

    def keyword_said(self) -> tuple[str | None, int, str | None]:
        """The keyword, the index after it, and the language whose word for it was texted
        (None: the protocol's own word, or no keyword)."""
        for i, key in enumerate(self.keys):
            for phrase, keyword, lang in _language_keywords():
                if self.keys[i : i + len(phrase)] == phrase:
                    return keyword, i + len(phrase), lang
            if key in KEYWORDS or key in OPT_IN:
                return key, i + 1, None
            if key not in FILLERS and key:
                return None, 0, None
        return None, 0, None


@cache
def _language_keywords() -> tuple[tuple[tuple[str, ...], str, str], ...]:
    """Every language's words for the keywords, as keys, longest first."""
    found = [
        (Words.of(word).keys, keyword, lang)
        for lang in languages()
        for keyword, words in texts(lang).keywords.items()
        for word in words
    ]
    return tuple(sorted(found, key=lambda item: -len(item[0])))


def option_word(lang: str, word: str) -> str:
    """A word after NEW as the game's own option word ("연습" -> "training")."""
    return texts(lang).options.get(word, word).lower()


def new_keywords(lang: str) -> str:
    """What starts each game playable by text: "NEW" (and its option words, "NEW TRAINING")
    for the default game, then "NEW" and the name of each other game; in ``lang``'s words
    when it has them ("새 게임 연습")."""
    own = texts(lang)
    new = own.keywords.get("NEW", ["NEW"])[0]
    said = {option: word for word, option in own.options.items()}
    texted: list[str] = []
    for spec in sorted(all_games(), key=lambda spec: spec.name):  # not in import order
        if CHANNEL not in spec.channels:
            continue
        if spec.default:
            # One word per other way to play ("TRAINING", not its synonyms nor the defaults').
            defaults, seen, words = spec.make_options(), [], []
            for word, values in spec.option_words.items():
                if values not in seen and any(getattr(defaults, k) != v for k, v in values.items()):
                    seen.append(values)
                    words.append(f"{new} {said.get(word, word.upper())}")
            texted[:0] = [new, *words]
        else:
            texted.append(f"{new} {re.sub(r'[^A-Za-z0-9]+', '', spec.name).upper()}")
    return ", ".join(texted)


def game_named(word: str) -> GameSpec[Any, Any, Any] | None:
    """The game texted by name ("INVERSION", "!nversion"), if it can be played by text."""
    return next((s for s in all_games() if CHANNEL in s.channels and s.known_as(word)), None)


def seat_range(spec: GameSpec[Any, Any, Any]) -> str:
    if spec.max_players is None:
        return f"{spec.min_players}+"
    if spec.max_players == spec.min_players:
        return str(spec.min_players)
    return f"{spec.min_players} to {spec.max_players}"

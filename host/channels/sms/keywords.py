"""The words of the texting protocol: keywords (the first word of a text, after fillers),
the carriers' opt-out words (a text of that one word), and what starts each game playable by text.

The keywords are the protocol's own (NEW, JOIN, ...: understood whatever the language) and
each language's words for them (``grammars/<lang>/texts.yaml``: "새 게임", "참가"), which
also say which language the texter writes in."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from games.base import GameSpec, all_games, default_game
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
        (None: the protocol's own word, or no keyword). An opt-out word counts only as the
        whole text, as Twilio counts it ("end the game" is no opt-out there, so here it is
        words to the referee, not silence)."""
        for i, key in enumerate(self.keys):
            if key in OPT_OUT and sum(1 for k in self.keys if k) > 1:
                return None, 0, None
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


def option_word(lang: str | None, word: str) -> str:
    """A word after NEW as the game's own option word ("연습" -> "training")."""
    return (texts(lang).options.get(word, word) if lang is not None else word).lower()


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


# Words around a game's name in "RULES OF THE GAME", "RULES FOR BLOFA": no game of their own.
RULES_FILLERS = FILLERS | frozenset({"OF", "THE", "FOR", "A", "AN", "THIS", "GAME", "GAMES", "ME", "IT"})
# Characters no name has (a path, an address, markup), refused rather than dropped: the
# sentence marks around a name ("Ann!", "(Ann)") are dropped as before.
NOT_IN_NAMES = frozenset("/\\<>@#$%^&*=+_|~{}[]")
UNKNOWN_WORD_MAX = 20  # an unknown word is quoted back at most this long


@dataclass(frozen=True)
class NewAsked:
    """What a NEW text asks for: the game (named, else the default), the option words given
    (as the game spells them), and where the name starts; ``unknown``: a word that reads as
    a game's or an option's name the host does not know ("NEW CHESS Zed"), never a name."""

    spec: GameSpec[Any, Any, Any]
    named: bool
    options: dict[str, object]
    option_words: tuple[str, ...]
    name: str  # as typed
    unknown: str | None = None


def read_new(words: Words, after: int, lang: str | None = None) -> NewAsked:
    """NEW [game] [option words] [name], the words from index ``after``; option words also
    in ``lang``'s own words for them ("연습": training)."""
    rest = list(range(after, len(words.raw)))
    named = game_named(words.keys[rest[0]]) if rest else None
    spec = named or default_game()
    if named is not None:
        rest.pop(0)
    options: dict[str, object] = {}
    said: list[str] = []
    while rest and (chosen := spec.option_words.get(option_word(lang, words.keys[rest[0]]))) is not None:
        options.update(chosen)
        said.append(option_word(lang, words.keys[rest.pop(0)]))
    while rest and words.keys[rest[-1]] in FILLERS:  # "new game please"
        rest.pop()
    typed = [words.raw[i] for i in rest]
    unknown = typed[0][:UNKNOWN_WORD_MAX] if typed and _reads_as_a_keyword(typed) else None
    return NewAsked(spec, named is not None, options, tuple(said), " ".join(typed), unknown)


def _reads_as_a_keyword(typed: list[str]) -> bool:
    """Whether the first word after NEW (and any game and option words) is meant as a
    game's or an option's name rather than the start of a name: it is all but a game's name
    ("INVERSON"), or it is in capitals before a name that is not ("CHESS Zed"), or in small
    letters before a capitalised one ("chess Zed"; short ones are particles: "van Gogh")."""
    first = typed[0].strip(".,;:!?'\"()")
    if not first.isalpha():
        return False  # "/etc/passwd": a name with characters no name has
    if len(first) >= 6 and difflib.get_close_matches(first.casefold(), _texted_names(), n=1, cutoff=0.8):
        return True
    later = [_NON_WORD.sub("", w) for w in typed[1:]]
    if not any(later):
        return False  # one word is a name: "NEW ANN" typed in capitals
    if len(first) >= 2 and first.isupper():
        return not all(w.isupper() for w in later if w)
    return len(first) >= 4 and first.islower() and any(w[:1].isupper() for w in later)


def _texted_names() -> list[str]:
    """Every name of every game playable by text, compared without case or marks."""
    names = (n for s in all_games() if CHANNEL in s.channels for n in (s.name, s.title, *s.aliases))
    return [w for n in names if len(w := _NON_WORD.sub("", n).casefold()) >= 6]


def texted_new(asked: NewAsked) -> str:
    """The NEW text that starts what ``asked`` asks for, without a name ("NEW UPSIDEOUT")."""
    game = [] if asked.spec.default else [re.sub(r"[^A-Za-z0-9]+", "", asked.spec.name).upper()]
    return " ".join(["NEW", *game, *(w.upper() for w in asked.option_words)])


def chosen_options(spec: GameSpec[Any, Any, Any], options: dict[str, object]) -> str:
    """The options set by words that differ from the game's defaults, each as its first
    word ("training"); empty when none does."""
    defaults = spec.make_options()
    words: list[str] = []
    for word, values in spec.option_words.items():
        chosen = all(options.get(k) == v for k, v in values.items())
        other = any(getattr(defaults, k) != v for k, v in values.items())
        if chosen and other and not any(spec.option_words[w] == values for w in words):
            words.append(word)
    return ", ".join(words)

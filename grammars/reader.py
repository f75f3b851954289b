"""Words to intents and numbers to words, driven by ``grammars/<lang>/``.

The parser proposes; the referee judges (python-chess ``parse_san`` against legal moves).
Three kinds of "no" come out of here: nothing understood, more than one number (ambiguous),
or a clear number that the referee may still rule a mistake.

>>> parse("um, I'll say fifty-three").numbers
(53,)
>>> parse("fifty three no fifty four").intent()
Ambiguous(numbers=(53, 54))
>>> to_words(53)
'fifty three'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache

from grammars import Grammar, load

_DIGITS = re.compile(r"^\d+$")
# Longer digit runs are not a number anyone says (and int() refuses over 4,300 digits).
MAX_DIGITS = 18
_NEGATIVE_DIGITS = re.compile(r"(?<![\w-])-(?=\d)")
_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}\b)")
_PUNCT = re.compile(r"[^\w\s']+")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'"})


@dataclass(frozen=True)
class NumberSaid:
    value: int


@dataclass(frozen=True)
class CommandSaid:
    name: str


@dataclass(frozen=True)
class Ambiguous:
    numbers: tuple[int, ...]


@dataclass(frozen=True)
class NotUnderstood:
    pass


Intent = NumberSaid | CommandSaid | Ambiguous | NotUnderstood


@dataclass(frozen=True)
class Utterance:
    """Everything found in one utterance; ``intent()`` is the default reading."""

    text: str
    numbers: tuple[int, ...] = ()
    commands: tuple[str, ...] = ()
    tokens: tuple[str, ...] = field(default=(), repr=False)

    @property
    def distinct_numbers(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(self.numbers))

    def intent(self) -> Intent:
        numbers = self.distinct_numbers
        commands = tuple(dict.fromkeys(self.commands))
        if len(numbers) > 1:
            return Ambiguous(numbers)
        if numbers and commands:
            # "no, fifty" or "take back fifty": more than one reading; ask rather than guess.
            return Ambiguous(numbers)
        if numbers:
            return NumberSaid(numbers[0])
        if commands:
            # "whose turn, help" is harmless: answer the first.
            return CommandSaid(commands[0])
        return NotUnderstood()


def normalise(text: str) -> str:
    text = text.translate(_APOSTROPHES).lower()
    text = _THOUSANDS_COMMA.sub("", text)
    text = _NEGATIVE_DIGITS.sub(" minus ", text)
    return " ".join(_PUNCT.sub(" ", text).split())


class _Lexicon:
    """The number words of one grammar, indexed for the parser."""

    def __init__(self, grammar: Grammar) -> None:
        n = grammar.numbers
        self.split_chars = n.split == "chars"
        self.units = n.units
        self.teens = n.teens
        self.tens = n.tens
        self.small = n.small_multipliers
        self.large = n.large_multipliers
        self.articles = set(n.articles)
        self.connectors = set(n.connectors)
        self.minus = set(n.minus)
        self.suffixes = sorted(n.suffixes, key=len, reverse=True)
        self.words = {**n.units, **n.teens, **n.tens, **n.small_multipliers, **n.large_multipliers}
        self.chars = set("".join(self.words))
        self.commands: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        phrases = sorted(
            ((tuple(self.tokenize_plain(p)), name) for name, ps in grammar.commands.items() for p in ps),
            key=lambda item: -len(item[0]),
        )
        for phrase, name in phrases:  # by first word, longest phrase first
            self.commands.setdefault(phrase[0], []).append((phrase, name))

    @staticmethod
    def tokenize_plain(text: str) -> list[str]:
        return normalise(text).split()

    def _number_run(self, token: str) -> list[str] | None:
        """Split a written-together number ("오십삼") into its words, longest match first."""
        out: list[str] = []
        i = 0
        longest = max((len(w) for w in (*self.words, *self.minus)), default=1)
        while i < len(token):
            for size in range(min(longest, len(token) - i), 0, -1):
                piece = token[i : i + size]
                if piece in self.words or piece in self.minus:
                    out.append(piece)
                    i += size
                    break
            else:
                return None
        return out

    def tokens(self, text: str) -> list[str]:
        out: list[str] = []
        for token in self.tokenize_plain(text):
            if token in self.words or _DIGITS.match(token) or not self.split_chars:
                out.append(token)
                continue
            run = self._number_run(token)
            if run is None:
                for suffix in self.suffixes:
                    stem = token[: -len(suffix)]
                    if token.endswith(suffix) and stem and (run := self._number_run(stem)):
                        break
            out.extend(run if run else [token])
        return out


@cache
def _lexicon(lang: str) -> _Lexicon:
    return _Lexicon(load(lang))


class _NumberBuilder:
    """Accumulates number words into values; a word that cannot continue starts a new number."""

    def __init__(self, lex: _Lexicon) -> None:
        self.lex = lex
        self.spans: list[NumberSpan] = []
        self.at = 0  # index of the token being read, so each number knows where it lies
        self.start = self.end = self.minus_at = 0
        self._reset()

    def _reset(self) -> None:
        self.total = 0
        self.section = 0
        self.pending: int | None = None  # a unit waiting for a multiplier or the end
        self.open_below = 10**18  # only values below this may still be added
        self.small_floor = 10**18  # small multipliers must shrink inside a section
        self.large_floor = 10**18
        self.sign = 1
        self.started = False
        self.article = False

    def flush(self) -> None:
        if self.started:
            value = self.sign * (self.total + self.section + (self.pending or 0))
            self.spans.append(NumberSpan(value, self.start, self.end))
        self._reset()

    def _begin(self) -> None:
        if not self.started:
            self.start = self.minus_at if self.sign < 0 else self.at
        self.started = True
        self.end = self.at + 1

    def minus(self) -> None:
        self.flush()
        self.sign = -1
        self.minus_at = self.at

    def article_word(self) -> None:
        if self.started:
            self.flush()
        self.article = True

    def connector(self) -> None:
        if not self.started:
            self.article = False

    def other(self) -> None:
        self.flush()
        self.sign = 1
        self.article = False

    def digits(self, value: int) -> None:
        if self.started:
            self.flush()
        self._begin()
        self.section = value
        self.open_below = 1
        self.small_floor = 1

    def additive(self, value: int, closes_below: int) -> None:
        """A unit (pending, may take a multiplier), a teen or a tens word."""
        if self.pending is not None or value >= self.open_below:
            self.flush()
        self.article = False
        self._begin()
        if value < 10 and closes_below == 10:
            self.pending = value
            self.open_below = 1
        else:
            self.section += value
            self.open_below = closes_below

    def small_multiplier(self, value: int) -> None:
        if self.started and value >= self.small_floor:
            self.flush()
        self._begin()
        count = self.pending if self.pending is not None else 1
        self.section += count * value
        self.pending = None
        self.article = False
        self.small_floor = value
        self.open_below = value

    def large_multiplier(self, value: int) -> None:
        if self.started and value >= self.large_floor:
            self.flush()
        self._begin()
        count = self.section + (self.pending or 0) or 1
        self.total += count * value
        self.section = 0
        self.pending = None
        self.article = False
        self.large_floor = value
        self.small_floor = 10**18
        self.open_below = value


def parse(text: str, lang: str = "en") -> Utterance:
    """Find every number and command in one utterance (text or one speech alternative)."""
    lex = _lexicon(lang)
    tokens = lex.tokens(text)
    found: list[tuple[int, str]] = []
    used = [False] * len(tokens)
    for i, token in enumerate(tokens):
        for phrase, name in lex.commands.get(token, ()):
            size = len(phrase)
            if tuple(tokens[i : i + size]) == phrase and not any(used[i : i + size]):
                found.append((i, name))
                used[i : i + size] = [True] * size
                break
    free = [None if taken else token for token, taken in zip(tokens, used, strict=True)]
    numbers = _read_numbers(lex, free)
    commands = tuple(name for _, name in sorted(found))
    return Utterance(text, tuple(n.value for n in numbers), commands, tuple(tokens))


@dataclass(frozen=True)
class NumberSpan:
    """A number found in a token list: its value and the tokens ``[start, end)`` that say it."""

    value: int
    start: int
    end: int


def number_tokens(text: str, lang: str = "en") -> list[str]:
    """The words of ``text`` as :func:`parse` reads them: numbers written together split
    into their words ("이십이" is 이, 십, 이), for :func:`read_numbers`."""
    return _lexicon(lang).tokens(text)


def read_numbers(tokens: Sequence[str | None], lang: str = "en") -> list[NumberSpan]:
    """Every number in already split tokens, and where it lies. ``None`` stands for a word
    something else has claimed (a command, a card's suit): no number runs across it."""
    return _read_numbers(_lexicon(lang), tokens)


def _read_numbers(lex: _Lexicon, tokens: Sequence[str | None]) -> list[NumberSpan]:
    builder = _NumberBuilder(lex)
    for at, token in enumerate(tokens):
        builder.at = at
        if token is None:
            builder.other()
        elif _DIGITS.match(token):
            if len(token) > MAX_DIGITS:
                builder.other()
            else:
                builder.digits(int(token))
        elif token in lex.units:
            builder.additive(lex.units[token], 10)
        elif token in lex.teens:
            builder.additive(lex.teens[token], 1)
        elif token in lex.tens:
            builder.additive(lex.tens[token], 10)
        elif token in lex.small:
            builder.small_multiplier(lex.small[token])
        elif token in lex.large:
            builder.large_multiplier(lex.large[token])
        elif token in lex.minus:
            builder.minus()
        elif token in lex.articles:
            builder.article_word()
        elif token in lex.connectors:
            builder.connector()
        else:
            builder.other()
    builder.flush()
    return builder.spans


def parse_alternatives(alternatives: Sequence[str], lang: str = "en") -> list[Utterance]:
    return [parse(text, lang) for text in alternatives]


# -- numbers to words -------------------------------------------------------------------


def _spoken(grammar: Grammar, value: int, table: dict[str, int]) -> str:
    if value in grammar.numbers.spoken:
        return grammar.numbers.spoken[value]
    for word, v in table.items():
        if v == value:
            return word
    raise KeyError(value)


def _below_thousand(grammar: Grammar, n: int) -> list[str]:
    g = grammar.numbers
    words: list[str] = []
    for _word, mult in sorted(g.small_multipliers.items(), key=lambda kv: -kv[1]):
        count, n = divmod(n, mult)
        if count:
            if not (g.implied_one and count == 1):
                words.extend(_below_thousand(grammar, count))
            words.append(_spoken(grammar, mult, g.small_multipliers))
    if n == 0:
        return words
    if n in g.teens.values():
        return [*words, _spoken(grammar, n, g.teens)]
    tens, unit = divmod(n, 10)
    if tens and g.tens:
        words.append(_spoken(grammar, tens * 10, g.tens))
        if unit and g.tens_unit_join:
            words.append(g.tens_unit_join)  # "cincuenta y tres"
    if unit:
        words.append(_spoken(grammar, unit, g.units))
    return words


@lru_cache(maxsize=8192)
def to_words(n: int, lang: str = "en") -> str:
    """Read a number out as words of the grammar ("fifty three", "오십삼"). Kept per
    number: a call's every prompt reads the game's whole range out as hints."""
    grammar = load(lang)
    g = grammar.numbers
    if n < 0:
        return f"{g.minus[0]}{g.join}{to_words(-n, lang)}" if g.minus else str(n)
    if n == 0:
        return _spoken(grammar, 0, g.units)
    if n in g.alone:
        return g.alone[n]  # "cien", where a bigger number says "ciento"
    words: list[str] = []
    rest = n
    for _word, mult in sorted(g.large_multipliers.items(), key=lambda kv: -kv[1]):
        count, rest = divmod(rest, mult)
        if count:
            if not (g.implied_one and count == 1):
                words.extend(_section_words(grammar, count))
            words.append(_spoken(grammar, mult, g.large_multipliers))
    words.extend(_section_words(grammar, rest))
    return g.join.join(words)


def _section_words(grammar: Grammar, n: int) -> list[str]:
    """Words for a value below the smallest large multiplier."""
    return _below_thousand(grammar, n) if n else []


# A number written in digits: not part of a word ("53rd", "x2"), but a counter or particle
# in another alphabet may follow it ("1번", "53보다").
_WRITTEN_NUMBER = re.compile(r"(?<![\w.])-?\d{1,18}(?:,\d{3})*(?![0-9A-Za-z_])")


def spoken(line: str, lang: str = "en") -> str:
    """A line written for the screen, with every number read as words ("Player 2" ->
    "Player two")."""
    return _WRITTEN_NUMBER.sub(lambda m: to_words(int(m.group().replace(",", "")), lang), line)


@lru_cache(maxsize=8192)
def recognizer_phrase(n: int, lang: str = "en") -> str:
    """A number as a recogniser's vocabulary spells it. Languages that write numbers
    together ("오십삼") have few such compounds as words, so each multiplier is kept with
    its count and the rest spaced ("오십 삼"); the parser joins them again."""
    g = load(lang).numbers
    if g.split != "chars":
        return to_words(n, lang)
    multipliers = set(g.small_multipliers) | set(g.large_multipliers)
    words: list[str] = []
    for piece in _lexicon(lang).tokens(to_words(n, lang)):
        if words and piece in multipliers and words[-1] in g.units:
            words[-1] += piece
        else:
            words.append(piece)
    return " ".join(words)


def number_phrases(numbers: Iterable[int], lang: str = "en") -> list[str]:
    """Phrases for a recogniser's phrase list or Twilio hints, one per number."""
    return [recognizer_phrase(n, lang) for n in numbers]


def command_phrases(lang: str = "en", names: Iterable[str] | None = None) -> list[str]:
    commands = load(lang).commands
    wanted = commands if names is None else {n: commands[n] for n in names}
    return [p for phrases in wanted.values() for p in phrases]


def heard_in_echo(n: int, lang: str = "en", *, echoing: bool = True) -> set[int]:
    """Numbers a room that echoes may have made ``n`` however surely it was heard: sixty
    for sixty eight (its ringing tail), ninety five for ninety nine (``confusions.yaml``'s
    ``echoes``); in a room that rings but does not echo (not ``echoing``), those of its
    ``ringing_units`` alone (forty five for forty nine); in either, its ``ringing_numbers``
    (twelve for eleven)."""
    grammar = load(lang)
    whole = {said for said, heard in grammar.ringing_numbers if heard == n}
    if not 0 <= n < 100 or 10 <= n < 20:  # a unit alone, or a tens and one; no teen
        return whole
    tens, unit = divmod(n, 10)
    out = {10 * tens} if echoing and tens and unit in grammar.echo_tails else set()
    units = grammar.echo_units if echoing else grammar.ringing_units
    return whole | out | {10 * tens + said for said, heard in units if unit == heard}


def confusable(n: int, lang: str = "en") -> set[int]:
    """Numbers that may have been said when a recogniser heard ``n``: fifteen for fifty and
    back, thirteen for thirty five, Korean 삼십 사 for 사십 사 (``confusions.yaml``)."""
    grammar = load(lang)
    out: set[int] = set()
    for a, b in grammar.confusions:
        if n == a:
            out.add(b)
        elif n == b:
            out.add(a)
    for teen, tens in grammar.unit_confusions:
        if tens < n < tens + 10:
            out.add(teen)  # one way only, as measured (confusions.yaml)
    tens, unit = divmod(n, 10)
    for a, b in grammar.digit_confusions:
        for said, heard in ((a, b), (b, a)):
            if unit == heard:
                out.add(n - heard + said)
            if tens == heard:
                out.add(n + 10 * (said - heard))
    return out

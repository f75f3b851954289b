"""Grammar data: one folder per language with number words, commands, phrases, confusions.

The same files feed the text parser, the Vosk phrase list and Twilio ``<Gather>`` hints.
Loading validates every file and names the file and line of any error (hassil style).
A language is a folder here (``grammars/<lang>/``, with its test file ``tests.yaml``) and one
in each game that ships it (``games/<game>/grammar/<lang>/``: ``words.yaml`` and ``tests.yaml``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
)

ROOT = Path(__file__).parent
#: The language every other is measured against (it has every key the code sends; a key it
#: lacks fails tests/test_languages_keys.py), and the default one (GAMEHOST_LANG).
REFERENCE = "en"
FILES = ("numbers.yaml", "commands.yaml", "phrases.yaml", "confusions.yaml")


class GrammarError(ValueError):
    """A grammar file is missing or wrong; the message names the file and line."""


class Numbers(BaseModel):
    model_config = ConfigDict(extra="forbid")

    split: Literal["words", "chars"] = "words"
    join: str = " "
    implied_one: bool = False
    units: dict[str, int]
    teens: dict[str, int] = Field(default_factory=dict)
    tens: dict[str, int] = Field(default_factory=dict)
    small_multipliers: dict[str, int] = Field(default_factory=dict)
    large_multipliers: dict[str, int] = Field(default_factory=dict)
    articles: list[str] = Field(default_factory=list)
    connectors: list[str] = Field(default_factory=list)
    minus: list[str] = Field(default_factory=list)
    suffixes: list[str] = Field(default_factory=list)
    spoken: dict[int, str] = Field(default_factory=dict)
    # The word said between a tens word and its unit when a number is read out ("cincuenta
    # y tres"); the parser takes it as a connector.
    tens_unit_join: str = ""
    # How a value is said when it is the whole number ("cien", but "ciento tres").
    alone: dict[int, str] = Field(default_factory=dict)


class EchoConfusions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    #: Units a tens word's ringing tail is heard as: a tens and one of these may be the tens
    #: said ("sixty" heard as "sixty eight").
    tails: list[int] = Field(default_factory=list)
    #: [said, heard]: the unit ``heard``, alone or after a tens, may be ``said`` (one way).
    units: list[tuple[int, int]] = Field(default_factory=list)
    #: Those of ``units`` a room that rings less makes too.
    ringing_units: list[tuple[int, int]] = Field(default_factory=list)
    #: [said, heard]: a whole number any room that rings may make of another (one way).
    ringing_numbers: list[tuple[int, int]] = Field(default_factory=list)


class Confusions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pairs: list[tuple[int, int]] = Field(default_factory=list)
    #: [n, tens]: ``tens`` plus any unit may be n said (thirty five heard for thirteen).
    with_units: list[tuple[int, int]] = Field(default_factory=list)
    #: [a, b]: digits whose words a recogniser swaps wherever they stand, in the tens or the
    #: units, where a number is said digit by digit (Korean 삼 and 사: 삼십 팔 heard as 사십 사).
    digits: list[tuple[int, int]] = Field(default_factory=list)
    #: What a room that echoes makes of a number however surely it is heard.
    echoes: EchoConfusions = Field(default_factory=EchoConfusions)


class Speech(BaseModel):
    """Optional ``speech.yaml``: recogniser-only data the parser never sees."""

    model_config = ConfigDict(extra="forbid")

    # Words that are neither numbers nor commands, added to a speech recogniser's phrase
    # list so that table chatter decodes as them rather than as the nearest number.
    decoys: list[str] = Field(default_factory=list)
    # Decoys left out while a yes/no answer is awaited, because they sound like one.
    answer_lookalikes: list[str] = Field(default_factory=list)
    # Decoys left out while cards or suits are heard, because they sound like a suit word.
    card_lookalikes: list[str] = Field(default_factory=list)
    # Command phrases a recogniser listens for, when fewer than commands.yaml has: a word
    # that sounds like a number ("다시" and "사십") costs more numbers than it is worth.
    commands: dict[str, list[str]] = Field(default_factory=dict)
    # Everyday words a recogniser with a talk loop (pocketsphinx) lets table talk decode as,
    # in any number, instead of forcing it into the nearest move or command.
    talk: list[str] = Field(default_factory=list)
    # Phrases that, heard as the whole utterance, are read back before they count as a move:
    # a single syllable is as often someone's "응" or a particle as a number.
    read_back_alone: list[str] = Field(default_factory=list)
    # Trailing silence (s) that ends an utterance ending in a phrase a longer one extends
    # ("오십" of "오십 삼"); unset: the recogniser's full end-of-utterance silence.
    phrase_silence_s: float | None = Field(default=None, gt=0)
    # Which texts phrase_silence_s may end: "number", a text ending with a number or one no
    # longer phrase goes on from with a number ("낸다 공중제비" before "거꾸로"; a card's suit
    # said first still waits for its rank: "스페이드 ... 이"), or "any" phrase a longer one
    # extends ("plays gift" of "plays gift turned").
    phrase_settles: Literal["number", "any"] = "number"


class Language(BaseModel):
    """``<lang>/language.yaml``: what the language is called and how machines speak and hear
    it. host/ names no language: every tag, voice and model is looked up here."""

    model_config = ConfigDict(extra="forbid")

    # The language's own name for itself ("한국어"): said when it is offered, texted to switch.
    name: str
    # Words that pick this language at a menu or in a lobby, as a caller or texter of any
    # language may say or write it ("한국어", "korean"); the name is one of them anyway.
    called: list[str] = Field(default_factory=list)
    # BCP-47 tag for Twilio's <Say language> and <Gather language> (its recogniser).
    tag: str
    # Twilio's <Say voice> for this language (a Polly or Google voice of ``tag``).
    say_voice: str
    # espeak-ng's voice (the synthesiser of the table, the media streams and the tests).
    espeak: str
    # A Piper voice is installed for it (host/speech/tts.py prefers Piper when there is).
    piper: bool = False
    # Offline recognisers: a pip package shipping a Vosk model in <package>/model; the code
    # vosk's model list names it by (vosk-model-small-<code>); pocketsphinx's bundled model.
    vosk_package: str | None = None
    vosk_code: str | None = None
    pocketsphinx: bool = False

    @property
    def hearable(self) -> bool:
        """Some offline recogniser is named for it (the table and media streams need one)."""
        return bool(self.vosk_package or self.vosk_code or self.pocketsphinx)


@cache
def language(lang: str, root: Path = ROOT) -> Language:
    """``<root>/<lang>/language.yaml``, validated (errors name the file and line)."""
    return load_file(root / lang / "language.yaml", Language)


def language_named(text: str, root: Path = ROOT) -> str | None:
    """The language a word or two names ("한국어", "English", "español"), whatever the
    language of the words around it; None if it names none."""
    said = normalise_name(text)
    if not said:
        return None
    for lang in languages(root):
        spec = language(lang, root)
        if said in {normalise_name(w) for w in (spec.name, *spec.called)}:
            return lang
    return None


def normalise_name(text: str) -> str:
    """Lower case, accents and punctuation dropped: "Español!" and "espanol" are one."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    # Combining marks off Latin letters only: Hangul decomposes into its jamo, kept whole.
    kept = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^\w\s]+", " ", unicodedata.normalize("NFC", kept)).split())


@dataclass(frozen=True)
class Grammar:
    lang: str
    numbers: Numbers
    commands: dict[str, tuple[str, ...]]
    phrases: dict[str, str]
    confusions: tuple[tuple[int, int], ...]
    unit_confusions: tuple[tuple[int, int], ...] = ()  # confusions.yaml's ``with_units``
    digit_confusions: tuple[tuple[int, int], ...] = ()  # confusions.yaml's ``digits``
    echo_tails: tuple[int, ...] = ()  # confusions.yaml's ``echoes.tails``
    echo_units: tuple[tuple[int, int], ...] = ()  # confusions.yaml's ``echoes.units``
    ringing_units: tuple[tuple[int, int], ...] = ()  # confusions.yaml's ``echoes.ringing_units``
    ringing_numbers: tuple[tuple[int, int], ...] = ()  # confusions.yaml's ``echoes.ringing_numbers``
    decoys: tuple[str, ...] = ()
    answer_lookalikes: tuple[str, ...] = ()
    card_lookalikes: tuple[str, ...] = ()
    speech_commands: dict[str, tuple[str, ...]] = field(default_factory=dict)
    phrase_silence_s: float | None = None
    phrase_settles: str = "number"
    talk: tuple[str, ...] = ()
    read_back_alone: frozenset[str] = frozenset()

    def phrase(self, key: str, **fields: object) -> str:
        return self.phrases[key].format(**fields)


REQUIRED_COMMANDS = (
    "whose_turn",
    "repeat",
    "rules",
    "status",
    "undo",
    "new_game",
    "leave",
    "help",
    "finish",
    "yes",
    "no",
)


def _line_of(node: yaml.Node | None, loc: tuple[int | str, ...]) -> int:
    """Follow a pydantic error location through the YAML node tree to a line number."""
    line = node.start_mark.line + 1 if node is not None else 1
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if str(k.value) == str(key):
                    node, line = v, v.start_mark.line + 1
                    break
            else:
                return line
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def _read(path: Path) -> tuple[Any, yaml.Node | None]:
    if not path.is_file():
        raise GrammarError(f"{path}: missing grammar file")
    text = path.read_text(encoding="utf-8")
    try:
        return yaml.safe_load(text), yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise GrammarError(f"{path}:{line}: {exc}") from None


def _validate(model: type[BaseModel], path: Path) -> BaseModel:
    data, node = _read(path)
    try:
        return model.model_validate(data or {})
    except ValidationError as exc:
        err = exc.errors()[0]
        line = _line_of(node, tuple(err["loc"]))
        where = ".".join(str(p) for p in err["loc"])
        raise GrammarError(f"{path}:{line}: {where}: {err['msg']}") from None


def _string_map(path: Path, value_kind: Literal["str", "list"]) -> dict[str, Any]:
    data, node = _read(path)
    if not isinstance(data, dict):
        raise GrammarError(f"{path}:1: expected a mapping of names")
    for key, value in data.items():
        ok = (
            isinstance(value, str)
            if value_kind == "str"
            else (isinstance(value, list) and value and all(isinstance(v, str) for v in value))
        )
        if not ok:
            want = "a text" if value_kind == "str" else "a list of phrases"
            raise GrammarError(f"{path}:{_line_of(node, (key,))}: {key}: expected {want}")
    return data


ModelT = TypeVar("ModelT", bound=BaseModel)


def load_file(path: Path, model: type[ModelT]) -> ModelT:
    """One YAML file validated as ``model``; a GrammarError names the file and line.
    Games keep their own words in ``games/<game>/grammar/<lang>/words.yaml`` and read them so."""
    validated = _validate(model, path)
    assert isinstance(validated, model)
    return validated


_WORD = re.compile(r"[^\W_]+")  # one word of a phrase list (grammars.reader.normalise)
_PHONES = re.compile(r"[A-Z]+[0-2]?(?: [A-Z]+[0-2]?)*")


@cache
def pronunciations(lang: str, root: Path = ROOT) -> dict[str, str]:
    """``<lang>/pronunciations.yaml``: words the grammars use that the language's speech
    dictionary lacks, with their phones (empty if the file is absent). A key must be one
    word as the phrase lists spell it (lower case, no apostrophe); errors name file:line."""
    return _phones(root / lang / "pronunciations.yaml")


@cache
def variants(lang: str, root: Path = ROOT) -> dict[str, str]:
    """``<lang>/variants.yaml``: a second pronunciation of words the grammars use that the
    speech dictionary has, as people say them and the dictionary does not (empty if the
    file is absent); keys and phones as in :func:`pronunciations`."""
    return _phones(root / lang / "variants.yaml")


def _phones(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    data = _string_map(path, "str")
    _, node = _read(path)
    for word, phones in data.items():
        line = _line_of(node, (word,))
        if not isinstance(word, str) or not _WORD.fullmatch(word) or word != word.lower():
            raise GrammarError(f"{path}:{line}: {word!r}: one word, lower case, as the phrase lists spell it")
        if not _PHONES.fullmatch(phones):
            raise GrammarError(f"{path}:{line}: {word}: expected phones like 'HH UW Z', not {phones!r}")
    return data


def languages(root: Path = ROOT) -> list[str]:
    return sorted(p.name for p in root.iterdir() if (p / "numbers.yaml").is_file())


def game_languages(package_file: str) -> tuple[str, ...]:
    """The languages a game ships, from its package's ``__file__``: the folders of its
    ``grammar/`` with a ``words.yaml``, English first (the others are checked against it)."""
    grammar = Path(package_file).parent / "grammar"
    found = sorted(p.name for p in grammar.iterdir() if (p / "words.yaml").is_file())
    return tuple(sorted(found, key=lambda lang: lang != REFERENCE))


@cache
def load(lang: str, root: Path = ROOT) -> Grammar:
    """Load and validate ``<root>/<lang>/``; raises GrammarError naming file and line."""
    folder = root / lang
    if not folder.is_dir():
        raise GrammarError(f"no grammar for language {lang!r} (have: {', '.join(languages(root))})")
    numbers = _validate(Numbers, folder / "numbers.yaml")
    assert isinstance(numbers, Numbers)
    commands = _string_map(folder / "commands.yaml", "list")
    missing = [c for c in REQUIRED_COMMANDS if c not in commands]
    if missing:
        raise GrammarError(f"{folder / 'commands.yaml'}:1: missing commands: {', '.join(missing)}")
    phrases = _string_map(folder / "phrases.yaml", "str")
    if lang != REFERENCE:
        english = load(REFERENCE).phrases
        absent = sorted(set(english) - set(phrases))
        if absent:
            raise GrammarError(f"{folder / 'phrases.yaml'}:1: missing phrases: {', '.join(absent)}")
    confusions = _validate(Confusions, folder / "confusions.yaml")
    assert isinstance(confusions, Confusions)
    speech = Speech()
    if (folder / "speech.yaml").is_file():
        validated = _validate(Speech, folder / "speech.yaml")
        assert isinstance(validated, Speech)
        speech = validated
        unknown = sorted(set(speech.commands) - set(commands))
        if unknown:
            raise GrammarError(f"{folder / 'speech.yaml'}:1: unknown commands: {', '.join(unknown)}")
    return Grammar(
        lang=lang,
        numbers=numbers,
        commands={k: tuple(v) for k, v in commands.items()},
        phrases=phrases,
        confusions=tuple(confusions.pairs),
        unit_confusions=tuple(confusions.with_units),
        digit_confusions=tuple(confusions.digits),
        echo_tails=tuple(confusions.echoes.tails),
        echo_units=tuple(confusions.echoes.units),
        ringing_units=tuple(confusions.echoes.ringing_units),
        ringing_numbers=tuple(confusions.echoes.ringing_numbers),
        decoys=tuple(speech.decoys),
        answer_lookalikes=tuple(speech.answer_lookalikes),
        card_lookalikes=tuple(speech.card_lookalikes),
        speech_commands={k: tuple(v) for k, v in speech.commands.items()},
        phrase_silence_s=speech.phrase_silence_s,
        phrase_settles=speech.phrase_settles,
        talk=tuple(speech.talk),
        read_back_alone=frozenset(speech.read_back_alone),
    )


@cache
def voice_phrases(lang: str, root: Path = ROOT) -> dict[str, str]:
    """Spoken wording for phone calls: ``<lang>/voice.yaml``, the whole of it. No line is
    borrowed from another language: a language missing one is refused for calls at start-up
    (:func:`wording_gaps`) instead of speaking a mix."""
    path = root / lang / "voice.yaml"
    return _string_map(path, "str") if path.is_file() else {}


def voice_phrase(lang: str, key: str, **fields: object) -> str:
    try:
        return voice_phrases(lang)[key].format(**fields)
    except KeyError as exc:
        raise GrammarError(f"{ROOT / lang / 'voice.yaml'}: no phrase {key!r} (or field {exc})") from None


@cache
def check_phrases(lang: str, root: Path = ROOT) -> dict[str, str]:
    """The room check's words (host/channels/table/check.py): ``<lang>/check.yaml``. A
    report of measurements and advice, not a text: its lines are longer than a phrase of
    phrases.yaml may be (each of those fits one SMS), and it has fields of its own."""
    path = root / lang / "check.yaml"
    return _string_map(path, "str") if path.is_file() else {}


def check_phrase(lang: str, key: str, **fields: object) -> str:
    try:
        return check_phrases(lang)[key].format(**fields)
    except KeyError as exc:
        raise GrammarError(f"{ROOT / lang / 'check.yaml'}: no phrase {key!r} (or field {exc})") from None


class Texts(BaseModel):
    """Optional ``<lang>/texts.yaml``: the language's words for the texting protocol's
    keywords (host/channels/sms/keywords.py; its own, NEW, JOIN..., work in any language)."""

    model_config = ConfigDict(extra="forbid")

    # Protocol keyword -> words a text may start with for it ("새 게임" for NEW).
    keywords: dict[str, list[str]] = Field(default_factory=dict)
    # A word after NEW that picks how to play -> the game's own option word ("연습": training).
    options: dict[str, str] = Field(default_factory=dict)


@cache
def texts(lang: str, root: Path = ROOT) -> Texts:
    """``<root>/<lang>/texts.yaml`` (empty if the language has none)."""
    path = root / lang / "texts.yaml"
    return load_file(path, Texts) if path.is_file() else Texts()


# -- is a language complete for a channel? ----------------------------------------------------

#: Where the games keep their words (``games/<game>/grammar/<lang>/words.yaml``): read as
#: data here, never imported (games import grammars, not the other way round).
GAMES = ROOT.parent / "games"
#: The channels whose wording a language folder may lack, and the files each speaks from:
#: a shared file of grammars/<lang>/, and the sections of each game's words.yaml.
CHANNEL_FILES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "sms": (("phrases.yaml",), ("phrases",)),
    "voice": (("phrases.yaml", "voice.yaml"), ("phrases", "spoken")),
    "web": (("phrases.yaml", "web.yaml"), ("phrases",)),
}


def _keys(path: Path, section: str | None = None) -> set[str]:
    """The keys of a YAML mapping (or of one section of it); none if the file is absent."""
    if not path.is_file():
        return set()
    data, _ = _read(path)
    if section is not None:
        data = (data or {}).get(section) if isinstance(data, dict) else None
    if not isinstance(data, dict):
        return set()
    if path.name == "web.yaml" and section is None:
        return {f"page.{k}" for k in (data.get("page") or {})}
    return {str(k) for k in data}


def game_grammars(games: Path = GAMES) -> list[Path]:
    """Every game's ``grammar/`` folder."""
    return sorted(p for p in games.glob("*/grammar") if (p / REFERENCE / "words.yaml").is_file())


def wording_gaps(lang: str, channel: str, root: Path = ROOT, games: Path = GAMES) -> list[str]:
    """What ``lang`` lacks to speak a channel in its own words, one ``file: keys`` line per
    file, measured against English (the reference: every key the host and the games send
    is there, tests/test_languages_keys.py checks); empty: complete."""
    files, sections = CHANNEL_FILES[channel]
    gaps: list[str] = []
    if not (root / lang / "language.yaml").is_file():
        gaps.append(f"{root / lang / 'language.yaml'}: missing")
    for name in files:
        absent = sorted(_keys(root / REFERENCE / name) - _keys(root / lang / name))
        if absent:
            gaps.append(f"{root / lang / name}: {', '.join(absent)}")
    for grammar in game_grammars(games):
        for section in sections:
            absent = sorted(
                _keys(grammar / REFERENCE / "words.yaml", section)
                - _keys(grammar / lang / "words.yaml", section)
            )
            if absent:
                where = grammar / lang / "words.yaml"
                gaps.append(f"{where}: {section}: {', '.join(absent)}")
    return gaps


def speaks(lang: str, channel: str) -> bool:
    """Whether ``lang`` has every line of ``channel`` (cached per process)."""
    return _speaks(lang, channel)


@cache
def _speaks(lang: str, channel: str) -> bool:
    return lang in languages() and not wording_gaps(lang, channel)

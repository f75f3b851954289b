"""Every word Upside-Out's English grammar can ask a recogniser for is in pocketsphinx's
US English dictionary (the model in its wheel, ``cmudict-en-us.dict``), looked up the way
``host/speech`` looks words up: the sample deck's card names can be heard. Player names
are the table's own: a listener reports those it lacks (``Listener.missing_words``)."""

from __future__ import annotations

import contextlib

import pytest

from games.base import find_game
from games.core import IllegalMove
from games.upside_out.tests.golden import golden_script
from host.speech.model import SpeechModel, load_model

SPEC = find_game("upside-out")
PLAYERS = ("Ann", "Bob", "Cy")


@pytest.fixture(scope="module")
def sphinx() -> SpeechModel:
    return load_model(lang="en", download=False, engine="pocketsphinx")


def test_the_english_vocabulary_is_in_the_dictionary(sphinx: SpeechModel) -> None:
    vocabulary = SPEC.talk.vocabulary(("ann", "bob"), SPEC.make_options({}), "en")
    assert any("windfall" in p for p in vocabulary) and any("u turn" in p for p in vocabulary)
    assert sphinx.missing_words(vocabulary) == []


def test_what_a_game_listens_for_is_in_its_vocabulary(sphinx: SpeechModel) -> None:
    """Step by step through the golden game: every phrase offered to the recogniser is one
    the vocabulary check saw (so nothing it asks for escapes the check)."""
    players, options, lines = golden_script()
    names = tuple(players)
    opts = SPEC.make_options(options)
    vocabulary = set(SPEC.talk.vocabulary(names, opts, "en"))
    state = SPEC.rules.new_game(names, opts, 0, None)
    listened = 0
    for line in lines:
        heard = SPEC.talk.listen_for(state, names, "en", False).moves
        assert set(heard) <= vocabulary, set(heard) - vocabulary
        listened += len(heard)
        speaker, _, text = line.partition(": ")
        said = SPEC.talk.read(text, state, names, speaker, None, "en")
        for move in getattr(said, "candidates", ())[:1]:
            with contextlib.suppress(IllegalMove):  # a line the script has refused
                state, _ = SPEC.rules.play(state, move)
    assert listened > 100


def test_a_word_missing_from_the_dictionary_is_reported(sphinx: SpeechModel) -> None:
    # The check can fail: a made-up card name is not in the dictionary.
    assert sphinx.missing_words(["plays windfall", "plays zorblax"]) == ["zorblax"]


def test_everyday_words_for_done_count_typed_but_are_not_listened_for() -> None:
    # "okay, okay, calm down everyone" was heard as "okay" and ruled as a discard
    # (tests/bench/table_talk/en_heldout.yaml): at a microphone only "done" and "did it" say it.
    players, options, lines = golden_script()
    names = tuple(players)
    opts = SPEC.make_options(options)
    state = SPEC.rules.new_game(names, opts, 0, None)
    checked = 0
    for line in lines:
        heard = set(SPEC.talk.listen_for(state, names, "en", False).moves)
        speaker, _, text = line.partition(": ")
        if "done" in heard:
            assert not heard & {"ok", "okay", "fine"}
            typed = [
                getattr(SPEC.talk.read(w, state, names, p, None, "en"), "candidates", None)
                for p in names
                for w in ("okay", "done")
            ]
            assert typed[0::2] == typed[1::2]
            checked += any(typed)
        said = SPEC.talk.read(text, state, names, speaker, None, "en")
        for move in getattr(said, "candidates", ())[:1]:
            with contextlib.suppress(IllegalMove):
                state, _ = SPEC.rules.play(state, move)
    assert checked > 0

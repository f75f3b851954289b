"""English and pocketsphinx through the Listener: commands that take something back are
read back first at a table, and only the command said again counts (real audio)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from games.base import all_games
from host.listening.listener import Listener
from host.referee import Referee
from host.session import SessionConfig
from host.speech.audio import pcm_chunks
from host.speech.model import SpeechModel, load_model
from tests.golden import SCRIPTS
from tests.speech.conftest import silence
from tests.table.test_english_table import Voice, espeak, piper


@pytest.fixture(scope="module")
def en_model() -> SpeechModel:
    return load_model(lang="en", engine="pocketsphinx", download=False)


@pytest.fixture
def session(referee: Referee) -> Iterator[str]:
    session_id = referee.create(SessionConfig(lang="en", undo_grace=1e9), ["Ann", "Bob"])
    referee.handle(session_id, "fifty three", "Ann")
    yield session_id


@pytest.mark.parametrize("voice", [piper, espeak], ids=["piper", "espeak"])
def test_a_spoken_undo_is_read_back_before_it_counts(
    referee: Referee, session: str, en_model: SpeechModel, voice: Voice
) -> None:
    listener = Listener(referee, session, en_model, report_missing=False)
    assert en_model.engine == "pocketsphinx"
    (heard,) = listener.hear(pcm_chunks(silence(0.5) + voice("undo") + silence(1.2)))
    assert heard.hearing.text == "undo"
    reading = heard.reading
    assert reading is not None and reading.confidence < referee.table(session).config.confirm_below
    reply = heard.reply
    assert reply is not None and reply.confirm == "undo" and not reply.accepted
    game = referee.table(session).state
    assert game is not None and game.last == 53  # nothing taken back yet
    assert reply.lines == ["undo? Say undo again to be sure."]
    # Anyone's "yes" at a table may be about anything: it does not take the move back.
    (yes,) = listener.hear(pcm_chunks(silence(0.5) + voice("yes") + silence(1.2)))
    assert yes.reply is not None and not yes.reply.accepted
    assert yes.reply.lines == ["undo? Say undo again to be sure."]
    assert referee.table(session).state.last == 53
    (again,) = listener.hear(pcm_chunks(silence(0.5) + voice("undo") + silence(1.2)))
    assert again.reply is not None and {"type": "undo", "player": "Ann", "number": 53} in again.reply.events


@pytest.mark.parametrize("voice", [piper, espeak], ids=["piper", "espeak"])
def test_a_spoken_no_to_a_read_back_undo_closes_the_question(
    referee: Referee, session: str, en_model: SpeechModel, voice: Voice
) -> None:
    listener = Listener(referee, session, en_model, report_missing=False)
    (heard,) = listener.hear(pcm_chunks(silence(0.5) + voice("undo") + silence(1.2)))
    assert heard.reply is not None and heard.reply.confirm == "undo"
    (no,) = listener.hear(pcm_chunks(silence(0.5) + voice("no") + silence(1.2)))
    assert no.reply is not None and not no.reply.accepted
    assert {"type": "not_confirmed", "player": "", "command": "undo"} in no.reply.events
    assert referee.table(session).asked is None
    # The question is closed: the next "undo" is asked about afresh, not taken as its answer.
    (again,) = listener.hear(pcm_chunks(silence(0.5) + voice("undo") + silence(1.2)))
    assert again.reply is not None and again.reply.confirm == "undo" and not again.reply.accepted
    assert referee.table(session).state.last == 53  # type: ignore[union-attr]


@pytest.mark.parametrize("game", sorted(s.name for s in all_games()))
def test_a_spoken_no_answers_a_read_back_in_every_game(
    referee: Referee, en_model: SpeechModel, game: str
) -> None:
    """Each game hears the read-back's answer as the listener takes it (Blófa and Upside-Out
    read their own yes and no, which the table once never heard)."""
    (config, players, lines), *_ = [s() for s in SCRIPTS.values() if s()[0].game == game]
    session = referee.create(config.model_copy(update={"lang": "en", "undo_grace": 1e9}), players)
    for line in lines:  # the golden game up to its first ruled move
        speaker, _, words = line.partition(": ")
        if referee.handle(session, words, speaker).accepted:
            break
    before = referee.table(session).state
    listener = Listener(referee, session, en_model, report_missing=False)
    (heard,) = listener.hear(pcm_chunks(silence(0.5) + piper("undo") + silence(1.2)))
    assert heard.reply is not None and heard.reply.confirm == "undo"
    (no,) = listener.hear(pcm_chunks(silence(0.5) + piper("no") + silence(1.2)))
    assert no.reply is not None and any(e["type"] == "not_confirmed" for e in no.reply.events)
    assert referee.table(session).asked is None and referee.table(session).state == before

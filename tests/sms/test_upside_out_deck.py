"""A deck chosen by text: NEW UPSIDEOUT <deck> takes a bundled deck by name, and a deck
that does not load is answered with the file and the fault, before any game is made."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.base import find_game
from games.upside_out import deck
from tests.sms.conftest import PHONES, Sms


def test_a_bundled_deck_by_name(sms: Sms) -> None:
    created = sms.text(PHONES[0], "NEW UPSIDEOUT SAMPLE Ann")
    assert "Upside-Out" in created[0]
    assert sms.table(PHONES[0]).options.deck == "sample"


def test_a_deck_that_does_not_load_is_answered_clearly(
    sms: Sms, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A deck file the server's operator put beside the sample one, and got wrong.
    monkeypatch.setattr(deck, "DECKS", tmp_path)
    ours = "title: ours\ncards:\n  - {name: Dance, you: dance, others: nothing}\n"
    (tmp_path / "ours.yaml").write_text(ours)
    monkeypatch.setitem(find_game("upside-out").option_words, "ours", {"deck": "ours"})
    answer = " ".join(sms.text(PHONES[0], "NEW UPSIDEOUT OURS Ann"))  # the fault, and what is allowed
    expected = "Upside-Out: deck: decks/ours.yaml:3: cards.0.you: unknown effect 'dance'"
    assert answer.startswith(expected), answer
    assert str(tmp_path) not in answer  # no server path in a text
    assert sms.app.state.lobby.member(PHONES[0]) is None  # no game was made

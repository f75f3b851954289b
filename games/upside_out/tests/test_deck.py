"""Deck files: the sample is whole, and a wrong file is named with its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.upside_out.deck import deck_path, load_deck
from games.upside_out.effects import SPECIALS, parse_effect, parse_step
from grammars import GrammarError

SAMPLE = deck_path("sample")


def test_the_sample_deck_is_labelled_and_whole() -> None:
    head = SAMPLE.read_text(encoding="utf-8").splitlines()[0]
    assert "SAMPLE" in head and "INVENTED FOR TESTING" in head
    deck = load_deck("sample")
    assert len(deck.faces) == 28 and "invented" in deck.title
    assert sorted(f.special for f in deck.faces if f.special) == sorted(SPECIALS)
    assert deck.find("u turn") is deck.find("U-Turn") is not None
    # A Korean table calls the cards by words its speech model knows; they read anywhere.
    assert deck.find("횡재") is deck.find("windfall") is not None
    assert all(f.said.get("ko") for f in deck.faces if f.card is not None)


def _write(tmp_path: Path, body: str) -> str:
    path = tmp_path / "deck.yaml"
    path.write_text(body, encoding="utf-8")
    return str(path)


def _faces(extra: str = "", count: int = 27) -> str:
    lines = [f"  - {{name: Card {i}, you: draw 1, others: nothing}}" for i in range(count)]
    return "title: test\ncards:\n" + "\n".join(lines) + "\n" + extra


@pytest.mark.parametrize(
    ("extra", "line", "message"),
    [
        ("  - {name: Bad, you: dance 2, others: nothing}\n", 30, "unknown effect 'dance'"),
        ("  - {name: Bad, you: draw, others: reverse 2}\n", 30, "reverse takes no count"),
        ("  - {name: Bad, you: draw 1}\n", 30, "needs 'you' and 'others'"),
        ("  - {name: Bad, special: mirror, you: draw 1}\n", 30, "special card has no"),
        ("  - {name: Bad, special: shield}\n", 30, "special"),
        ("  - {name: Card 3, you: draw 1, others: nothing}\n", 3, "used twice"),
        ("  - {name: Bad, said: {ko: [card 3]}, you: draw 1, others: nothing}\n", 3, "used twice"),
        ("  - {name: Bad, you: donate 1 to mars, others: nothing}\n", 30, "fits only donate"),
    ],
)
def test_deck_errors_name_file_and_line(tmp_path: Path, extra: str, line: int, message: str) -> None:
    path = _write(tmp_path, _faces(extra))
    with pytest.raises(GrammarError) as caught:
        load_deck(path)
    text = str(caught.value)
    assert text.startswith(f"{path}:{line}:"), text
    assert message in text


def test_a_deck_has_28_faces(tmp_path: Path) -> None:
    path = _write(tmp_path, _faces(count=5))
    with pytest.raises(GrammarError, match=r"deck.yaml:3: cards: .*28 faces"):
        load_deck(path)


def test_a_missing_deck_is_named() -> None:
    with pytest.raises(GrammarError, match="missing"):
        load_deck("/nowhere/deck.yaml")


def test_effect_words() -> None:
    assert str(parse_step("draw 2 from discard")) == "draw 2 from discard"
    assert parse_effect("nothing, nothing") == (parse_step("nothing"),)
    assert parse_effect("draw 1, nothing") == (parse_step("draw 1"),)
    for bad in ("draw 0", "skip 2", "discard 1 from discard", "draw 1 to next", "fly"):
        with pytest.raises(ValueError):
            parse_step(bad)

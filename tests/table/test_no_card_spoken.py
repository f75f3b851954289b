"""Words that name no card of the game, said at an English !nversion table (issue 42): a
face card ("queen of hearts" was heard as "one of hearts" and ruled at once) and a card of
a suit not in play are listened for, so they are refused as said, as typed text is; the
cards said around them are ruled as before. Piper's joe voice through ``gamehost table``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from games.inversion import rules as inv
from games.inversion.cards import Card, Suit
from games.inversion.talk import TALK
from tests.table.test_english_cards_spoken import INVERSION_LANE, move, table

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")

SETUP = ("--players", "Ann,Bob", "--suits", "H,S,C", "--lane", INVERSION_LANE, "--first", "Ann")


def test_a_face_card_and_a_suit_not_in_play_are_refused_as_said(tmp_path: Path) -> None:
    lines = [move("queen of hearts"), move("nine of diamonds"), move("six of spades"), move("king of clubs")]
    run = table(tmp_path, "inversion", lines, *SETUP)
    why = run.report()
    # Only the real card is ruled, by the player whose turn it was.
    assert [(e["player"], e["card"]) for e in run.of("card_played")] == [("Ann", "6S")], why
    refusals = [e for e in run.events if e["type"] in ("not_a_card", "refused", "confirm")]
    assert [e["type"] for e in refusals] == ["not_a_card", "refused", "not_a_card"], (refusals, why)
    assert refusals[1]["reason"] == "unused_suit", why
    assert refusals[0]["text"] == "queen of hearts" and refusals[2]["text"] == "king of clubs", why


def test_the_answer_heard_is_the_answer_typed() -> None:
    """The same words typed: "There are no queens in !nversion", word for word."""
    state = inv.new_game(("Ann", "Bob"))
    state, _ = inv.play(state, inv.ChooseSuits((Suit.HEART, Suit.SPADE, Suit.CLUB)))
    state, _ = inv.play(state, inv.LayLane(tuple(Card.parse(c) for c in INVERSION_LANE.split(","))))
    state, _ = inv.play(state, inv.ChooseFirst("Ann"))
    typed = TALK.read("queen of hearts", state, ("Ann", "Bob"), None, None, "en")
    heard, trust = TALK.hear("queen of hearts", state, ("Ann", "Bob"), False, "en")
    assert heard == typed and trust == 1.0
    assert heard.text.startswith("There are no queens in !nversion: cards go from 1 to 10.")
    listened = TALK.listen_for(state, ("Ann", "Bob"), "en", False).moves
    assert {"queen of hearts", "king of clubs", "nine of diamonds"} <= set(listened)

"""!nversion review: bugs a table could hit, each pinned by a test (setup, undo, wording)."""

from __future__ import annotations

import pytest

from games.inversion import rules as inv
from host.heard import SpeechText
from host.referee import Referee
from tests.host.card_tables import LANE, start, state


@pytest.mark.parametrize("line", ["9H 2C 11S 3C", "9H 2C 5 3C", "9H 2C spades 3C"])
def test_a_lane_line_with_a_part_that_is_no_card_lays_nothing(referee: Referee, line: str) -> None:
    """Laying the rest would shift every later lane card one place nearer the reference card."""
    sid = start(referee)
    assert referee.handle(sid, "hearts spades clubs").accepted
    reply = referee.handle(sid, line)
    assert not reply.accepted, reply.lines
    assert state(referee, sid).lane == ()
    assert referee.handle(sid, "9H 2C 3C").accepted
    assert len(state(referee, sid).lane) == 3


def test_anyone_may_take_back_who_starts(referee: Referee) -> None:
    """Choosing who starts is a setup step anyone answers, so anyone may take it back."""
    sid = start(referee)
    for text in ("hearts spades clubs", LANE):
        assert referee.handle(sid, text, "Bob").accepted
    assert referee.handle(sid, "Ann", "Bob").accepted
    undone = referee.handle(sid, "undo", "Bob")
    assert undone.accepted, undone.lines
    assert state(referee, sid).phase is inv.Phase.FIRST
    assert undone.public[0] == "Taken back: Ann to start."


def test_setup_steps_taken_back_are_named(referee: Referee) -> None:
    sid = start(referee)
    assert referee.handle(sid, "hearts spades clubs").accepted
    assert referee.handle(sid, "9H 1C").accepted
    assert referee.handle(sid, "undo").public[0] == "Taken back: 9 of hearts, 1 of clubs."
    assert referee.handle(sid, "undo").public[0] == "Taken back: hearts, spades, clubs."


def test_a_pass_taken_back_is_called_a_pass(referee: Referee) -> None:
    sid = start(referee, "Ann,Bob,Cy")
    for text in ("hearts spades clubs diamonds", LANE, "Ann"):
        assert referee.handle(sid, text).accepted
    assert referee.handle(sid, "I bid 2", "Ann").accepted
    assert referee.handle(sid, "pass", "Bob").accepted
    undone = referee.handle(sid, "undo", "Bob")
    assert undone.public[0] == "Bob took back pass."


def test_a_setup_step_read_back_can_be_confirmed_by_whoever_speaks(referee: Referee) -> None:
    """Anyone at the table answers setup questions, so anyone answers their read-back."""
    sid = start(referee)
    heard = SpeechText(("hearts spades clubs",), 0.3)
    asked = referee.handle(sid, "hearts spades clubs", "Ann", hearing=heard)
    assert not asked.accepted and asked.events[-1]["type"] == "confirm"
    confirmed = referee.handle(sid, "yes", "Ann")
    assert confirmed.accepted, confirmed.lines
    assert state(referee, sid).phase is inv.Phase.LANE


def test_repeat_says_what_a_revoke_costs_when_the_table_chose_a_penalty(referee: Referee) -> None:
    sid = start(referee, revoke_penalty="trick")
    for text in ("hearts spades clubs", LANE, "Ann"):
        assert referee.handle(sid, text).accepted
    assert referee.handle(sid, "8H", "Ann").accepted
    assert referee.handle(sid, "3S", "Bob").accepted  # Bob shows no hearts
    assert referee.handle(sid, "4S", "Ann").accepted  # Ann won trick 1 and leads trick 2
    played = referee.handle(sid, "3H", "Bob")  # ... yet Bob holds a heart
    revoke = next(line for line in played.public if line.startswith("Revoke!"))
    assert revoke.endswith("One trick to the other side.")
    repeated = referee.handle(sid, "repeat", "Ann")
    assert revoke in repeated.private


def test_who_starts_read_back_can_be_confirmed_by_whoever_speaks(referee: Referee) -> None:
    sid = start(referee)
    for text in ("hearts spades clubs", LANE):
        assert referee.handle(sid, text).accepted
    asked = referee.handle(sid, "Ann", "Bob", hearing=SpeechText(("Ann",), 0.3))
    assert not asked.accepted and asked.events[-1]["type"] == "confirm"
    confirmed = referee.handle(sid, "yes", "Bob")
    assert confirmed.accepted, confirmed.lines
    assert state(referee, sid).current_player == "Ann"

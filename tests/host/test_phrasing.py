"""Announcements in every language: what happened, who is next, what is allowed."""

from __future__ import annotations

import pytest

from games.up_or_down import rules as ud
from games.up_or_down import talk as phrasing
from games.up_or_down.rules import Mode
from grammars import languages, load


@pytest.mark.parametrize("lang", languages())
def test_every_event_of_a_game_has_words(lang: str) -> None:
    g = ud.new_game(("Ann", "Bob", "Cy"), ud.Options(mode=Mode.TRAINING))
    lines = [phrasing.prompt(g, lang)]
    for n in (53, 54, 2, 1):
        g, events = ud.play(g, n)
        lines += [*phrasing.describe_all(events, lang), phrasing.prompt(g, lang), phrasing.status(g, lang)]
    g, events = ud.time_out(g)
    lines += phrasing.describe_all(events, lang)
    g, events = ud.end(g)
    lines += [*phrasing.describe_all(events, lang), phrasing.rules(g.options, lang)]
    assert all(line and "{" not in line for line in lines)
    assert load(lang).phrases["odd"] in " ".join(lines)


def test_the_constraint_is_stated_plainly() -> None:
    g, _ = ud.play(ud.new_game(("Ann", "Bob")), 99)
    assert phrasing.prompt(g) == "Bob: an even number below 99."
    g, _ = ud.play(ud.new_game(("Ann", "Bob")), 1)
    assert phrasing.prompt(g) == "Bob: an odd number above 1."
    assert phrasing.prompt(ud.new_game(("Ann", "Bob"))) == "Ann: any number from 1 to 100."


def test_korean_announcement() -> None:
    g, events = ud.play(ud.new_game(("민수", "지아")), 53)
    assert phrasing.describe_all(events, "ko") == ["민수, 53."]
    assert phrasing.prompt(g, "ko") == "지아, 53보다 큰 홀수 또는 53보다 작은 짝수."


def test_tournament_status_and_winner() -> None:
    g = ud.new_game(("Ann", "Bob", "Cy"))
    for n in (5, 7, 8):
        g, _ = ud.play(g, n)
    assert phrasing.status(g) == "Turn 4. Last number 8. In: Ann, Bob. Out: Cy."
    g, events = ud.play(g, 9)
    assert phrasing.describe_all(events)[-1] == "Bob wins! Bob opens the next game: say new game."

"""Up-or-Down's announcements in every language it ships: what happened, who is next, what
is allowed."""

from __future__ import annotations

import pytest

from games.up_or_down import SPEC
from games.up_or_down import rules as ud
from games.up_or_down import talk as phrasing
from games.up_or_down.rules import Mode
from games.up_or_down.words import load


@pytest.mark.parametrize("lang", SPEC.languages)
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


def _said(*numbers: int, mode: Mode = Mode.TOURNAMENT, lang: str = "en") -> list[str]:
    g = ud.new_game(("Ann", "Bob", "Cy", "Dee"), ud.Options(mode=mode))
    lines: list[str] = []
    for n in numbers:
        g, events = ud.play(g, n)
        lines = phrasing.describe_all(events, lang, options=g.options)
    return lines


@pytest.mark.parametrize(
    ("numbers", "en", "ko"),
    [
        (
            (53, 54),
            "Bob said 54. Wrong: 54 is even, so it must be below 53. Bob is out.",
            "Bob, 54. 틀렸어요: 짝수는 53보다 작아야 해요. Bob 탈락.",
        ),
        (
            (40, 12),
            "Bob said 12. Wrong: 12 is even, so it must be above 40. Bob is out.",
            "Bob, 12. 틀렸어요: 짝수는 40보다 커야 해요. Bob 탈락.",
        ),
        (
            (40, 40),
            "Bob said 40. Wrong: 40 is the last number again. Bob is out.",
            "Bob, 40. 틀렸어요: 같은 숫자는 안 돼요. Bob 탈락.",
        ),
        (
            (40, 101),
            "Bob said 101. Wrong: 101 is not from 1 to 100. Bob is out.",
            "Bob, 101. 틀렸어요: 1부터 100까지만 돼요. Bob 탈락.",
        ),
        (
            (40, 1_000_000, 54),
            "Cy said 54. Wrong: 54 is not odd. Cy is out.",
            "Cy, 54. 틀렸어요: 홀수가 아니에요. Cy 탈락.",
        ),
    ],
)
def test_a_wrong_number_says_which_rule_it_broke(numbers: tuple[int, ...], en: str, ko: str) -> None:
    assert _said(*numbers) == [en]
    assert _said(*numbers, lang="ko") == [ko]


def test_a_training_mistake_says_why_too() -> None:
    assert _said(53, 54, mode=Mode.TRAINING) == [
        "Bob said 54. That doesn't fit: 54 is even, so it must be below 53. Mistake 1 for Bob. Try again."
    ]
    assert _said(53, 54, mode=Mode.TRAINING, lang="ko") == [
        "Bob, 54. 맞지 않아요: 짝수는 53보다 작아야 해요. Bob 실수 1번. 다시 하세요."
    ]


def test_after_a_number_outside_the_range_the_prompt_names_the_range() -> None:
    g, _ = ud.play(ud.play(ud.new_game(("Ann", "Bob", "Cy")), 50)[0], 1_000_000)
    assert phrasing.prompt(g) == "Cy: an odd number from 1 to 100."
    assert phrasing.prompt(g, "ko") == "Cy, 1부터 100까지의 홀수."
    assert phrasing.spoken_turn(g) == "Cy, your turn: odd, from one to one hundred."
    g, _ = ud.play(ud.play(ud.new_game(("Ann", "Bob", "Cy")), 50)[0], -5)
    assert phrasing.prompt(g) == "Cy: an odd number from 1 to 100."


def test_events_said_alone_have_whole_sentences() -> None:
    assert phrasing.describe(ud.PlayerOut("Bob", "mistake")) == "Bob is out."
    assert phrasing.describe(ud.MistakeCounted("Bob", 2)) == "Mistake 2 for Bob. Try again."

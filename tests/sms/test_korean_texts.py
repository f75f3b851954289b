"""Texts in Korean: Korean commands and number words read, Korean names kept, every message
one UCS-2 segment (70 characters); which language a texter gets (the game's when they join
by code, else the number they texted, else GAMEHOST_LANG) and a texted switch."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from host.channels.sms.text import UCS2_SEGMENT, is_gsm7, ucs2_length
from tests.clock import Clock
from tests.sms.conftest import HOST_NUMBER, PHONES, Sms, build, messages_of
from tests.twilio_helpers import FakeTwilio

MINSU, JIEUN, ENGLISH = PHONES[0], PHONES[1], PHONES[2]
OTHER_NUMBER = "+15005550099"  # a number of ours with no language of its own: GAMEHOST_LANG
LATIN = re.compile(r"[A-Za-z]")


@pytest.fixture
def korean(tmp_path: Path, fake: FakeTwilio, clock: Clock) -> Iterator[Sms]:
    """A host whose texted number speaks Korean; GAMEHOST_LANG is English."""
    host = build(tmp_path, fake, clock, lang="en", number_langs={HOST_NUMBER: "ko"})
    yield host
    host.app.state.store.close()


GAMES = ("BLOFA", "INVERSION", "UPSIDEOUT", "STOP")  # the other games' names; the carriers' word


def korean_only(messages: list[str]) -> list[str]:
    """Each message Korean (no Latin letter but in a game's name), one UCS-2 segment of at
    most 70 characters."""
    for m in messages:
        assert not is_gsm7(m) and ucs2_length(m) <= UCS2_SEGMENT, m
        assert not LATIN.search(re.sub("|".join(GAMES), "", m)), m
    return messages


def test_a_korean_sms_game_from_new_to_a_win(korean: Sms) -> None:
    created = korean_only(korean.text(MINSU, "새 게임 민수"))
    code = re.search(r"\d{6}", created[0])[0]  # type: ignore[index]
    assert f"친구들은 이 번호로 참가 {code}" in " ".join(created) and "이름은 민수" in " ".join(created)
    joined = korean_only(korean.text(JIEUN, f"참가 {code} 지은"))
    assert "지은(으)로 참가했어요" in " ".join(joined)
    assert "지은 님 참가" in " ".join(korean_only(korean.inbox(MINSU)))
    started = korean_only(korean.text(MINSU, "시작"))
    assert started[0].startswith("#1 새 게임: 민수, 지은.")
    moved = korean_only(korean.text(MINSU, "오십삼"))  # a number in Korean words
    assert moved[0].startswith("#2 민수, 53. 지은, 53보다 큰 홀수 또는 53보다 작은 짝수.")
    korean_only(korean.inbox(JIEUN))
    status = korean_only(korean.text(JIEUN, "점수"))  # a Korean keyword in a game
    assert "마지막 숫자 53" in " ".join(status)
    out = korean_only(korean.text(JIEUN, "육십"))  # even above an odd number: out
    said = " ".join(out)
    assert "지은 탈락" in said and "민수 승리!" in said
    korean_only(korean.inbox(MINSU))
    again = korean_only(korean.text(MINSU, "새 게임"))  # a rematch, asked in Korean
    assert "새 게임: 민수, 지은" in " ".join(again)


def test_a_korean_name_is_kept_in_an_english_game(tmp_path: Path, fake: FakeTwilio, clock: Clock) -> None:
    host = build(tmp_path, fake, clock)
    try:
        created = host.text(MINSU, "NEW 민수")
        said = " ".join(created)
        assert "You are 민수." in said and "Your name cannot be sent" not in said
        assert all(ucs2_length(m) <= UCS2_SEGMENT for m in created)  # UCS-2: 70 a message
        code = re.search(r"\d{6}", said)[0]  # type: ignore[index]
        joined = host.text(JIEUN, f"JOIN {code} Ann")
        assert "Players: 민수, Ann." in " ".join(joined)
    finally:
        host.app.state.store.close()


def test_joining_by_code_gets_the_game_language(korean: Sms) -> None:
    code = re.search(r"\d{6}", " ".join(korean.text(MINSU, "새 게임 민수")))[0]  # type: ignore[index]
    # An English texter (they texted the English number) joins with the protocol's keyword.
    response = korean.post(ENGLISH, f"JOIN {code} Ann", To=OTHER_NUMBER)
    joined = messages_of(response)
    assert "Ann(으)로 참가했어요" in " ".join(joined)


def test_a_texter_switches_language_by_naming_it(korean: Sms) -> None:
    assert "Games by text" in " ".join(messages_of(korean.post(ENGLISH, "hi", To=OTHER_NUMBER)))
    switched = messages_of(korean.post(ENGLISH, "한국어", To=OTHER_NUMBER))
    assert korean_only(switched)[0].startswith("문자 게임:")
    # It sticks: the next NEW, with the protocol's own keyword, makes a Korean game.
    created = messages_of(korean.post(ENGLISH, "NEW Ann", To=OTHER_NUMBER))
    assert "준비됐어요" in " ".join(created)
    back = messages_of(korean.post(MINSU, "English"))  # and back, from the Korean number
    assert back[0].startswith("Games by text:")

"""A call to a number of ours that speaks Korean is Korean end to end: every ``<Say>`` in
Korean in Twilio's Korean voice, ``<Gather language="ko-KR">`` with Korean hints, a menu
that understands spoken Korean, keys said in Korean; and a caller may switch language at
the menu or join a game in the game's own language."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

import host.channels.voice.prompts as vp
from tests.twilio_helpers import FakeTwilio
from tests.voice.conftest import HOST_NUMBER, Host, Phone, build

ROOM, ANN, BOB = "+15550300001", "+15550300002", "+15550300003"
LATIN = re.compile(r"[A-Za-z]")


@pytest.fixture
def korean(tmp_path: Path, fake: FakeTwilio) -> Iterator[Host]:
    """A host whose number (the one the test phones call) speaks Korean; GAMEHOST_LANG is English."""
    built = build(tmp_path, fake, lang="en", number_langs={HOST_NUMBER: "ko"})
    yield built
    built.app.state.store.close()


def korean_only(phone: Phone, names: tuple[str, ...] = ()) -> str:
    """What the caller hears now, checked: every ``<Say>`` in Korean in the Korean voice,
    every ``<Gather>`` a Korean one with hints in Hangul; no Latin letter but in a name."""
    assert phone.twiml is not None
    for say in phone.twiml.iter("Say"):
        assert (say.get("language"), say.get("voice")) == ("ko-KR", "Polly.Seoyeon"), ET.tostring(say)
        text = say.text or ""
        for name in names:
            text = text.replace(name, "")
        assert not LATIN.search(text), text
    for gather in phone.twiml.iter("Gather"):
        assert gather.get("language") == "ko-KR"
        hints = [h.strip() for h in (gather.get("hints") or "").split(",") if h.strip()]
        assert all(not LATIN.search(h) for h in hints if not h.startswith("$")), hints
    return phone.heard


def test_a_korean_call_plays_by_speech_from_the_menu_to_a_win(korean: Host) -> None:
    phone = korean.phone(ROOM)
    phone.call()
    said = korean_only(phone)
    assert said.startswith("업 오어 다운.") and "일번을 누르거나 새 게임이라고 말하세요" in said
    hints = [h.strip() for h in phone.gather.get("hints", "").split(",")]
    assert {"새 게임", "참가", "이 전화", "한국어"} <= set(hints)

    phone.say("이 전화")  # the menu understands spoken Korean: this phone, for the room
    assert "방에 몇 명이 있어요? 이부터 팔까지" in korean_only(phone)
    assert {"이", "삼", "팔"} <= {h.strip() for h in phone.gather.get("hints", "").split(",")}
    phone.say("이")
    assert korean_only(phone) == "일번 플레이어, 이름을 말해 주세요."
    phone.say("제 이름은 민수입니다")
    assert korean_only(phone) == "이번 플레이어, 이름을 말해 주세요."
    phone.say("지은")
    said = korean_only(phone)
    assert said == "새 게임: 민수, 지은. 민수 님 차례예요. 일부터 백까지 아무 숫자나 말하세요."
    hints = {h.strip() for h in phone.gather.get("hints", "").split(",")}
    assert {"오십 삼", "누구 차례", "새 게임"} <= hints

    phone.say("오십삼")
    said = korean_only(phone)
    assert said == "민수, 오십삼. 지은 님 차례예요. 오십삼보다 큰 홀수, 또는 오십삼보다 작은 짝수."
    phone.say("누구 차례")  # a command, in Korean
    assert korean_only(phone).endswith("지은 님 차례예요. 오십삼보다 큰 홀수, 또는 오십삼보다 작은 짝수.")
    phone.say("칠십", confidence=0.95)  # even above an odd number: a mistake, heard clearly
    said = korean_only(phone)
    if "맞아요" in said:  # a confusable neighbour fits: read back first, in Korean
        assert said.endswith("맞으면 네라고 하거나 일번을 누르세요. 아니면 이번을 누르세요.")
        phone.say("네")
        said = korean_only(phone)
    assert "지은 탈락" in said and "민수 승리!" in said
    assert said.endswith("아니면 일번을 눌러 다시 하거나, 그냥 끊으세요.")


def test_a_korean_call_by_keypad_says_its_keys_in_korean(korean: Host) -> None:
    phone = korean.phone(ROOM)
    phone.call()
    korean_only(phone)
    phone.press("3")
    phone.press("2")
    assert korean_only(phone) == "일번 플레이어, 이름을 말해 주세요."
    phone.empty()
    phone.empty()
    said = korean_only(phone, ("플레이어",))
    assert said.startswith("새 게임: 플레이어 일, 플레이어 이.")
    phone.press("53")
    assert "오십삼보다 큰 홀수" in korean_only(phone)
    phone.press("54")
    said = korean_only(phone)
    assert "플레이어 이 탈락" in said and "플레이어 일 승리!" in said


def test_a_korean_caller_creates_and_an_english_caller_joins_in_korean(
    korean: Host, fake: FakeTwilio
) -> None:
    ann = korean.phone(ANN)
    ann.call()
    ann.say("새 게임")
    assert korean_only(ann) == "이름을 말해 주세요."
    ann.say("민수")
    member = korean.lobby.member(ANN)
    code = korean.app.state.store.session(member.session_id).code
    said = korean_only(ann)
    assert f"게임 코드는 {vp.spoken_code(code, 'ko')}예요." in said
    assert korean.table_of(member.session_id).config.lang == "ko"

    # Bob calls the English number (no entry for it: GAMEHOST_LANG) and joins by code.
    bob = Phone(korean, BOB, to="+15005550099")
    bob.call()
    assert bob.heard.startswith("Up or Down.")
    assert bob.gather.get("language") == "en-US"
    bob.press("2")
    bob.say("Bob")
    bob.press(code)
    assert korean_only(bob, ("Bob",)).startswith("Bob 님, 참가했어요.")


def test_a_caller_switches_language_at_the_menu(host: Host) -> None:
    phone = host.phone(ROOM)
    phone.call()
    assert phone.heard.startswith("Up or Down.")
    hints = {h.strip() for h in phone.gather.get("hints", "").split(",")}
    assert {"English", "korean"} <= hints  # the names in the menu's own script
    phone.say("한국어")
    said = korean_only(phone)
    assert said.startswith("업 오어 다운.")
    phone.say("새 게임")  # and the rest of the call is Korean
    assert korean_only(phone) == "이름을 말해 주세요."
    phone.say("민수")
    member = host.lobby.member(ROOM)
    assert host.table_of(member.session_id).config.lang == "ko"
    korean_only(phone)

"""``host.channels.twiml.render`` gives exactly the SDK's ``str(response)``: for every shape the
voice channel builds, and for values that need escaping (markup, quotes, line breaks,
tabs, Korean, emoji, a lone surrogate), the first time a shape is seen and after."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from twilio.twiml.messaging_response import MessagingResponse
from twilio.twiml.voice_response import VoiceResponse

from host.channels.twiml import render

TRICKY = [
    "Ann said 53.",
    "",
    " ",
    "a & b <c> \"d\" 'e'",
    "line\nbreak\r\nand\ttab",
    "]]> &amp; &#10;",
    "숫자를 말하세요",
    "🎲 Zoë",
    "\x01\x02 marks \x011\x02",
    "\ud83d lone",
    "x" * 600,
]


def _voice(say: str, url: str, hints: str, pause: int | None = None) -> VoiceResponse:
    vr = VoiceResponse()
    gather = vr.gather(
        input="speech dtmf",
        action=url,
        method="POST",
        hints=hints or None,
        barge_in=True,
        language="en-US",
        speech_timeout=2,
        timeout=6,
        finish_on_key="#",
    )
    gather.say(say, language="en-US")
    if pause is not None:
        vr.pause(length=pause)
    vr.redirect(url + "&n=1", method="POST")
    return vr


@pytest.mark.parametrize("text", TRICKY)
def test_voice_responses_read_as_the_sdk_writes_them(text: str) -> None:
    for _ in range(2):  # the first of a shape makes its template, the second uses it
        vr = _voice(text, f"http://h/twilio/voice/move?t={text}", text, pause=3)
        assert render(vr) == str(vr)


@pytest.mark.parametrize("text", TRICKY)
def test_messages_read_as_the_sdk_writes_them(text: str) -> None:
    for count in (0, 1, 2, 2):
        mr = MessagingResponse()
        for i in range(count):
            mr.message(f"{text} {i}")
        assert render(mr) == str(mr)


def test_an_empty_value_and_a_missing_one_are_shapes_of_their_own() -> None:
    for said in ("", "x", "", "y"):
        vr = VoiceResponse()
        vr.say(said)
        vr.hangup()
        assert render(vr) == str(vr)


def test_text_next_to_verbs_and_nested_verbs() -> None:
    vr = VoiceResponse()
    vr.append("before")
    vr.say("one")
    vr.append("after & <between>")
    dial = vr.dial(caller_id="+1555")
    dial.number("+1666", send_digits="wwww1928")
    vr.leave()
    assert render(vr) == str(vr)
    ET.fromstring(render(vr))


@settings(max_examples=200, deadline=None)
@given(st.text(), st.text(), st.booleans())
def test_any_text_reads_as_the_sdk_writes_it(said: str, attribute: str, hang_up: bool) -> None:
    vr = VoiceResponse()
    vr.say(said, language=attribute or None, voice="alice")
    if hang_up:
        vr.hangup()
    assert render(vr) == str(vr)

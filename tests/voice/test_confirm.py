"""Misrecognition must not put anyone out: a doubtful hearing is confirmed before ruling."""

from __future__ import annotations

from tests.voice.conftest import Host, Phone, query
from tests.voice.test_one_phone import session_of, start_room


def after_53(host: Host) -> tuple[Phone, str]:
    phone = start_room(host, ["Ann", "Bob"])
    phone.say("fifty three")
    return phone, session_of(phone)


def assert_confirm_gather(phone: Phone, number: int) -> None:
    gather = phone.gather
    assert gather.get("input") == "speech dtmf"
    assert gather.get("numDigits") == "1"
    assert query(gather.get("action", ""))["c"] == str(number)
    hints = [h.strip() for h in gather.get("hints", "").split(",")]
    assert {"yes", "no", "fifty", "fifteen"} <= set(hints)
    assert phone.gather.find("Say") is not None


def test_a_low_confidence_mishearing_confirmed_by_keypad(host: Host) -> None:
    phone, session = after_53(host)
    logged = host.inputs(session)
    phone.say("fifteen", confidence=0.41)
    assert phone.heard == "Bob, fifteen? Say yes, or press one. If not, press two."
    assert_confirm_gather(phone, 15)
    assert host.inputs(session) == logged  # nothing ruled yet
    phone.press("1")
    said = phone.heard
    assert (
        "Bob said fifteen. Wrong: fifteen is odd, so it must be above fifty three. Bob is out."
    ) in said and "Ann wins!" in said
    table = host.table_of(session)
    assert table.state is not None and table.state.outcome is not None
    assert table.state.outcome.winner == "Ann"


def test_a_mishearing_with_no_confidence_corrected_by_voice(host: Host) -> None:
    phone, session = after_53(host)
    phone.say("fifteen", confidence=None)  # Twilio sent no Confidence: taken as low
    assert phone.heard.startswith("Bob, fifteen?")
    phone.say("no, fifty", confidence=0.62)
    assert phone.heard.startswith("Bob said fifty.")
    assert phone.heard.endswith("Ann, your turn: even above fifty, or odd below it.")
    table = host.table_of(session)
    assert table.state is not None and table.state.last == 50 and table.state.in_play == ("Ann", "Bob")


def test_no_on_the_keypad_asks_again_and_the_next_answer_counts(host: Host) -> None:
    phone, _session = after_53(host)
    phone.say("fifteen", confidence=0.3)
    phone.press("2")
    assert phone.heard.startswith("Sorry about that. Say your number again.")
    assert phone.heard.endswith("Bob, your turn: odd above fifty three, or even below it.")
    assert "c" not in query(phone.gather.get("action", ""))
    phone.say("fifty", confidence=0.9)
    assert phone.heard.startswith("Bob said fifty.")


def test_confidence_high_but_a_likely_mishearing_fits_so_it_is_asked(host: Host) -> None:
    phone, _session = after_53(host)
    phone.say("fifteen", confidence=0.97)  # 50 would fit: fifteen/fifty are easily confused
    assert phone.heard.startswith("Bob, fifteen?")
    # Silence on the question: asked again (with the question), the pending answer kept.
    phone.nothing()
    assert phone.heard.startswith("Bob, are you there? Did you say fifteen?")
    assert_confirm_gather(phone, 15)
    phone.say("yes")
    assert (
        "Bob said fifteen. Wrong: fifteen is odd, so it must be above fifty three. Bob is out."
    ) in phone.heard


def test_a_clear_mistake_is_ruled_at_once(host: Host) -> None:
    phone, _session = after_53(host)
    phone.say("fifty four", confidence=0.95)
    assert "Did you say" not in phone.heard
    assert (
        "Bob said fifty four. Wrong: fifty four is even, so it must be below fifty three. Bob is out."
    ) in phone.heard


def test_keys_other_than_yes_and_no_ask_the_question_again(host: Host) -> None:
    phone, session = after_53(host)
    phone.say("fifteen", confidence=0.2)
    logged = host.inputs(session)
    phone.press("7")
    assert phone.heard.startswith("Sorry, I didn't catch that. Did you say fifteen?")
    assert_confirm_gather(phone, 15)
    assert host.inputs(session) == logged


def test_a_question_still_open_is_asked_again_after_calling_back(host: Host) -> None:
    phone, session = after_53(host)
    phone.say("fifteen", confidence=0.3)
    phone.hang_up()
    phone.call_again()
    assert phone.heard.startswith("Welcome back.")
    assert "Did you say fifteen? Say yes, or press one." in phone.heard
    assert_confirm_gather(phone, 15)
    phone.press("2")
    assert phone.heard.startswith("Sorry about that. Say your number again.")
    table = host.table_of(session)
    assert table.state is not None and table.state.in_play == ("Ann", "Bob")

"""Each player on their own phone, callers and texters in one game, live call updates."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import host.channels.voice.prompts as vp
from tests.twilio_helpers import TEST_ACCOUNT_SID, FakeTwilio, post_signed
from tests.voice.conftest import BASE, Host, Phone, query, says

ANN, BOB, CY, DEE = "+15550200001", "+15550200002", "+15550200003", "+15550200004"


def create(host: Host, number: str, name: str, mode_words: str = "new game") -> tuple[Phone, str]:
    """Call, start a game by voice, give a name; the phone and the game's code."""
    phone = host.phone(number)
    phone.call()
    phone.say(mode_words)
    assert phone.heard == "Say your name."
    phone.say(name)
    member = host.lobby.member(number)
    assert member is not None and member.name == name
    code = host.app.state.store.session(member.session_id).code
    assert f"Your game code is {vp.spoken_code(code, 'en')}." in phone.heard
    return phone, code


def join(host: Host, number: str, name: str, code: str, keypad: bool = False) -> Phone:
    phone = host.phone(number)
    phone.call()
    phone.press("2")
    phone.say(name)
    gather = phone.gather
    assert gather.get("finishOnKey") == "#"
    assert "$OOV_CLASS_DIGIT_SEQUENCE" in gather.get("hints", "")
    if keypad:
        phone.press(code)
    else:
        phone.say(" ".join(vp.spoken_code(code, "en").split(", ")))
    assert phone.heard.startswith(f"You're in, {name}.")
    return phone


def lobby_session(host: Host, number: str) -> str:
    member = host.lobby.member(number)
    assert member is not None
    return str(member.session_id)


def test_two_callers_and_a_texter_share_one_game(host: Host, fake: FakeTwilio) -> None:
    ann, code = create(host, ANN, "Ann")
    gather = ann.gather
    assert gather.get("numDigits") == "1"
    assert gather.get("action", "").startswith(f"{BASE}/twilio/voice/lobby")
    ann.press("1")  # hear the code again
    assert f"Your game code is {vp.spoken_code(code, 'en')}." in ann.heard

    bob = join(host, BOB, "Bob", code)
    assert "Waiting for Ann to start the game." in bob.heard
    assert bob.verbs == ["Say", "Pause", "Redirect"]
    assert bob.redirect_url().startswith(f"{BASE}/twilio/voice/wait?")
    # Ann's live call was redirected by the real twilio Client to the stand-in for Twilio.
    ann.update()
    assert ann.heard.startswith("Bob joined.")
    update = fake.call_updates[-1]
    assert update["account_sid"] == TEST_ACCOUNT_SID and update["call_sid"] == ann.sid
    assert ("POST", f"/2010-04-01/Accounts/{TEST_ACCOUNT_SID}/Calls/{ann.sid}.json") in fake.requests

    # Cy texts in with the same code.
    answer = host.text(CY, f"JOIN {code} Cy")
    assert any("Cy" in m for m in answer), answer
    ann.update()
    bob.update()
    assert "Cy" in ann.heard and "Cy" in bob.heard

    session = lobby_session(host, ANN)
    ann.say("start")
    assert ann.heard.startswith("New game: Ann, Bob, Cy.")
    assert ann.heard.endswith("Ann, your turn: any number from one to one hundred.")
    bob.update()
    assert bob.heard == "New game: Ann, Bob, Cy. Waiting for Ann."
    assert any("New game" in m for m in fake.messages_to(CY))

    ann.say("fifty three")
    assert ann.heard == "Ann said fifty three. Waiting for Bob."
    assert ann.verbs == ["Say", "Pause", "Redirect"]
    bob.update()  # Bob's turn arrives on his live call, with a <Gather> to answer in
    assert bob.heard == "Ann said fifty three. Bob, your turn: odd above fifty three, or even below it."
    assert bob.gather.get("speechModel") == "numbers_and_commands"
    assert "Ann said 53." in fake.messages_to(CY)[-1]

    bob.press("67")
    assert bob.heard == "Bob said sixty seven. Waiting for Cy."
    ann.update()
    assert ann.heard == "Bob said sixty seven. Waiting for Cy."

    answer = host.text(CY, "12")
    assert any("Cy said 12." in m for m in answer), answer
    ann.update()
    assert ann.heard == "Cy said twelve. Ann, your turn: even above twelve, or odd below it."
    bob.update()
    assert bob.heard == "Cy said twelve. Waiting for Ann."
    ann.say("eleven")
    bob.update()
    assert bob.heard.endswith("Bob, your turn: odd above eleven, or even below it.")

    # Bob hangs up on his own turn: out (tournament), and the others are told.
    bob.hang_up()
    table = host.table_of(session)
    assert table.state is not None and table.state.in_play == ("Ann", "Cy")
    assert table.state.current_player == "Cy"
    ann.update()
    assert ann.heard == "Bob left and is out. Waiting for Cy."
    assert "Bob left and is out." in fake.messages_to(CY)[-1]
    member = host.lobby.member(BOB)
    assert member is not None and member.call_sid is None  # kept, so he can call back

    # Calling back while the game runs: straight back in, to listen.
    bob.call_again()
    said = bob.heard
    assert said.startswith("Welcome back. Turn ")
    assert "You're out of this game." in said and said.endswith("Waiting for Cy.")
    assert host.lobby.member(BOB).call_sid == bob.sid

    # Cy errs by text: Ann wins; both callers hear it live.
    host.text(CY, "54")
    ann.update()
    bob.update()
    for phone in (ann, bob):
        assert (
            "Cy said fifty four. Wrong: fifty four is even, so it must be below eleven. Cy is out."
        ) in phone.heard
        assert "Ann wins!" in phone.heard
        assert query(phone.gather.get("action", "")).get("end") == "1"


def test_a_caller_who_hangs_up_in_training_leaves_and_the_others_play_on(host: Host) -> None:
    ann, code = create(host, ANN, "Ann", "new training game")
    bob = join(host, BOB, "Bob", code, keypad=True)
    cy = join(host, CY, "Cy", code, keypad=True)
    session = lobby_session(host, ANN)
    ann.update()
    ann.say("start")
    bob.update()
    cy.update()
    ann.press("53")
    bob.update()
    bob.hang_up()
    table = host.table_of(session)
    assert table.state is not None and table.running and table.state.in_play == ("Ann", "Cy")
    assert table.state.current_player == "Cy"
    cy.update()
    assert cy.heard == "Bob left the game. Cy, your turn: odd above fifty three, or even below it."
    cy.say("fifty five")
    ann.update()
    assert ann.heard.endswith("Ann, your turn: odd above fifty five, or even below it.")
    # The game ends while Bob is off the line: he leaves the table with it.
    ann.say("finish")
    assert "Game over." in ann.heard
    assert host.lobby.member(BOB) is None
    assert host.table_of(session).names == ("Ann", "Cy")
    ann.say("new game")
    assert ann.heard.startswith("New game: Ann, Cy.")


def test_a_sms_player_who_calls_in_plays_by_voice_and_goes_back_to_texts(
    host: Host, fake: FakeTwilio
) -> None:
    created = host.text(DEE, "NEW Dee")
    code = next(w for m in created for w in m.replace(".", " ").split() if w.isdigit() and len(w) == 6)
    ann = join(host, ANN, "Ann", code)
    host.text(DEE, "START")
    ann.update()
    assert ann.heard.endswith("Waiting for Dee.")
    # Dee calls the same number: straight into the game, told by call from now on.
    dee = host.phone(DEE)
    dee.call()
    assert dee.heard.startswith("Welcome back.")
    assert dee.heard.endswith("Dee, your turn: any number from one to one hundred.")
    assert host.lobby.member(DEE).channel == "voice"
    dee.say("fifty three")
    ann.update()
    assert ann.heard.endswith("Ann, your turn: odd above fifty three, or even below it.")
    texts = len(fake.messages_to(DEE))
    dee.hang_up()
    member = host.lobby.member(DEE)
    assert member is not None and member.channel == "sms" and member.call_sid is None
    table = host.table_of(member.session_id)
    assert table.state is not None and table.state.in_play == ("Dee", "Ann")  # not put out
    ann.say("fifty five")
    assert "Ann said 55." in fake.messages_to(DEE)[-1]
    assert len(fake.messages_to(DEE)) == texts + 1


def test_saying_leave_on_a_call_leaves_the_game(host: Host) -> None:
    ann, code = create(host, ANN, "Ann")
    bob = join(host, BOB, "Bob", code)
    ann.update()
    ann.say("start")
    bob.update()
    ann.say("leave the game")
    assert ann.verbs == ["Say", "Hangup"]
    assert ann.heard.startswith("You left the game.")
    assert host.lobby.member(ANN) is None
    bob.update()
    assert "Ann left and is out." in bob.heard and "Bob wins!" in bob.heard


def test_a_leave_heard_unsurely_is_read_back_before_it_counts(host: Host) -> None:
    ann, code = create(host, ANN, "Ann")
    bob = join(host, BOB, "Bob", code)
    ann.update()
    ann.say("start")
    bob.update()
    ann.say("leave the game", confidence=0.3)  # the referee decides, as for any command
    assert "leave?" in ann.heard
    assert host.lobby.member(ANN) is not None
    ann.press("1")
    assert ann.verbs == ["Say", "Hangup"]
    assert ann.heard.startswith("You left the game.")
    assert host.lobby.member(ANN) is None


def test_wrong_codes(host: Host) -> None:
    phone = host.phone(BOB)
    phone.call()
    phone.press("2")
    phone.empty()  # no name given: one is made up later
    phone.press("12345")
    assert phone.heard.startswith("A game code has six digits.")
    phone.press("000000")
    assert phone.heard.startswith("I couldn't find a game with that code.")
    _ann, code = create(host, ANN, "Ann")
    phone.press(code)
    assert phone.heard.startswith("You're in, Player two.")


def test_without_credentials_updates_go_to_the_outbox_and_the_wait_loop_catches_up(
    offline: Host,
) -> None:
    ann, code = create(offline, ANN, "Ann")
    bob = join(offline, BOB, "Bob", code)
    pause = bob.twiml.find("Pause") if bob.twiml is not None else None
    assert pause is not None and pause.get("length") == str(offline.app.state.settings.voice_wait_pause)
    ann.update()  # from the outbox: stored, not sent
    assert ann.heard.startswith("Bob joined.")
    items = [i for i in offline.app.state.outbound.items(to=ann.sid) if i.kind == "call"]
    assert items and all(i.status == "stored" for i in items)
    ann.say("start")
    bob.nothing()  # Bob's waiting loop comes round: the game has begun
    assert bob.heard == "New game: Ann, Bob. Waiting for Ann."
    bob.nothing()
    assert bob.heard == "Waiting for Ann."  # nothing new: a short line, never dead silence
    ann.say("fifty three")
    bob.nothing()
    assert bob.heard == "Ann said fifty three. Bob, your turn: odd above fifty three, or even below it."
    bob.say("fifty five")
    assert bob.heard == "Bob said fifty five. Waiting for Ann."


def test_a_forged_request_gets_403_and_changes_nothing(host: Host) -> None:
    phone = host.phone(ANN)
    params = phone.params()
    response = host.client.post(
        "/twilio/voice", data=params, headers={"X-Twilio-Signature": "bm90IGEgc2lnbmF0dXJl"}
    )
    assert response.status_code == 403
    signed_elsewhere = post_signed(host.client, "/twilio/voice", params, "not-the-token", BASE)
    assert signed_elsewhere.status_code == 403
    assert host.app.state.store.execute("SELECT COUNT(*) AS n FROM voice_calls")[0]["n"] == 0


def test_a_failure_inside_is_an_apology_not_a_5xx(host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    phone, code = create(host, ANN, "Ann")
    bob = join(host, BOB, "Bob", code)
    phone.update()
    phone.say("start")

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(host.referee, "handle", broken)
    root = phone.say("fifty three")
    assert says(root).startswith("Sorry, something went wrong.")
    assert phone.redirect_url() == f"{BASE}/twilio/voice?again=1"
    monkeypatch.undo()
    phone.nothing()  # back in through the front door: straight into the game
    assert phone.heard.startswith("Welcome back.")
    assert phone.heard.endswith("Ann, your turn: any number from one to one hundred.")
    assert bob.twiml is not None and ET.tostring(bob.twiml)


def test_a_call_that_vanished_without_a_status_callback_still_times_out(host: Host, fake: FakeTwilio) -> None:
    ann, code = create(host, ANN, "Ann")
    bob = join(host, BOB, "Bob", code)
    ann.update()
    ann.say("start")
    ann.say("fifty three")
    session = lobby_session(host, ANN)
    limit = host.app.state.settings.voice_turn_timeout
    assert host.table_of(session).config.turn_timeout == limit
    fake.fail_calls.add(bob.sid)  # Bob's phone died; Twilio never called /status
    timer = host.app.state.turn_timer
    host.clock.advance(limit / 2)
    assert [a.kind for a in timer.tick()] == ["reminder"]
    host.app.state.outbound.flush()  # the outbox sender's work
    failed = [i for i in host.app.state.outbound.items(to=bob.sid) if i.kind == "call"]
    assert failed[-1].status == "dead"  # answered 404 by Twilio: logged, nothing breaks
    host.clock.advance(limit / 2)
    assert [a.kind for a in timer.tick()] == ["timeout"]
    ann.update()
    assert "Bob ran out of time and is out." in ann.heard and "Ann wins!" in ann.heard


def test_a_one_phone_game_has_no_turn_clock(host: Host) -> None:
    phone = host.phone(ANN)
    phone.call()
    phone.press("3")
    phone.press("2")
    phone.empty()
    phone.empty()
    session = query(phone.gather.get("action", ""))["t"].split(".")[0]
    assert host.table_of(session).config.turn_timeout is None
    host.clock.advance(3600)
    assert host.app.state.turn_timer.tick() == []


def test_callers_who_withhold_their_number_are_told_apart(host: Host) -> None:
    _ann, code = create(host, ANN, "Ann")
    first = join(host, "Anonymous", "Bob", code)
    second = join(host, "+266696687", "Cy", code, keypad=True)
    session = lobby_session(host, ANN)
    assert host.table_of(session).names == ("Ann", "Bob", "Cy")
    assert host.lobby.member(f"call:{first.sid}").name == "Bob"
    assert host.lobby.member(f"call:{second.sid}").name == "Cy"


def test_a_number_that_stopped_texts_still_hears_moves_on_a_call(host: Host) -> None:
    """STOP is about text messages; the same number playing by phone keeps its updates."""
    host.text(BOB, "STOP")
    ann, code = create(host, ANN, "Ann")
    bob = join(host, BOB, "Bob", code)
    ann.say("start")
    bob.update()
    assert bob.heard.startswith("New game: Ann, Bob.")
    ann.say("fifty three")
    bob.update()
    assert "Ann said fifty three." in bob.heard


def test_card_games_are_not_joined_or_played_by_phone(host: Host) -> None:
    """Calls speak Up-or-Down only: a !nversion code or a card player's call is told so,
    and nothing in the card game changes."""
    created = host.text(DEE, "NEW INVERSION Dee")
    code = next(
        w
        for m in created
        for w in m.replace(".", " ").replace(",", " ").split()
        if w.isdigit() and len(w) == 6
    )
    member = host.lobby.member(DEE)
    assert member is not None
    before = host.inputs(member.session_id)
    caller = host.phone(BOB)
    caller.call()
    caller.press("2")
    caller.say("Bob")
    caller.press(code)
    assert caller.heard.startswith("That game is played by text message or at the table")
    assert host.lobby.member(BOB) is None
    dee = host.phone(DEE)
    dee.call()
    assert "played by text message" in dee.heard and dee.verbs[-1] == "Hangup"
    assert host.lobby.member(DEE) is not None and host.inputs(member.session_id) == before

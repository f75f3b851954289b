"""Issue 43, item 5: caller ID is a player's identity only with Twilio's full attestation
(``StirVerstat`` TN-Validation-Passed-A); otherwise the call must key in the seat's PIN,
texted to that number when it joined (``host/pins.py``). Every webhook here is a signed
form post (the SDK's ``RequestValidator``), as Twilio sends it; ``voice_spoof.py`` shows
the same against a server.
"""

from __future__ import annotations

import json
import re

import pytest

from host.lobby import MAX_FAILED_JOINS
from tests.twilio_helpers import FakeTwilio
from tests.voice.conftest import Host

ANN, BOB, CY, EVE = "+15550103001", "+15550103002", "+15550103003", "+15550103004"
PIN = re.compile(r"Your PIN for calls: (\d{6})\.")


def pin_in(texts: list[str]) -> str:
    found = [m[1] for t in texts for m in [PIN.search(t)] if m]
    assert len(found) == 1, texts
    return found[0]


def sms_game(host: Host) -> tuple[str, str, str]:
    """Ann and Bob by text, Ann has said 50 (after 50, Bob's 51 would be a mistake and put
    him out). The code, and Bob's and Ann's PINs as their phones got them."""
    created = host.text(ANN, "NEW Ann")
    code = created[0].split()[1]
    bob_pin = pin_in(host.text(BOB, f"JOIN {code} Bob"))
    host.text(ANN, "START")
    host.text(ANN, "50")
    return code, bob_pin, pin_in(created)


def bob_still_in(host: Host) -> None:
    member = host.lobby.member(BOB)
    table = host.table_of(member.session_id)
    assert table.state.in_play == ("Ann", "Bob") and table.current_player == "Bob"
    assert table.state.turn == 2


@pytest.mark.parametrize(
    "verstat", [None, "TN-Validation-Passed-B", "TN-Validation-Passed-C", "No-TN-Validation"]
)
def test_a_spoofed_caller_without_attestation_or_pin_cannot_play_bobs_move(
    host: Host, verstat: str | None
) -> None:
    code, _, _ = sms_game(host)
    spoof = host.phone(BOB)
    spoof.stir_verstat = verstat
    spoof.call()
    assert spoof.heard.startswith("This number plays in a game, but its caller ID is not verified.")
    assert "your turn" not in spoof.heard
    spoof.press("51#")  # the move, keyed where the repro keyed it
    assert spoof.heard.startswith("That is not this number's PIN.")
    spoof.press(f"{code}#")  # the join code every player and spectator knows
    assert spoof.heard.startswith("That is not this number's PIN.")
    spoof.say("fifty one")
    assert "Goodbye" in spoof.heard and spoof.verbs[-1] == "Hangup"  # three tries
    bob_still_in(host)
    assert host.lobby.member(BOB).call_sid is None  # the seat never went to that call


def test_wrong_pins_count_against_the_numbers_budget(host: Host) -> None:
    sms_game(host)
    for _ in range(MAX_FAILED_JOINS // 2 + 1):
        spoof = host.phone(BOB)
        spoof.stir_verstat = None
        spoof.call()
        spoof.press("000000#")
        spoof.press("111111#")
    spoof = host.phone(BOB)
    spoof.stir_verstat = None
    spoof.call()
    spoof.press("222222#")
    assert "Too many wrong codes" in spoof.heard and spoof.verbs[-1] == "Hangup"
    bob_still_in(host)


def test_bob_himself_plays_by_call_with_his_pin(host: Host) -> None:
    _, bob_pin, _ = sms_game(host)
    bob = host.phone(BOB)
    bob.stir_verstat = None  # his carrier does not attest: the PIN proves it is him
    bob.call()
    bob.say(" ".join(bob_pin))  # spoken digit by digit
    assert "Welcome back" in bob.heard and "Bob, your turn" in bob.heard
    bob.say("forty nine")
    assert "Bob said forty nine." in bob.heard


def test_a_full_attestation_needs_no_pin(host: Host) -> None:
    sms_game(host)
    bob = host.phone(BOB)
    bob.stir_verstat = "TN-Validation-Passed-A"
    bob.call()
    assert "Welcome back" in bob.heard and "PIN" not in bob.heard


def test_a_caller_who_joins_unattested_gets_the_pin_by_text_never_on_the_call(
    host: Host, fake: FakeTwilio
) -> None:
    code = host.text(ANN, "NEW Ann")[0].split()[1]
    cy = host.phone(CY)
    cy.stir_verstat = None
    cy.call()
    cy.press("2")
    cy.say("Cy")
    cy.press(f"{code}#")
    assert cy.heard.startswith("You're in, Cy.")
    assert host.lobby.member(CY).name == "Cy"  # seated as the number it called from
    cy_pin = pin_in(fake.messages_to(CY))  # texted to that number
    assert cy_pin not in cy.heard and "PIN" not in cy.heard
    assert fake.messages[-1]["From"] == "+15005550006"  # from the number Cy called
    again = host.phone(CY)  # a second call (the first dropped, say)
    again.stir_verstat = None
    again.call()
    assert "PIN" in again.heard
    again.press(f"{cy_pin}#")
    assert "Welcome back" in again.heard


def test_no_one_else_learns_a_pin(host: Host, fake: FakeTwilio) -> None:
    code, bob_pin, ann_pin = sms_game(host)
    eve = host.phone(EVE)  # makes a game by call: her PIN goes out by text
    eve.stir_verstat = None
    eve.call()
    eve.press("1")
    eve.say("Eve")
    eve_pin = pin_in(fake.messages_to(EVE))
    assert eve_pin not in eve.heard
    member = host.lobby.member(BOB)
    store = host.app.state.store
    log = json.dumps([i.body for i in store.inputs(member.session_id)])
    page = host.client.get(f"/t/{code}").text
    told_others = {to: fake.messages_to(to) for to in (ANN, BOB)}
    for pin, owner in ((ann_pin, ANN), (bob_pin, BOB), (eve_pin, EVE)):
        assert pin not in log and pin not in page  # the session's log, the spectators' page
        assert all(pin not in t for to, texts in told_others.items() if to != owner for t in texts)
        assert pin not in json.dumps(
            [r["pin_hash"] for r in store.execute("SELECT pin_hash FROM members")]
        )  # only hashes are kept

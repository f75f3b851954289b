"""Issue 12, item 4, and issue 43, item 5: caller ID is a player's identity only when
Twilio attests it fully (``StirVerstat`` TN-Validation-Passed-A), and callers who are only
their call share one budget of wrong join codes.

Any other call is a guest: calling from a seated player's number, it must key in the PIN
texted to that number when it joined (the join code, which every player and spectator
knows, proves nothing) before it plays as them (more in tests/voice/test_caller_pin.py).
``GAMEHOST_VOICE_CALLER_ID=trust`` takes any caller ID as the number."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from host.lobby import MAX_FAILED_UNIDENTIFIED
from tests.twilio_helpers import FakeTwilio
from tests.voice.conftest import Host, build

ANN, BOB = "+15550101001", "+15550101002"


@pytest.fixture
def host(tmp_path: Path, fake: FakeTwilio) -> Iterator[Host]:
    built = build(tmp_path, fake)
    yield built
    built.app.state.store.close()


@pytest.fixture
def trusting(tmp_path: Path, fake: FakeTwilio) -> Iterator[Host]:
    built = build(tmp_path, fake, voice_caller_id="trust")
    yield built
    built.app.state.store.close()


def game_by_text(host: Host) -> tuple[str, str]:
    """Ann's game with Bob, by text: its code and Ann's PIN (texted to her with the game)."""
    created = host.text(ANN, "NEW Ann")[0]
    code, pin = created.split()[1], created.rsplit(" ", 1)[1].rstrip(".")
    host.text(BOB, f"JOIN {code} Bob")
    host.text(ANN, "START")
    return code, pin


def test_an_unattested_caller_id_must_give_the_seats_pin_to_play(host: Host) -> None:
    code, pin = game_by_text(host)
    caller = host.phone(ANN)
    caller.stir_verstat = "TN-Validation-Failed"
    caller.call()
    assert "caller ID is not verified" in caller.heard and "PIN" in caller.heard
    caller.press(f"{code}#")  # the join code, known to every player: not the PIN
    assert caller.heard.startswith("That is not this number's PIN.")
    caller.press(f"{pin}#")
    assert "Welcome back" in caller.heard and "any number from one to one hundred" in caller.heard
    caller.say("fifty three")
    assert "Ann said fifty three." in caller.heard


def test_an_attested_caller_id_is_the_player(host: Host) -> None:
    game_by_text(host)
    caller = host.phone(ANN)
    caller.stir_verstat = "TN-Validation-Passed-A"
    caller.call()
    assert "Welcome back" in caller.heard and "caller ID" not in caller.heard


def test_partial_attestation_is_no_attestation(host: Host) -> None:
    game_by_text(host)
    caller = host.phone(ANN)
    caller.stir_verstat = "TN-Validation-Passed-B"  # the carrier knows the caller, not the number
    caller.call()
    assert "caller ID is not verified" in caller.heard


def test_caller_id_is_trusted_only_when_set_to_trust(trusting: Host) -> None:
    game_by_text(trusting)
    caller = trusting.phone(ANN)
    caller.stir_verstat = "TN-Validation-Failed"
    caller.call()
    assert "Welcome back" in caller.heard


def test_withheld_numbers_share_one_budget_of_wrong_codes(host: Host) -> None:
    for _ in range(MAX_FAILED_UNIDENTIFIED):
        caller = host.phone("anonymous")
        caller.call()
        caller.press("2")  # join
        caller.empty()  # no name: Player N
        caller.press("111111#")
    fresh = host.phone("anonymous")
    fresh.call()
    fresh.press("2")
    fresh.empty()
    fresh.press("111111#")
    assert "Too many wrong codes" in fresh.heard

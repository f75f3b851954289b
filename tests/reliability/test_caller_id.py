"""Issue 12, item 4: caller ID is identity only when the setting trusts it, and callers who
are only their call share one budget of wrong join codes.

With ``GAMEHOST_VOICE_CALLER_ID=attested`` a call whose number Twilio does not mark as
attested (``StirVerstat``) is a guest: calling from a seated player's number, it must give
that game's join code before it plays as them."""

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
def strict(tmp_path: Path, fake: FakeTwilio) -> Iterator[Host]:
    built = build(tmp_path, fake, voice_caller_id="attested")
    yield built
    built.app.state.store.close()


def game_by_text(host: Host) -> str:
    code = host.text(ANN, "NEW Ann")[0].split()[1]
    host.text(BOB, f"JOIN {code} Bob")
    host.text(ANN, "START")
    return code


def test_an_unattested_caller_id_must_give_the_code_to_play(strict: Host) -> None:
    code = game_by_text(strict)
    caller = strict.phone(ANN)
    caller.stir_verstat = "TN-Validation-Failed"
    caller.call()
    assert "caller ID is not verified" in caller.heard
    caller.press("999999#")  # a wrong code: still a guest
    assert caller.heard.startswith("I couldn't find a game with that code.")
    caller.press(f"{code}#")
    assert "Welcome back" in caller.heard and "any number from one to one hundred" in caller.heard
    caller.say("fifty three")
    assert "Ann said fifty three." in caller.heard


def test_an_attested_caller_id_is_the_player(strict: Host) -> None:
    game_by_text(strict)
    caller = strict.phone(ANN)
    caller.stir_verstat = "TN-Validation-Passed-A"
    caller.call()
    assert "Welcome back" in caller.heard and "caller ID" not in caller.heard


def test_caller_id_is_trusted_by_default(host: Host) -> None:
    game_by_text(host)
    caller = host.phone(ANN)
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

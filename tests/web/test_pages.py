"""The home page and the live table page, for games played over signed SMS."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from games.base import all_games
from host.cli import app
from host.session import SessionConfig
from tests.clock import Clock
from tests.sms.conftest import PHONES, Sms, build
from tests.twilio_helpers import FakeTwilio
from tests.web.conftest import ADMIN


def code_of(sms: Sms, phone: str) -> str:
    member = sms.app.state.lobby.member(phone)
    assert member is not None
    row = sms.app.state.store.session(member.session_id)
    assert row is not None and row.code is not None
    return str(row.code)


def text_of(html: str) -> str:
    """The page's words without tags, entities left as they are."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_home_lists_every_registered_game_and_how_to_start_one(sms: Sms) -> None:
    page = sms.client.get("/")
    assert page.status_code == 200
    for spec in all_games():
        assert spec.title in page.text
        assert f"gamehost play {spec.name} --players" in page.text
    assert "NEW BLOFA" in page.text
    assert "Sessions in progress" not in page.text


def test_the_home_page_examples_seat_each_game(sms: Sms, tmp_path: Path) -> None:
    # Blófa needs four: "--players Ann,Bob" exited 2. Each example runs as it stands.
    commands = re.findall(r"<kbd>gamehost (play [^<]+)</kbd>", sms.client.get("/").text)
    assert len(commands) == len(all_games())
    for command in commands:
        result = CliRunner().invoke(app, [*command.split(), "--db", str(tmp_path / "examples.db")], input="")
        assert result.exit_code == 0, f"gamehost {command}: {result.output}"
    assert "play blofa --players Ann,Bob,Cy,Dee" in commands


def test_the_home_page_has_a_favicon(sms: Sms) -> None:
    icon = sms.client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.text.lstrip().startswith("<svg")
    assert '<link rel="icon" href="/static/web/favicon.svg"' in sms.client.get("/").text
    assert sms.client.get("/static/web/favicon.svg").status_code == 200


@pytest.mark.parametrize(
    "how",
    [
        {},
        {"params": {"token": "wrong"}},
        {"headers": {"Authorization": "Bearer wrong"}},
        {"headers": {"Authorization": f"Basic {ADMIN}"}},
        {"params": {"token": ""}},
    ],
    ids=["none", "wrong-query", "wrong-bearer", "not-bearer", "empty"],
)
def test_the_session_list_needs_the_admin_token(sms: Sms, how: dict[str, dict[str, str]]) -> None:
    sms.new_game(2)
    page = sms.client.get("/", **how)  # type: ignore[arg-type]
    assert page.status_code == 200
    assert "Sessions in progress" not in page.text
    assert code_of(sms, PHONES[0]) not in page.text


@pytest.mark.parametrize(
    "how",
    [{"params": {"token": ADMIN}}, {"headers": {"Authorization": f"Bearer {ADMIN}"}}],
    ids=["query", "bearer"],
)
def test_the_operator_sees_the_sessions_in_progress(sms: Sms, how: dict[str, dict[str, str]]) -> None:
    sms.new_game(2)
    code = code_of(sms, PHONES[0])
    page = sms.client.get("/", **how)  # type: ignore[arg-type]
    assert "Sessions in progress" in page.text
    assert f'href="/t/{code}"' in page.text
    assert "Ann, Bob" in page.text


@pytest.mark.parametrize("token", ["", "   "])
def test_an_empty_admin_token_never_shows_the_list(
    tmp_path: Path, fake: FakeTwilio, clock: Clock, token: str
) -> None:
    host = build(tmp_path, fake, clock, admin_token=token)
    try:
        host.new_game(2)
        for how in (
            {},
            {"params": {"token": ""}},
            {"headers": {"Authorization": "Bearer "}},
            {"params": {"token": token}},
        ):
            page = host.client.get("/", **how)  # type: ignore[arg-type]
            assert "Sessions in progress" not in page.text
    finally:
        host.app.state.store.close()


def test_the_home_form_opens_a_game_by_its_code(sms: Sms) -> None:
    sms.new_game(2)
    code = code_of(sms, PHONES[0])
    opened = sms.client.get("/t", params={"code": f" {code} "}, follow_redirects=False)
    assert (opened.status_code, opened.headers["location"]) == (303, f"/t/{code}")
    # As SMS JOIN takes it and people read it out: "684 527".
    for typed in (f"{code[:3]} {code[3:]}", f"{code[:3]}-{code[3:]}", f" {code[:3]}  {code[3:]} "):
        opened = sms.client.get("/t", params={"code": typed}, follow_redirects=False)
        assert opened.headers["location"] == f"/t/{code}", typed
    assert sms.client.get("/t", params={"code": "x/../y"}, follow_redirects=False).headers["location"] == "/"


def test_an_unknown_code_is_a_404_page_that_says_so(sms: Sms) -> None:
    for code in ("123456", "abc", "1234567"):
        page = sms.client.get(f"/t/{code}")
        assert page.status_code == 404
        assert "No game has the code" in page.text
    assert sms.client.get("/t/123456/events").status_code == 404


def test_the_table_page_of_an_sms_game(sms: Sms) -> None:
    phones = sms.new_game(3)
    code = code_of(sms, phones[0])
    first = sms.table(phones[0]).current_player
    assert first is not None
    sms.text(phones[["Ann", "Bob", "Cy"].index(first)], "50")
    table = sms.table(phones[0])
    page = sms.client.get(f"/t/{code}")
    assert page.status_code == 200
    words = text_of(page.text)
    for name in ("Ann", "Bob", "Cy"):
        assert name in words
    assert f"{first} said 50." in words  # the last ruling
    assert table.current_player is not None
    assert f'<p id="to-act" class="names">{table.current_player}</p>' in page.text  # whose turn
    assert "An even number above 50 or an odd number below 50." in words  # the prompt
    assert "Last number 50" in words
    for phone in phones:  # a phone number is nobody else's business
        assert phone not in page.text


def test_names_are_escaped(sms: Sms) -> None:
    # SMS cleans names; a table or terminal game may seat anything, so the page escapes.
    referee = sms.app.state.referee
    referee.create(SessionConfig(), ["<i>Ann</i>", "Bob"], code="654321")
    page = sms.client.get("/t/654321")
    assert page.status_code == 200
    assert "&lt;i&gt;Ann&lt;/i&gt;" in page.text
    assert "<i>Ann" not in page.text


def blofa_game(sms: Sms) -> tuple[list[str], dict[str, str]]:
    names = ["Ann", "Bob", "Cy", "Dana"]
    phones = sms.new_game(4, mode="BLOFA", names=names)
    return phones, dict(zip(names, phones, strict=True))


def test_blofa_shows_the_declaration_and_no_card_value(sms: Sms) -> None:
    phones, phone_of = blofa_game(sms)
    code = code_of(sms, phones[0])
    table = sms.table(phones[0])
    player = table.current_player
    assert player is not None
    hand = table.state.hands[table.state.players.index(player)]
    colour = "blue" if hand.blue else "yellow"
    sms.text(phone_of[player], f"one {colour} card, two")
    page = sms.client.get(f"/t/{code}")
    words = text_of(page.text)
    assert f"{player} plays one {colour} card, declares 2." in words
    # The board is the public one: VP, hand and pile counts, captured rule cards; never a
    # card's value (the host does not know it before a challenge, and shows none after).
    for label in ("VP", "Hand", "Piles", "Last declaration", "Rule cards"):
        assert label in words
    assert "value" not in words.lower()
    for phone in phones:
        assert phone not in page.text


def test_after_a_restart_the_page_is_folded_from_the_log(sms: Sms, tmp_path: Path, clock: Clock) -> None:
    phones = sms.new_game(2)
    code = code_of(sms, phones[0])
    first = sms.table(phones[0]).current_player
    assert first is not None
    sms.text(phones[["Ann", "Bob"].index(first)], "50")
    before = sms.client.get(f"/t/{code}").text
    again = build(tmp_path, None, clock, admin_token=ADMIN)  # a new server on the same database
    try:
        after = again.client.get(f"/t/{code}").text
    finally:
        again.app.state.store.close()
    assert f"{first} said 50." in text_of(after)
    assert after == before

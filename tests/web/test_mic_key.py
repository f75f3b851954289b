"""Issue 25, hole 2: the table microphone of a game's page plays the current player's moves,
so the join code (six digits) and an Origin header (any client but a browser sets it at
will) are not enough. It takes a key the server minted for that game: a link the host
prints (``gamehost mic CODE``), traded once for a cookie. A game can have no table
microphone at all, and join codes on the web are rate-limited per client like JOIN."""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from typer.testing import CliRunner

from host import cli
from host.speech.tts import synthesize
from tests.sms.conftest import Sms
from tests.web.mic import ORIGIN, Mic, carrying, open_link, table_mic
from tests.web.test_pages import code_of

pytestmark = pytest.mark.timeout(120)


def _listen(client: TestClient, code: str, cookie: str | None) -> bool:
    """Whether the microphone's handshake is accepted (the host says it is ready)."""
    headers = {"origin": ORIGIN, **(carrying(cookie) if cookie else {})}
    try:
        with client.websocket_connect(f"/t/{code}/listen", headers=headers) as ws:
            return bool(ws.receive_json()["type"] == "ready")
    except WebSocketDisconnect as exc:
        assert exc.code == 1008
        return False


def test_the_join_code_and_origin_do_not_make_a_microphone(sms: Sms) -> None:
    """The repro: a stranger with the code, as the table microphone, playing Bob's move in a
    game Bob plays by text."""
    ann, _bob = sms.new_game(2)
    code = code_of(sms, ann)
    sms.text(ann, "50")
    assert not _listen(sms.client, code, None)
    assert not _listen(sms.client, code, "made-up-key")
    assert sms.table(ann).state.last == 50  # type: ignore[union-attr]
    page = sms.client.get(f"/t/{code}")
    assert 'id="listen"' not in page.text  # no button without the key


def test_the_link_is_traded_once_for_a_cookie(sms: Sms) -> None:
    from host.channels.web.mic import COOKIE, mint_link_key

    ann, _bob = sms.new_game(2)
    code = code_of(sms, ann)
    row = sms.app.state.store.session_by_code(code)
    key = mint_link_key(sms.app.state.store, row.id)
    opened = sms.client.get(f"/t/{code}?mic={key}", follow_redirects=False)
    assert opened.status_code == 303 and opened.headers["location"] == f"/t/{code}"  # the key leaves the bar
    set_cookie = opened.headers["set-cookie"].lower()
    for attribute in ("httponly", "samesite=lax", f"path=/t/{code}", "secure", "max-age=86400"):
        assert attribute in set_cookie, set_cookie
    cookie = opened.cookies[COOKIE]
    assert cookie != key and len(cookie) >= 40
    assert _listen(sms.client, code, cookie)
    again = sms.client.get(f"/t/{code}?mic={key}", follow_redirects=False)  # spent
    assert again.status_code == 200 and "set-cookie" not in again.headers
    assert "was used already" in again.text and 'id="listen"' not in again.text
    stored = sms.app.state.store.execute("SELECT key_hash FROM mic_keys")
    assert stored and all(key not in r["key_hash"] and cookie not in r["key_hash"] for r in stored)


def test_a_new_link_revokes_the_microphone_made_before(sms: Sms) -> None:
    ann, _bob = sms.new_game(2)
    code = code_of(sms, ann)
    first = open_link(sms, code)
    second = open_link(sms, code)
    assert not _listen(sms.client, code, first)
    assert _listen(sms.client, code, second)


def test_a_key_works_for_its_own_game_only(sms: Sms) -> None:
    from host.channels.web.mic import mint_link_key

    ann, _bob = sms.new_game(2)
    mine = code_of(sms, ann)
    other = sms.text("+15550109001", "NEW Cy")[0].split()[1]
    sms.text("+15550109002", f"JOIN {other} Dee")
    sms.text("+15550109001", "START")
    key = open_link(sms, mine)
    assert not _listen(sms.client, other, key)
    row = sms.app.state.store.session_by_code(other)
    link_of_other = mint_link_key(sms.app.state.store, row.id)
    crossed = sms.client.get(f"/t/{mine}?mic={link_of_other}", follow_redirects=False)
    assert "set-cookie" not in crossed.headers


def test_a_game_can_have_no_table_microphone(sms: Sms, tmp_path: Path) -> None:
    from host.channels.web.mic import COOKIE

    ann, _bob = sms.new_game(2)
    code = code_of(sms, ann)
    cookie = open_link(sms, code)
    runner = CliRunner()
    off = runner.invoke(cli.app, ["mic", code, "--off", "--db", str(sms.path)])
    assert off.exit_code == 0 and "no table microphone" in off.output, off.output
    assert not _listen(sms.client, code, cookie)
    refused = runner.invoke(cli.app, ["mic", code, "--db", str(sms.path)])
    assert refused.exit_code == 2 and "--on" in refused.output, refused.output
    on = runner.invoke(cli.app, ["mic", code, "--on", "--db", str(sms.path)])
    assert on.exit_code == 0, on.output
    link = next(word for word in on.output.split() if "?mic=" in word)
    assert link.startswith(f"http://127.0.0.1:8000/t/{code}?mic=")
    opened = sms.client.get(link.removeprefix("http://127.0.0.1:8000"), follow_redirects=False)
    assert _listen(sms.client, code, opened.cookies[COOKIE])
    assert not _listen(sms.client, code, cookie)  # the old one stays revoked


def test_the_cli_says_when_there_is_no_such_game(sms: Sms) -> None:
    result = CliRunner().invoke(cli.app, ["mic", "000000", "--db", str(sms.path)])
    assert result.exit_code == 2 and "no open game has the code 000000" in result.output


GUESSES = 10  # wrong codes a client may try in an hour (host/channels/web/codes.py MAX_FAILED)


def test_wrong_codes_on_the_web_are_rate_limited_like_join(sms: Sms) -> None:
    ann, _bob = sms.new_game(2)
    code = code_of(sms, ann)
    assert sms.client.get(f"/t/{code}").status_code == 200
    wrong = [c for c in (f"{n:06d}" for n in range(100000, 100000 + GUESSES + 1)) if c != code]
    for guess in wrong[:GUESSES]:
        assert sms.client.get(f"/t/{guess}").status_code == 404
    locked = sms.client.get(f"/t/{code}")  # now even the right code gets no answer
    assert locked.status_code == 429 and "Too many wrong codes" in locked.text
    assert int(locked.headers["retry-after"]) > 0
    assert sms.client.get(f"/t/{code}/events").status_code == 429
    cookie = open_key_without_the_page(sms, code)
    assert not _listen(sms.client, code, cookie)
    # Another client is not locked out by this one.
    other = TestClient(sms.app, client=("203.0.113.7", 40000))
    assert other.get(f"/t/{code}").status_code == 200
    from host.channels.web import codes

    assert codes.MAX_FAILED == GUESSES


def open_key_without_the_page(sms: Sms, code: str) -> str:
    """A valid cookie key minted directly (the locked-out client cannot open its link)."""
    from host.channels.web.mic import mint_link_key, redeem_link

    row = sms.app.state.store.session_by_code(code)
    cookie = redeem_link(sms.app.state.store, row.id, mint_link_key(sms.app.state.store, row.id))
    assert cookie is not None
    return cookie


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("203.0.113.7", "web:203.0.113.7"),
        ("2001:db8:1:2:aaaa::1", "web:2001:db8:1:2::/64"),
        ("2001:db8:1:2:bbbb::9", "web:2001:db8:1:2::/64"),  # one household's /64
        ("::ffff:198.51.100.4", "web:198.51.100.4"),
        ("testclient", "web:testclient"),
    ],
)
def test_whose_budget_a_guess_counts_against(host: str, key: str) -> None:
    from host.limits.address import client_key

    assert client_key(host) == key


def test_a_stranger_is_heard_only_with_the_key(sms: Sms) -> None:
    """The repro's end to end: with the key the page's microphone rules the move."""
    from host.channels.web.mic import set_table_mic

    ann, _bob = sms.new_game(2)
    code = code_of(sms, ann)
    sms.text(ann, "50")
    cookie = open_link(sms, code)
    headers = {"origin": ORIGIN, **carrying(cookie)}
    with sms.client.websocket_connect(f"/t/{code}/listen", headers=headers) as ws:
        reply = Mic(ws).say(b"\0\0" * 16000 + synthesize("fifty two", "en", 16000) + b"\0\0" * 32000)
    assert reply["accepted"] and "Bob said 52." in reply["lines"], reply
    set_table_mic(sms.app.state.store, sms.app.state.store.session_by_code(code).id, False)
    assert not _listen(sms.client, code, cookie)


def _closed_within(ws: Any, seconds: float) -> int | None:
    """The code the server closes ``ws`` with within ``seconds`` (other frames skipped),
    or None if it stays open."""
    closed: queue.Queue[int] = queue.Queue()

    def wait() -> None:
        with contextlib.suppress(Exception):
            while True:
                message = ws.receive()
                if message["type"] == "websocket.close":
                    closed.put(int(message.get("code", 1000)))
                    return

    threading.Thread(target=wait, daemon=True).start()
    try:
        return closed.get(timeout=seconds)
    except queue.Empty:
        return None


@pytest.mark.parametrize("how", ["off", "new link"])
def test_revoking_the_microphone_closes_the_open_one(sms: Sms, how: str) -> None:
    """Issue 43, item 3: revoked from another process (the CLI opens the database itself),
    the microphone already streaming stops within a second, not at its next handshake."""
    ann, _bob = sms.new_game(2)
    code = code_of(sms, ann)
    with table_mic(sms, code) as mic:
        args = ["mic", code, "--off"] if how == "off" else ["mic", code]
        done = CliRunner().invoke(cli.app, [*args, "--db", str(sms.path)])
        assert done.exit_code == 0, done.output
        started = time.monotonic()
        code_closed = _closed_within(mic.ws, 5.0)
        took = time.monotonic() - started
    assert code_closed == 1008, f"the revoked microphone was still open after 5 s ({code_closed})"
    assert took < 2.0, f"the revoked microphone closed only after {took:.1f} s"

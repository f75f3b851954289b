"""The table microphone of a game's page, driven the way the page drives it: a WebSocket to
``/t/<code>/listen`` from a page of this server, 16 kHz pcm16 in 20 ms frames, JSON replies
back (and WAV frames of the host's voice, skipped here)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.sms.conftest import Sms

ORIGIN = "https://testserver"  # the TestClient's Host; TLS at a proxy in front
FRAME = 640  # 20 ms of 16 kHz pcm16


class Mic:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.ready = ws.receive_json()
        assert self.ready["type"] == "ready", self.ready

    def say(self, pcm: bytes) -> dict[str, Any]:
        """Stream ``pcm``; the first reply the host rules on it."""
        for i in range(0, len(pcm), FRAME):
            self.ws.send_bytes(pcm[i : i + FRAME])
        while True:
            message = self.ws.receive()
            text = message.get("text")
            if text and json.loads(text).get("type") in ("reply", "error"):
                found: dict[str, Any] = json.loads(text)
                return found


def session_code(host: Sms) -> str:
    """The join code of the only game in ``host``."""
    rows = host.app.state.store.execute("SELECT code FROM sessions WHERE code IS NOT NULL")
    assert len(rows) == 1
    return str(rows[0]["code"])


def open_link(host: Sms, code: str) -> str:
    """What the table does with the host's microphone link: open it (``gamehost mic``
    mints it); the client keeps the cookie it sets. Returns the cookie's value."""
    from host.channels.web.mic import COOKIE, link, mint_link_key

    row = host.app.state.store.session_by_code(code)
    assert row is not None
    key = mint_link_key(host.app.state.store, row.id)
    opened = host.client.get(link("", code, key), follow_redirects=False)
    assert opened.status_code == 303 and opened.headers["location"] == f"/t/{code}", opened.text
    cookie = opened.cookies.get(COOKIE)
    assert cookie
    # The cookie is Secure and TestClient speaks plain http (as a TLS proxy would behind
    # it): its jar will not send it, so requests carry it by hand (``carrying``).
    host.client.cookies.clear()
    return str(cookie)


def carrying(cookie: str) -> dict[str, str]:
    """Request headers carrying the table microphone's cookie."""
    from host.channels.web.mic import COOKIE

    return {"cookie": f"{COOKIE}={cookie}"}


@contextmanager
def table_mic(host: Sms, code: str | None = None) -> Iterator[Mic]:
    """The game's page made its table microphone (its link opened), listening."""
    code = code or session_code(host)
    cookie = open_link(host, code)
    headers = {"origin": ORIGIN, **carrying(cookie)}
    with host.client.websocket_connect(f"/t/{code}/listen", headers=headers) as ws:
        yield Mic(ws)

"""Issue 25, hole 3, as a crash: the page's table microphone hears Bob's move, the server
commits it and dies (SIGKILL-like) before announcing it. A restarted server on the same
database must still tell Ann: her text was written in the move's own transaction. (Before,
it was queued after the commit, in a second transaction, and this lost it.)"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from pathlib import Path

import pytest
import websockets

from host.speech.tts import synthesize
from host.store import Store
from tests.twilio_helpers import FakeTwilio
from tests.web.browser import Server, free_port

pytestmark = pytest.mark.timeout(180)
HERE = Path(__file__).parent
ANN, BOB = "+15550400001", "+15550400002"


class Crashing(Server):
    def launch(self) -> Server:
        import subprocess

        command = [sys.executable, str(HERE / "crash_on_announce.py"), "host.app:create_app", "--factory",
                   "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"]  # fmt: skip
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(command, env=self.env(), stdout=out, stderr=subprocess.STDOUT)
        return self


def _mic_cookie(db: Path, code: str) -> str:
    """The table microphone's cookie, as opening the host's link would set it."""
    from host.channels.web.mic import mint_link_key, redeem_link

    store = Store(db)
    try:
        row = store.session_by_code(code)
        assert row is not None
        cookie = redeem_link(store, row.id, mint_link_key(store, row.id))
        assert cookie is not None
        return cookie
    finally:
        store.close()


async def _speak(base: str, code: str, cookie: str, pcm: bytes) -> None:
    """Stream ``pcm`` into the table microphone until the server goes away."""
    from host.channels.web.mic import COOKIE

    url = base.replace("http://", "ws://") + f"/t/{code}/listen"
    headers = {"Origin": base, "Cookie": f"{COOKIE}={cookie}"}
    async with websockets.connect(url, additional_headers=headers) as ws:
        ready = await ws.recv()
        assert '"ready"' in str(ready), ready
        try:
            for i in range(0, len(pcm), 640):
                await ws.send(pcm[i : i + 640])
            async with asyncio.timeout(60):
                async for _ in ws:
                    pass  # only the crash ends this (the reply is never sent)
        except websockets.ConnectionClosed:
            return


def test_a_move_heard_by_the_page_survives_a_crash_before_its_announcement(
    tmp_path: Path, fake: FakeTwilio
) -> None:
    db = tmp_path / "gamehost.sqlite3"
    crashing = Crashing(db, free_port(), fake, tmp_path / "crashing.log").start()
    try:
        created = crashing.text(ANN, "NEW Ann").text
        code = re.search(r"Game (\d{6})", created).group(1)  # type: ignore[union-attr]
        crashing.text(BOB, f"JOIN {code} Bob")
        crashing.text(ANN, "START")
        crashing.text(ANN, "50")  # Bob's turn; the table's microphone hears him
        pcm = b"\0\0" * 16000 + synthesize("fifty two", "en", 16000) + b"\0\0" * 32000
        asyncio.run(_speak(crashing.base, code, _mic_cookie(db, code), pcm))
        assert crashing.proc is not None and crashing.proc.wait(timeout=30) == 137, crashing.log.read_text()
    finally:
        crashing.stop()
    # The outbox sender is woken by the commit, so on a busy machine it may tell Ann before
    # the process dies: allowed. What must hold is that she is told, exactly once.
    again = Server(db, free_port(), fake, tmp_path / "again.log").start()  # its sender starts
    try:
        deadline = time.monotonic() + 30
        while _waiting(db) and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        again.stop()
    assert not _waiting(db)
    told = [m for m in fake.messages_to(ANN) if "Bob said 52." in m]
    assert len(told) == 1, fake.messages_to(ANN)


def _waiting(db: Path) -> int:
    """Outbox rows not yet settled (sent or given up)."""
    store = Store(db)
    try:
        unsettled = "SELECT COUNT(*) AS n FROM outbox WHERE status IN ('pending', 'sending', 'unknown')"
        rows = store.execute(unsettled)
        return int(rows[0]["n"])
    finally:
        store.close()

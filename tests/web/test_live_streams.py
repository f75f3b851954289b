"""Issue 25, hole 6: live pages must not cost the database per stream. Every stream used to
poll the log itself every 50 ms (3,000 streams on one game: 60,000 queries a second,
/healthz at 1.9 s). Now one poller per game per process builds each new message once for
all the game's streams, and a client may keep only so many streams open.

A real uvicorn server (TestClient buffers whole responses) with the SMS host's app; moves
are texted over signed webhooks; every wait is bounded."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from host.channels.web.live import Feed
from tests.clock import Clock
from tests.sms.conftest import Sms, build
from tests.sms.live import serve
from tests.twilio_helpers import FakeTwilio
from tests.web.test_pages import code_of

WAIT = 10.0  # bounds on waits, not measurements
STREAMS = 30


@pytest.fixture
def host(tmp_path: Path, fake: FakeTwilio) -> Iterator[Sms]:
    built = build(tmp_path, fake, Clock(), live_streams_per_client=3)
    yield built
    built.app.state.store.close()


class Stream:
    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.lines = response.aiter_lines()

    async def event(self) -> tuple[int, dict[str, Any]]:
        """The next ``table`` message: (its id, its data)."""
        fields: dict[str, str] = {}
        async with asyncio.timeout(WAIT):
            async for line in self.lines:
                if line:
                    name, _, value = line.partition(":")
                    fields[name] = value.removeprefix(" ")
                    continue
                if fields.get("event") == "table":
                    return int(fields["id"]), json.loads(fields["data"])
                fields = {}
        raise AssertionError("the stream ended")


@contextlib.asynccontextmanager
async def stream(client: httpx.AsyncClient, code: str, **headers: str) -> AsyncIterator[Stream | int]:
    """An open stream, or the status code it was refused with."""
    async with client.stream("GET", f"/t/{code}/events", headers=headers) as response:
        yield Stream(response) if response.status_code == 200 else response.status_code


def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_one_poller_builds_each_message_once_for_every_stream(tmp_path: Path, fake: FakeTwilio) -> None:
    host = build(tmp_path, fake, Clock(), live_streams_per_client=STREAMS)
    ann, _bob = host.new_game(2)
    code = code_of(host, ann)
    feed = host.app.state.web_feed = Feed(host.app.state.store)
    built: Counter[int] = Counter()
    page = feed.page

    def counted(row: Any) -> dict[str, Any]:
        out = page(row)
        built[int(out["seq"])] += 1
        return out

    feed.page = counted  # type: ignore[method-assign]

    async def watch(base: str) -> list[int]:
        async with httpx.AsyncClient(base_url=base, timeout=WAIT) as client:
            streams = []
            async with contextlib.AsyncExitStack() as stack:
                for _ in range(STREAMS):
                    opened = await stack.enter_async_context(stream(client, code))
                    assert isinstance(opened, Stream), opened
                    streams.append(opened)
                first = {(await s.event())[0] for s in streams}
                hub = host.app.state.web_hub
                assert len(hub.games) == 1 and next(iter(hub.games.values())).streams == STREAMS
                await asyncio.to_thread(host.text, ann, "50")
                later = [(await s.event()) for s in streams]
                assert all(data["rulings"][-1] == ["Ann said 50."] for _, data in later)
                return [*first, *(seq for seq, _ in later)]

    try:
        with serve(host.app, lifespan="off") as base:
            seqs = asyncio.run(watch(base))
            _until(lambda: not host.app.state.web_hub.games, "the poller to stop with the last stream")
    finally:
        host.app.state.store.close()
    assert len(set(seqs)) == 2, seqs  # one state before the move, one after, on every stream
    assert built[max(seqs)] == 1, built  # built once, not once per stream


def test_a_client_may_keep_only_so_many_streams(host: Sms) -> None:
    ann, _bob = host.new_game(2)
    code = code_of(host, ann)

    async def clients(base: str) -> None:
        stack = contextlib.AsyncExitStack()
        async with httpx.AsyncClient(base_url=base, timeout=WAIT) as client, stack:
            for _ in range(3):
                assert isinstance(await stack.enter_async_context(stream(client, code)), Stream)
            async with stream(client, code) as refused:
                assert refused == 429
            # Another client (behind the same trusted proxy) has its own allowance.
            async with stream(client, code, **{"X-Forwarded-For": "203.0.113.5"}) as other:
                assert isinstance(other, Stream)
                await other.event()
        # The three went: this client may open streams again.
        async with httpx.AsyncClient(base_url=base, timeout=WAIT) as client:
            deadline = time.monotonic() + WAIT
            while True:
                async with stream(client, code) as again:
                    if isinstance(again, Stream):
                        await again.event()
                        break
                assert time.monotonic() < deadline, "the closed streams were never given back"
                await asyncio.sleep(0.05)

    with serve(host.app, lifespan="off") as base:
        asyncio.run(clients(base))
        _until(lambda: not host.app.state.web_hub.clients, "every stream's place given back")


def test_a_quiet_game_keeps_its_streams_alive(host: Sms, monkeypatch: pytest.MonkeyPatch) -> None:
    import host.channels.web.live as live

    monkeypatch.setattr(live, "KEEPALIVE", 0.05)  # proxies close a quiet stream: say something
    ann, _bob = host.new_game(2)
    code = code_of(host, ann)

    async def quiet(base: str) -> list[str]:
        lines: list[str] = []
        client = httpx.AsyncClient(base_url=base, timeout=WAIT)
        async with client, client.stream("GET", f"/t/{code}/events") as response, asyncio.timeout(WAIT):
            async for line in response.aiter_lines():
                lines.append(line)
                if line.startswith(": keepalive"):
                    break
        return lines

    with serve(host.app, lifespan="off") as base:
        lines = asyncio.run(quiet(base))
    assert lines[-1] == ": keepalive"
    assert any(line.startswith("event: table") for line in lines)  # the state came first

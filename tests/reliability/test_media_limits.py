"""Item 10: a media stream cannot stall or bloat the host. Caller audio waiting for the
recogniser is bounded (a flood is dropped, logged once per episode), decoding and resampling
run off the event loop, an oversized message closes the stream, and a caller who drops the
connection ends the stream without a traceback."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from host.channels.media.handover import mint_token
from host.channels.media.session import FrameTooLarge
from tests.media.test_playout import RecordingListener, Rig, inbound, run, tone
from tests.speech.conftest import ko_model  # noqa: F401  (a shared fixture)

pytestmark = pytest.mark.timeout(60)


class StuckListener(RecordingListener):
    """A recogniser that cannot keep up: it takes one chunk, then hangs until released."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def feed(self, pcm: bytes) -> list[Any]:
        self.release.wait(20)
        return super().feed(pcm)


def test_a_flood_is_bounded_and_logged_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    rig = Rig(tmp_path, max_queued_s=1.0)
    stuck = StuckListener()
    rig.listener = stuck
    payloads = inbound(tone(30.0, 8000, level=300.0))  # 1,500 frames: 30 s of audio at once

    async def scenario() -> None:
        await rig.session.start()
        await rig.clock.advance(5)  # past the greeting: not playing, frames go to the queue
        for payload in payloads:
            await rig.session.media(payload)
        assert rig.session._inbound.qsize() <= 50  # 1 s of 20 ms frames
        stuck.release.set()
        await rig.session.close()

    with caplog.at_level(logging.INFO, logger="host.channels.media.session"):
        run(scenario())
    assert rig.session.dropped_frames > 100
    floods = [r for r in caplog.records if "faster than it can be heard" in r.getMessage()]
    assert len(floods) == 1


def test_decoding_runs_off_the_event_loop(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    threads: set[int] = set()
    convert = rig.session._convert

    def recording(payload: str) -> bytes:
        threads.add(threading.get_ident())
        return convert(payload)

    rig.session._convert = recording  # type: ignore[method-assign]
    loop_thread: list[int] = []

    async def scenario() -> None:
        loop_thread.append(threading.get_ident())
        await rig.session.start()
        await rig.clock.advance(5)
        for payload in inbound(tone(0.2, 8000, level=300.0)):
            await rig.session.media(payload)
        await rig.session.close()

    run(scenario())
    assert threads and loop_thread[0] not in threads


def test_an_oversized_payload_is_refused(tmp_path: Path) -> None:
    rig = Rig(tmp_path)

    async def scenario() -> None:
        await rig.session.start()
        with pytest.raises(FrameTooLarge):
            await rig.session.media("A" * 100_000)
        await rig.session.close()

    run(scenario())


def test_an_oversized_message_closes_the_stream(tmp_path: Path, ko_model: Any) -> None:  # noqa: F811
    from starlette.websockets import WebSocketDisconnect

    from tests.media.conftest import make_host
    from tests.media.stream_client import TwilioStream, new_sids, open_stream

    host = make_host(tmp_path)
    session = host.korean_game()
    stream_sid, call_sid = new_sids()
    with open_stream(host.client, "wss://gamehost.example/twilio/media") as ws:
        phone = TwilioStream(ws, stream_sid, call_sid)
        phone.connected()
        token = mint_token(host.app.state.store, call_sid, session, None, None, "ko")
        phone.start({"token": token})
        media = {"track": "inbound", "chunk": "1", "timestamp": "0", "payload": "A" * 200_000}
        phone.send("media", media=media)
        with pytest.raises(WebSocketDisconnect) as closed:
            for _ in range(10_000):  # the greeting may come first; then the close
                ws.receive_json()
        assert closed.value.code == 1009
    host.app.state.store.close()


def test_a_caller_who_drops_the_line_ends_quietly(
    tmp_path: Path,
    ko_model: Any,  # noqa: F811
    caplog: pytest.LogCaptureFixture,
) -> None:
    import websockets

    from tests.media.conftest import make_host
    from tests.media.stream_client import new_sids
    from tests.sms.live import serve
    from tests.twilio_helpers import TEST_ACCOUNT_SID, sign

    host = make_host(tmp_path, public_url=None)
    session = host.korean_game()
    stream_sid, call_sid = new_sids()
    token = mint_token(host.app.state.store, call_sid, session, None, None, "ko")

    async def call(base: str) -> None:
        url = base.replace("http://", "ws://") + "/twilio/media"
        headers = {"X-Twilio-Signature": sign(url, {})}
        async with websockets.connect(url, additional_headers=headers) as ws:
            start = {
                "streamSid": stream_sid,
                "accountSid": TEST_ACCOUNT_SID,
                "callSid": call_sid,
                "customParameters": {"token": token},
                "mediaFormat": {"encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1},
            }
            await ws.send('{"event": "connected"}')
            await ws.send(json.dumps({"event": "start", "streamSid": stream_sid, "start": start}))
            await ws.recv()  # the host is speaking to us
            ws.transport.abort()  # the line drops: no close handshake

    with caplog.at_level(logging.INFO), serve(host.app) as base:
        asyncio.run(call(base))
        for _ in range(200):  # until the server noticed (bounded)
            if any("media stream ended" in r.getMessage() for r in caplog.records):
                break
            threading.Event().wait(0.02)
    assert any("media stream ended" in r.getMessage() for r in caplog.records)
    noisy = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert noisy == [], [r.getMessage() for r in noisy]
    host.app.state.store.close()

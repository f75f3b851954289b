"""A websocket client that behaves like Twilio's end of a bidirectional Media Stream.

It signs the upgrade request with the SDK's ``RequestValidator`` (over the ``wss://`` URL,
no parameters), sends ``connected``, ``start`` (with ``customParameters``), 20 ms ``media``
frames of 8 kHz mu-law and ``stop``, and reads what the host sends back. Like Twilio, it
returns each ``mark`` once the audio before it has "played" (here: once it was read).
"""

from __future__ import annotations

import base64
import itertools
from dataclasses import dataclass, field
from typing import Any

from fastapi.testclient import TestClient

from host.speech.audio import pcm_to_mulaw8k
from tests.twilio_helpers import TEST_ACCOUNT_SID, sign

_sids = itertools.count(1)
FRAME = 160  # 20 ms of 8 kHz mu-law


@dataclass
class Heard:
    """What the host sent for one utterance: its audio (mu-law) and the mark after it."""

    audio: bytes = b""
    frames: list[bytes] = field(default_factory=list)
    mark: str | None = None
    cleared: bool = False
    messages: list[dict[str, Any]] = field(default_factory=list)


class TwilioStream:
    def __init__(self, ws: Any, stream_sid: str, call_sid: str) -> None:
        self.ws = ws
        self.stream_sid = stream_sid
        self.call_sid = call_sid
        self.seq = itertools.count(1)
        self.chunk = itertools.count(1)
        self.ms = 0

    @staticmethod
    def headers(url: str, signature: str | None = "sign") -> dict[str, str]:
        if signature == "sign":
            return {"X-Twilio-Signature": sign(url, {})}
        return {} if signature is None else {"X-Twilio-Signature": signature}

    def send(self, event: str, **body: Any) -> None:
        message = {
            "event": event,
            "sequenceNumber": str(next(self.seq)),
            "streamSid": self.stream_sid,
            **body,
        }
        self.ws.send_json(message)

    def connected(self) -> None:
        self.ws.send_json({"event": "connected", "protocol": "Call", "version": "1.0.0"})

    def start(self, params: dict[str, str]) -> None:
        self.send(
            "start",
            start={
                "streamSid": self.stream_sid,
                "accountSid": TEST_ACCOUNT_SID,
                "callSid": self.call_sid,
                "tracks": ["inbound"],
                "customParameters": params,
                "mediaFormat": {"encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1},
            },
        )

    def audio(self, pcm16k: bytes) -> int:
        """Send 16 kHz pcm16 as Twilio would: 8 kHz mu-law in 20 ms frames. Returns frames sent."""
        mulaw = pcm_to_mulaw8k(pcm16k)
        frames = [mulaw[i : i + FRAME] for i in range(0, len(mulaw), FRAME)]
        for frame in frames:
            payload = base64.b64encode(frame).decode()
            media = {
                "track": "inbound",
                "chunk": str(next(self.chunk)),
                "timestamp": str(self.ms),
                "payload": payload,
            }
            self.send("media", media=media)
            self.ms += 20
        return len(frames)

    def mark(self, name: str) -> None:
        self.send("mark", mark={"name": name})

    def dtmf(self, digit: str) -> None:
        self.send("dtmf", dtmf={"track": "inbound_track", "digit": digit})

    def stop(self) -> None:
        self.send("stop", stop={"accountSid": TEST_ACCOUNT_SID, "callSid": self.call_sid})

    def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = self.ws.receive_json()
        assert message.get("streamSid") == self.stream_sid, message
        return message

    def utterance(self, *, echo_mark: bool = True, stop_at_clear: bool = False) -> Heard:
        """Read host messages up to the next ``mark`` (or ``clear``); echo the mark back."""
        heard = Heard()
        while True:
            message = self.receive()
            heard.messages.append(message)
            event = message["event"]
            if event == "media":
                frame = base64.b64decode(message["media"]["payload"], validate=True)
                heard.frames.append(frame)
                heard.audio += frame
            elif event == "mark":
                heard.mark = message["mark"]["name"]
                if echo_mark:
                    self.mark(heard.mark)
                return heard
            elif event == "clear":
                heard.cleared = True
                if stop_at_clear:
                    return heard
            else:
                raise AssertionError(f"unexpected message from the host: {message}")


def open_stream(client: TestClient, url: str, signature: str | None = "sign") -> Any:
    """``with open_stream(...) as ws``: the websocket upgrade, signed for ``url``."""
    return client.websocket_connect("/twilio/media", headers=TwilioStream.headers(url, signature))


def new_sids() -> tuple[str, str]:
    n = next(_sids)
    return f"MZ{n:032x}", f"CA{n:032x}"

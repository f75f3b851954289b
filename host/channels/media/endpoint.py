"""The websocket at ``/twilio/media``: Twilio's stream messages in, each to the call's
:class:`~host.channels.media.session.StreamSession`.

The websocket upgrade carries ``X-Twilio-Signature``, Twilio's signature of the ``wss://``
URL with no parameters; a missing or wrong one is refused (close code 1008, which the
server turns into HTTP 403) before anything is accepted. ``GAMEHOST_VALIDATE_SIGNATURES=false``
skips the check for local development.
"""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect
from uvicorn.protocols.utils import ClientDisconnected
from websockets.exceptions import ConnectionClosed

from host.channels.media.handover import ws_base
from host.channels.media.service import MediaChannel
from host.channels.media.session import FrameTooLarge, StreamSession
from host.config import Settings
from host.twilio_security import signature_ok

log = logging.getLogger(__name__)

POLICY_VIOLATION = 1008
MESSAGE_TOO_BIG = 1009
# Twilio's messages are a few hundred characters; anything this long is not Twilio's.
MAX_MESSAGE_CHARS = 64 * 1024


def handshake_urls(websocket: WebSocket, settings: Settings) -> list[str]:
    """The URL(s) Twilio may have signed: the public one, else the one we were reached at
    (also as ``wss://``, for a TLS proxy in front of us). Never with a query string."""
    path = websocket.url.path
    if settings.public_url:
        return [ws_base(settings.public_url) + path]
    seen = str(websocket.url.replace(query=""))
    return [seen, "wss://" + seen[len("ws://") :]] if seen.startswith("ws://") else [seen]


def handshake_ok(websocket: WebSocket, settings: Settings) -> bool:
    if not settings.check_signatures:
        return True
    signature = websocket.headers.get("X-Twilio-Signature")
    return any(signature_ok(settings, url, {}, signature) for url in handshake_urls(websocket, settings))


async def media_stream(websocket: WebSocket) -> None:
    media: MediaChannel = websocket.app.state.media
    if not handshake_ok(websocket, media.settings):
        log.warning("refused a media stream with a missing or wrong signature")
        await websocket.close(code=POLICY_VIOLATION)
        return
    await websocket.accept()
    session: StreamSession | None = None
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if isinstance(text, str) and len(text) > MAX_MESSAGE_CHARS:
                # Parsing it would stall the event loop for every other call.
                log.warning("media stream: a %d-character message; closing the stream", len(text))
                await websocket.close(code=MESSAGE_TOO_BIG)
                break
            data = _json(text)
            if data is None:
                continue
            event = data.get("event")
            if event == "start" and session is None:
                session = await media.open(websocket, data)
            elif event == "stop":
                break
            elif session is None:
                continue  # "connected", or anything before "start"
            elif event == "media":
                payload = data.get("media")
                if isinstance(payload, dict) and isinstance(payload.get("payload"), str):
                    await session.media(payload["payload"])
            elif event == "mark":
                mark = data.get("mark")
                if isinstance(mark, dict):
                    session.mark(str(mark.get("name", "")))
            elif event == "dtmf":
                dtmf = data.get("dtmf")
                if isinstance(dtmf, dict):
                    await session.dtmf(str(dtmf.get("digit", "")))
    except FrameTooLarge as exc:
        log.warning("media stream: a %d-character media payload; closing the stream", exc.args[0])
        with contextlib.suppress(Exception):
            await websocket.close(code=MESSAGE_TOO_BIG)
    except (WebSocketDisconnect, RuntimeError, ConnectionError, ClientDisconnected, ConnectionClosed):
        # The caller hung up (or we closed the socket ourselves): an ordinary end.
        log.info("media stream: the connection closed")
    except Exception:
        log.exception("media stream failed")
    finally:
        if session is not None:
            try:
                await media.close(session)
            except Exception:
                log.exception("media stream: cleaning up failed")
        if websocket.client_state.name == "CONNECTED" and websocket.application_state.name == "CONNECTED":
            with contextlib.suppress(Exception):
                await websocket.close()


def _json(text: object) -> dict[str, Any] | None:
    """A text frame as a JSON object; binary frames and junk are ignored."""
    if not isinstance(text, str):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        log.warning("media stream: a frame that is not JSON; ignored")
        return None
    return data if isinstance(data, dict) else None

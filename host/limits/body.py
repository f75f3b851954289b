"""The largest request body the app takes, enforced before the body is read.

A request whose Content-Length is over the limit is answered 413 and its connection closed
before the app runs: no byte of the body is asked for (the server has at most its first
read buffer of it). A body with no length (chunked) is counted as it comes; once it grows
past the limit the app is told the client went, its answer is dropped, and the client is
answered 413. WebSockets are not HTTP bodies: their messages have their own cap
(``GAMEHOST_WS_MAX_BYTES``, given to uvicorn by ``gamehost serve``).
"""

from __future__ import annotations

import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger(__name__)


class BodyLimit:
    """``app`` behind a cap of ``max_bytes`` on each HTTP request's body."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = declared_length(scope)
        if length is not None:
            if length > self.max_bytes:
                log.warning(
                    "refused a %d-byte body to %s (the limit is %d)", length, scope["path"], self.max_bytes
                )
                await too_large(send, self.max_bytes)
                return
            # The server hands the app no more than the declared length.
            await self.app(scope, receive, send)
            return
        await _Counted(self, scope, receive, send).run()


class _Counted:
    """One request whose body has no declared length: counted as it is read."""

    def __init__(self, limit: BodyLimit, scope: Scope, receive: Receive, send: Send) -> None:
        self.limit = limit
        self.scope = scope
        self._receive = receive
        self._send = send
        self.seen = 0
        self.started = False
        self.over = False

    async def run(self) -> None:
        await self.limit.app(self.scope, self.receive, self.send)

    async def receive(self) -> Message:
        if self.over:
            return {"type": "http.disconnect"}
        message = await self._receive()
        if message["type"] == "http.request":
            self.seen += len(message.get("body", b""))
            if self.seen > self.limit.max_bytes:
                self.over = True
                log.warning(
                    "a body to %s grew past %d bytes; refused", self.scope["path"], self.limit.max_bytes
                )
                if not self.started:
                    self.started = True
                    await too_large(self._send, self.limit.max_bytes)
                return {"type": "http.disconnect"}
        return message

    async def send(self, message: Message) -> None:
        if self.over:
            return  # the client was answered 413; the app's own answer goes nowhere
        if message["type"] == "http.response.start":
            self.started = True
        await self._send(message)


def declared_length(scope: Scope) -> int | None:
    """The request's Content-Length, if it has one (uvicorn refuses a malformed one)."""
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def too_large(send: Send, max_bytes: int) -> None:
    body = f"Request body too large: the limit is {max_bytes} bytes.\n".encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})

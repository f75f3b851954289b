"""uvicorn's HTTP protocol with read timeouts and a cap on slow connections per client.

uvicorn (0.54) times out only an idle kept-alive connection: a request whose headers or
body trickle in (a line every ten seconds) is held for ever, and so is a connection that
never sends a byte. :class:`LimitedHttpToolsProtocol` gives each connection a deadline
while it is *reading* a request:

- from the connection's start (or, kept alive, its next request's first byte) to the end of
  the request's headers: ``header_timeout``;
- from the end of the headers to the end of the body, if it has one: ``body_timeout``.

When a deadline passes the client is answered 408 (if it had begun a request and nothing
is being answered) and the connection closed; the app, if it was reading the body, is told
the client went.

Connections reading a request are also counted per client, oldest first
(:class:`Readers`): a client with more than ``per_client`` of them has its oldest closed,
once that one has had ``GRACE_S`` to finish (a burst of connections that each send their
request at once is never cut), and a process with more than ``total`` (half its
descriptors) closes the oldest of the client with the most at once, before the
descriptors run out (then the kernel stops handing it connections at all). The client is
the connection's address, or the client a trusted proxy forwards once the headers are in
(``X-Forwarded-For``, from the proxies in uvicorn's ``forwarded_allow_ips`` only): behind
Caddy, which passes a slow body on as it comes, each of its clients has a cap of its own.
A connection that answered and waits for its next request is not reading: uvicorn's
keep-alive timeout closes it.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from uvicorn.config import Config
from uvicorn.middleware.proxy_headers import _TrustedHosts
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from host.config import Settings, get_settings
from host.limits.address import client_key

log = logging.getLogger(__name__)

#: Seconds a connection may read a request before a newer one of its client can close it.
GRACE_S = 1.0
#: Seconds between warnings that the process is at its cap of connections reading.
TOLD_EVERY_S = 10.0

Phase = Literal["head", "body"]

_TOOK_TOO_LONG = b"The request took too long.\n"
REQUEST_TIMEOUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(_TOOK_TOO_LONG), _TOOK_TOO_LONG)
)


@dataclass(frozen=True)
class Limits:
    header_timeout: float
    body_timeout: float
    per_client: int
    total: int  # connections reading a request in this process, all clients together

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        """The settings' limits; the total is half the process's descriptor limit (the rest
        for answered connections, the database and files)."""
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        total = settings.connections_per_client if soft == resource.RLIM_INFINITY else soft // 2
        return cls(
            header_timeout=settings.header_timeout,
            body_timeout=settings.body_timeout,
            per_client=settings.connections_per_client,
            total=max(settings.connections_per_client, total),
        )


class Readers:
    """The connections of this process reading a request, oldest first: by client, and all."""

    def __init__(self) -> None:
        self.clients: dict[str, OrderedDict[LimitedHttpToolsProtocol, float]] = {}
        self.all: OrderedDict[LimitedHttpToolsProtocol, float] = OrderedDict()
        self._sweep: asyncio.TimerHandle | None = None
        self._full_told = float("-inf")

    def add(self, conn: LimitedHttpToolsProtocol, key: str, now: float) -> None:
        self.clients.setdefault(key, OrderedDict())[conn] = now
        self.all[conn] = now
        if len(self.all) > conn.limits.total:
            self._make_room(conn, now)
        self.sweep(conn.limits, now)

    def discard(self, conn: LimitedHttpToolsProtocol, key: str) -> None:
        self.all.pop(conn, None)
        mine = self.clients.get(key)
        if mine is not None:
            mine.pop(conn, None)
            if not mine:
                del self.clients[key]

    def _make_room(self, newcomer: LimitedHttpToolsProtocol, now: float) -> None:
        """Over the process's cap the descriptors are running out: the oldest connection of
        the client reading the most goes at once, grace or not (the oldest of all when each
        client has one)."""
        busiest = max(self.clients.values(), key=len)
        oldest = next(iter(busiest))
        if oldest is newcomer:
            oldest = next(iter(self.all))
        if now - self._full_told >= TOLD_EVERY_S:
            self._full_told = now
            log.warning(
                "%d connections reading a request, the most this process takes: closing the oldest"
                " of the client with the most (%d)",
                len(self.all) - 1,
                len(busiest),
            )
        oldest.cut("the process has too many connections reading a request")

    def sweep(self, limits: Limits, now: float) -> None:
        """Close the oldest connections of each client over its cap that have had their
        grace; look again when the next of them will have had it."""
        later: float | None = None
        for key in [k for k, conns in self.clients.items() if len(conns) > limits.per_client]:
            conns = self.clients[key]
            cut = 0
            while len(conns) > limits.per_client:
                oldest, since = next(iter(conns.items()))
                if now - since < GRACE_S:
                    later = since + GRACE_S if later is None else min(later, since + GRACE_S)
                    break
                oldest.cut("one connection too many reading a request")  # discards it
                cut += 1
            if cut:
                log.warning("closed %d slow connection(s) of %s (over %d)", cut, key, limits.per_client)
        if later is not None and self._sweep is None:
            self._sweep = asyncio.get_running_loop().call_at(later, self._swept, limits)

    def _swept(self, limits: Limits) -> None:
        self._sweep = None
        self.sweep(limits, asyncio.get_running_loop().time())


class LimitedHttpToolsProtocol(HttpToolsProtocol):
    """See the module notes. The limits are the process's settings (``configure`` sets
    them, else ``get_settings()`` on first use: each worker process reads its own)."""

    limits_set: ClassVar[Limits | None] = None
    readers: ClassVar[Readers | None] = None

    @classmethod
    def configure(cls, settings: Settings) -> None:
        cls.limits_set = Limits.of(settings)

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        cls = type(self)
        if cls.limits_set is None:
            cls.configure(get_settings())
        if cls.readers is None:
            cls.readers = Readers()
        assert cls.limits_set is not None
        self.limits = cls.limits_set
        self.all_readers = cls.readers
        self.trusted = _TrustedHosts(config.forwarded_allow_ips) if config.proxy_headers else None
        self.phase: Phase | None = None
        self.reader_key = ""
        self.began = False  # a byte of the current request has come
        self.deadline: asyncio.TimerHandle | None = None

    # -- uvicorn's hooks ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._read("head", self._peer())

    def connection_lost(self, exc: Exception | None) -> None:
        self._done()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.began = True
        if self.phase is None:  # kept alive: its next request has begun
            self._read("head", self._peer())

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._done()
        self.began = False
        if self.parser.should_upgrade() and self._should_upgrade():
            return  # a WebSocket: handed on, not an HTTP body
        if self._has_body():
            self._read("body", self._client())

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._done()

    def handle_websocket_upgrade(self) -> None:
        self._done()
        super().handle_websocket_upgrade()

    # -- reading a request -------------------------------------------------------------

    def _read(self, phase: Phase, key: str) -> None:
        self._done()
        self.phase, self.reader_key = phase, key
        timeout = self.limits.header_timeout if phase == "head" else self.limits.body_timeout
        self.deadline = self.loop.call_later(timeout, self._late)
        self.all_readers.add(self, key, self.loop.time())

    def _done(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None
        if self.phase is not None:
            self.all_readers.discard(self, self.reader_key)
            self.phase = None

    def _late(self) -> None:
        self.deadline = None
        self.cut(f"its request's {'headers' if self.phase == 'head' else 'body'} took too long")

    def cut(self, why: str) -> None:
        """Close this connection while it reads a request: 408 if the client is owed an
        answer, and the app (if it reads the body) told the client went."""
        phase, began, key = self.phase, self.began, self.reader_key
        self._done()
        if self.transport is None or self.transport.is_closing():
            return
        log.info("closed a connection of %s: %s", key, why)
        cycle = self.cycle
        answering = cycle is not None and cycle.response_started and not cycle.response_complete
        if phase == "body" and cycle is not None and not cycle.response_started:
            cycle.disconnected = True  # its receive() says the client went; its answer is dropped
            cycle.message_event.set()
            self.transport.write(REQUEST_TIMEOUT)
        elif phase == "head" and began and not answering:
            self.transport.write(REQUEST_TIMEOUT)
        self.transport.close()

    # -- whose connection ----------------------------------------------------------------

    def _peer(self) -> str:
        return client_key(self.client[0] if self.client else None)

    def _client(self) -> str:
        """The client the request counts against: a trusted proxy's forwarded one, else the peer."""
        host = self.client[0] if self.client else None
        if self.trusted is not None and host in self.trusted:
            forwarded = b", ".join(v for n, v in self.headers if n == b"x-forwarded-for").decode("latin1")
            if forwarded:
                found, _ = self.trusted.get_trusted_client_address(forwarded)
                if found:
                    return client_key(found)
        return client_key(host)

    def _has_body(self) -> bool:
        for name, value in self.headers:
            if name == b"transfer-encoding":
                return True
            if name == b"content-length":
                return value.strip() not in (b"0", b"")
        return False

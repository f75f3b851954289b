"""Finding a game by its join code on the web, with the lock-out texting JOIN has.

A join code is six digits: unthrottled, a client guessing at page speed finds one of a
hundred running games in seconds. Each miss (a code no game has, or a microphone link that
is not one) is recorded against the client in the same table as JOIN's wrong guesses;
after ``MAX_FAILED`` within ``WINDOW`` seconds the client gets no answer about any code
(HTTP 429) until the oldest miss ages out.

The client is its address as the server sees it (uvicorn takes it from X-Forwarded-For
when the proxy in front is trusted: ``FORWARDED_ALLOW_IPS``), counted by
:func:`host.limits.address.client_key` (an IPv6 address with its whole /64).
"""

from __future__ import annotations

import time

from starlette.requests import HTTPConnection

from host.limits.address import client_key
from host.lobby import CODE_DIGITS
from host.store import SessionRow, Store

MAX_FAILED = 10  # per client per hour: a hundred games among a million codes take years
WINDOW = 3600.0


class TooManyGuesses(Exception):
    """This client guessed too many wrong codes lately."""


def client(connection: HTTPConnection) -> str:
    """The client's address as the server sees it (a page request or a WebSocket)."""
    return connection.client.host if connection.client is not None else "unknown"


def locked_out(store: Store, client: str, now: float | None = None) -> bool:
    at = time.time() if now is None else now
    rows = store.execute(
        "SELECT COUNT(*) AS n FROM join_failures WHERE address = ? AND at > ?",
        (client_key(client), at - WINDOW),
    )
    return int(rows[0]["n"]) >= MAX_FAILED


def missed(store: Store, client: str, now: float | None = None) -> None:
    """Count a miss against the client (its misses older than the window go)."""
    at = time.time() if now is None else now
    key = client_key(client)
    with store.transaction() as db:
        db.execute("DELETE FROM join_failures WHERE address = ? AND at <= ?", (key, at - WINDOW))
        db.execute("INSERT INTO join_failures (address, at) VALUES (?, ?)", (key, at))


def find_game(store: Store, client: str, code: str, now: float | None = None) -> SessionRow | None:
    """The game with join code ``code``, or None (a miss, counted). Raises TooManyGuesses
    while the client is locked out, whatever the code."""
    if locked_out(store, client, now):
        raise TooManyGuesses(client)
    row = store.session_by_code(code) if code.isdigit() and len(code) == CODE_DIGITS else None
    if row is None:
        missed(store, client, now)
    return row

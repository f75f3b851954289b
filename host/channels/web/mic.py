"""Who may make a page the table's microphone (``/t/<code>/listen``): a browser holding a key
the server minted for that game. The join code is not enough: it is six digits anyone in
the game may pass on, and the microphone plays the current player's moves.

The host prints a link (``gamehost mic CODE``): ``/t/<code>?mic=<key>``, a long random key
that works once, within ``LINK_TTL_S``. Opening it on the table's device trades it for a
cookie holding a second key (``COOKIE``: HttpOnly, SameSite=Lax, scoped to the game's
path, Secure but on a loopback address), which the microphone's WebSocket handshake
carries; the link is spent, so a copy of it in a browser history or a proxy's log opens
nothing. Minting a new link revokes every key minted for the game before it. Only
SHA-256 hashes of keys are stored.

A game can have no table microphone at all (``set_table_mic(..., False)``, or
``gamehost mic CODE --off``): its keys are deleted and none is minted or taken.

A microphone already streaming stops too: its socket looks its key up again every
``RECHECK_S`` (``until_revoked``) and closes when the key is gone, whichever server process
revoked it (the keys are in the database, which every worker reads).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time

from host.store import Store

log = logging.getLogger(__name__)

PARAM = "mic"  # the link's query parameter
COOKIE = "gamehost_mic"
LINK_TTL_S = 3600.0  # a printed link must be opened within the hour
COOKIE_TTL_S = 24 * 3600.0  # a table's evening, and then some
#: Seconds between looks at an open microphone's key: a revoked one stops within this (one
#: indexed read each; only games with a microphone open have one).
RECHECK_S = 0.5


class NoTableMic(Exception):
    """The game is marked as having no table microphone."""


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def table_mic_allowed(store: Store, session_id: str) -> bool:
    rows = store.execute("SELECT table_mic FROM sessions WHERE id = ?", (session_id,))
    return bool(rows and rows[0]["table_mic"])


def set_table_mic(store: Store, session_id: str, allowed: bool) -> None:
    """Allow a table microphone for the game, or mark it as having none (its keys go)."""
    with store.transaction() as db:
        db.execute("UPDATE sessions SET table_mic = ? WHERE id = ?", (int(allowed), session_id))
        if not allowed:
            db.execute("DELETE FROM mic_keys WHERE session_id = ?", (session_id,))


def mint_link_key(store: Store, session_id: str, now: float | None = None) -> str:
    """A new one-use key for the game's microphone link, replacing every key minted for the
    game before (a leaked link or cookie stops working). Raises NoTableMic."""
    at = time.time() if now is None else now
    key = secrets.token_urlsafe(32)
    with store.transaction() as db:
        if not table_mic_allowed(db, session_id):
            raise NoTableMic(session_id)
        db.execute("DELETE FROM mic_keys WHERE session_id = ? OR expires < ?", (session_id, at))
        db.execute(
            "INSERT INTO mic_keys (key_hash, session_id, kind, created, expires) VALUES (?, ?, 'link', ?, ?)",
            (_hash(key), session_id, at, at + LINK_TTL_S),
        )
    return key


def link(base_url: str, code: str, key: str) -> str:
    return f"{base_url.rstrip('/')}/t/{code}?{PARAM}={key}"


def redeem_link(store: Store, session_id: str, key: str, now: float | None = None) -> str | None:
    """Spend a link key of this game: the cookie key for the browser that opened it, or None
    (unknown, spent, expired, another game's, or the game has no table microphone)."""
    at = time.time() if now is None else now
    cookie = secrets.token_urlsafe(32)
    with store.transaction() as db:
        spent = db.execute_count(
            "UPDATE mic_keys SET used = ? WHERE key_hash = ? AND session_id = ? AND kind = 'link'"
            " AND used IS NULL AND expires >= ?",
            (at, _hash(key), session_id, at),
        )
        if not spent or not table_mic_allowed(db, session_id):
            return None
        db.execute(
            "INSERT INTO mic_keys (key_hash, session_id, kind, created, expires)"
            " VALUES (?, ?, 'cookie', ?, ?)",
            (_hash(cookie), session_id, at, at + COOKIE_TTL_S),
        )
    return cookie


def cookie_ok(store: Store, session_id: str, key: str | None, now: float | None = None) -> bool:
    """Whether ``key`` (the cookie's value) lets its browser be this game's microphone."""
    if not key:
        return False
    at = time.time() if now is None else now
    rows = store.execute(
        "SELECT 1 FROM mic_keys m JOIN sessions s ON s.id = m.session_id"
        " WHERE m.key_hash = ? AND m.session_id = ? AND m.kind = 'cookie' AND m.expires >= ?"
        " AND s.table_mic = 1",
        (_hash(key), session_id, at),
    )
    return bool(rows)


async def until_revoked(store: Store, session_id: str, key: str | None, every: float = RECHECK_S) -> None:
    """Return once ``key`` no longer lets its browser be the game's microphone (``--off``, a
    new link, or its cookie expired), looking every ``every`` seconds. A failed look is
    not a revocation: it looks again."""
    while True:
        await asyncio.sleep(every)
        try:
            if not await asyncio.to_thread(cookie_ok, store, session_id, key):
                return
        except Exception:
            log.warning("microphone of session %s: its key could not be looked up", session_id, exc_info=True)

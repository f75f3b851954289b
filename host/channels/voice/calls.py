"""The voice channel's own tables (made by host/migrations): each call (its turn-token
counter, its language and a one-phone game being set up, the channel to go back to) and
which phone a one-phone game is played on."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from host.store import Store


@dataclass(frozen=True)
class Call:
    sid: str
    address: str
    base_url: str
    session_id: str | None = None
    shared: bool = False
    prev_channel: str | None = None
    setup: dict[str, Any] | None = None  # JSON: the call's language, a one-phone game's setup
    ended: bool = False

    @property
    def lang(self) -> str | None:
        """The language this call speaks before it is in a game (the game's after): the
        number it called, or the one the caller switched to (kept in ``setup``)."""
        lang = (self.setup or {}).get("lang")
        return str(lang) if lang else None

    def url(self, path: str, **query: object) -> str:
        """An absolute action URL (Twilio requires them in TwiML sent through the API)."""
        params = {k: str(v) for k, v in query.items() if v is not None}
        return f"{self.base_url}/twilio/voice{path}" + (f"?{urlencode(params)}" if params else "")


class Calls:
    """Live and past calls, and which phone a one-phone game is played on."""

    _FIELDS = frozenset({"session_id", "shared", "prev_channel", "setup", "address"})

    def __init__(self, store: Store) -> None:
        self.store = store

    def get(self, sid: str) -> Call | None:
        rows = self.store.execute("SELECT * FROM voice_calls WHERE call_sid = ?", (sid,))
        if not rows:
            return None
        r = rows[0]
        return Call(
            r["call_sid"],
            r["address"],
            r["base_url"],
            r["session_id"],
            bool(r["shared"]),
            r["prev_channel"],
            json.loads(r["setup"]) if r["setup"] else None,
            bool(r["ended"]),
        )

    def open(self, sid: str, address: str, base_url: str, lang: str) -> Call:
        self.store.execute(
            "INSERT INTO voice_calls (call_sid, address, base_url, setup, at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (call_sid) DO NOTHING",
            (sid, address, base_url, json.dumps({"lang": lang}), time.time()),
        )
        call = self.get(sid)
        assert call is not None
        return call

    def update(self, sid: str, **fields: Any) -> Call:
        assert set(fields) <= self._FIELDS, fields
        # Flags are integers in the table (PostgreSQL will not store a bool in one).
        values = [
            json.dumps(v) if k == "setup" and v is not None else int(v) if isinstance(v, bool) else v
            for k, v in fields.items()
        ]
        sets = ", ".join(f"{k} = ?" for k in fields)
        self.store.execute(f"UPDATE voice_calls SET {sets} WHERE call_sid = ?", (*values, sid))
        call = self.get(sid)
        assert call is not None
        return call

    def token(self, sid: str, session_id: str, turn: int) -> str:
        """A fresh turn token for this call: ``session.turn.counter``."""
        rows = self.store.execute(
            "UPDATE voice_calls SET counter = counter + 1 WHERE call_sid = ? RETURNING counter", (sid,)
        )
        return f"{session_id}.{turn}.{rows[0]['counter'] if rows else 0}"

    def end(self, sid: str) -> Call | None:
        """Mark a call over; the call as it was, or None if unknown or already over."""
        with self.store.transaction():
            call = self.get(sid)
            if call is None or call.ended:
                return None
            self.store.execute("UPDATE voice_calls SET ended = 1 WHERE call_sid = ?", (sid,))
            return call

    def previous(self, address: str, sid: str) -> Call | None:
        rows = self.store.execute(
            "SELECT call_sid FROM voice_calls WHERE address = ? AND call_sid != ? ORDER BY at DESC LIMIT 1",
            (address, sid),
        )
        return self.get(rows[0]["call_sid"]) if rows else None

    def room(self, address: str) -> str | None:
        rows = self.store.execute("SELECT session_id FROM voice_rooms WHERE address = ?", (address,))
        return str(rows[0]["session_id"]) if rows else None

    def set_room(self, address: str, session_id: str) -> None:
        self.store.execute(
            "INSERT INTO voice_rooms (address, session_id, at) VALUES (?, ?, ?)"
            " ON CONFLICT (address) DO UPDATE SET session_id = excluded.session_id, at = excluded.at",
            (address, session_id, time.time()),
        )

    def drop_room(self, address: str) -> None:
        self.store.execute("DELETE FROM voice_rooms WHERE address = ?", (address,))

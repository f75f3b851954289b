"""Stored replies: a webhook retried (or sent to two workers) is answered from the reply
stored under its key, never ruled twice."""

from __future__ import annotations

import json
import time
from typing import Any

from host.store.database import Database, Read, Transaction


class Replies(Database):
    """The stored replies of a :class:`host.store.Store` (idempotency)."""

    def reply(self, key: str) -> dict[str, Any] | None:
        """The reply stored under ``key``, if any (inside a transaction looked up once)."""
        return self.replies(key).get(key)

    def replies(self, *keys: str, also: Read | None = None) -> dict[str, dict[str, Any]]:
        """The replies stored under any of ``keys``, in one look; inside a transaction each
        key is looked up once. On PostgreSQL, inside a transaction, each key is locked
        first: the same webhook on two workers at once, the second waits for the first's
        reply. ``also`` is read right after the look-up, in the same round trip (so after
        the keys' locks): a request that will want it anyway saves a trip."""
        txn: Transaction | None = getattr(self._local, "txn", None)
        known = txn.replies if txn is not None else {}
        wanted = sorted({k for k in keys if k not in known})
        if wanted:
            if txn is not None and not self.sqlite:
                # Sent with the read, in one round trip; the read sees what the wait let in.
                locks = ", ".join("pg_advisory_xact_lock(hashtextextended(?, 0))" for _ in wanted)
                self.write(f"SELECT {locks}", wanted)
            marks = ", ".join("?" for _ in wanted)
            rows = self._execute(f"SELECT key, body FROM replies WHERE key IN ({marks})", wanted, also)[0]
            found = {r["key"]: r["body"] for r in rows}
            if txn is None:
                known = found
            else:
                known.update({k: found.get(k) for k in wanted})
        elif also is not None:
            also.took(self.execute(also.sql, also.params))
        return {k: json.loads(body) for k in keys if (body := known.get(k)) is not None}

    def save_reply(self, key: str, session_id: str | None, body: dict[str, Any]) -> None:
        text = json.dumps(body)
        with self.transaction():
            self.write(
                "INSERT INTO replies (key, session_id, body, at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (key) DO UPDATE SET session_id = excluded.session_id,"
                " body = excluded.body, at = excluded.at",
                (key, session_id, text, time.time()),
            )
            txn: Transaction = self._local.txn
            txn.replies[key] = text
            txn.marks[key] = text  # what a commit cut off is looked up by

"""The sessions and their logs: a session is its ordered list of accepted inputs; its row
(game, status, the last input's seq) follows the log. Also the turn clocks' reads."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Collection
from dataclasses import replace
from typing import Any

from host.store.database import Database, Transaction
from host.store.rows import Row, SessionRow, StoredInput, session_row


class Sessions(Database):
    """The sessions, inputs and turn clocks of a :class:`host.store.Store`."""

    def lock_session(self, session_id: str) -> None:
        """Inside a transaction on PostgreSQL: hold the session's row until commit."""
        if not self.sqlite and self.in_transaction:
            self.session(session_id)

    # -- sessions ------------------------------------------------------------------------

    def create_session(
        self, game: str, config: dict[str, Any], code: str | None = None, status: str = "active"
    ) -> str:
        session_id = uuid.uuid4().hex[:12]
        now = time.time()
        with self.transaction():
            self.write(
                "INSERT INTO sessions (id, game, config, code, status, created, updated)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (session_id, game, json.dumps(config), code, status, now, now),
            )
            txn: Transaction = self._local.txn
            # Made here, so known (and on PostgreSQL locked: no one else can see it yet).
            txn.rows[session_id] = SessionRow(session_id, game, config, code, status, now, now)
            txn.locked.add(session_id)
        return session_id

    def session(self, session_id: str) -> SessionRow | None:
        """The session's row; inside a transaction read once (on PostgreSQL that read locks
        it: the row cannot change but through this Store until the commit)."""
        txn: Transaction | None = getattr(self._local, "txn", None)
        if txn is not None and session_id in txn.rows:
            return txn.rows[session_id]
        lock = txn is not None and not self.sqlite
        # Locking on PostgreSQL is this same read, FOR UPDATE (one round trip).
        sql = "SELECT * FROM sessions WHERE id = ?" + (" FOR UPDATE" if lock else "")
        rows = self.execute(sql, (session_id,))
        row = session_row(rows[0]) if rows else None
        if txn is not None and row is not None:
            self._keep(txn, row)
        return row

    def _keep(self, txn: Transaction, row: SessionRow) -> None:
        """Remember a session's row for the rest of the transaction; on PostgreSQL it was
        read FOR UPDATE, so it is locked too."""
        txn.rows[row.id] = row
        if not self.sqlite:
            txn.locked.add(row.id)

    def session_read_with(self, id_sql: str) -> str:
        """A ``WITH`` item, ``s``, for a read that also wants the session whose id the scalar
        query ``id_sql`` gives: the read takes its columns (``s.*``, under a join that keeps
        its own rows when there is none) and hands its first row to ``took_session``. Inside
        a transaction on PostgreSQL the row is locked (FOR UPDATE) as ``session`` would: one
        statement instead of two, one round trip less, and still a prepared statement."""
        lock = " FOR UPDATE" if self.in_transaction and not self.sqlite else ""
        return f"s AS (SELECT * FROM sessions WHERE id = ({id_sql}){lock})"

    def took_session(self, r: Row) -> SessionRow | None:
        """The session's row from a read made with ``session_read_with`` (None if it found
        none); inside a transaction ``session`` answers from it, reading nothing."""
        if r.get("id") is None:
            return None
        txn: Transaction | None = getattr(self._local, "txn", None)
        if txn is not None and r["id"] in txn.rows:
            return txn.rows[r["id"]]  # what this transaction knows (and may have changed) stands
        row = session_row(r)
        if txn is not None:
            self._keep(txn, row)
        return row

    def session_by_code(self, code: str) -> SessionRow | None:
        rows = self.execute("SELECT * FROM sessions WHERE code = ?", (code,))
        return session_row(rows[0]) if rows else None

    def sessions(self, status: str | None = None) -> list[SessionRow]:
        if status is None:
            rows = self.execute("SELECT * FROM sessions ORDER BY created")
        else:
            rows = self.execute("SELECT * FROM sessions WHERE status = ? ORDER BY created", (status,))
        return [session_row(r) for r in rows]

    def set_status(self, session_id: str, status: str) -> None:
        now = time.time()
        with self.transaction():
            self.write("UPDATE sessions SET status = ?, updated = ? WHERE id = ?", (status, now, session_id))
            txn: Transaction = self._local.txn
            if (row := txn.rows.get(session_id)) is not None:
                txn.rows[session_id] = replace(row, status=status, updated=now)

    # -- the log -------------------------------------------------------------------------

    def inputs(self, session_id: str, after: int = 0) -> list[StoredInput]:
        rows = self.execute(
            "SELECT seq, at, body FROM inputs WHERE session_id = ? AND seq > ? ORDER BY seq",
            (session_id, after),
        )
        return [StoredInput(r["seq"], r["at"], json.loads(r["body"])) for r in rows]

    def last_seq(self, session_id: str) -> int:
        """The seq of the session's last input (0: none, or no such session); inside a
        transaction from its row, which that locks on PostgreSQL."""
        if self.in_transaction:
            row = self.session(session_id)
            return row.seq if row is not None else 0
        rows = self.execute("SELECT seq FROM sessions WHERE id = ?", (session_id,))
        return int(rows[0]["seq"]) if rows else 0

    def append(self, session_id: str, body: dict[str, Any], at: float) -> int:
        with self.transaction():
            row = self.session(session_id)
            if row is None:
                raise KeyError(session_id)
            seq = row.seq + 1
            # The session's row follows by itself (its seq and time: the migrations' trigger).
            self.write(
                "INSERT INTO inputs (session_id, seq, at, body) VALUES (?, ?, ?, ?)",
                (session_id, seq, at, json.dumps(body)),
            )
            txn: Transaction = self._local.txn
            txn.rows[session_id] = replace(row, seq=seq, updated=at)
        return seq

    # -- turn clocks (host/timeouts.py) --------------------------------------------------

    def running_clocks(self, now: float, own_deadlines: Collection[str]) -> list[tuple[str, int, float]]:
        """Active sessions whose clock may be running, with their latest input (session,
        its seq, its time): a turn limit at least half gone (``sessions.clock``, kept by the
        migrations' trigger, indexed), or a game in ``own_deadlines`` (one that sets
        deadlines of its own, judged step by step by the caller). Only those are read: the
        timer asks every second, whatever the number of open games."""
        own = sorted(own_deadlines)
        games = "".join(" OR s.game = ?" for _ in own)
        rows = self.execute(
            "SELECT s.id AS id, i.seq AS seq, i.at AS at"
            " FROM sessions s JOIN inputs i ON i.session_id = s.id AND i.seq = s.seq"
            f" WHERE (s.clock <= ?{games}) AND s.status = 'active'",
            (now, *own),
        )
        return [(str(r["id"]), int(r["seq"]), float(r["at"])) for r in rows]

    def clock_quiet(self, session_id: str, seq: int) -> None:
        """Nothing is timed in the session until its next input (which sets its clock
        again): the timer stops reading it."""
        self.execute("UPDATE sessions SET clock = NULL WHERE id = ? AND seq = ?", (session_id, seq))

    def remember_reminder(self, session_id: str, seq: int, at: float) -> bool:
        """Record the reminder for the turn begun by ``seq``; False if one was already
        recorded (by this or another worker): only the one that records it sends it."""
        return bool(
            self.execute_count(
                "INSERT INTO turn_reminders (session_id, seq, at) VALUES (?, ?, ?)"
                " ON CONFLICT (session_id, seq) DO NOTHING",
                (session_id, seq, at),
            )
        )

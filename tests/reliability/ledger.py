"""What each committed transaction of a Store wrote, for the tests of "one transaction per
ruling": the move and every message it causes are committed together, whatever way the
move came in. A crash between two commits keeps the first and loses the second, so a move
whose news was queued in a later transaction is exactly what these records show.

The records come from SQLAlchemy's cursor events on the store's engine: the statements the
database really ran, grouped by BEGIN ... COMMIT (a statement outside one is its own).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import event

from host.store import Store

_INSERT = re.compile(r"\s*INSERT\s+INTO\s+(\w+)", re.IGNORECASE)


@dataclass
class Commit:
    rows: list[tuple[str, str]] = field(default_factory=list)  # (table, its values as text)

    def inserted(self, table: str, containing: str = "") -> list[str]:
        return [values for t, values in self.rows if t == table and containing in values]


class Ledger:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.commits: list[Commit] = []
        self._open = threading.local()
        self._lock = threading.Lock()
        event.listen(store.engine, "before_cursor_execute", self._seen)

    def close(self) -> None:
        event.remove(self.store.engine, "before_cursor_execute", self._seen)

    def _seen(self, conn: Any, cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        word = statement.lstrip().split(None, 1)[0].upper() if statement.strip() else ""
        if word == "BEGIN":
            self._open.commit = Commit()
        elif word == "COMMIT":
            with self._lock:
                self.commits.append(self._open.commit)
            self._open.commit = None
        elif word == "ROLLBACK":
            self._open.commit = None
        elif (m := _INSERT.match(statement)) is not None:
            row = (m.group(1).lower(), str(parameters))
            current: Commit | None = getattr(self._open, "commit", None)
            if current is not None:
                current.rows.append(row)
            else:
                with self._lock:
                    self.commits.append(Commit([row]))

    def commit_of(self, table: str, containing: str) -> Commit:
        """The one commit that inserted a ``table`` row containing ``containing``."""
        with self._lock:
            found = [c for c in self.commits if c.inserted(table, containing)]
        assert len(found) == 1, f"{len(found)} commits inserted {containing!r} into {table}"
        return found[0]

    def news_with_move(self, move: str, told: str) -> list[str]:
        """The outbox rows (values as text) naming ``told`` that were committed with the
        input containing ``move`` (a logged move's JSON, e.g. ``'"number": 52'``)."""
        return self.commit_of("inputs", move).inserted("outbox", told)

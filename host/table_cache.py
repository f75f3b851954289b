"""The referee's tables kept in memory: the sessions used lately, at most ``size`` of them.

A table is only a shortcut: the log is the truth, and a session that is not here (never
seen by this process, or pushed out by ones used since) is rebuilt from it. So the cache
is bounded (least recently used goes first; ``GAMEHOST_TABLE_CACHE``), and it only ever
holds tables of what was committed: a transaction keeps the tables it makes to itself
(``Store.memo``) and shares them once it has committed, so a ruling rolled back is never
seen by anyone, nor mistaken later for another input logged at the same seq.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from host.config import DEFAULT_TABLE_CACHE
from host.session import Table

DEFAULT_SIZE = DEFAULT_TABLE_CACHE


class TableCache:
    """Tables by session id, least recently used out first; safe across threads."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        if size < 0:
            raise ValueError("a cache size cannot be negative")
        self.size = size
        self._tables: OrderedDict[str, Table] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._tables)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._tables

    def get(self, session_id: str) -> Table | None:
        with self._lock:
            table = self._tables.get(session_id)
            if table is not None:
                self._tables.move_to_end(session_id)
            return table

    def put(self, session_id: str, table: Table) -> None:
        """Keep ``table`` unless a later one of the session is kept already (another
        thread's, committed after it): an older table would only cost a catch-up, but
        there is no reason to go back."""
        if self.size == 0:
            return
        with self._lock:
            kept = self._tables.get(session_id)
            if kept is None or kept.seq <= table.seq:
                self._tables[session_id] = table
            self._tables.move_to_end(session_id)
            while len(self._tables) > self.size:
                self._tables.popitem(last=False)

    def discard(self, session_id: str) -> None:
        with self._lock:
            self._tables.pop(session_id, None)

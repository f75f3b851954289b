"""What a screen at the table shows: one session's public page data, folded from its log.

The page keeps its own fold (``host/session.py`` ``apply``) rather than the referee's cached
table, because it also wants the words of the last few rulings, which the table does not
keep. Folds are cached per session and only the new log rows are applied; a server restart
folds the log again, so the page shows the same thing after it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from dataclasses import dataclass, field, replace
from typing import Any

from grammars import load
from host.referee import describe_events, prompt_text
from host.session import SessionConfig, Table, apply, new_table
from host.store import SessionRow, Store
from host.web.labels import labels

#: Rulings the page shows, newest first.
RULINGS = 5
#: Folds kept: the games watched lately (an old one is folded again if opened).
FOLDS = 256


@dataclass
class _Fold:
    table: Table
    rulings: deque[list[str]] = field(default_factory=lambda: deque(maxlen=RULINGS))


class Feed:
    """Page data per session. Called from worker threads (``asyncio.to_thread``): the
    store serialises its own reads, a lock keeps one fold per session consistent."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._folds: OrderedDict[str, _Fold] = OrderedDict()
        self._lock = threading.Lock()

    def fold(self, row: SessionRow) -> _Fold:
        with self._lock:
            fold = self._folds.get(row.id)
            if fold is None:
                fold = _Fold(new_table(SessionConfig.model_validate(row.config)))
                self._folds[row.id] = fold
                while len(self._folds) > FOLDS:
                    self._folds.popitem(last=False)
            self._folds.move_to_end(row.id)
            for stored in self.store.inputs(row.id, after=fold.table.seq):
                before = fold.table
                fold.table, events = apply(fold.table, stored)
                lines = _said(before, fold.table, events)
                if lines:
                    fold.rulings.appendleft(lines)
            return replace(fold, rulings=deque(fold.rulings, maxlen=RULINGS))

    def page(self, row: SessionRow) -> dict[str, Any]:
        """The live view of one session as JSON data: nothing private (no phone number, no
        hand), only what the whole table may see."""
        fold = self.fold(row)
        table = fold.table
        acting = table.to_act()
        board: dict[str, object] = {}
        names = labels(table.lang)["board"]
        if table.state is not None:
            board = table.spec.talk.view(table.state, table.lang)
        return {
            "code": row.code,
            "game": table.spec.title,
            "seq": table.seq,
            "lang": table.lang,
            "status": row.status,
            "running": table.running,
            "over": table.state is not None and table.state.is_over,
            "players": [{"name": name, "acting": name in acting} for name in table.names],
            "to_act": [name for name in table.names if name in acting],
            "prompt": prompt_text(table),
            "rulings": list(fold.rulings),
            "board": board,
            # The board's labels in the session's language (the keys above stay English).
            "labels": {k: names.get(k, k) for k in board},
        }


def _said(before: Table, after: Table, events: list[Any]) -> list[str]:
    """The words of one log row: a game started, or its events announced."""
    if after.games > before.games:
        return [load(after.lang).phrase("new_game", players=", ".join(after.names))]
    return describe_events(after, events) if events else []

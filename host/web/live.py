"""What a screen at the table shows: one session's public page data, folded from its log.

The page keeps its own fold (``host/session.py`` ``apply``) rather than the referee's cached
table, because it also wants the words of the last few rulings, which the table does not
keep. Folds are cached per session and only the new log rows are applied; a server restart
folds the log again, so the page shows the same thing after it. The data carries its HTML
too (``host/web/screen.py``): the first page and each update are drawn by one renderer.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field, replace
from typing import Any

from games.base import View
from grammars import load
from host.deadline import limit
from host.referee import Clock, describe_events, prompt_text
from host.session import SessionConfig, Table, apply, new_table
from host.sms_text import texted
from host.store import SessionRow, Store
from host.web import screen
from host.web.labels import labels

#: Rulings the page shows, oldest first (the last one large).
RULINGS = 5
#: Folds kept: the games watched lately (an old one is folded again if opened).
FOLDS = 256


@dataclass
class _Fold:
    table: Table
    rulings: deque[list[str]] = field(default_factory=lambda: deque(maxlen=RULINGS))
    last_at: float = 0.0  # when the last input was logged: the turn clock runs from it


class Feed:
    """Page data per session. Called from worker threads (``asyncio.to_thread``): the
    store serialises its own reads, a lock keeps one fold per session consistent."""

    def __init__(self, store: Store, clock: Clock = time.time) -> None:
        self.store = store
        self.clock = clock
        # Reading every language's texted wording takes a while the first time: here, when
        # the first page is opened, not on the first ruling a page is waiting for.
        texted("")
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
                    fold.rulings.append(lines)
                fold.last_at = stored.at
            return replace(fold, rulings=deque(fold.rulings, maxlen=RULINGS))

    def page(self, row: SessionRow) -> dict[str, Any]:
        """The live view of one session as JSON data: nothing private (no phone number, no
        hand), only what the whole table may see; ``html`` is the same drawn for the page."""
        fold = self.fold(row)
        table = fold.table
        acting = table.to_act()
        board: View = {}
        if table.state is not None:
            board = table.spec.talk.view(table.state, table.lang)
        outcome = table.state.outcome if table.state is not None and table.state.is_over else None
        winners = list(outcome.winners) if outcome is not None else []
        out = set(board.get("out", []))
        # Words follow the players' channel: a table that only texts was told "text NEW".
        said = texted if table.players and all(p.channel == "sms" for p in table.players) else _same
        prompt = prompt_text(table)
        now = self.clock()
        step = limit(table)
        page: dict[str, Any] = {
            "code": row.code,
            "game": table.spec.title,
            "seq": table.seq,
            "lang": table.lang,
            "status": row.status,
            "running": table.running,
            "over": outcome is not None,
            "players": [
                {"name": name, "acting": name in acting, "out": name in out, "winner": name in winners}
                for name in table.names
            ],
            "to_act": [name for name in table.names if name in acting],
            "prompt": said(prompt) if prompt is not None else None,
            "rulings": [[said(line) for line in lines] for lines in fold.rulings],
            "board": board,
            # The board's labels in the session's language (the keys above stay English).
            "labels": _labels(board, labels(table.lang)["board"]),
            "winners": winners,
            # The turn clock, when the step awaited has one: when it runs out, and now, both
            # by the server's clock (the page counts down from the difference).
            "clock": None if step is None else {"ends": fold.last_at + step.seconds, "seconds": step.seconds},
            "now": now,
        }
        page["html"] = screen.fragments(page, labels(table.lang)["page"])
        return page


def _same(line: str) -> str:
    return line


def _labels(board: View, names: dict[str, str]) -> dict[str, str]:
    keys = [f["label"] for f in board.get("facts", [])]
    keys += [s["label"] for s in board.get("scores", [])]
    keys += [p["label"] for p in board.get("parts", [])]
    return {k: names.get(k, k) for k in keys}


def _said(before: Table, after: Table, events: list[Any]) -> list[str]:
    """The words of one log row: a game started, or its events announced."""
    if after.games > before.games:
        return [load(after.lang).phrase("new_game", players=", ".join(after.names))]
    return describe_events(after, events) if events else []

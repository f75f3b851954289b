"""What a screen at the table shows: one session's public page data, folded from its log,
and the hub that keeps every open live page of a game up to date.

The page keeps its own fold (``host/session.py`` ``apply``) rather than the referee's cached
table, because it also wants the words of the last few rulings, which the table does not
keep. Folds are cached per session and only the new log rows are applied; a server restart
folds the log again, so the page shows the same thing after it.

:class:`Hub`: the live pages of one process. A game watched by any page has one poller,
which looks at the log (one indexed query every ``POLL`` s: the store, not an in-process
signal, so a ruling made by another server process shows as fast) and, when it grew,
builds the page's message once for every stream of that game. A game nobody watches is
not polled. Each client may hold ``per_client`` streams at once in this process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections import Counter, OrderedDict, deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any

from grammars import load
from host.referee import describe_events, prompt_text
from host.session import SessionConfig, Table, apply, new_table
from host.store import SessionRow, Store
from host.web.labels import labels

log = logging.getLogger(__name__)

#: Rulings the page shows, newest first.
RULINGS = 5
#: How often a watched game's log is looked at: a cheap indexed MAX(seq) query.
POLL = 0.05
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


def message(page: dict[str, Any]) -> str:
    """One Server-Sent Event of a page; its id is the log's seq."""
    return f"id: {page['seq']}\nevent: table\ndata: {json.dumps(page, ensure_ascii=False)}\n\n"


class Watched:
    """One game watched in this process: its latest message, a version that grows with each
    new one, and its streams waiting for the next."""

    def __init__(self) -> None:
        self.version = 0
        self.message = ""
        self.gone = False  # the session no longer exists: its streams end
        self.streams = 0
        self.task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()

    def publish(self, text: str) -> None:
        self.version += 1
        self.message = text
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()  # wakes every stream waiting on this version

    def end(self) -> None:
        self.gone = True
        self.publish("")

    async def after(self, version: int, timeout: float) -> bool:
        """Wait until there is a message newer than ``version``; False after ``timeout``."""
        if self.version != version:
            return True
        changed = self._changed
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await changed.wait()
        return self.version != version


class Hub:
    def __init__(self, feed: Feed, per_client: int, poll: float = POLL) -> None:
        self.feed = feed
        self.store = feed.store
        self.per_client = per_client
        self.poll = poll
        self.games: dict[str, Watched] = {}
        self.clients: Counter[str] = Counter()

    # -- streams per client --------------------------------------------------------------

    def admit(self, client: str) -> bool:
        """Count a new stream against ``client`` (see host/web/codes.py); False: at the cap."""
        if self.clients[client] >= self.per_client:
            return False
        self.clients[client] += 1
        return True

    def release(self, client: str) -> None:
        self.clients[client] -= 1
        if self.clients[client] <= 0:
            del self.clients[client]

    # -- games ---------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def watching(self, session_id: str) -> AsyncIterator[Watched]:
        """Follow a game for one stream; its poller starts with the first and stops with
        the last."""
        game = self.games.get(session_id)
        if game is None:
            game = self.games[session_id] = Watched()
            game.task = asyncio.create_task(self._poll(session_id, game), name=f"live {session_id}")
        game.streams += 1
        try:
            yield game
        finally:
            game.streams -= 1
            if game.streams == 0 and self.games.get(session_id) is game:
                del self.games[session_id]
                if game.task is not None:
                    game.task.cancel()

    async def _poll(self, session_id: str, game: Watched) -> None:
        sent = -1
        while True:
            try:
                if await asyncio.to_thread(self.store.last_seq, session_id) != sent:
                    row = await asyncio.to_thread(self.store.session, session_id)
                    if row is None:
                        game.end()
                        return
                    page = await asyncio.to_thread(self.feed.page, row)
                    sent = page["seq"]
                    game.publish(message(page))
            except Exception:  # the store was busy or closing: the streams wait, try again
                log.exception("live page of session %s: polling failed", session_id)
            await asyncio.sleep(self.poll)

"""What a screen at the table shows: one session's public page data, folded from its log,
and the hub that keeps every open live page of a game up to date.

The page keeps its own fold (``host/session.py`` ``apply``) rather than the referee's cached
table, because it also wants the words of the last few rulings, which the table does not
keep. Folds are cached per session and only the new log rows are applied; a server restart
folds the log again, so the page shows the same thing after it. The data carries its HTML
too (``host/channels/web/screen.py``): the first page and each update are drawn by one renderer.

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
import time
from collections import Counter, OrderedDict, deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any

from games.base import View
from grammars import load
from host.answers import describe_events, prompt_text
from host.channels.sms.text import texted
from host.channels.web import screen
from host.channels.web.labels import labels
from host.deadline import limit
from host.referee import Clock
from host.session import SessionConfig, Table, apply, new_table
from host.store import SessionRow, Store

log = logging.getLogger(__name__)

#: Rulings the page shows, oldest first (the last one large).
RULINGS = 5
#: How often a watched game's log is looked at: a cheap indexed MAX(seq) query.
POLL = 0.05
#: A comment line to every stream after this long without a message keeps proxies from
#: closing a quiet stream.
KEEPALIVE = 15.0
#: Streams woken at a time when a game's message changes, and the least pause between
#: batches (a real pause, not just a turn of the loop, lets worker threads run too).
WAKE_BATCH = 50
WAKE_PAUSE = 0.001
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


def message(page: dict[str, Any]) -> bytes:
    """One Server-Sent Event of a page, encoded once for all its streams; its id is the log's seq."""
    return f"id: {page['seq']}\nevent: table\ndata: {json.dumps(page, ensure_ascii=False)}\n\n".encode()


class Watched:
    """One game watched in this process: its latest message, counters that grow with each
    new message (``version``) and each keepalive (``beat``), and its streams waiting."""

    def __init__(self) -> None:
        self.version = 0
        self.beat = 0
        self.message = b""
        self.gone = False  # the session no longer exists: its streams end
        self.streams = 0
        self.task: asyncio.Task[None] | None = None
        self.woken = time.monotonic()
        self._waiting: list[asyncio.Future[None]] = []

    async def next(self, version: int, beat: int) -> None:
        """Until the message or the keepalive has moved on from ``version`` and ``beat``."""
        if self.version == version and self.beat == beat and not self.gone:
            future = asyncio.get_running_loop().create_future()
            self._waiting.append(future)
            await future

    async def publish(self, data: bytes) -> None:
        self.version += 1
        self.message = data
        await self._wake()

    async def keepalive(self) -> None:
        self.beat += 1
        await self._wake()

    async def end(self) -> None:
        self.gone = True
        await self._wake()

    async def _wake(self) -> None:
        """Wake the waiting streams WAKE_BATCH at a time, and after each batch leave the
        event loop free for as long as the batch took: thousands of streams of one game
        take twice as long to be told, but never hold up every other request (each woken
        stream has written its socket before the batch is timed)."""
        waiting, self._waiting = self._waiting, []
        for i in range(0, len(waiting), WAKE_BATCH):
            started = time.perf_counter()
            for future in waiting[i : i + WAKE_BATCH]:
                if not future.done():  # a stream that went is cancelled
                    future.set_result(None)
            await asyncio.sleep(0)  # the batch runs
            await asyncio.sleep(max(WAKE_PAUSE, time.perf_counter() - started))
        self.woken = time.monotonic()


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
        """Count a new stream against ``client`` (see host/channels/web/codes.py); False: at the cap."""
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
                        await game.end()
                        return
                    page = await asyncio.to_thread(self.feed.page, row)
                    sent = page["seq"]
                    await game.publish(message(page))
                elif time.monotonic() - game.woken >= KEEPALIVE:
                    await game.keepalive()
            except Exception:  # the store was busy or closing: the streams wait, try again
                log.exception("live page of session %s: polling failed", session_id)
            await asyncio.sleep(self.poll)

"""How long the step a table awaits may take, and firing the timeout when it has.

Two clocks, both asked through the game protocol: a game's own ``deadline`` for a step
(an opening question that waits 30 seconds), and the table's turn clock
(``SessionConfig.turn_timeout``) for a ``timed`` game's one player to act. Either runs from
the last input logged for the session. The server's :class:`~host.timeouts.TurnTimer`
checks every session; :class:`Watch` checks one, for a table or a terminal, where a script
can also let time pass (``wait 30``).
"""

from __future__ import annotations

import queue
import re
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from host.referee import Clock, Referee
from host.reply import Reply
from host.session import Table


@dataclass(frozen=True)
class Limit:
    seconds: float
    own: bool  # the game's own deadline (no reminder), not the table's turn clock


def limit(table: Table) -> Limit | None:
    """The limit on the step awaited now, or None when nothing is timed."""
    if not table.running:
        return None
    own = table.spec.deadline(table.state)
    if own is not None:
        return Limit(own, own=True)
    turn_timeout = table.config.turn_timeout
    if table.spec.timed and turn_timeout and turn_timeout > 0 and table.current_player is not None:
        return Limit(turn_timeout, own=False)
    return None


class Watch:
    """One session's clock, checked as time passes (a table's audio, a terminal's script):
    ``due`` rules the timeout once the limit has passed since the last input."""

    def __init__(self, referee: Referee, session_id: str, clock: Clock | None = None) -> None:
        self.referee = referee
        self.session_id = session_id
        self.clock = clock or referee.clock
        self._seq = -1
        self._started = 0.0

    def started(self, table: Table) -> float:
        """When the step awaited began: the time of the last input logged."""
        if table.seq != self._seq:
            last = self.referee.store.inputs(self.session_id, after=table.seq - 1)
            self._seq, self._started = table.seq, (last[0].at if last else self.clock())
        return self._started

    def remaining(self, now: float | None = None) -> float | None:
        """Seconds left on the step awaited now; None: nothing is timed."""
        table = self.referee.table(self.session_id)
        step = limit(table)
        if step is None:
            return None
        now = self.clock() if now is None else now
        return self.started(table) + step.seconds - now

    def due(self, now: float | None = None) -> Reply | None:
        """The timeout's reply if the limit has passed (once: the turn it names goes stale)."""
        left = self.remaining(now)
        if left is None or left > 0:
            return None
        return self.referee.timeout(self.session_id, self.referee.table(self.session_id).state.turn)


class SkipClock:
    """A clock a script can move on: ``wait 30`` in a typed or ``--say`` script passes 30
    seconds at once, so timed steps play the same every run."""

    def __init__(self, base: Clock = time.time) -> None:
        self.base = base
        self.skipped = 0.0

    def __call__(self) -> float:
        return self.base() + self.skipped

    def skip(self, seconds: float) -> None:
        self.skipped += seconds


_WAIT = re.compile(
    r"\s*\(?\s*(?:wait\s+(\d{1,5}(?:\.\d+)?)\s*(?:s|secs?|seconds?)?|(\d{1,5}(?:\.\d+)?)\s*"
    r"(?:s|secs?|seconds?)\s+pass(?:es)?)\s*\)?\s*",
    re.IGNORECASE,
)


def waited(line: str) -> float | None:
    """The seconds a script line lets pass ("wait 30", "(30 seconds pass)"), or None."""
    match = _WAIT.fullmatch(line)
    if match is None:
        return None
    return float(match[1] or match[2])


def timed_lines(stream: Iterable[str], watch: Watch) -> Iterator[str | None]:
    """Lines from ``stream`` (a terminal), and None whenever the step awaited runs out first:
    a thread reads, so the clock fires while nobody types. A step still overdue after the
    caller's ruling is not waited on again until the next line."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for raw in stream:
            lines.put(raw)
        lines.put(None)

    threading.Thread(target=read, name="lines", daemon=True).start()
    overdue = False
    while True:
        left = watch.remaining()
        if left is not None and left <= 0 and overdue:
            left = None
        try:
            raw = lines.get(timeout=None if left is None else max(left, 0.0))
        except queue.Empty:
            overdue = True
            yield None
            continue
        if raw is None:
            return
        overdue = False
        yield raw

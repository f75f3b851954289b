"""Turn timeouts: a reminder at half time, and at the limit the turn runs out.

Everything is derived from what is stored, so a restarted server picks up where the old
one stopped: a turn starts with the last input logged for its session (a move, a timeout,
an undo, a leave or the start of the game), the limit is the game's own deadline for the
step or else the session's ``SessionConfig.turn_timeout`` (``host/deadline.py``), and
reminders already sent are remembered in ``turn_reminders`` (a game's own deadline has
none). At the limit ``Referee.timeout`` rules (a mistake in a tournament, a
pass in training) and everyone is told through their channel's notifier.

``tick(now)`` does one round of checks and says what it did, so tests drive it with an
injected clock instead of sleeping; ``run`` calls it periodically in the server. A step of
the wall clock is not time passing: on the real clock each tick looks for one against the
monotonic clock (host/wall_steps.py), and a turn begun before a forward step is judged by
the time that actually passed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from fastapi import FastAPI

from games.base import all_games
from grammars import load
from host.deadline import limit
from host.notify import Notifiers
from host.referee import Clock, Referee
from host.reply import Reply
from host.wall_steps import WallSteps

log = logging.getLogger(__name__)

TICK_SECONDS = 1.0


@dataclass(frozen=True)
class TimerAction:
    kind: Literal["reminder", "timeout"]
    session_id: str
    turn: int
    player: str | None  # None: a step anyone at the table could take (a game's own deadline)
    reply: Reply


class TurnTimer:
    def __init__(
        self,
        referee: Referee,
        notifiers: Notifiers,
        clock: Clock | None = None,
        monotonic: Callable[[], float] | None = None,
    ) -> None:
        self.referee = referee
        self.notifiers = notifiers
        self.store = referee.store
        self.clock = clock or referee.clock
        # Steps are looked for on the real clock (an injected one moves as its test says).
        if monotonic is None and self.clock is time.time:
            monotonic = time.monotonic
        self.steps = WallSteps(monotonic) if monotonic is not None else None
        # In-memory shortcuts only; the stored log and turn_reminders stay the truth. Both
        # hold only sessions the last tick read: trimmed each tick.
        self._quiet: dict[str, int] = {}  # session with deadlines of its own -> seq, nothing timed
        self._reminded: dict[str, int] = {}  # session -> turn-start seq reminded

    def tick(self, now: float | None = None) -> list[TimerAction]:
        """Send due reminders and rule expired turns; what was done, in order."""
        now = self.clock() if now is None else now
        if self.steps is not None:
            self.steps.look(now)
        actions: list[TimerAction] = []
        own = {spec.name for spec in all_games() if spec.has_deadlines}
        running = self.store.running_clocks(now, own)
        read = {session_id for session_id, _, _ in running}
        for remembered in (self._quiet, self._reminded):
            for gone in remembered.keys() - read:  # not due (moved on, ended, or let go)
                del remembered[gone]
        for session_id, seq, started in running:
            if self._quiet.get(session_id) == seq:
                continue
            # The turn's clock by the time that passed: less any forward step since it began.
            passed = now - self.steps.since(started) if self.steps is not None else now
            try:
                table = self.referee.table(session_id)
                step = limit(table)
                if step is None:  # nothing timed (or game over) until the next input
                    if table.spec.has_deadlines:
                        self._quiet[session_id] = seq  # read every tick by its game's name
                    else:
                        self.store.clock_quiet(session_id, seq)  # not read again until then
                    continue
                if passed < started + step.seconds and (
                    step.own or passed < started + step.seconds / 2 or self._reminded.get(session_id) == seq
                ):
                    continue  # a game's own deadline has no reminder
                # The ruling and the outbox rows telling everyone: one transaction.
                with self.store.transaction():
                    action = self._check(session_id, seq, started, passed)
                    if action is not None:
                        self._deliver(action)
            except Exception:  # one broken session must not stop the others' clocks
                log.exception("turn timer failed for session %s", session_id)
                continue
            if action is not None:
                actions.append(action)
        return actions

    def _check(self, session_id: str, seq: int, started: float, now: float) -> TimerAction | None:
        with self.store.transaction():
            # A move between the query and here started a new turn: its clock is fresh.
            if self.store.last_seq(session_id) != seq:
                return None
            table = self.referee.table(session_id)
            step = limit(table)
            if step is None:
                return None
            player = table.current_player
            turn = table.state.turn
            if now >= started + step.seconds:
                reply = self.referee.timeout(session_id, turn)
                if reply is None:
                    return None
                log.info("session %s: turn %d (%s) timed out", session_id, turn, player or "anyone")
                return TimerAction("timeout", session_id, turn, player, reply)
            if step.own or player is None:
                return None
            if not self.store.remember_reminder(session_id, seq, now):
                self._reminded[session_id] = seq
                return None  # reminded already (perhaps before a restart, or by another worker)
            self._reminded[session_id] = seq
            g = load(table.config.lang)
            left = max(1, math.ceil(started + step.seconds - now))  # seconds; under a minute said as such
            reply = Reply(
                session_id,
                news=[
                    g.phrase("turn_reminder", player=player, minutes=math.ceil(left / 60))
                    if left >= 60
                    else g.phrase("turn_reminder_seconds", player=player, seconds=left)
                ],
                prompt=table.spec.talk.prompt(table.state, table.lang),
                turn=turn,
                next_player=player,
            )
            return TimerAction("reminder", session_id, turn, player, reply)

    def _deliver(self, action: TimerAction) -> None:
        """Into the outbox, inside the ruling's transaction (the sender thread sends)."""
        if action.kind == "timeout":
            self.notifiers.fan_out(action.reply)
            return
        if action.player is not None:
            self.notifiers.tell_player(action.reply, action.player)

    async def run(self, interval: float = TICK_SECONDS) -> None:
        while True:
            try:
                await asyncio.to_thread(self.tick)
            except Exception:
                log.exception("turn timer tick failed")
            await asyncio.sleep(interval)


def install(app: FastAPI) -> TurnTimer:
    """The app's one turn timer (``create_app`` installs it), started with the server and
    stopped by :func:`stop`."""
    timer = TurnTimer(app.state.referee, app.state.notifiers)
    app.state.turn_timer = timer
    app.state.turn_timer_task = None

    async def start(app: FastAPI) -> None:
        app.state.turn_timer_task = asyncio.create_task(timer.run(), name="turn-timer")

    app.state.background.append(start)
    return timer


async def stop(app: FastAPI) -> None:
    task: asyncio.Task[None] | None = getattr(app.state, "turn_timer_task", None)
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        app.state.turn_timer_task = None

"""Turn timeouts over SMS, driven by an injected clock: reminder at half time, ruling at the
limit, and the same after a restart."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from host.timeouts import TurnTimer
from tests.sms.conftest import Clock, Sms, build
from tests.twilio_helpers import FakeTwilio

LIMIT = 600.0  # Settings.sms_turn_timeout's default


def timer(sms: Sms) -> TurnTimer:
    t: TurnTimer = sms.app.state.turn_timer
    return t


def test_tournament_reminder_at_half_time_then_out(sms: Sms, clock: Clock) -> None:
    ann, bob, cy = sms.new_game(3)
    sms.text(ann, "50")
    told = {p: len(sms.inbox(p)) for p in (ann, bob, cy)}
    clock.advance(LIMIT / 2 - 1)
    assert timer(sms).tick() == []
    clock.advance(1)
    [reminder] = timer(sms).tick()
    assert (reminder.kind, reminder.player, reminder.turn) == ("reminder", "Bob", 2)
    assert sms.inbox(bob)[told[bob] :] == [
        "#2 Reminder: Bob, your turn. 5 min left. Bob: an even number above 50 or an odd number below 50."
    ]
    # Only Bob is reminded, and only once.
    assert len(sms.inbox(ann)) == told[ann] and len(sms.inbox(cy)) == told[cy]
    clock.advance(60)
    assert timer(sms).tick() == []
    clock.advance(LIMIT / 2 - 60)
    [out] = timer(sms).tick()
    assert (out.kind, out.player, out.turn) == ("timeout", "Bob", 2)
    expected = "#3 Bob ran out of time and is out. Cy: an even number above 50 or an odd number below 50."
    assert [sms.last(p) for p in (ann, bob, cy)] == [expected] * 3
    assert timer(sms).tick() == []  # stale: ruled once
    assert sms.text(bob, "52") == ["#3 Waiting for Cy."]


def test_training_the_turn_passes(sms: Sms, clock: Clock) -> None:
    ann, bob = sms.new_game(2, "TRAINING")
    clock.advance(LIMIT)
    [passed] = timer(sms).tick()
    assert passed.kind == "timeout"
    assert sms.last(bob) == "#2 Ann ran out of time. Turn passes. Bob: any number from 1 to 100."
    assert sms.table(ann).running


def test_a_move_restarts_the_clock(sms: Sms, clock: Clock) -> None:
    ann, _bob = sms.new_game(2)
    clock.advance(LIMIT - 1)
    timer(sms).tick()  # Ann is reminded
    sms.text(ann, "50")
    clock.advance(LIMIT / 2 - 1)
    assert timer(sms).tick() == []  # Bob's turn began just now
    clock.advance(1)
    assert [a.kind for a in timer(sms).tick()] == ["reminder"]


def test_no_timer_before_start_after_the_end_or_when_switched_off(
    tmp_path: Path, fake: FakeTwilio, clock: Clock
) -> None:
    off = build(tmp_path / "off", fake, clock, sms_turn_timeout=None)
    off.new_game(2)
    clock.advance(10 * LIMIT)
    assert timer(off).tick() == []

    sms = build(tmp_path / "on", fake, clock)
    sms.text("+15550009999", "NEW")  # a lobby: no turn yet
    ann, bob = sms.new_game(2)
    sms.text(ann, "50")
    sms.text(bob, "51")  # Bob is out: game over
    clock.advance(10 * LIMIT)
    assert timer(sms).tick() == []


def test_timeouts_go_on_after_a_restart(tmp_path: Path, fake: FakeTwilio, clock: Clock) -> None:
    first = build(tmp_path, fake, clock)
    ann, bob = first.new_game(2)
    first.text(ann, "50")
    clock.advance(LIMIT / 2)
    assert [a.kind for a in timer(first).tick()] == ["reminder"]
    first.app.state.store.close()

    second = build(tmp_path, fake, clock)
    reminders = len(second.inbox(bob))
    assert timer(second).tick() == []  # the reminder is remembered across the restart
    clock.advance(LIMIT / 2)
    [out] = timer(second).tick()
    assert out.kind == "timeout" and out.player == "Bob"
    assert len(second.inbox(bob)) == reminders + 1
    assert "Ann wins!" in second.last(ann)
    second.app.state.store.close()


def test_the_server_runs_the_timer_in_the_background(tmp_path: Path, fake: FakeTwilio, clock: Clock) -> None:
    sms = build(tmp_path, fake, clock)
    _ann, bob = sms.new_game(2)
    clock.advance(LIMIT)
    with TestClient(sms.app):  # lifespan: background tasks start, and stop at the end
        task = sms.app.state.turn_timer_task
        assert isinstance(task, asyncio.Task) and not task.done()
        assert _eventually(lambda: "Bob wins!" in sms.last(bob))
    assert sms.app.state.turn_timer_task is None


def _eventually(check: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Wait for the background task (polling; the outcome, not the time, is checked)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return False


def test_a_reminder_under_a_minute_says_seconds(tmp_path: Path, fake: FakeTwilio, clock: Clock) -> None:
    sms = build(tmp_path, fake, clock, sms_turn_timeout=90.0)
    ann, bob = sms.new_game(2)
    sms.text(ann, "50")
    clock.advance(45)
    assert [a.kind for a in timer(sms).tick()] == ["reminder"]
    assert sms.last(bob).startswith("#2 Reminder: Bob, your turn. 45 s left.")

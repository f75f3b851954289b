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


# -- a game's own deadline (Upside-Out's opening question waits 30 seconds) -------------------

OPENING = 30.0  # games/upside_out/rules.py OPENING_SECONDS
ALONE = "most recently alone"


def _upside_out(sms: Sms) -> list[str]:
    phones = [f"+1555020{i:04d}" for i in range(1, 4)]
    created = sms.text(phones[0], "NEW UPSIDEOUT Ann")
    code = created[0].split()[1]
    for phone, name in zip(phones[1:], ("Bob", "Cy"), strict=True):
        sms.text(phone, f"JOIN {code} {name}")
    started = sms.text(phones[0], "START")
    assert "personal secret" in started[-1], started
    return phones


def test_a_games_own_deadline_asks_the_second_question_once(sms: Sms, clock: Clock) -> None:
    ann, bob, cy = _upside_out(sms)
    assert sms.table(ann).config.turn_timeout is None  # the game has no turn clock
    clock.advance(OPENING / 2)
    assert timer(sms).tick() == []  # no reminder for a game's own deadline
    clock.advance(OPENING / 2 - 0.5)
    assert timer(sms).tick() == []
    clock.advance(0.5)
    [asked] = timer(sms).tick()
    assert (asked.kind, asked.player) == ("timeout", None)
    for phone in (ann, bob, cy):
        assert ALONE in sms.last(phone)
        assert sum(ALONE in m for m in sms.inbox(phone)) == 1
    clock.advance(10 * OPENING)
    assert timer(sms).tick() == []  # the second question waits for an answer, unclocked
    assert "Cy starts" in sms.text(cy, "me")[0]
    clock.advance(10 * OPENING)
    assert timer(sms).tick() == []
    assert all(sum(ALONE in m for m in sms.inbox(p)) == 1 for p in (ann, bob, cy))


def test_no_second_question_after_someone_claimed(sms: Sms, clock: Clock) -> None:
    ann, bob, _cy = _upside_out(sms)
    clock.advance(OPENING - 1)
    assert "Bob starts" in sms.text(bob, "me")[0]
    clock.advance(10 * OPENING)
    assert timer(sms).tick() == []
    assert not any(ALONE in m for m in sms.inbox(ann))


def test_a_games_deadline_is_kept_across_a_restart(tmp_path: Path, fake: FakeTwilio, clock: Clock) -> None:
    first = build(tmp_path, fake, clock)
    ann, _bob, _cy = _upside_out(first)
    clock.advance(OPENING - 1)
    assert timer(first).tick() == []
    first.app.state.store.close()
    second = build(tmp_path, fake, clock)
    clock.advance(1)
    assert [a.kind for a in timer(second).tick()] == ["timeout"]
    assert ALONE in second.last(ann)
    second.app.state.store.close()


def test_a_reminder_under_a_minute_says_seconds(tmp_path: Path, fake: FakeTwilio, clock: Clock) -> None:
    sms = build(tmp_path, fake, clock, sms_turn_timeout=90.0)
    ann, bob = sms.new_game(2)
    sms.text(ann, "50")
    clock.advance(45)
    assert [a.kind for a in timer(sms).tick()] == ["reminder"]
    assert sms.last(bob).startswith("#2 Reminder: Bob, your turn. 45 s left.")


def test_the_timer_reads_only_clocks_that_want_a_look(sms: Sms, clock: Clock) -> None:
    """Each tick reads the sessions whose limit is half gone, not every open game; what it
    remembers of a session goes once the session is no longer read."""
    store = sms.app.state.store
    ann, _bob = sms.new_game(2)
    code = sms.text("+15550008001", "NEW Dee")[0].split()[1]  # a second game, other phones
    sms.text("+15550008002", f"JOIN {code} Eve")
    sms.text("+15550008001", "START")
    assert store.running_clocks(clock(), ()) == []
    clock.advance(LIMIT / 2)
    assert len(store.running_clocks(clock(), ())) == 2
    reminders = timer(sms).tick()
    assert [a.kind for a in reminders] == ["reminder", "reminder"]
    assert len(timer(sms)._reminded) == 2
    sms.text(ann, "50")  # Ann's game moves on: its clock starts again
    assert len(store.running_clocks(clock(), ())) == 1
    timer(sms).tick()
    assert len(timer(sms)._reminded) == 1


def test_a_game_over_is_not_read_again(sms: Sms, clock: Clock) -> None:
    ann, bob = sms.new_game(2)
    sms.text(ann, "LEAVE")  # Bob alone: the game is over, nothing is timed
    assert not sms.table(bob).running
    clock.advance(LIMIT)
    store = sms.app.state.store
    assert len(store.running_clocks(clock(), ())) == 1
    assert timer(sms).tick() == []
    assert store.running_clocks(clock(), ()) == []

"""Issue 43, item 9: a step of the wall clock is not time passing. Stepped 700 s forward, it
ruled every waiting SMS player out at once; now the turn timer tells a step from time
passing by the monotonic clock, and a turn begun before the step keeps its time. (The
outbox's half: tests/reliability/test_outbox_unknown.py.)"""

from __future__ import annotations

import time

import pytest

from host.timeouts import TurnTimer
from host.wall_steps import STEP_S, WallSteps
from tests.clock import Clock
from tests.sms.conftest import Sms

LIMIT = 600.0  # Settings.sms_turn_timeout's default
GAMES = 5


def _waiting(sms: Sms, i: int) -> str:
    """A two-player game of its own phones, Ann's first move made: Bob's phone (his turn)."""
    ann, bob = f"+1555020{i:02d}01", f"+1555020{i:02d}02"
    code = sms.text(ann, "NEW Ann")[0].split()[1]
    sms.text(bob, f"JOIN {code} Bob")
    sms.text(ann, "START")
    sms.text(ann, "50")
    return bob


def test_a_step_forward_times_out_no_turn_before_it_is_due(sms: Sms, clock: Clock) -> None:
    monotonic = Clock(0.0)
    timer = TurnTimer(sms.app.state.referee, sms.app.state.notifiers, clock=clock, monotonic=monotonic)
    waiting = [_waiting(sms, i) for i in range(GAMES)]  # Bob's turn in each, 600 s on the clock
    assert timer.tick() == []
    clock.advance(700.0)  # the wall clock steps (an NTP correction, a VM resumed)...
    monotonic.advance(1.0)  # ...as a second passes
    assert timer.tick() == []
    assert all("ran out of time" not in sms.last(bob) for bob in waiting)
    # Then time passes as it should: reminded at half time, out at the limit.
    for seconds, kind in ((LIMIT / 2 - 1, "reminder"), (LIMIT / 2, "timeout")):
        clock.advance(seconds)
        monotonic.advance(seconds)
        assert [a.kind for a in timer.tick()] == [kind] * GAMES


def test_a_turn_begun_after_the_step_is_timed_from_its_start(sms: Sms, clock: Clock) -> None:
    monotonic = Clock(0.0)
    timer = TurnTimer(sms.app.state.referee, sms.app.state.notifiers, clock=clock, monotonic=monotonic)
    timer.tick()
    clock.advance(3600.0)
    monotonic.advance(1.0)
    timer.tick()  # the step is seen
    _waiting(sms, 0)
    clock.advance(LIMIT)
    monotonic.advance(LIMIT)
    assert [a.kind for a in timer.tick()] == ["timeout"]


@pytest.mark.parametrize(("wall", "steps"), [(1.0, 0), (STEP_S + 1, 1), (-3600.0, 0), (700.0, 1)])
def test_what_counts_as_a_step(wall: float, steps: int) -> None:
    monotonic = Clock(0.0)
    seen = WallSteps(monotonic)
    now = time.time()
    seen.look(now)
    monotonic.advance(1.0)
    seen.look(now + 1.0 + wall)
    assert len(seen.steps) == steps
    if steps:
        assert seen.since(now - 10) == pytest.approx(wall)  # begun before: given back
        assert seen.since(now + 1.0 + wall) == 0.0  # begun after: none

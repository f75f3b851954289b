"""Steps of the wall clock, told from time passing by the monotonic clock.

Turn clocks are wall-clock times (an input's ``at``: every worker and a restarted server
read the same), so a step of the wall clock (an NTP correction, a VM resumed) looked like
time passing: stepped 700 s forward, every waiting SMS player was ruled out at once.
:class:`WallSteps` compares the wall clock with the monotonic one at each look: a gap
over ``STEP_S`` between them is a step, and a turn that began before a forward step is
given the step back (``since``), so only the turns actually due are timed out. A backward
step only makes a turn that began before it last longer (by at most the step).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

#: Seconds the wall clock may drift from the monotonic one between two looks (a tick is a
#: second; a busy machine is late) before the difference counts as a step.
STEP_S = 5.0
#: Steps are remembered this long (longer than any turn).
KEEP_S = 24 * 3600.0


class WallSteps:
    """The forward steps of ``wall`` seen at each :meth:`look`, measured by ``monotonic``."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.monotonic = monotonic
        self._last: tuple[float, float] | None = None  # (wall, monotonic) at the last look
        self.steps: list[tuple[float, float]] = []  # (wall time just after, seconds forward)

    def look(self, wall: float) -> None:
        """Note the wall clock now; a step since the last look is remembered."""
        mono = self.monotonic()
        if self._last is not None:
            was_wall, was_mono = self._last
            step = wall - (was_wall + (mono - was_mono))
            if abs(step) > STEP_S:
                log.warning("the wall clock stepped %+.0f s: not counted as time passing", step)
                if step > 0:
                    self.steps.append((wall, step))
        self._last = (wall, mono)
        self.steps = [(at, step) for at, step in self.steps if at > wall - KEEP_S]

    def since(self, started: float) -> float:
        """Seconds the wall clock stepped forward after ``started`` (a wall time): what it
        says has passed since then, less this, has passed. A time in the step's own range
        (after the last time before it, before the first after it) is the earlier side."""
        return sum(step for at, step in self.steps if started < at - step / 2)

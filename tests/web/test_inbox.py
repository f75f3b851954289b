"""The browser microphone's inbox: nothing honest is dropped, a flood is."""

from __future__ import annotations

import asyncio

from host.channels.web.listen import AHEAD_S, MAX_BEHIND_S, Inbox
from host.speech.audio import SAMPLE_RATE, SAMPLE_WIDTH

SECOND = SAMPLE_RATE * SAMPLE_WIDTH


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_host_that_falls_behind_catches_up_without_losing_audio() -> None:
    clock = Clock()
    inbox = Inbox(opened=clock.now, clock=clock)
    sent = 0
    for _ in range(20 * 25):  # 20 s of 40 ms frames in real time, none taken meanwhile
        clock.now += 0.04
        assert inbox.put(b"\1" * (SECOND // 25))
        sent += SECOND // 25
    inbox.close()

    async def drain() -> int:
        got = 0
        while (batch := await inbox.take()) is not None:
            got += len(batch)
        return got

    assert asyncio.run(drain()) == sent  # all of it, in one batch or several


def test_audio_ahead_of_real_time_is_dropped_and_taking_resumes() -> None:
    clock = Clock()
    inbox = Inbox(opened=clock.now, clock=clock)
    frame = b"\0" * (SECOND // 10)
    kept = sum(inbox.put(frame) for _ in range(round(AHEAD_S * 10) + 20))
    assert kept == round(AHEAD_S * 10)  # what no page sends in no time
    clock.now += 5.0
    assert inbox.put(frame)  # time has caught up with it


def test_a_recogniser_that_never_takes_caps_what_waits() -> None:
    clock = Clock()
    inbox = Inbox(opened=clock.now, clock=clock)
    second = b"\0" * SECOND
    kept = 0
    for _ in range(round(MAX_BEHIND_S) + 10):
        clock.now += 1.0
        kept += inbox.put(second)
    assert kept == round(MAX_BEHIND_S)
    assert inbox.waiting == round(MAX_BEHIND_S) * SECOND

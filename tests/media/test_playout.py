"""The stream bridge's timing and muting on a manual clock: frames leave on deadlines (no
drift), the listener is muted from our first frame until the mark comes back (or the paced
end plus a grace), and talking over the host sends ``clear`` and is heard.

The listener here is a recording stand-in (the recogniser is exercised in test_stream.py);
the referee is real, on a SQLite file, because the greeting reads the table.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from host.channels.media.playout import FRAME_BYTES, BargeInDetector, Pacer, mulaw_frames
from host.channels.media.session import CallInfo, StreamOptions, StreamSession
from host.referee import Referee
from host.session import SessionConfig
from host.speech.audio import TELEPHONY_RATE, mulaw_encode
from host.speech.model import ModelUnavailable, SpeechModel
from host.store import Store

pytestmark = pytest.mark.timeout(30)
SPEECH_S = 1.0  # every line the stand-in synthesiser speaks lasts this long


def tone(seconds: float, rate: int, level: float = 8000.0, hz: float = 440.0) -> bytes:
    t = np.arange(round(seconds * rate)) / rate
    return (level * np.sin(2 * np.pi * hz * t)).astype("<i2").tobytes()


def fake_tts(text: str, lang: str, rate: int) -> bytes:
    return tone(SPEECH_S, rate)


def inbound(pcm8k: bytes) -> list[str]:
    """8 kHz pcm16 as the base64 payloads of 20 ms Twilio media frames."""
    mulaw = mulaw_encode(pcm8k)
    return [base64.b64encode(mulaw[i : i + FRAME_BYTES]).decode() for i in range(0, len(mulaw), FRAME_BYTES)]


class ManualClock:
    """Time moves only when the test says; sleepers wake in deadline order."""

    def __init__(self) -> None:
        self.now = 0.0
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (self.now + seconds, future)
        self._sleepers.append(entry)
        try:
            await future
        finally:
            if entry in self._sleepers:
                self._sleepers.remove(entry)

    async def advance(self, seconds: float) -> None:
        target = self.now + seconds
        while True:
            for _ in range(5):  # a woken sender needs a few loop turns, no thread
                await asyncio.sleep(0)
            due = [e for e in self._sleepers if e[0] <= target and not e[1].done()]
            if not due:
                break
            self.now = max(self.now, min(t for t, _ in due))
            for t, future in due:
                if t <= self.now:
                    future.set_result(None)
        self.now = target
        await settle()


async def settle() -> None:
    """Let the session's tasks (and their thread hops) run until they wait on something."""
    for _ in range(10):
        await asyncio.sleep(0.005)


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait (in real time, bounded) for the session's tasks to reach ``condition``."""
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"never happened: {what}")


class RecordingListener:
    """Stand-in for host.listening.listener.Listener: records what it is fed, and how."""

    def __init__(self) -> None:
        self.muted = False
        self.fed: list[tuple[bool, bytes]] = []

    def feed(self, pcm: bytes) -> list[Any]:
        self.fed.append((self.muted, pcm))
        return []

    def heard(self, muted: bool) -> bytes:
        return b"".join(pcm for m, pcm in self.fed if m == muted)


class Rig:
    def __init__(
        self,
        tmp_path: Path,
        load_model: Callable[[str], SpeechModel] | None = None,
        hang_up: Callable[[], Awaitable[None]] | None = None,
        **options: Any,
    ) -> None:
        self.referee = Referee(Store(tmp_path / "g.sqlite3"))
        self.session_id = self.referee.create(SessionConfig(), ["Ann", "Bob"])
        self.clock = ManualClock()
        self.listener = RecordingListener()
        self.sent: list[tuple[float, dict[str, Any]]] = []
        info = CallInfo("MZ1", "CA1", self.session_id, None, "en")
        self.session = StreamSession(
            info,
            self.referee,
            self.send,
            load_model=load_model or (lambda lang: SpeechModel(Path("."), lang, None)),
            make_listener=lambda model: self.listener,
            hang_up=hang_up,
            tts=fake_tts,
            options=StreamOptions(**options),
            clock=self.clock,
            sleep=self.clock.sleep,
        )

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append((self.clock.now, message))

    def events(self) -> list[str]:
        return [m["event"] for _, m in self.sent]

    def media_times(self) -> list[float]:
        return [t for t, m in self.sent if m["event"] == "media"]

    def last_mark(self) -> str:
        return str(next(m["mark"]["name"] for _, m in reversed(self.sent) if m["event"] == "mark"))


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(coro)


def test_pacer_keeps_to_its_deadlines_when_sleeps_overshoot() -> None:
    now = [100.0]
    sent: list[float] = []

    async def late_sleep(seconds: float) -> None:
        now[0] += seconds + 0.007  # every wake-up 7 ms late

    async def play() -> None:
        pacer = Pacer(0.02, lead_s=0.1, clock=lambda: now[0], sleep=late_sleep)
        pacer.begin()
        for i in range(200):
            await pacer.wait(i)
            sent.append(now[0])

    run(play())
    start = 100.0
    assert sent[:6] == [start] * 6  # the lead: 100 ms queued at once
    for i, t in enumerate(sent):
        assert t >= start + i * 0.02 - 0.1 - 1e-9  # never early
    # Lateness does not pile up: 200 frames later still within one wake-up of schedule
    # (sleeping 20 ms per frame would be 200 * 7 ms = 1.4 s behind).
    assert sent[-1] - (start + 199 * 0.02 - 0.1) <= 0.007 + 1e-9


def test_frames_leave_on_schedule_and_the_listener_is_muted_until_the_mark(tmp_path: Path) -> None:
    rig = Rig(tmp_path, lead_s=0.2)

    async def scenario() -> None:
        await rig.session.start()
        await until(lambda: len(rig.media_times()) == 11, "the first frames")
        await rig.clock.advance(0)
        frames = round(SPEECH_S / 0.02)
        # At once: the frames due within the 200 ms lead (0..10), then one per 20 ms.
        assert len(rig.media_times()) == 11 and rig.session.playing
        await rig.clock.advance(0.5)
        assert len(rig.media_times()) == 11 + 25
        for payload in inbound(bytes(2 * 8000)):  # a second of caller silence meanwhile
            await rig.session.media(payload)
        await rig.clock.advance(SPEECH_S)
        times = rig.media_times()
        assert len(times) == frames and rig.events()[-1] == "mark"
        assert times == [max(0.0, i * 0.02 - 0.2) for i in range(frames)]
        assert rig.session.playing  # all sent, but Twilio has not played it all yet
        rig.session.mark(rig.last_mark())
        await until(lambda: not rig.session.playing, "unmuted by the mark")
        for payload in inbound(bytes(2 * 1600)):  # 0.2 s of caller audio after the mark
            await rig.session.media(payload)
        await settle()
        await rig.session.close()

    run(scenario())
    assert {m for m, _ in rig.listener.fed} == {True, False}
    muted, heard = rig.listener.heard(True), rig.listener.heard(False)
    assert len(muted) >= 2 * 16000 * 0.9  # the second during playout (resampled to 16 kHz)
    assert 0 < len(heard) <= 2 * 16000 * 0.25  # only what came after the mark
    assert [m for m, _ in rig.listener.fed] == sorted((m for m, _ in rig.listener.fed), reverse=True)


def test_a_mark_that_never_comes_back_unmutes_after_the_grace(tmp_path: Path) -> None:
    rig = Rig(tmp_path, lead_s=0.2, mark_grace_s=1.0)

    async def scenario() -> None:
        await rig.session.start()
        await until(lambda: rig.session.playing, "playing")
        await rig.clock.advance(SPEECH_S)  # paced end
        assert rig.events()[-1] == "mark" and rig.session.playing
        await rig.clock.advance(0.9)
        assert rig.session.playing
        await rig.clock.advance(0.2)
        assert not rig.session.playing
        await rig.session.close()

    run(scenario())


def test_talking_over_the_host_clears_it_and_is_heard(tmp_path: Path) -> None:
    rig = Rig(tmp_path, lead_s=0.2)
    speech = tone(0.4, TELEPHONY_RATE, level=6000.0, hz=220.0)

    async def scenario() -> None:
        await rig.session.start()
        await until(lambda: rig.session.playing, "playing")
        await rig.clock.advance(0.3)
        for payload in inbound(bytes(2 * 800)):  # 0.1 s of quiet line first
            await rig.session.media(payload)
        assert rig.session.playing and "clear" not in rig.events()
        for payload in inbound(speech):
            await rig.session.media(payload)
        assert rig.events()[-1] == "clear"
        assert not rig.session.playing and rig.session.barge_ins == 1
        sent_before = len(rig.sent)
        await rig.clock.advance(SPEECH_S + 2)
        assert len(rig.sent) == sent_before  # nothing more of the cleared speech, no mark
        await settle()
        await rig.session.close()

    run(scenario())
    assert "mark" not in rig.events()
    heard = rig.listener.heard(False)
    # The onset that triggered the barge-in was held back and fed unmuted, not dropped.
    assert len(heard) >= 2 * 16000 * 0.35
    level = np.sqrt(np.mean(np.frombuffer(heard, "<i2").astype(float) ** 2))
    assert level > 2000


def test_a_missing_model_gets_an_apology_and_a_hang_up(tmp_path: Path) -> None:
    hung_up: list[bool] = []

    def no_model(lang: str) -> SpeechModel:
        raise ModelUnavailable("No Vosk model for language 'en' is installed.")

    async def hang_up() -> None:
        hung_up.append(True)

    rig = Rig(tmp_path, load_model=no_model, hang_up=hang_up)

    async def scenario() -> None:
        await rig.session.start()
        await until(lambda: "media" in rig.events(), "the apology")
        await rig.clock.advance(SPEECH_S + 2)
        await until(lambda: bool(hung_up), "the hang-up")
        await rig.session.close()

    run(scenario())
    assert rig.session.said == ["Sorry, I can't listen on this line right now."]
    assert rig.events().count("mark") == 1 and hung_up == [True]


def test_talking_over_the_apology_does_not_cancel_the_hang_up(tmp_path: Path) -> None:
    hung_up: list[bool] = []

    def no_model(lang: str) -> SpeechModel:
        raise ModelUnavailable("No Vosk model for language 'en' is installed.")

    async def hang_up() -> None:
        hung_up.append(True)

    rig = Rig(tmp_path, load_model=no_model, hang_up=hang_up)
    speech = tone(0.4, TELEPHONY_RATE, level=6000.0, hz=220.0)

    async def scenario() -> None:
        await rig.session.start()
        await until(lambda: "media" in rig.events(), "the apology")
        assert not rig.session.listening
        await rig.clock.advance(0.3)
        for payload in inbound(bytes(2 * 800) + speech):  # nobody listens: no barge-in
            await rig.session.media(payload)
        await rig.clock.advance(SPEECH_S + 2)
        await until(lambda: bool(hung_up), "the hang-up")
        await rig.session.close()

    run(scenario())
    assert "clear" not in rig.events() and rig.session.barge_ins == 0
    assert hung_up == [True] and rig.session._inbound.empty()


def test_the_barge_in_detector_wants_sustained_speech() -> None:
    rate = 16000
    rng = np.random.default_rng(7)
    hiss = (rng.normal(0, 400, 4 * rate)).astype("<i2").tobytes()  # a loud but steady line
    detector = BargeInDetector(rate)
    assert not any(detector.feed(hiss[i : i + 640]) for i in range(0, len(hiss), 640))
    click = tone(0.05, rate, level=10000.0)
    assert not detector.feed(click)
    assert not detector.feed(hiss[: rate // 2])
    assert detector.feed(tone(0.3, rate, level=6000.0))


def test_mulaw_frames_are_whole_and_padded_with_silence() -> None:
    frames = mulaw_frames(b"\x00" * 170)
    assert [len(f) for f in frames] == [FRAME_BYTES, FRAME_BYTES]
    assert frames[1] == b"\x00" * 10 + b"\xff" * 150

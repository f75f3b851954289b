"""Table mode: one shared microphone and speaker, the host refereeing out loud.

:class:`TableRunner` pushes audio chunks (from the microphone, or a WAV file through the
same path) into a :class:`~host.speech.listener.Listener` (one for every game), hands
every reply to ``emit`` (the CLI prints it) and speaks it.

The host never hears itself. While it speaks the listener is muted, and afterwards as
much input as the announcement took is dropped too: with a microphone that is the audio
captured (and queued) while the host was busy synthesising and playing; with ``--audio``
the file stands for the room, so the host's speech occupies stream time and the file's
frames during it are dropped, as a microphone would have heard the host then. A WAV
script for a spoken game must therefore leave room after each move for the answer, or
be run with ``--quiet`` (nothing is spoken, nothing dropped).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable

from host.reply import Reply
from host.speech.audio import SAMPLE_WIDTH, AudioDeviceError
from host.speech.listener import Heard, StreamListener
from host.speech.tts import TTSError, duration, play, synthesize

log = logging.getLogger(__name__)

#: Extra input dropped after the host speaks: room echo, audio still in capture buffers.
TAIL_S = 0.25


class StreamClock:
    """The referee's clock for a recorded stream: start time plus seconds of audio fed,
    so the undo grace period is judged in the recording's time, not the decoder's."""

    def __init__(self, start: float | None = None) -> None:
        self.start = time.time() if start is None else start
        self.listener: StreamListener | None = None

    def __call__(self) -> float:
        return self.start + (self.listener.time if self.listener is not None else 0.0)


class Voice:
    """Says announcements through the sound card; falls back to silence if it cannot."""

    def __init__(self, lang: str, rate: int, player: Callable[[bytes, int], None] = play) -> None:
        self.lang = lang
        self.rate = rate
        self.player = player
        self.can_play = True
        self.can_speak = True

    def say(self, text: str) -> float:
        """Speak ``text``; return the seconds of audio it took (0 if nothing was said: with
        no sound card the room hears nothing, so no input is dropped for it)."""
        if not self.can_speak or not self.can_play:
            return 0.0
        try:
            pcm = synthesize(text, self.lang, self.rate)
        except TTSError as exc:
            log.warning("%s; announcements are printed only", exc)
            self.can_speak = False
            return 0.0
        if self.can_play:
            try:
                self.player(pcm, self.rate)
            except AudioDeviceError as exc:
                log.warning("%s; announcements are printed only", exc)
                self.can_play = False
                return 0.0
        return duration(pcm, self.rate)


class TableRunner:
    """Feeds a source of pcm16 chunks to a listener, emitting and speaking the replies."""

    def __init__(
        self,
        listener: StreamListener,
        emit: Callable[[Reply], None],
        voice: Voice | None = None,
        *,
        live: bool = False,
        on_heard: Callable[[Heard], None] | None = None,
        due: Callable[[], Reply | None] | None = None,
    ) -> None:
        self.listener = listener
        self.emit = emit
        self.voice = voice
        self.live = live  # a microphone: drop the wall time spent speaking, not the audio length
        self.on_heard = on_heard
        self.due = due  # the ruling of a step whose time ran out (host/deadline.py Watch.due)
        self.rate = listener.endpointer.rate
        self._drop = 0  # bytes of input still to ignore because the host was speaking

    def announce(self, reply: Reply) -> None:
        """Print (via ``emit``) and speak one reply."""
        self.emit(reply)
        text = " ".join(reply.lines)
        if self.voice is None or not text:
            return
        began = time.monotonic()
        with self.listener.muting():
            seconds = self.voice.say(text)
        if self.live:
            seconds = time.monotonic() - began
        if seconds > 0:
            self._drop += round((seconds + TAIL_S) * self.rate) * SAMPLE_WIDTH

    def feed(self, chunk: bytes) -> None:
        if self._drop:
            dropped = chunk[: self._drop]
            self._drop -= len(dropped)
            chunk = chunk[len(dropped) :]
            with self.listener.muting():
                self.listener.feed(dropped)  # keeps stream time, hears nothing
        if chunk:
            self._handle(self.listener.feed(chunk))
        # The table's clock runs with the input (stream time for a file): a timed step that
        # nobody answered (an opening question) is ruled as the time passes.
        ruled = self.due() if self.due is not None else None
        if ruled is not None:
            self.announce(ruled)

    def run(self, chunks: Iterable[bytes]) -> None:
        for chunk in chunks:
            self.feed(chunk)
        self._handle(self.listener.flush())

    def _handle(self, heards: list[Heard]) -> None:
        for heard in heards:
            if self.on_heard is not None:
                self.on_heard(heard)
            if heard.reply is not None:
                self.announce(heard.reply)

"""Table mode: one shared microphone and speaker, the host refereeing out loud.

:class:`TableRunner` pushes audio chunks (from the microphone, or a WAV file through the
same path) into a :class:`~host.listening.listener.Listener` (one for every game), hands
every reply to ``emit`` (the CLI prints it) and speaks it.

The host never hears itself. While it speaks the listener is muted, and afterwards as
much input as the announcement took is dropped too: with a microphone that is the audio
captured (and queued) while the host was busy synthesising and playing; with ``--audio``
the file stands for the room, so the host's speech occupies stream time and the file's
frames during it are dropped, as a microphone would have heard the host then. A WAV
script for a spoken game must therefore leave room after each move for the answer, or
be run with ``--quiet`` (nothing is spoken, nothing dropped). With no sound card nothing
is dropped either: the room heard nothing, and a player may speak at once.

Speech in the dropped input is reported once per announcement (``on_ignored`` gets the
stream time and "host speaking"), so ``-v`` can say why a move said over the host was not
heard.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable

from host.listening.listener import Heard, StreamListener
from host.reply import Reply
from host.speech.audio import SAMPLE_WIDTH, AudioDeviceError, as_int16
from host.speech.tts import (
    TTSError,
    duration,
    play,
    prepare_in_background,
    stop_preparing,
    synthesize_stream,
)
from host.speech.vad import load_vad

log = logging.getLogger(__name__)

#: Extra input dropped after the host speaks: room echo, audio still in capture buffers.
TAIL_S = 0.25
#: Speech the VAD must find in dropped input before it is reported as ignored.
IGNORED_SPEECH_S = 0.1
HOST_SPEAKING = "host speaking"
#: The longest piece of input fed at once. A ruling's answer drops the input after the
#: point where the ruling was made, so a big chunk (a browser's frames queued while the
#: decoder was behind) is fed in pieces: otherwise the drop would start at the chunk's end,
#: hearing what was said over the host and dropping what was said after it.
FEED_STEP_S = 0.1


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

    def prepare(self) -> None:
        """Make the fixed announcements' audio in the background, so they start at once."""
        if self.can_speak and self.can_play:
            prepare_in_background(self.lang, self.rate)

    def close(self) -> None:
        """Stop making audio in the background (before the process exits: see
        :func:`~host.speech.tts.stop_preparing`)."""
        stop_preparing()

    def say(self, text: str) -> float:
        """Speak ``text``; return the seconds of audio it took (0 if nothing was said: with
        no sound card the room hears nothing, so no input is dropped for it). Playing
        starts with the first sentence (a cached announcement at once), not after the last
        is synthesised."""
        if not self.can_speak or not self.can_play:
            return 0.0
        seconds = 0.0
        try:
            for pcm in synthesize_stream(text, self.lang, self.rate):
                self.player(pcm, self.rate)
                seconds += duration(pcm, self.rate)
        except TTSError as exc:
            log.warning("%s; announcements are printed only", exc)
            self.can_speak = False
        except AudioDeviceError as exc:
            log.warning("%s; announcements are printed only", exc)
            self.can_play = False
        return seconds


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
        on_ignored: Callable[[float, str], None] | None = None,
    ) -> None:
        self.listener = listener
        self.emit = emit
        self.voice = voice
        self.live = live  # a microphone: drop the wall time spent speaking, not the audio length
        self.on_heard = on_heard
        self.due = due  # the ruling of a step whose time ran out (host/deadline.py Watch.due)
        self.on_ignored = on_ignored
        self.rate = listener.endpointer.rate
        self._drop = 0  # bytes of input still to ignore because the host was speaking
        self._dropped_speech: float | None = None  # seconds of speech in it; None: reported
        # Its own detector: the listener's is reset on every muted chunk.
        self._vad = load_vad("auto", self.rate) if on_ignored is not None else None

    def announce(self, reply: Reply) -> None:
        """Print (via ``emit``) and speak one reply."""
        self.emit(reply)
        text = " ".join(reply.lines)
        if self.voice is None or not text:
            return
        began = time.monotonic()
        with self.listener.muting():
            seconds = self.voice.say(text)
        if seconds <= 0:
            return  # nothing was played (no sound card): the room heard nothing
        if self.live:
            seconds = time.monotonic() - began
        self._drop += round((seconds + TAIL_S) * self.rate) * SAMPLE_WIDTH
        self._dropped_speech = 0.0
        if self._vad is not None:
            self._vad.reset()

    def feed(self, chunk: bytes) -> None:
        step = round(FEED_STEP_S * self.rate) * SAMPLE_WIDTH
        for at in range(0, max(len(chunk), 1), step):
            self._feed(chunk[at : at + step])  # once for an empty chunk: the clock still runs

    def _feed(self, chunk: bytes) -> None:
        if self._drop:
            dropped = chunk[: self._drop]
            self._drop -= len(dropped)
            chunk = chunk[len(dropped) :]
            self._notice(dropped)
            with self.listener.muting():
                self.listener.feed(dropped)  # keeps stream time, hears nothing
        if chunk:
            self._handle(self.listener.feed(chunk))
        # The table's clock runs with the input (stream time for a file): a timed step that
        # nobody answered (an opening question) is ruled as the time passes.
        ruled = self.due() if self.due is not None else None
        if ruled is not None:
            self.announce(ruled)

    def _notice(self, dropped: bytes) -> None:
        """Report speech in input dropped while the host spoke, once per announcement."""
        if self.on_ignored is None or self._vad is None or self._dropped_speech is None:
            return
        at = self.listener.time
        spans = self._vad.speech(as_int16(dropped[: len(dropped) - len(dropped) % SAMPLE_WIDTH]), at)
        self._dropped_speech += sum(end - start for start, end in spans)
        if self._dropped_speech >= IGNORED_SPEECH_S:
            self._dropped_speech = None
            self.on_ignored(spans[-1][1] if spans else at, HOST_SPEAKING)

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

"""The table's runner: audio in from one shared microphone, rulings out loud.

:class:`TableRunner` pushes audio chunks (a microphone's, a WAV file's through the same
path, or a browser's) into a :class:`~host.listening.listener.StreamListener`, hands every
reply to ``emit`` (the command line prints it, the browser's page shows it) and speaks it
through a :class:`~host.channels.table.loudspeaker.Loudspeaker`.

The host never hears itself. While it speaks the listener is muted, and afterwards as
much input as the announcement took is dropped too: with a microphone that is the audio
captured (and queued) while the host was busy synthesising and playing; with ``--audio``
(and the browser, whose page plays the host's voice while its microphone keeps sending)
the input stands for the room, so the host's speech occupies stream time and the frames
during it are dropped, as a microphone would have heard the host then. A WAV script for a
spoken game must therefore leave room after each move for the answer, or be run with
``--quiet`` (nothing is spoken, nothing dropped). With no sound card nothing is dropped
either: the room heard nothing, and a player may speak at once.

Speech in the dropped input is reported once per announcement (``on_ignored`` gets the
stream time and "host speaking"), so ``-v`` can say why a move said over the host was not
heard.

With voices on, the runner also asks the players their names at the start
(:class:`~host.channels.table.names.NameRound`), one after another as each is heard.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from host.channels.table.loudspeaker import Loudspeaker
from host.channels.table.names import NameRound
from host.listening.listener import Heard, StreamListener
from host.reply import Reply
from host.speech.audio import SAMPLE_WIDTH, as_int16
from host.speech.vad import load_vad

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


class TableRunner:
    """Feeds a source of pcm16 chunks to a listener, emitting and speaking the replies."""

    def __init__(
        self,
        listener: StreamListener,
        emit: Callable[[Reply], None],
        loudspeaker: Loudspeaker | None = None,
        *,
        live: bool = False,
        on_heard: Callable[[Heard], None] | None = None,
        due: Callable[[], Reply | None] | None = None,
        on_ignored: Callable[[float, str], None] | None = None,
        names: NameRound | None = None,
    ) -> None:
        self.listener = listener
        self.names = names  # the name round (None: voices off)
        self.emit = emit
        self.loudspeaker = loudspeaker
        self.live = live  # a microphone: drop the wall time spent speaking, not the audio length
        self.on_heard = on_heard
        self.due = due  # the ruling of a step whose time ran out (host/deadline.py Watch.due)
        self.on_ignored = on_ignored
        self.rate = listener.endpointer.rate
        self._drop = 0  # bytes of input still to ignore because the host was speaking
        self._dropped_speech: float | None = None  # seconds of speech in it; None: reported
        # Its own detector: the listener's is reset on every muted chunk.
        self._vad = load_vad("auto", self.rate) if on_ignored is not None else None

    def announce(self, reply: Reply, *, hold: bool = True) -> None:
        """Print (via ``emit``) and speak one reply; ``hold`` false: the input heard
        meanwhile is not dropped (a question a WAV file's room did not hear)."""
        self.emit(reply)
        text = " ".join(reply.lines)
        if self.loudspeaker is None or not text:
            return
        began = time.monotonic()
        with self.listener.muting():
            seconds = self.loudspeaker.say(text)
        if seconds <= 0:
            return  # nothing was played (no sound card): the room heard nothing
        if self.live:
            seconds = time.monotonic() - began
        if not hold:
            return
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

    def ask_names(self) -> None:
        """Start the name round (after the game's opening announcements)."""
        if self.names is not None:
            self._ask(self.names.start())

    def _ask(self, question: Reply | None) -> None:
        if question is not None and self.names is not None:
            self.announce(question, hold=not self.names.spoken_over)

    def run(self, chunks: Iterable[bytes]) -> None:
        for chunk in chunks:
            self.feed(chunk)
        self._handle(self.listener.flush())
        if self.listener.who_spoke is not None:
            self.listener.who_spoke.voices.clear()  # the voices are the game's only
            self.listener.who_spoke.named.clear()

    def _handle(self, heards: list[Heard]) -> None:
        for heard in heards:
            if self.on_heard is not None:
                self.on_heard(heard)
            if heard.reply is not None:
                self.announce(heard.reply)
            if self.names is not None:
                self._ask(self.names.heard(heard))

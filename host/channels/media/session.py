"""One phone call bridged to the offline recogniser through a Twilio Media Stream.

Inbound: Twilio sends the caller's audio as 20 ms frames of 8 kHz mu-law. Each frame is
decoded and resampled to 16 kHz in a worker thread (never on the event loop) and queued,
at most ``max_queued_s`` of it (a flood beyond that is dropped), for a worker that feeds the
:class:`~host.listening.listener.Listener` in a thread (Vosk is CPU-bound); the listener
referees what it hears and hands back the replies.

Outbound: a reply's lines are synthesised (Piper for English, espeak-ng otherwise) at
8 kHz, mu-law encoded and sent back as ``media`` messages of 20 ms each, released on a
monotonic deadline schedule (frame *i* at ``start + i * 20 ms - lead``) so Twilio's buffer
holds a little audio but never the whole sentence, then a ``mark``. Twilio echoes the mark
when the audio before it has played.

The host never hears itself: every inbound frame is tagged muted while our audio plays
(from the first frame sent until the mark comes back, or the paced end plus a grace if it
does not). Muted frames still reach the listener, which only advances its stream clock.
Barge-in: while we play, an energy detector watches the caller's frames; sustained speech
sends ``clear`` (Twilio drops what it has buffered), drops our queued speech and unmutes.
The last ``preroll_s`` of audio is held back while playing, so the words that triggered
the barge-in are fed to the listener unmuted rather than lost. (Pacing and barge-in
detection: ``playout.py``.)
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import concurrent.futures
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any, Protocol

from grammars import load
from grammars.reader import spoken
from host.channels.media.playout import FRAME_S, BargeInDetector, Clock, Pacer, Sleep, mulaw_frames
from host.channels.spoken import reply_lines, status_lines
from host.listening.listener import Listener
from host.referee import Referee
from host.reply import Reply
from host.session import Table
from host.speech.audio import (
    SAMPLE_RATE,
    SAMPLE_WIDTH,
    TELEPHONY_RATE,
    Resampler,
    mulaw_decode,
    mulaw_encode,
)
from host.speech.model import ModelUnavailable, SpeechModel
from host.speech.tts import prepare_in_background, synthesize

log = logging.getLogger(__name__)

Message = dict[str, Any]
Send = Callable[[Message], Awaitable[None]]
Synthesize = Callable[[str, str, int], bytes]


class ListenerLike(Protocol):
    """What the bridge needs of :class:`host.listening.listener.Listener`."""

    muted: bool

    def feed(self, pcm: bytes) -> list[Any]: ...


@dataclass(frozen=True)
class StreamOptions:
    lead_s: float = 0.2  # audio kept queued at Twilio ahead of the playhead
    mark_grace_s: float = 1.0  # after the paced end, stop waiting for a mark that never came
    barge_in: bool = True
    preroll_s: float = 0.6  # caller audio held back while we play, fed to the listener on barge-in
    max_digits: int = 4
    # Caller audio waiting for the recogniser, in seconds; beyond it frames are dropped
    # (a flood faster than real time must not grow memory without bound).
    max_queued_s: float = 5.0
    # The largest media payload (base64) taken; Twilio's 20 ms frames are ~216 characters.
    max_payload_chars: int = 8192


class FrameTooLarge(ValueError):
    """A media payload far beyond any real frame: the stream is closed."""


@dataclass(frozen=True)
class CallInfo:
    """Who is on the line: from the ``start`` message and its custom parameters."""

    stream_sid: str
    call_sid: str
    session_id: str
    player: str | None  # None: one phone for the whole table (moves are the current player's)
    lang: str
    address: str | None = None


@dataclass
class _Speech:
    text: str
    epoch: int
    hang_up: bool = False


@dataclass
class _Inbound:
    pcm: bytes
    muted: bool


ListenerFactory = Callable[[SpeechModel], ListenerLike]
ModelLoader = Callable[[str], SpeechModel]


OnReply = Callable[[Reply], None]


def default_listener(referee: Referee, info: CallInfo, on_reply: OnReply | None = None) -> ListenerFactory:
    def make(model: SpeechModel) -> ListenerLike:
        return Listener(
            referee,
            info.session_id,
            model,
            sample_rate=SAMPLE_RATE,
            speaker=info.player,
            phone=True,
            on_reply=on_reply,
        )

    return make


class StreamSession:
    """The bridge for one call. Drive it from the websocket: :meth:`start`, then
    :meth:`media` / :meth:`mark` / :meth:`dtmf` per message, and :meth:`close` at the end.

    ``send`` writes one JSON message to the socket; ``hang_up`` ends the stream (Twilio
    then carries on with the TwiML after ``<Connect>``); ``on_reply`` is told every reply
    the referee gave, in a worker thread inside the transaction that ruled it, spoken or
    keyed (for telling the others: their messages are committed with the move).
    """

    def __init__(
        self,
        info: CallInfo,
        referee: Referee,
        send: Send,
        *,
        load_model: ModelLoader,
        make_listener: ListenerFactory | None = None,
        hang_up: Callable[[], Awaitable[None]] | None = None,
        on_reply: OnReply | None = None,
        tts: Synthesize = synthesize,
        options: StreamOptions | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.info = info
        self.referee = referee
        self.lang = info.lang
        self.options = options or StreamOptions()
        self._send_message = send
        self._load_model = load_model
        self._make_listener = make_listener or default_listener(referee, info, on_reply)
        self._hang_up = hang_up
        self._on_reply = on_reply
        self._tts = tts
        self._clock = clock
        self._sleep = sleep

        self._resampler = Resampler(TELEPHONY_RATE, SAMPLE_RATE)
        self._detector = BargeInDetector(SAMPLE_RATE)
        self._inbound: asyncio.Queue[_Inbound] = asyncio.Queue(
            maxsize=max(1, round(self.options.max_queued_s / FRAME_S))
        )
        # One thread per call decodes its frames, in order (a flood cannot fan out to the
        # shared pool's threads, each with its own allocator arena).
        self._decoder = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="media-decode")
        self._dropping = False  # in a flood episode (logged once per episode)
        self.dropped_frames = 0
        self._speech: asyncio.Queue[_Speech] = asyncio.Queue()
        self._preroll: deque[bytes] = deque()
        self._preroll_bytes = 0
        self._preroll_limit = round(self.options.preroll_s * SAMPLE_RATE) * SAMPLE_WIDTH
        self._epoch = 0  # bumped by a barge-in: speech of an older epoch is dropped
        self._marks = 0
        self._awaiting: str | None = None  # the mark we wait to hear back
        self._mark_back = asyncio.Event()
        self._digits = ""
        self._dtmf_count = 0
        self._confirm: str | None = None  # a "Did you say ...?" waiting for yes or no
        self._send_lock = asyncio.Lock()
        self._tasks: list[asyncio.Task[None]] = []
        self._hearing: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.playing = False
        self.closed = False
        # What happened, for logs and tests.
        self.said: list[str] = []  # texts synthesised and sent, in order
        self.sent_frames = 0
        self.barge_ins = 0

    # -- lifecycle -----------------------------------------------------------------------

    async def start(self, listen: bool = True) -> None:
        """Start speaking and (unless ``listen`` is false: a call we can only apologise to)
        listening; the model loads in the background and the greeting follows it."""
        self._loop = asyncio.get_running_loop()
        if self._tts is synthesize:  # the cache is synthesize's (a test's stand-in has none)
            prepare_in_background(self.lang, TELEPHONY_RATE)
        self._tasks = [asyncio.create_task(self._play(), name=f"play {self.info.call_sid}")]
        if listen:
            self._hearing = asyncio.create_task(self._hear(), name=f"hear {self.info.call_sid}")
            self._tasks.append(self._hearing)

    @property
    def listening(self) -> bool:
        """Whether the caller's audio has a reader. Without one (a refused call, no model,
        a broken recogniser) it would pile up unread, and a barge-in would drop the
        apology's hang-up and leave the call open in silence."""
        return self._hearing is not None and not self._hearing.done() and not self.closed

    async def close(self) -> None:
        """The stream ended: stop listening and speaking (nothing is ruled after this)."""
        if self.closed:
            return
        self.closed = True
        self._decoder.shutdown(wait=False)
        self._epoch += 1
        self._mark_back.set()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # -- inbound messages ----------------------------------------------------------------

    async def media(self, payload: str) -> None:
        """One inbound ``media`` frame (base64 of 8 kHz mu-law)."""
        if len(payload) > self.options.max_payload_chars:
            raise FrameTooLarge(len(payload))
        if not self.listening:
            return
        # Decoding and resampling run in a worker thread, never on the event loop. Frames
        # are converted one at a time in arrival order (the resampler keeps state).
        pcm = await asyncio.get_running_loop().run_in_executor(self._decoder, self._convert, payload)
        if not pcm or not self.listening:
            return
        if not self.playing:
            self._detector.feed(pcm)  # keeps the noise floor current
            self._queue(_Inbound(pcm, muted=False))
            return
        self._hold(pcm)
        if self._detector.feed(pcm) and self.options.barge_in:
            await self._barge_in()

    def _convert(self, payload: str) -> bytes:
        try:
            mulaw = base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError):
            log.warning("call %s: a media frame that is not base64; ignored", self.info.call_sid)
            return b""
        return self._resampler(mulaw_decode(mulaw)) if mulaw else b""

    def _queue(self, item: _Inbound) -> None:
        """Hand audio to the recogniser; when it is full, drop (logged once per episode)."""
        try:
            self._inbound.put_nowait(item)
        except asyncio.QueueFull:
            self.dropped_frames += 1
            if not self._dropping:
                self._dropping = True
                log.warning(
                    "call %s: caller audio arrives faster than it can be heard; dropping frames",
                    self.info.call_sid,
                )
            return
        if self._dropping and self._inbound.qsize() < self._inbound.maxsize // 2:
            self._dropping = False
            log.info("call %s: caught up (%d frames dropped so far)", self.info.call_sid, self.dropped_frames)

    def mark(self, name: str) -> None:
        """Twilio played everything sent before mark ``name`` (or dropped it on ``clear``)."""
        if name and name == self._awaiting:
            self._mark_back.set()

    async def dtmf(self, digit: str) -> None:
        """Keypad: digits then # for a number, * for whose turn, 1/2 for yes/no to a question."""
        text: str | None = None
        command: str | None = None
        if self._confirm is not None and digit in ("1", "2") and not self._digits:
            command = "yes" if digit == "1" else "no"
        elif digit == "*":
            self._digits, command = "", "whose_turn"
        elif digit == "#":
            self._digits, text = "", self._digits or None
        elif digit.isdigit() and len(self._digits) < self.options.max_digits:
            self._digits += digit
        if command is not None:
            text = load(await asyncio.to_thread(self._table_lang)).commands[command][0]
        if text is None:
            return
        self._dtmf_count += 1
        key = f"media:{self.info.stream_sid}:dtmf:{self._dtmf_count}"
        try:
            reply = await asyncio.to_thread(self._keyed, text, key)
        except Exception:
            log.exception("call %s: keypad input %r failed", self.info.call_sid, text)
            await self.apologise()
            return
        await self._ruled(reply)

    def _keyed(self, text: str, key: str) -> Reply:
        """Rule keypad input and queue the news for the others, in one transaction (a
        repeated key is answered from the log and tells nobody again)."""
        store = self.referee.store
        with store.transaction():
            fresh = store.reply(key) is None
            reply = self.referee.handle(self.info.session_id, text, self.info.player, key=key)
            if fresh and self._on_reply is not None:
                self._on_reply(reply)
        return reply

    # -- speaking ------------------------------------------------------------------------

    def say(self, lines: list[str], *, hang_up: bool = False) -> None:
        """Queue ``lines`` to be spoken to the caller (after anything already queued)."""
        text = " ".join(line for line in lines if line).strip()
        if (text or hang_up) and not self.closed:
            self._speech.put_nowait(_Speech(text, self._epoch, hang_up))

    def say_threadsafe(self, lines: list[str]) -> None:
        """:meth:`say` from another thread (a notifier telling this caller the news)."""
        if self._loop is not None and not self.closed:
            self._loop.call_soon_threadsafe(self.say, lines)

    def reply_lines(self, reply: Reply, *, own: bool = True) -> list[str]:
        """What to say for a reply: the ruling, then this caller's turn prompt if it is theirs.
        A reply to someone else (``own=False``) is told without its private lines."""
        if not own:
            reply = replace(reply, answer=[], answer_prompt=None)
        table = self.referee.table(self.info.session_id)
        lang = table.config.lang
        lines = reply_lines(reply, table)
        if (own and reply.confirm is not None) or not table.running:
            return lines
        if self.info.player is None or table.current_player == self.info.player:
            lines.append(_turn_prompt(table, lang))
        return lines

    def greeting(self) -> list[str]:
        table = self.referee.table(self.info.session_id)
        if not table.running:
            return status_lines(table)
        lang = table.config.lang
        if self.info.player is None or table.current_player == self.info.player:
            return [_turn_prompt(table, lang)]
        return [load(lang).phrase("not_your_turn", player=table.current_player)]

    # -- internals: listening ------------------------------------------------------------

    def _table_lang(self) -> str:
        try:
            return self.referee.table(self.info.session_id).config.lang
        except KeyError:
            return self.lang

    def apology(self) -> str:
        return load(self._table_lang()).phrase("speech_unavailable")

    async def apologise(self, *, hang_up: bool = False) -> None:
        """Say :meth:`apology` (worded off the event loop: it reads the session)."""
        self.say([await asyncio.to_thread(self.apology)], hang_up=hang_up)

    def _hold(self, pcm: bytes) -> None:
        """Keep the newest ``preroll_s`` while playing; older audio goes on, muted."""
        self._preroll.append(pcm)
        self._preroll_bytes += len(pcm)
        while self._preroll_bytes > self._preroll_limit and len(self._preroll) > 1:
            old = self._preroll.popleft()
            self._preroll_bytes -= len(old)
            self._queue(_Inbound(old, muted=True))

    def _release(self, muted: bool) -> None:
        while self._preroll:
            self._queue(_Inbound(self._preroll.popleft(), muted))
        self._preroll_bytes = 0

    async def _barge_in(self) -> None:
        log.info("call %s: the caller talked over the host; clearing", self.info.call_sid)
        self.barge_ins += 1
        self._epoch += 1
        while not self._speech.empty():
            self._speech.get_nowait()
        self._awaiting = None
        self._mark_back.set()
        self.playing = False
        await self._send({"event": "clear", "streamSid": self.info.stream_sid})
        self._release(muted=False)

    def _stop_playing(self) -> None:
        self.playing = False
        # Speech that began in the last moments of our audio is the caller's answer.
        self._release(muted=not self._detector.active)

    async def _hear(self) -> None:
        try:
            model = await asyncio.to_thread(self._load_model, self.lang)
            listener = await asyncio.to_thread(self._make_listener, model)
        except ModelUnavailable as exc:
            log.error(
                "call %s: no speech model for %r, cannot listen: %s", self.info.call_sid, self.lang, exc
            )
            await self.apologise(hang_up=True)
            return
        except Exception:
            log.exception("call %s: cannot start listening", self.info.call_sid)
            await self.apologise(hang_up=True)
            return
        self.say(await asyncio.to_thread(self.greeting))
        failures = 0
        while True:
            first = await self._inbound.get()
            batch = [first]
            while not self._inbound.empty() and len(batch) < 25:
                batch.append(self._inbound.get_nowait())
            for muted, pcm in _runs(batch):
                try:
                    heard = await asyncio.to_thread(_feed, listener, pcm, muted)
                    failures = 0
                except Exception:
                    failures += 1
                    log.exception("call %s: recognition failed", self.info.call_sid)
                    if failures >= 3:  # broken for good: say so once, then stop the stream
                        await self.apologise(hang_up=True)
                        return
                    continue
                for h in heard:
                    if h.reply is not None:
                        await self._ruled(h.reply)

    async def _ruled(self, reply: Reply) -> None:
        self._confirm = reply.confirm
        try:
            self.say(await asyncio.to_thread(self.reply_lines, reply))
        except Exception:
            log.exception("call %s: cannot word a reply", self.info.call_sid)
            self.say(reply.lines)

    # -- internals: speaking -------------------------------------------------------------

    async def _send(self, message: Message, epoch: int | None = None) -> bool:
        if self.closed:
            return False
        async with self._send_lock:
            if epoch is not None and epoch != self._epoch:
                return False  # cleared while waiting for the socket: never after a "clear"
            try:
                await self._send_message(message)
            except Exception as exc:  # the socket went away under us
                log.info("call %s: send failed (%s)", self.info.call_sid, exc)
                return False
        return True

    async def _play(self) -> None:
        pacer = Pacer(FRAME_S, self.options.lead_s, self._clock, self._sleep)
        while True:
            item = await self._speech.get()
            if item.epoch != self._epoch:
                continue
            if item.text:
                text = spoken(item.text, self.lang)
                try:
                    pcm = await asyncio.to_thread(self._tts, text, self.lang, TELEPHONY_RATE)
                except Exception:
                    log.exception("call %s: cannot synthesise %r", self.info.call_sid, text)
                    pcm = b""
                if pcm and item.epoch == self._epoch:
                    self.said.append(text)
                    await self._play_one(pacer, mulaw_encode(pcm), item.epoch)
            if item.hang_up and item.epoch == self._epoch and self._hang_up is not None:
                await self._hang_up()
                return

    async def _wait_for_mark(self, timeout: float) -> None:
        """Until the mark comes back (or a barge-in), at most ``timeout`` on our clock."""
        if self._mark_back.is_set():
            return
        back = asyncio.ensure_future(self._mark_back.wait())
        limit = asyncio.ensure_future(self._sleep(max(timeout, 0.0)))
        try:
            await asyncio.wait({back, limit}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            back.cancel()
            limit.cancel()

    async def _play_one(self, pacer: Pacer, mulaw: bytes, epoch: int) -> None:
        frames = mulaw_frames(mulaw)
        self.playing = True
        self._detector.reset()
        pacer.begin()
        for i, frame in enumerate(frames):
            await pacer.wait(i)
            if epoch != self._epoch:
                return  # a barge-in cleared it
            payload = base64.b64encode(frame).decode("ascii")
            if not await self._send(
                {"event": "media", "streamSid": self.info.stream_sid, "media": {"payload": payload}}, epoch
            ):
                return
            self.sent_frames += 1
        self._marks += 1
        name = f"said-{self._marks}"
        self._awaiting = name
        self._mark_back.clear()
        await self._send({"event": "mark", "streamSid": self.info.stream_sid, "mark": {"name": name}}, epoch)
        await self._wait_for_mark(pacer.end(len(frames)) + self.options.mark_grace_s - self._clock())
        if epoch != self._epoch:
            return
        self._awaiting = None
        if self._speech.empty():
            self._stop_playing()


def _turn_prompt(table: Table, lang: str) -> str:
    """The spoken turn prompt, in the language's own phone wording (every language calls
    speak has all of it: grammars.wording_gaps refuses one that does not at start-up)."""
    return table.spec.talk.spoken_prompt(table.state, lang)


def _feed(listener: ListenerLike, pcm: bytes, muted: bool) -> list[Any]:
    if listener.muted != muted:
        listener.muted = muted
    return listener.feed(pcm)


def _runs(batch: list[_Inbound]) -> Iterator[tuple[bool, bytes]]:
    """Consecutive chunks with the same muting, joined (one thread hop per run)."""
    muted: bool | None = None
    parts: list[bytes] = []
    for item in batch:
        if item.muted != muted and parts:
            assert muted is not None
            yield muted, b"".join(parts)
            parts = []
        muted = item.muted
        parts.append(item.pcm)
    if parts and muted is not None:
        yield muted, b"".join(parts)

""" "Listen here": a browser's microphone as the table's microphone, at ``/t/<code>/listen``.

The page captures the microphone, resamples it to 16 kHz mono pcm16 in an AudioWorklet and
sends it over this WebSocket as binary frames. The table is built by
:func:`host.channels.table.open_table`, as for ``gamehost table`` (a shared microphone:
``speaker=None``), so the audio is ruled by the Referee like any move; the phones in the
game are told as for any other channel (their messages are written in the move's own
transaction, through the listener's ``on_reply``). Each reply comes back as a JSON text
frame (its lines, and whose voice it heard) and as a binary WAV frame of the host's voice,
which the page plays. As at the CLI table, the input the announcement covers is dropped
(the host never hears itself), and with voices on the host first asks each player's name
(host/channels/table/names.py: "Ann, say your name.", a "name" frame), without holding up
a move said at once.

The socket lives with the web page, not in host/channels/table/: everything here is the
page's side of it (who may stream: the Origin, the microphone cookie and the join-code
lock-out of mic.py and codes.py; the frames listen.js sends and reads), while the table
channel knows no web and is the same for the sound card, a WAV file and this page.

Who may stream: a browser holding the game's table-microphone cookie (minted by the server
for that game from the link ``gamehost mic CODE`` prints; see host/channels/web/mic.py),
for an active game that has a table microphone, from a page of this server (the Origin
header must be this host or ``GAMEHOST_PUBLIC_URL``), and over HTTPS unless the page is on
a loopback address. The join code alone is not enough: it is six digits, and the
microphone plays the current player's moves. Code lookups count against the client like
any on the web (host/channels/web/codes.py). A refusal closes the handshake with 1008,
which the server sends as HTTP 403.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import threading
import time
import wave
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.datastructures import State

from host.channels.table import TableRunner, open_table
from host.channels.web import codes, mic
from host.config import Settings
from host.listening.listener import Heard
from host.notify import Notifiers
from host.referee import Referee
from host.reply import Reply
from host.speech.audio import SAMPLE_RATE, SAMPLE_WIDTH
from host.speech.model import ModelUnavailable, SpeechModel, describe_model, load_model
from host.store import SessionRow, Store

log = logging.getLogger(__name__)

router = APIRouter()
POLICY_VIOLATION = 1008
#: How far a page's audio may run ahead of the time since its handshake: it starts
#: capturing as it opens the socket, so more is a page sending faster than real time.
AHEAD_S = 3.0
#: The most audio kept waiting for a recogniser that cannot keep up (about 2 MB).
MAX_BEHIND_S = 60.0
MAX_FRAME_BYTES = 64 * 1024
LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


def origin_problem(origin: str | None, host: str | None, settings: Settings) -> str | None:
    """Why a page at ``origin`` may not stream to this server reached as ``host``; None: it may.

    A browser always sends Origin on a WebSocket. It must be a page of this server (its Host,
    or the public address behind a proxy), and HTTPS unless on a loopback address: a
    microphone must not travel in the clear (and browsers give pages on plain http no
    microphone anyway)."""
    if not origin:
        return "no Origin header"
    parts = urlsplit(origin)
    name = (parts.hostname or "").lower()
    local = name in LOOPBACK or name.endswith(".localhost")
    if parts.scheme != "https" and not (local and parts.scheme == "http"):
        return f"{parts.scheme or 'no'} scheme from {name or origin!r}: HTTPS only"
    allowed = {host.lower()} if host else set()
    if settings.public_url:
        allowed.add(urlsplit(settings.public_url).netloc.lower())
    if parts.netloc.lower() not in allowed:
        return f"origin {origin!r} is not this server"
    return None


def wav_bytes(pcm: bytes, rate: int) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(SAMPLE_WIDTH)
        w.setframerate(rate)
        w.writeframes(pcm)
    return out.getvalue()


class Models:
    """Speech models by language for the page, loaded once (in a thread) and shared."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._models: dict[str, SpeechModel] = {}
        self._lock = threading.Lock()

    def __call__(self, lang: str) -> SpeechModel:
        with self._lock:
            model = self._models.get(lang)
            if model is None:
                engine = self.settings.speech_engine
                if self.settings.media_model_dir is not None:
                    model = load_model(self.settings.media_model_dir, lang=lang, engine=engine)
                else:
                    model = load_model(lang=lang, download=self.settings.media_model_download, engine=engine)
                self._models[lang] = model
            return model


def models(state: State) -> Models:
    models: Models | None = getattr(state, "web_models", None)
    if models is None:
        models = state.web_models = Models(state.settings)
    return models


@dataclass
class Room:
    """One page listening to one game: where the runner's output goes."""

    notifiers: Notifiers
    out: asyncio.Queue[str | bytes]
    loop: asyncio.AbstractEventLoop

    def send(self, item: str | bytes) -> None:
        """From the decoder's thread."""
        self.loop.call_soon_threadsafe(self.out.put_nowait, item)

    def tell_others(self, reply: Reply) -> None:
        """Inside the ruling's transaction (the listener's ``on_reply``): the phones' news
        goes into the outbox with the move, so a crash can lose neither."""
        if reply.accepted and reply.public:
            self.notifiers.fan_out(reply)

    def emit(self, reply: Reply) -> None:
        """After the commit: the page shows (and says) the ruling, or the name round's
        question ("Ann, say your name.": type "name", not a ruling)."""
        asked = next((e["player"] for e in reply.events if e.get("type") == "say_your_name"), None)
        if asked is not None:
            self.send(json.dumps({"type": "name", "lines": reply.lines, "player": asked}))
            return
        # Whose voice the ruling heard (host/listening/speakers.py; None: unsure or off).
        speaker = next((e["speaker"] for e in reply.events if e.get("speaker")), None)
        self.send(
            json.dumps(
                {"type": "reply", "lines": reply.lines, "accepted": reply.accepted, "speaker": speaker}
            )
        )

    def play(self, pcm: bytes, rate: int) -> None:
        """The host's voice, for the page to play (the table's loudspeaker)."""
        self.send(wav_bytes(pcm, rate))

    def heard(self, heard: Heard) -> None:
        if heard.reply is None:
            self.send(json.dumps({"type": "ignored", "text": heard.hearing.text, "why": heard.ignored}))


def _open(state: State, row: SessionRow, room: Room) -> tuple[TableRunner, str]:
    """Load the model and make the table (slow: in a thread)."""
    referee: Referee = state.referee
    model = models(state)(referee.table(row.id).config.lang)
    # live=False: the input dropped after an announcement is as long as its audio, which
    # the page plays while the microphone keeps sending. names_over: the name round's
    # questions drop nothing (the page cancels its own echo, and a move said over a
    # question must still end the round), as for a WAV file.
    runner = open_table(
        referee,
        row.id,
        model,
        room.emit,
        live=False,
        confirm_lapse=state.settings.confirm_lapse,
        player=room.play,
        on_reply=room.tell_others,
        on_heard=room.heard,
        names_over=True,
    )
    return runner, describe_model(model)


class Inbox:
    """The page's microphone audio waiting for the recogniser.

    A slow host falls behind and catches up: loading the model, synthesising an answer
    on a busy machine, each takes seconds in which the page goes on sending. Nothing
    said is dropped for that, for the stream is the room's time: the host drops its own
    voice by stream time (``host/channels/table/runner.py``), and a gap would shift that
    onto what is said next. What is dropped is what no honest page sends: audio ahead of
    the time since the handshake (``AHEAD_S``), and more than ``MAX_BEHIND_S`` waiting
    for a recogniser that cannot keep up at all. A drop is logged when it starts."""

    def __init__(self, opened: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.opened, self.clock = opened, clock
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.taken = 0  # bytes accepted since the handshake
        self.waiting = 0  # bytes accepted and not yet taken by the recogniser
        self.dropping = False

    def put(self, data: bytes) -> bool:
        """Queue a frame; False: dropped."""
        rate = SAMPLE_RATE * SAMPLE_WIDTH
        ahead = (self.taken + len(data)) / rate - (self.clock() - self.opened)
        behind = (self.waiting + len(data)) / rate
        if ahead > AHEAD_S or behind > MAX_BEHIND_S:
            if not self.dropping:
                why = f"{ahead:.1f} s ahead of real time" if ahead > AHEAD_S else f"{behind:.0f} s behind"
                log.warning("browser microphone: dropping audio (%s)", why)
            self.dropping = True
            return False
        self.dropping = False
        self.taken += len(data)
        self.waiting += len(data)
        self.queue.put_nowait(data)
        return True

    def close(self) -> None:
        self.queue.put_nowait(None)

    def drop(self) -> None:
        """Forget what is waiting, and end: the microphone was revoked."""
        while not self.queue.empty():
            self.queue.get_nowait()
        self.waiting = 0
        self.queue.put_nowait(None)

    async def take(self) -> bytes | None:
        """Everything waiting, at once (one hop to the decoder per batch); None: the page
        went and everything before was taken."""
        chunk = await self.queue.get()
        if chunk is None:
            return None
        batch = [chunk]
        while not self.queue.empty():
            more = self.queue.get_nowait()
            if more is None:
                self.queue.put_nowait(None)  # the end, after this batch
                break
            batch.append(more)
        data = b"".join(batch)
        self.waiting -= len(data)
        return data


async def receive(websocket: WebSocket, audio: Inbox) -> None:
    """Microphone frames into ``audio`` until the page goes; text frames are ignored."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        data = message.get("bytes")
        if not data:
            continue
        if len(data) > MAX_FRAME_BYTES or len(data) % SAMPLE_WIDTH:
            log.warning("browser microphone: a %d-byte frame; closing", len(data))
            await websocket.close(code=POLICY_VIOLATION)
            return
        audio.put(data)


async def _decode(runner: TableRunner, audio: Inbox, room: Room) -> None:
    try:
        await _feed(runner, audio)
    except Exception:
        # The page is told, and stops (closing the socket): no microphone into the void.
        log.exception("browser microphone: the listener failed")
        room.send(json.dumps({"type": "error", "key": "failed"}))  # the page's words for it


async def _feed(runner: TableRunner, audio: Inbox) -> None:
    """Ask the players' names (the page is listening now), then feed the runner in a
    thread, everything queued at once (one hop per batch)."""
    await asyncio.to_thread(runner.ask_names)
    while (batch := await audio.take()) is not None:
        await asyncio.to_thread(runner.feed, batch)


async def send(
    websocket: WebSocket, out: asyncio.Queue[str | bytes] | asyncio.Queue[str | bytes | None]
) -> None:
    """The frames put in ``out`` to the page, in order, until None (the room check's last)."""
    while (item := await out.get()) is not None:
        if isinstance(item, bytes):
            await websocket.send_bytes(item)
        else:
            await websocket.send_text(item)


async def hang_up_when_revoked(
    websocket: WebSocket, store: Store, session_id: str, key: str | None, audio: Inbox
) -> None:
    """Once the microphone's key is revoked (host/channels/web/mic.py), the audio not yet
    heard is dropped, the listener stops and the page is closed with 1008."""
    await mic.until_revoked(store, session_id, key)
    audio.drop()
    log.warning("browser microphone of session %s: its key was revoked; closing", session_id)
    with contextlib.suppress(Exception):
        await websocket.close(code=POLICY_VIOLATION)


def _admit(store: Store, websocket: WebSocket, code: str) -> tuple[SessionRow | None, str | None]:
    """The game this handshake may stream to, or why not."""
    try:
        row = codes.find_game(store, codes.client(websocket), code)
    except codes.TooManyGuesses:
        return None, "too many wrong join codes from this client"
    if row is None or row.status != "active":
        return None, f"no active game has the code {code}"
    if not mic.cookie_ok(store, row.id, websocket.cookies.get(mic.COOKIE)):
        return None, "no table-microphone key for this game (open the link `gamehost mic CODE` prints)"
    return row, None


async def admitted(websocket: WebSocket, code: str) -> SessionRow | None:
    """The game a microphone's handshake may stream to (the Origin, the game's table
    microphone cookie, the join code's lock-out), the socket accepted; None: refused, and
    closed with 1008. The room check's socket (host/channels/web/room_check.py) is
    admitted the same way."""
    state = websocket.app.state
    settings: Settings = state.settings
    problem = origin_problem(websocket.headers.get("origin"), websocket.headers.get("host"), settings)
    row = None
    if problem is None:
        row, problem = await asyncio.to_thread(_admit, state.store, websocket, code)
    if problem is not None or row is None:
        log.warning("refused a browser microphone for game %s: %s", code, problem)
        await websocket.close(code=POLICY_VIOLATION)
        return None
    await websocket.accept()
    return row


@router.websocket("/t/{code}/listen")
async def listen(websocket: WebSocket, code: str) -> None:
    opened = time.monotonic()  # the page is capturing from about now
    state = websocket.app.state
    row = await admitted(websocket, code)
    if row is None:
        return
    out: asyncio.Queue[str | bytes] = asyncio.Queue()
    room = Room(state.notifiers, out, asyncio.get_running_loop())
    sender = asyncio.create_task(send(websocket, out))
    audio = Inbox(opened)
    decoder: asyncio.Task[None] | None = None
    key = websocket.cookies.get(mic.COOKIE)
    revoked = asyncio.create_task(hang_up_when_revoked(websocket, state.store, row.id, key, audio))
    try:
        try:
            runner, engine = await asyncio.to_thread(_open, state, row, room)
        except (ModelUnavailable, ValueError) as exc:
            log.warning("browser microphone for game %s: %s", code, exc)
            room.send(json.dumps({"type": "error", "text": str(exc)}))
            await asyncio.sleep(0.1)  # let the sender pass it on
            return
        log.info("browser microphone on game %s (session %s): %s", code, row.id, engine)
        room.send(json.dumps({"type": "ready", "engine": engine}))
        decoder = asyncio.create_task(_decode(runner, audio, room))
        await receive(websocket, audio)
    except (WebSocketDisconnect, RuntimeError, ConnectionError):
        log.info("browser microphone on game %s: the page went", code)
    finally:
        revoked.cancel()
        audio.close()
        if decoder is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(decoder, timeout=10)
        sender.cancel()
        with contextlib.suppress(BaseException):
            await sender
        if websocket.application_state.name == "CONNECTED":
            with contextlib.suppress(Exception):
                await websocket.close()

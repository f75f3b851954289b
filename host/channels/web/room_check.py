""" "Check the room": the room check of ``gamehost table --check``
(host/channels/table/check.py) through the browser's microphone, at ``/t/<code>/check``.

The page that is the table's microphone streams its audio here as it does to the listen
socket (host/channels/web/listen.py: 16 kHz mono pcm16 binary frames), and is admitted the
same way (:func:`~host.channels.web.listen.admitted`: the Origin, the table-microphone cookie,
the join code's lock-out). The game's players, in order, are each asked to say two numbers:
a "turn" JSON frame the page shows, and the question in the host's voice (a WAV frame the
page plays; the input it covers is dropped, as the table drops the host's announcements).
At the end comes one "report" frame, the check's lines in the game's language, and the
socket closes. The check only listens: it rules no move and writes nothing to the game's
log, and the game goes on as it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from host.channels.table.check import Check, check, prompt
from host.channels.table.loudspeaker import Loudspeaker
from host.channels.table.runner import FEED_STEP_S, TAIL_S
from host.channels.web import mic
from host.channels.web.listen import Inbox, admitted, hang_up_when_revoked, models, receive, send, wav_bytes
from host.referee import Referee
from host.speech.audio import SAMPLE_RATE, SAMPLE_WIDTH
from host.speech.model import ModelUnavailable, describe_model

log = logging.getLogger(__name__)

router = APIRouter()


@dataclass
class Prompter:
    """Asks each player in turn (``check``'s ``on_turn``): the page is told whose turn it is
    and hears the question; the input the question covers is then dropped (the microphone
    hears the host, and the host never hears itself)."""

    lang: str
    send: Callable[[str | bytes], None]
    speaker: Loudspeaker | None
    drop: int = 0  # bytes of input still to drop

    def __call__(self, player: str) -> None:
        text = prompt(player, self.lang)
        self.send(json.dumps({"type": "turn", "player": player, "lines": [text]}))
        seconds = self.speaker.say(text) if self.speaker is not None else 0.0
        if seconds > 0:
            self.drop += round((seconds + TAIL_S) * SAMPLE_RATE) * SAMPLE_WIDTH

    def heard(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        """``chunks`` in short pieces (a turn begins between two), less what is dropped."""
        step = round(FEED_STEP_S * SAMPLE_RATE) * SAMPLE_WIDTH
        for chunk in chunks:
            for at in range(0, len(chunk), step):
                piece = chunk[at : at + step]
                cut = min(self.drop, len(piece))
                self.drop -= cut
                if piece[cut:]:
                    yield piece[cut:]


def report(result: Check) -> str:
    """The "report" frame: the check's lines as the command line prints them, and what they
    say as data (each player's numbers and level, the room's floor and RT60, the verdicts)."""
    seats = [{"player": s.name, "heard": list(s.heard), "level_db": s.level_db} for s in result.seats]
    room = {"floor_db": result.room.floor_db, "rt60": result.room.rt60}
    lines, verdicts = result.lines(), list(result.verdicts)
    return json.dumps({"type": "report", "lines": lines, "seats": seats, "room": room, "verdicts": verdicts})


def _chunks(audio: Inbox, loop: asyncio.AbstractEventLoop) -> Iterator[bytes]:
    """The page's audio, for the check's thread, until the page goes."""
    while (batch := asyncio.run_coroutine_threadsafe(audio.take(), loop).result()) is not None:
        yield batch


@router.websocket("/t/{code}/check")
async def room_check(websocket: WebSocket, code: str) -> None:
    opened = time.monotonic()  # the page is capturing from about now
    state = websocket.app.state
    row = await admitted(websocket, code)
    if row is None:
        return
    loop = asyncio.get_running_loop()
    out: asyncio.Queue[str | bytes | None] = asyncio.Queue()

    def post(item: str | bytes | None) -> None:
        """From the check's thread."""
        loop.call_soon_threadsafe(out.put_nowait, item)

    sender = asyncio.create_task(send(websocket, out))
    audio = Inbox(opened)
    key = websocket.cookies.get(mic.COOKIE)
    revoked = asyncio.create_task(hang_up_when_revoked(websocket, state.store, row.id, key, audio))
    receiver: asyncio.Task[None] | None = None
    try:
        referee: Referee = state.referee
        table = await asyncio.to_thread(referee.table, row.id)  # read, never written
        lang, players = table.config.lang, list(table.names)
        try:
            model = await asyncio.to_thread(models(state), lang)
        except (ModelUnavailable, ValueError) as exc:
            log.warning("room check for game %s: %s", code, exc)
            out.put_nowait(json.dumps({"type": "error", "text": str(exc)}))
            out.put_nowait(None)
            await sender
            return
        engine = describe_model(model)
        log.info("room check on game %s (session %s): %s", code, row.id, engine)
        out.put_nowait(json.dumps({"type": "ready", "engine": engine, "players": players}))
        receiver = asyncio.create_task(receive(websocket, audio))
        receiver.add_done_callback(lambda _: audio.close())  # the page went: the check ends
        voice = Loudspeaker(lang, SAMPLE_RATE, lambda pcm, rate: post(wav_bytes(pcm, rate)))
        prompter = Prompter(lang, post, voice)
        chunks = prompter.heard(_chunks(audio, loop))
        result = await asyncio.to_thread(check, model, lang, players, chunks, prompter)
        log.info("room check on game %s: %s", code, " | ".join(result.lines()))
        out.put_nowait(report(result))
        out.put_nowait(None)
        await sender
    except (WebSocketDisconnect, RuntimeError, ConnectionError):
        log.info("room check on game %s: the page went", code)
    except Exception:
        # The socket closes and the page says it stopped listening: no check into the void.
        log.exception("room check on game %s: the check failed", code)
    finally:
        revoked.cancel()
        audio.close()
        for task in (receiver, sender):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        if websocket.application_state.name == "CONNECTED":
            with contextlib.suppress(Exception):
                await websocket.close()

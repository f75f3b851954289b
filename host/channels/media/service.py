"""The media channel's service: the live streams by call, the speech models they hear
with, and the notifier that speaks the others' moves into a live stream.

While a stream is live, a caller who is a lobby member is switched to the ``media``
channel, so the others' moves are spoken into the stream instead of redirecting the call
(which would end the stream); when it ends, the member's channel is put back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from fastapi import WebSocket

from grammars import languages
from host.channels.media.handover import redeem_token
from host.channels.media.session import CallInfo, StreamOptions, StreamSession
from host.config import Settings
from host.lobby import Lobby, Member
from host.notify import Notifiers
from host.referee import Referee
from host.reply import Reply
from host.speech.model import ModelUnavailable, SpeechModel, load_model

log = logging.getLogger(__name__)

CHANNEL = "media"
MODEL_RETRY_S = 300.0  # a language whose model failed to load is not retried on every call


class Models:
    """Vosk models by language, loaded once; a failure is remembered for a while so a
    missing model costs each call a spoken apology, not a download attempt or a stall."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._failed: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()

    def __call__(self, lang: str) -> SpeechModel:
        with self._lock:
            failed = self._failed.get(lang)
            if failed is not None and time.monotonic() - failed[0] < MODEL_RETRY_S:
                raise ModelUnavailable(failed[1])
            try:
                engine = self.settings.speech_engine
                if self.settings.media_model_dir is not None:
                    return load_model(self.settings.media_model_dir, lang=lang, engine=engine)
                return load_model(lang=lang, download=self.settings.media_model_download, engine=engine)
            except ModelUnavailable as exc:
                self._failed[lang] = (time.monotonic(), str(exc))
                raise

    def available(self, lang: str) -> bool:
        """Whether calls in ``lang`` can be streamed to us (loads the model once)."""
        try:
            self(lang)
        except ModelUnavailable:
            return False
        return True


@dataclass
class MediaChannel:
    """The media channel's service (``app.state.media``): the live streams by call."""

    settings: Settings
    referee: Referee
    lobby: Lobby
    notifiers: Notifiers
    models: Models
    options: StreamOptions = field(default_factory=StreamOptions)
    # The playout clock; tests run it faster than real time (pacing logic unchanged).
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    live: dict[str, StreamSession] = field(default_factory=dict)  # by CallSid
    _restore: dict[str, str] = field(default_factory=dict)  # CallSid -> channel before the stream

    async def open(self, websocket: WebSocket, message: dict[str, Any]) -> StreamSession:
        # The store is read (and the channel switched) in a thread: its lock may be held by
        # a listener thread ruling a move, and the event loop must not wait for that.
        info, problem = await asyncio.to_thread(self._call_info, message)

        async def send(data: dict[str, Any]) -> None:
            await websocket.send_text(json.dumps(data))

        async def hang_up() -> None:
            log.info("call %s: closing the media stream", info.call_sid)
            with contextlib.suppress(Exception):  # the caller may be gone already
                await websocket.close()

        def tell_others(reply: Reply) -> None:
            # In the ruling's transaction (a worker thread): the others' news is written
            # with the move, as the SMS and voice channels do.
            if reply.accepted and reply.public:
                self.notifiers.fan_out(reply, info.address)

        session = StreamSession(
            info,
            self.referee,
            send,
            load_model=self.models,
            hang_up=hang_up,
            on_reply=tell_others,
            options=self.options,
            clock=self.clock,
            sleep=self.sleep,
        )
        if problem is not None:
            log.warning("call %s: media stream refused: %s", info.call_sid or "?", problem)
            await session.start(listen=False)
            await session.apologise(hang_up=True)
            return session
        log.info(
            "call %s: media stream %s for session %s, player %s, %s",
            info.call_sid,
            info.stream_sid,
            info.session_id,
            info.player or "(whole table)",
            info.lang,
        )
        self.live[info.call_sid] = session
        await asyncio.to_thread(self._switch_channel, info)
        await session.start()
        return session

    async def close(self, session: StreamSession) -> None:
        info = session.info
        if self.live.get(info.call_sid) is session:
            del self.live[info.call_sid]
        # The player goes back to their channel first, and here on the loop: closing the
        # session waits on its decoder thread, and when the socket's task is torn down that
        # wait (or a thread not yet started) is cancelled; it must not leave them on a stream
        # that is gone. It is one short UPDATE. News ruled meanwhile reaches them by call.
        previous = self._restore.pop(info.call_sid, None)
        if previous is not None and info.address is not None:
            self._restore_channel(info.address, info.call_sid, previous)
        await session.close()
        log.info("call %s: media stream ended", info.call_sid)

    def _call_info(self, message: dict[str, Any]) -> tuple[CallInfo, str | None]:
        """Who is calling, from the ``start`` message, and why the stream is refused (if it is)."""
        start = message.get("start")
        start = start if isinstance(start, dict) else {}
        raw = start.get("customParameters")
        params = {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
        call_sid = str(start.get("callSid") or "")
        stream_sid = str(message.get("streamSid") or start.get("streamSid") or "")
        token = params.get("token")
        refused: str | None = None
        if token or self.settings.check_signatures:
            # Who plays comes from the server's row for the token, never from the client.
            grant = redeem_token(self.referee.store, token or "", call_sid) if token else "no stream token"
            if isinstance(grant, str):
                refused = grant
                params = {"lang": params.get("lang", "")}
            else:
                params = {
                    "session": grant.session_id,
                    "player": grant.player or "",
                    "address": grant.address or "",
                    "lang": grant.lang,
                }
        # else: development mode without a token (no signatures either): the parameters.
        info = CallInfo(
            stream_sid=stream_sid,
            call_sid=call_sid,
            session_id=params.get("session", ""),
            player=params.get("player") or None,
            lang=self._lang(params),
            address=params.get("address") or None,
        )
        return info, refused or self._problem(info, start)

    def _lang(self, params: dict[str, str]) -> str:
        known = languages()
        lang = params.get("lang", "")
        if lang in known:
            return lang
        row = self.referee.store.session(params.get("session", "")) if params.get("session") else None
        if row is not None:
            table_lang = str(row.config.get("lang", ""))
            if table_lang in known:
                return table_lang
        return self.settings.lang

    def _problem(self, info: CallInfo, start: dict[str, Any]) -> str | None:
        fmt = start.get("mediaFormat")
        if isinstance(fmt, dict) and (
            fmt.get("encoding", "audio/x-mulaw") != "audio/x-mulaw"
            or str(fmt.get("sampleRate", 8000)) != "8000"
            or str(fmt.get("channels", 1)) != "1"
        ):
            return f"unsupported media format {fmt}"
        if not info.stream_sid or not info.call_sid:
            return "start message without streamSid or callSid"
        if not info.session_id or self.referee.store.session(info.session_id) is None:
            return f"no game {info.session_id!r}"
        return None

    def _switch_channel(self, info: CallInfo) -> None:
        if info.address is None:
            return
        member = self.lobby.member(info.address)
        if member is None or member.session_id != info.session_id:
            return
        self._restore[info.call_sid] = member.channel if member.channel != CHANNEL else "voice"
        self.lobby.set_call(info.address, info.call_sid, CHANNEL)

    def _restore_channel(self, address: str, call_sid: str, previous: str) -> None:
        member = self.lobby.member(address)
        if member is not None and member.channel == CHANNEL and member.call_sid == call_sid:
            self.lobby.set_call(address, call_sid, previous)

    def notify(self, member: Member, reply: Reply) -> None:
        """The ``media`` notifier: tell a caller on a live stream what just happened, in
        the stream."""
        session = self.live.get(member.call_sid) if member.call_sid else None
        if session is None or session.closed:
            # The stream is gone (its channel not put back yet): an ordinary caller, then.
            self.notifiers.tell(replace(member, channel="voice"), reply)
            return
        lines = session.reply_lines(reply, own=False)
        # Said only once the ruling is committed: nothing is announced that could be rolled back.
        self.referee.store.after_commit(lambda: session.say_threadsafe(lines))

"""Phone calls refereed by our own recogniser: Twilio Media Streams at ``/twilio/media``.

A call opts in with TwiML from :func:`stream_twiml`: ``<Connect><Stream>`` to this
websocket, with the game, the player and the language as ``<Parameter>``s (Twilio drops the
query string of a stream URL; the parameters come back in the ``start`` message), and a
single-use token bound to the call (see ``mint_token``): who plays is taken from the token's
stored row, never from the parameters. The
websocket upgrade carries ``X-Twilio-Signature``, Twilio's signature of the ``wss://`` URL
with no parameters; a missing or wrong one is refused (close code 1008, which the server
turns into HTTP 403) before anything is accepted. ``GAMEHOST_VALIDATE_SIGNATURES=false``
skips the check for local development.

The call itself is bridged by :class:`host.speech.stream_session.StreamSession`. While the
stream is live, a caller who is a lobby member is switched to the ``media`` channel, so
the others' moves are spoken into the stream instead of redirecting the call (which would
end the stream); when it ends, the member's channel is put back. When the socket closes,
Twilio carries on with the TwiML after ``<Connect>`` (``after_url``: a ``<Redirect>``).
See docs/media-streams.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
import threading
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from fastapi import APIRouter, FastAPI, WebSocket, WebSocketDisconnect
from twilio.twiml.voice_response import Connect, VoiceResponse
from uvicorn.protocols.utils import ClientDisconnected
from websockets.exceptions import ConnectionClosed

from grammars import languages
from host import notify
from host.config import Settings
from host.lobby import Lobby, Member
from host.outbound import Outbound
from host.referee import Referee
from host.reply import Reply
from host.speech.model import ModelUnavailable, SpeechModel, load_model
from host.speech.stream_session import CallInfo, FrameTooLarge, StreamOptions, StreamSession
from host.store import Store
from host.twilio_security import signature_ok

log = logging.getLogger(__name__)

router = APIRouter()
CHANNEL = "media"
STREAM_PATH = "/twilio/media"
POLICY_VIOLATION = 1008
MESSAGE_TOO_BIG = 1009
# Twilio's messages are a few hundred characters; anything this long is not Twilio's.
MAX_MESSAGE_CHARS = 64 * 1024
MODEL_RETRY_S = 300.0  # a language whose model failed to load is not retried on every call


# -- TwiML -----------------------------------------------------------------------------------


def ws_base(public_base_url: str) -> str:
    """``https://host`` -> ``wss://host`` (``http`` -> ``ws`` for a local test server)."""
    base = public_base_url.rstrip("/")
    for http, ws in (("https://", "wss://"), ("http://", "ws://")):
        if base.startswith(http):
            return ws + base[len(http) :]
    return base


def stream_url(public_base_url: str) -> str:
    return ws_base(public_base_url) + STREAM_PATH


def stream_response(
    public_base_url: str,
    session_id: str,
    player: str | None,
    lang: str,
    *,
    address: str | None = None,
    after_url: str | None = None,
    response: VoiceResponse | None = None,
    token: str | None = None,
) -> VoiceResponse:
    """TwiML that hands a call to our recogniser for game ``session_id``.

    ``player`` None means one phone for the whole table (moves are the current player's).
    ``address`` (the caller's number) lets the others' moves reach this caller through the
    stream. ``after_url`` is where the call goes when the stream ends (we close it when we
    cannot listen, or the caller's game moves on elsewhere). ``response`` is TwiML to
    append to (something to say first).
    """
    vr = response if response is not None else VoiceResponse()
    connect = Connect()
    stream = connect.stream(url=stream_url(public_base_url))
    # With ``token`` (see mint_token) the server trusts only the token; the other
    # parameters are informational.
    params = {"token": token, "session": session_id, "player": player, "lang": lang, "address": address}
    for name, value in params.items():
        if value:
            stream.parameter(name=name, value=value)
    vr.append(connect)
    if after_url:
        vr.redirect(after_url, method="POST")
    return vr


def stream_twiml(*args: Any, **kwargs: Any) -> str:
    """:func:`stream_response` as a TwiML document."""
    return str(stream_response(*args, **kwargs))


# -- stream tokens ---------------------------------------------------------------------------

# The handshake signature covers a fixed URL, so it proves nothing about who is calling,
# and the start message's customParameters are the client's word. A stream is bound to
# the call whose TwiML opened it: a random single-use token, stored with that call's SID
# and the game, player and number it may play as, short-lived.
TOKEN_TTL_S = 300.0  # from the TwiML to the stream's start (spoken lines come first)


@dataclass(frozen=True)
class StreamGrant:
    call_sid: str
    session_id: str
    player: str | None
    address: str | None
    lang: str


def mint_token(
    store: Store,
    call_sid: str,
    session_id: str,
    player: str | None,
    address: str | None,
    lang: str,
    *,
    ttl: float = TOKEN_TTL_S,
    now: float | None = None,
) -> str:
    """A token for one stream of call ``call_sid`` (put it in the ``<Stream>``'s parameters).
    The table is made by ``setup`` (not here: that would commit the caller's transaction)."""
    token = secrets.token_urlsafe(24)
    at = time.time() if now is None else now
    with store.transaction() as db:
        db.execute("DELETE FROM stream_tokens WHERE expires < ?", (at - 3600,))  # old rows
        db.execute(
            "INSERT INTO stream_tokens (token, call_sid, session_id, player, address, lang, expires)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (token, call_sid, session_id, player, address, lang, at + ttl),
        )
    return token


def redeem_token(store: Store, token: str, call_sid: str, now: float | None = None) -> StreamGrant | str:
    """The grant for ``token`` used by call ``call_sid`` (consumed), or why it is refused."""
    at = time.time() if now is None else now
    with store.transaction() as db:
        rows = db.execute("SELECT * FROM stream_tokens WHERE token = ?" + db.for_update(), (token,))
        if not rows:
            return "unknown stream token"
        row = rows[0]
        if row["used"] is not None:
            return "stream token already used"
        if row["expires"] < at:
            return "stream token expired"
        if not hmac.compare_digest(str(row["call_sid"]), call_sid):
            return "stream token of another call"
        db.execute("UPDATE stream_tokens SET used = ? WHERE token = ?", (at, token))
    return StreamGrant(row["call_sid"], row["session_id"], row["player"], row["address"], row["lang"])


# -- handshake -------------------------------------------------------------------------------


def handshake_urls(websocket: WebSocket, settings: Settings) -> list[str]:
    """The URL(s) Twilio may have signed: the public one, else the one we were reached at
    (also as ``wss://``, for a TLS proxy in front of us). Never with a query string."""
    path = websocket.url.path
    if settings.public_url:
        return [ws_base(settings.public_url) + path]
    seen = str(websocket.url.replace(query=""))
    return [seen, "wss://" + seen[len("ws://") :]] if seen.startswith("ws://") else [seen]


def handshake_ok(websocket: WebSocket, settings: Settings) -> bool:
    if not settings.check_signatures:
        return True
    signature = websocket.headers.get("X-Twilio-Signature")
    return any(signature_ok(settings, url, {}, signature) for url in handshake_urls(websocket, settings))


# -- services --------------------------------------------------------------------------------


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
class Media:
    settings: Settings
    referee: Referee
    lobby: Lobby
    outbound: Outbound
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
                notify.fan_out(self.lobby, self.outbound, reply, info.address)

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
                params = {"session": grant.session_id, "player": grant.player or "",
                          "address": grant.address or "", "lang": grant.lang}
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


# The notifier gets the Outbound of the app whose game moved; this finds its streams.
_services: weakref.WeakKeyDictionary[Outbound, Media] = weakref.WeakKeyDictionary()


def setup(app: FastAPI) -> None:
    state = app.state
    media = Media(state.settings, state.referee, state.lobby, state.outbound, Models(state.settings))
    state.media = media
    _services[state.outbound] = media
    voice = getattr(state, "voice", None)
    if voice is not None and state.settings.voice_recognizer == "vosk":
        voice.streams = media.models.available
    notify.register(CHANNEL, _notify)


def _notify(outbound: Outbound, member: Member, reply: Reply) -> None:
    """Tell a caller on a live stream what just happened, in the stream."""
    media = _services.get(outbound)
    session = media.live.get(member.call_sid) if media is not None and member.call_sid else None
    if session is None or session.closed:
        # The stream is gone (its channel not put back yet): an ordinary caller, then.
        notify.tell(outbound, replace(member, channel="voice"), reply)
        return
    lines = session.reply_lines(reply, own=False)
    # Said only once the ruling is committed: nothing is announced that could be rolled back.
    outbound.store.after_commit(lambda: session.say_threadsafe(lines))


# -- the websocket ---------------------------------------------------------------------------


@router.websocket(STREAM_PATH)
async def media_stream(websocket: WebSocket) -> None:
    media: Media = websocket.app.state.media
    if not handshake_ok(websocket, media.settings):
        log.warning("refused a media stream with a missing or wrong signature")
        await websocket.close(code=POLICY_VIOLATION)
        return
    await websocket.accept()
    session: StreamSession | None = None
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if isinstance(text, str) and len(text) > MAX_MESSAGE_CHARS:
                # Parsing it would stall the event loop for every other call.
                log.warning("media stream: a %d-character message; closing the stream", len(text))
                await websocket.close(code=MESSAGE_TOO_BIG)
                break
            data = _json(text)
            if data is None:
                continue
            event = data.get("event")
            if event == "start" and session is None:
                session = await media.open(websocket, data)
            elif event == "stop":
                break
            elif session is None:
                continue  # "connected", or anything before "start"
            elif event == "media":
                payload = data.get("media")
                if isinstance(payload, dict) and isinstance(payload.get("payload"), str):
                    await session.media(payload["payload"])
            elif event == "mark":
                mark = data.get("mark")
                if isinstance(mark, dict):
                    session.mark(str(mark.get("name", "")))
            elif event == "dtmf":
                dtmf = data.get("dtmf")
                if isinstance(dtmf, dict):
                    await session.dtmf(str(dtmf.get("digit", "")))
    except FrameTooLarge as exc:
        log.warning("media stream: a %d-character media payload; closing the stream", exc.args[0])
        with contextlib.suppress(Exception):
            await websocket.close(code=MESSAGE_TOO_BIG)
    except (WebSocketDisconnect, RuntimeError, ConnectionError, ClientDisconnected, ConnectionClosed):
        # The caller hung up (or we closed the socket ourselves): an ordinary end.
        log.info("media stream: the connection closed")
    except Exception:
        log.exception("media stream failed")
    finally:
        if session is not None:
            try:
                await media.close(session)
            except Exception:
                log.exception("media stream: cleaning up failed")
        if websocket.client_state.name == "CONNECTED" and websocket.application_state.name == "CONNECTED":
            with contextlib.suppress(Exception):
                await websocket.close()


def _json(text: object) -> dict[str, Any] | None:
    """A text frame as a JSON object; binary frames and junk are ignored."""
    if not isinstance(text, str):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        log.warning("media stream: a frame that is not JSON; ignored")
        return None
    return data if isinstance(data, dict) else None

"""The table on a screen: the host's home page and the live view of one game.

``GET /`` lists the games offered (and, for the operator with the admin token, the sessions
in progress); ``GET /t/<code>`` is one game by its join code, for a phone or a TV at the
table (and, with the host's microphone link, makes that browser the table's microphone:
host/channels/web/mic.py); ``GET /t/<code>/events`` streams the same data as Server-Sent Events
whenever the game's log grows (one poller per game per process feeds all its streams:
host/channels/web/live.py; a client may keep ``GAMEHOST_LIVE_STREAMS_PER_CLIENT`` open). Each
message's ``id`` is the log's seq, so a browser's EventSource reconnects by itself and gets
the current state at once (from the log, also after a restart). Join codes are looked up
with JOIN's lock-out for guessers (host/channels/web/codes.py).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, StreamingResponse
from fastapi.templating import Jinja2Templates
from starlette.types import Receive, Scope, Send

from games.base import CHANNELS, all_games
from host.channels.web import codes, listen, mic, room_check, screen
from host.channels.web.labels import labels
from host.channels.web.live import Feed, Hub
from host.config import Settings
from host.limits.address import client_key
from host.lobby import CODE_DIGITS
from host.store import SessionRow, Store

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
STATIC = {
    "table.css": "text/css",
    "table.js": "text/javascript",
    "listen.js": "text/javascript",
    "pcm16-worklet.js": "text/javascript",
    "favicon.svg": "image/svg+xml",
}
EXAMPLE_NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Flo")

router = APIRouter(include_in_schema=False)
router.include_router(listen.router)  # "Listen here": /t/<code>/listen
router.include_router(room_check.router)  # "Check the room": /t/<code>/check
templates = Jinja2Templates(env=screen.ENV)  # one environment: the screen's helpers in every page


def _feed(request: Request) -> Feed:
    state = request.app.state
    feed: Feed | None = getattr(state, "web_feed", None)
    if feed is None:
        feed = state.web_feed = Feed(state.store, state.referee.clock)
    return feed


def _hub(request: Request) -> Hub:
    state = request.app.state
    hub: Hub | None = getattr(state, "web_hub", None)
    if hub is None:
        hub = state.web_hub = Hub(_feed(request), state.settings.live_streams_per_client)
    return hub


def is_admin(request: Request, settings: Settings) -> bool:
    """The request carries the admin token (``Authorization: Bearer`` or ``?token=``); no
    token configured: nobody is."""
    if settings.admin_token is None:
        return False
    expected = settings.admin_token.get_secret_value().encode()
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    candidates = [given.strip()] if scheme.lower() == "bearer" else []
    candidates.append(request.query_params.get("token", ""))
    return any(c and hmac.compare_digest(c.encode(), expected) for c in candidates)


def _games() -> list[dict[str, Any]]:
    out = []
    for spec in sorted(all_games(), key=lambda s: (not s.default, s.title)):
        if spec.max_players is None:
            seats = f"{spec.min_players}+"
        elif spec.max_players == spec.min_players:
            seats = str(spec.min_players)
        else:
            seats = f"{spec.min_players}-{spec.max_players}"
        # A one-word name the SMS keyword takes ("NEW UPSIDEOUT"); the default game is bare NEW.
        keyword = "NEW" if spec.default else f"NEW {spec.name.upper().replace('-', '')}"
        # An example table the game seats: Blófa needs four.
        names = ",".join(EXAMPLE_NAMES[: max(spec.min_players, 2)])
        out.append(
            {
                "name": spec.name,
                "title": spec.title,
                "summary": spec.summary,
                "seats": seats,
                "channels": [c for c in CHANNELS if c in spec.channels],
                "sms": keyword if "sms" in spec.channels else None,
                "play": f"gamehost play {spec.name} --players {names}",
            }
        )
    return out


def _sessions(store: Store, feed: Feed) -> list[dict[str, Any]]:
    out = []
    for row in store.sessions():
        if row.status == "closed" or row.code is None:
            continue
        page = feed.page(row)
        players = ", ".join(p["name"] for p in page["players"])
        out.append({"code": row.code, "game": page["game"], "status": row.status, "players": players})
    return out


@router.get("/", response_class=HTMLResponse)
async def home(request: Request) -> Response:
    settings: Settings = request.app.state.settings
    sessions = None
    if is_admin(request, settings):
        sessions = await asyncio.to_thread(_sessions, request.app.state.store, _feed(request))
    return templates.TemplateResponse(request, "home.html", {"games": _games(), "sessions": sessions})


async def _game(request: Request, code: str) -> SessionRow | Response:
    """The game of a join code, or the page saying there is none (404) or that this client
    guessed too many wrong codes (429)."""
    store: Store = request.app.state.store
    try:
        row = await asyncio.to_thread(codes.find_game, store, codes.client(request), code)
    except codes.TooManyGuesses:
        log.warning("web: %s is locked out after too many wrong join codes", codes.client(request))
        retry = {"Retry-After": str(int(codes.WINDOW))}
        return templates.TemplateResponse(
            request, "unknown.html", {"code": echoed(code), "busy": True}, status_code=429, headers=retry
        )
    if row is None:
        return templates.TemplateResponse(request, "unknown.html", {"code": echoed(code)}, status_code=404)
    return row


def echoed(code: str) -> str:
    """A code from the address as a page says it back: a join code is six digits, so a few
    more are shown and the rest cut (``/t/<5000 digits>`` is not a heading 5000 long)."""
    limit = 2 * CODE_DIGITS
    return code if len(code) <= limit else code[:limit] + "…"


def _secure(request: Request) -> bool:
    """Whether a cookie must be Secure: always, but for a page on a loopback address over
    plain http (the only http page a browser gives a microphone)."""
    return not (request.url.scheme == "http" and (request.url.hostname or "") in listen.LOOPBACK)


@router.get("/t/{code}", response_class=HTMLResponse)
async def table_page(request: Request, code: str) -> Response:
    store: Store = request.app.state.store
    found = await _game(request, code)
    if isinstance(found, Response):
        return found
    row, who = found, codes.client(request)
    spent = False
    key = request.query_params.get(mic.PARAM)
    if key:
        # The host's microphone link: traded, once, for the cookie the microphone's
        # handshake carries; the address bar loses the key at once.
        cookie = await asyncio.to_thread(mic.redeem_link, store, row.id, key)
        if cookie is not None:
            response = RedirectResponse(f"/t/{code}", status_code=303)
            response.set_cookie(
                mic.COOKIE,
                cookie,
                max_age=int(mic.COOKIE_TTL_S),
                path=f"/t/{code}",
                httponly=True,
                samesite="lax",
                secure=_secure(request),
            )
            log.info("web: game %s has a table microphone (link spent by %s)", code, who)
            return response
        log.warning("web: a spent, expired or wrong microphone link for game %s from %s", code, who)
        await asyncio.to_thread(codes.missed, store, who)
        spent = True
    table_mic = await asyncio.to_thread(mic.cookie_ok, store, row.id, request.cookies.get(mic.COOKIE))
    page = await asyncio.to_thread(_feed(request).page, row)
    words = labels(page["lang"])["page"]
    context = {"page": page, "words": words, "mic": table_mic, "mic_spent": spent}
    return templates.TemplateResponse(request, "table.html", context)


@router.get("/t")
async def watch(code: str = "") -> Response:
    """The home page's form: a join code to its page (no script needed), typed as people
    read it out or text it ("684 527", "684-527")."""
    code = "".join(c for c in code if c not in " -\t")
    return RedirectResponse(f"/t/{code}" if code.isdigit() else "/", status_code=303)


class _Stream(StreamingResponse):
    """A live stream that gives its client's place back however it ends (also when the
    client left before the first byte)."""

    def __init__(self, content: AsyncIterator[bytes], release: Callable[[], None]) -> None:
        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        super().__init__(content, media_type="text/event-stream", headers=headers)
        self._release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()


@router.get("/t/{code}/events")
async def table_events(request: Request, code: str) -> Response:
    store: Store = request.app.state.store
    who = codes.client(request)
    try:
        row = await asyncio.to_thread(codes.find_game, store, who, code)
    except codes.TooManyGuesses:
        raise HTTPException(status_code=429, detail="too many wrong join codes") from None
    if row is None:
        raise HTTPException(status_code=404, detail=f"no game has the code {echoed(code)}")
    hub, client = _hub(request), client_key(who)
    if not hub.admit(client):
        log.warning("web: %s already has %d live pages open; refused another", who, hub.per_client)
        busy = {"Retry-After": "15"}
        raise HTTPException(status_code=429, detail="too many live pages open from here", headers=busy)
    session_id = row.id

    async def stream() -> AsyncIterator[bytes]:
        # The current state at once (a reconnect after a restart catches up from the log),
        # then a message each time the log grows; the game's one poller in this process
        # builds it for every stream (host/channels/web/live.py Hub).
        yield b"retry: 1000\n\n"
        version = beat = 0
        async with hub.watching(session_id) as game:
            while True:
                await game.next(version, beat)
                if game.gone:
                    return
                if game.version != version:
                    version, beat = game.version, game.beat
                    yield game.message
                else:
                    beat = game.beat
                    yield b": keepalive\n\n"

    return _Stream(stream(), lambda: hub.release(client))


@router.get("/favicon.ico")
async def favicon() -> Response:
    # Browsers ask for it whatever the page links; an SVG answers both.
    return FileResponse(HERE / "static" / "favicon.svg", media_type="image/svg+xml")


@router.get("/static/web/{name}")
async def static(name: str) -> Response:
    # A fixed list, so no path from the request reaches the file system.
    if name not in STATIC:
        raise HTTPException(status_code=404)
    return FileResponse(HERE / "static" / name, media_type=STATIC[name])

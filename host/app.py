"""The FastAPI application: one router per concern, services on ``app.state``."""

from __future__ import annotations

import asyncio
import gc
import html
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request, Response
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, PlainTextResponse
from starlette.middleware.errors import ServerErrorMiddleware
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from host import timeouts
from host.channels import health, media, sms, voice
from host.channels.web.router import router as web
from host.config import Settings, get_settings
from host.limits.body import BodyLimit
from host.lobby import Lobby
from host.notify import Notifiers
from host.outbound import Outbound
from host.referee import Clock, Referee
from host.store import Store
from host.store.errors import unavailable
from host.twilio_security import Unanswered
from host.workers import Workers

log = logging.getLogger(__name__)


def create_app(
    settings: Settings | None = None, store: Store | None = None, clock: Clock | None = None
) -> FastAPI:
    settings = settings or get_settings()
    store = store or Store(settings.database)
    referee = Referee(store, clock or time.time, cache_size=settings.table_cache)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.development and not getattr(app.state, "mode_told", False):  # serve told it
            log.warning(
                "DEVELOPMENT MODE (GAMEHOST_MODE=development, or VALIDATE_SIGNATURES is off):"
                " Twilio signatures are NOT checked; anyone can post to the webhooks."
                " Never expose this server."
            )
        elif settings.development:
            pass  # serve said so; nothing is checked, so no token or address is missing
        elif settings.twilio_auth_token is None:
            log.warning("TWILIO_AUTH_TOKEN is not set: every Twilio webhook will be refused (403).")
        elif settings.public_url is None:
            log.warning(
                "GAMEHOST_PUBLIC_URL is not set: signatures are checked against each request's own"
                " address (`gamehost serve` refuses to start like this)."
            )
        for start in app.state.background:
            await start(app)
        app.state.outbound.start()  # the outbox sender thread
        try:
            yield
        finally:
            await timeouts.stop(app)
            await asyncio.to_thread(app.state.workers.stop)  # the requests' work, finished
            await asyncio.to_thread(app.state.outbound.stop)

    # No /docs, /redoc or /openapi.json: nothing reads them, and every request was matched
    # against their routes first.
    app = GameHost(title="gamehost", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.limit_bodies(settings.max_body_bytes)

    async def unanswered(request: Request, exc: Exception) -> Response:
        # Empty TwiML: Twilio does not retry it, and the request changed nothing.
        return Response('<?xml version="1.0" encoding="UTF-8"?><Response />', media_type="application/xml")

    app.add_exception_handler(Unanswered, unanswered)

    async def bad_query(request: Request, exc: Exception) -> Response:
        # A signed request with a query value of the wrong type (``?n=abc``): Twilio would
        # only log a bare 422 and the caller would hear an error tone. Apologise instead.
        if not request.url.path.startswith("/twilio/"):
            return await request_validation_exception_handler(request, exc)  # type: ignore[arg-type]
        return _apology(request, settings)

    app.add_exception_handler(RequestValidationError, bad_query)

    async def crashed(request: Request, exc: Exception) -> Response:
        # A crash the store explains (read-only, full, unreachable) is a 503 that says so;
        # any other is Starlette's plain 500. Either way the error is logged.
        why = unavailable(exc)
        if why is None:
            return PlainTextResponse("Internal Server Error", status_code=500)
        return _store_unavailable(request, why)

    app.add_exception_handler(Exception, crashed)
    app.state.settings = settings
    app.state.store = store
    app.state.referee = referee
    app.state.lobby = lobby = Lobby(referee)
    app.state.outbound = Outbound(settings, store)
    app.state.workers = Workers.for_store(store)
    app.state.notifiers = Notifiers(lobby)  # each channel's setup registers its own
    app.state.background = []
    timeouts.install(app)  # the backstop turn clock, for every channel's games

    # Twilio's webhooks first: a request is matched against the routes in order, and they
    # are nearly all of the traffic. Each channel's setup reads only what is set above.
    sms.setup(app)
    voice.setup(app)
    media.setup(app)
    if settings.voice_recognizer == "vosk":
        # A call's game goes to our own recogniser when there is a model for its language.
        app.state.voice.streams = app.state.media.models.available
    app.include_router(health.router)
    app.include_router(web)  # the home page and the table on a screen
    return app


class GameHost(FastAPI):
    """The app, with a shorter way in for Twilio's webhooks: a ``POST`` to the exact path of
    a plain route under ``/twilio/`` goes straight to it, through Starlette's own error
    handling (``ServerErrorMiddleware``: a crash is logged and answered 500;
    ``ExceptionMiddleware``: the app's exception handlers, ``Unanswered`` and the
    ``RequestValidationError`` apology among them), as FastAPI would send it but without
    FastAPI's other layers (its native telemetry, which gamehost does not configure; its
    per-route body limit, which it does not set; the exit stack that closes a dependency's
    files, which plain routes have none of) nor matching the path against every route in
    turn. Everything else, and the webhooks too behind a ``root_path`` or with FastAPI's
    body limit set, takes FastAPI's way. Before either, every request's body is capped
    (``limit_bodies``: ``GAMEHOST_MAX_BODY_BYTES``, answered 413 before it is read)."""

    _webhooks: tuple[dict[str, Route], ASGIApp] | None = None
    _limited: ASGIApp | None = None

    def limit_bodies(self, max_bytes: int) -> None:
        """Every HTTP request's body at most ``max_bytes``, enforced before any route reads
        it (host/limits/body.py)."""
        self._limited = BodyLimit(self._route, max_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._limited is not None and scope["type"] == "http":
            await self._limited(scope, receive, send)
        else:
            await self._route(scope, receive, send)

    async def _route(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] == "POST"
            and scope["path"].startswith("/twilio/")
            and not scope.get("root_path")
            and not self.root_path
            and self.max_body_size is None
        ):
            routes, stack = self._webhooks or self._build_webhooks()
            route = routes.get(scope["path"])
            if route is not None:
                scope["app"] = self
                scope["router"] = self.router
                scope["endpoint"] = route.endpoint
                scope["path_params"] = {}
                await stack(scope, receive, send)
                return
        await super().__call__(scope, receive, send)

    def _build_webhooks(self) -> tuple[dict[str, Route], ASGIApp]:
        """The routes taken the short way, and the error handling around them (as
        ``FastAPI.build_middleware_stack`` splits the app's exception handlers)."""
        routes = {
            route.path: route
            for route in self.router.routes
            if type(route) is Route  # a plain Starlette route, not FastAPI's APIRoute
            and route.path.startswith("/twilio/")
            and not route.param_convertors
            and route.methods is not None
            and "POST" in route.methods
        }

        async def dispatch(scope: Scope, receive: Receive, send: Send) -> None:
            await routes[scope["path"]].app(scope, receive, send)

        error_handler = None
        handlers = {}
        for key, value in self.exception_handlers.items():
            if key in (500, Exception):
                error_handler = value
            else:
                handlers[key] = value
        stack = ServerErrorMiddleware(
            ExceptionMiddleware(dispatch, handlers=handlers, debug=self.debug),
            handler=error_handler,
            debug=self.debug,
        )
        self._webhooks = routes, stack
        return self._webhooks


def settle_heap() -> None:
    """Just before serving: what was loaded by then (modules, grammars, games, the app)
    lives as long as the process, so it is moved out of the garbage collector's sight
    (``gc.freeze``). A full collection then walks only what requests made: with 3,000 live
    pages open one took 0.7 s, and nothing was answered meanwhile
    (tests/bench/bench_live.py)."""
    gc.collect()
    gc.freeze()


def app_from_env() -> FastAPI:
    """The app as each of several server processes builds it (``gamehost serve --workers``:
    uvicorn imports ``host.app:app_from_env``); settings come from the environment, and
    refused as ``serve`` refuses them (also when uvicorn is run by hand)."""
    problem = get_settings().serve_problem()
    if problem is not None:
        raise RuntimeError(problem)
    app = create_app()
    settle_heap()
    return app


def _store_unavailable(request: Request, why: str) -> Response:
    log.error("the store is %s: answered %s %s with 503", why, request.method, request.url.path)
    text = (
        f"The game host cannot save anything right now (its database is {why})."
        " Nothing was changed; please try again in a few minutes."
    )
    headers = {"Retry-After": "60"}
    if "text/html" in request.headers.get("accept", ""):
        page = (
            '<!doctype html><html lang="en"><meta charset="utf-8"><title>Back soon</title>'
            f"<h1>Back soon</h1><p>{html.escape(text)}</p></html>"
        )
        return HTMLResponse(page, status_code=503, headers=headers)
    return PlainTextResponse(text, status_code=503, headers=headers)


def _apology(request: Request, settings: Settings) -> Response:
    path = request.url.path
    log.warning("a request to %s with badly typed query values: answered with an apology", path)
    if path.startswith(voice.PATH):
        return voice.apology(request, settings)
    return sms.apology(settings.lang)

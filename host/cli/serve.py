"""``gamehost serve``: the web server for Twilio's webhooks and the table's screen."""

from __future__ import annotations

import errno
import os
import resource
import socket
from importlib import metadata
from typing import Annotated

import typer
import uvicorn

from games.base import all_games
from host.app import create_app, settle_heap
from host.cli.console import err, fail
from host.cli.database import DatabaseUrlOption, DbOption, db_settings, open_store
from host.limits.protocol import LimitedHttpToolsProtocol
from host.store import describe

#: Seconds a worker process may take to answer its supervisor's ping (see serve).
WORKER_HEALTHCHECK_S = 60


def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    db: DbOption = None,
    database_url: DatabaseUrlOption = None,
    workers: Annotated[
        int | None,
        typer.Option(min=1, help="Server processes behind the port (default: GAMEHOST_WORKERS or 1)."),
    ] = None,
) -> None:
    """Migrate the database, then run the web server for the Twilio SMS and voice webhooks."""
    if not 0 < port < 1 << 16:
        raise fail(f"--port {port}: must be from 1 to 65535")
    settings = db_settings(db, database_url)
    workers = workers or settings.workers
    problem = settings.serve_problem()
    if problem is not None:
        raise fail(problem)
    check_port(host, port)
    if settings.development:
        err.print(
            "gamehost: DEVELOPMENT MODE: Twilio signatures are NOT checked; anyone who can reach"
            " this server can play as anyone. Never expose it."
        )
    store = open_store(settings.database)  # migrated here, once, before any worker starts
    base = (settings.public_url or f"http://{host}:{port}").rstrip("/")
    err.print(f"gamehost {metadata.version('gamehost')} serving on http://{host}:{port}")
    err.print(f"  database: {describe(settings.database)}")
    if workers > 1:
        single = " (SQLite: one writer at a time, WAL)" if store.sqlite else ""
        err.print(f"  workers: {workers}{single}")
    err.print(f"  mode: {'development (signatures NOT checked)' if settings.development else 'production'}")
    err.print(f"  Twilio webhooks: SMS {base}/twilio/sms, voice {base}/twilio/voice,")
    err.print(f"    call status callback {base}/twilio/voice/status (all POST)")
    err.print(f"  live page: {base}/ (each game's board at {base}/t/<join code>)")
    err.print(f"  health: http://{host}:{port}/healthz; games: {', '.join(s.name for s in all_games())}")
    err.print(
        f"  limits: headers {settings.header_timeout:g} s, body {settings.body_timeout:g} s and"
        f" {settings.max_body_bytes} bytes, {settings.connections_per_client} slow connections"
        f" per client, {raise_descriptor_limit()} descriptors"
    )
    # http: uvicorn's protocol with read timeouts and a cap on slow connections
    # (host/limits/protocol.py). ws_max_size: no websocket message near uvicorn's 16 MiB
    # default is Twilio's (a media frame is a few hundred bytes) or the page microphone's.
    if workers == 1:
        served = create_app(settings, store)
        served.state.mode_told = True  # said above: the app need not warn a second time
        settle_heap()
        LimitedHttpToolsProtocol.configure(settings)
        uvicorn.run(
            served,
            host=host,
            port=port,
            log_level="info",
            http=LimitedHttpToolsProtocol,
            ws_max_size=settings.ws_max_bytes,
        )
        return
    # Each worker process builds its own app from the environment: hand it the database.
    store.close()
    os.environ["GAMEHOST_DATABASE_URL"] = settings.database
    # timeout_worker_healthcheck: uvicorn kills a worker that does not answer its ping in
    # 5 s; a worker still importing the app on a busy machine can take longer, and was then
    # killed and restarted over and over, never serving.
    uvicorn.run(
        "host.app:app_from_env",
        factory=True,
        workers=workers,
        host=host,
        port=port,
        log_level="info",
        http=f"{LimitedHttpToolsProtocol.__module__}:{LimitedHttpToolsProtocol.__name__}",
        ws_max_size=settings.ws_max_bytes,
        timeout_worker_healthcheck=WORKER_HEALTHCHECK_S,
    )


def raise_descriptor_limit() -> int:
    """Let this process (and its workers) open as many files and sockets as the system
    allows it (the soft limit up to the hard one, as Go does for every program): each
    connection is one, and 1,024 was a common soft limit. The limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            return soft
    return hard


def check_port(host: str, port: int) -> None:
    """Exit 2 with one line when something else listens on ``port`` already, before the
    banner says the server is serving (uvicorn would fail after it, with a raw error)."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except OSError:
        return  # a bad host: uvicorn says so
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise fail(
                    f"port {port} on {host} is in use: stop what uses it, or serve on another"
                    f" with --port {port + 1}"
                ) from None

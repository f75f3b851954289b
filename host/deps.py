"""FastAPI dependencies: settings and the shared services hung on ``app.state``.

They are ``async def`` although they only read an attribute: FastAPI runs a plain ``def``
dependency on a worker thread, a thread hop per request for nothing."""

from __future__ import annotations

from fastapi import Request

from host.config import Settings
from host.lobby import Lobby
from host.outbound import Outbound
from host.referee import Referee


async def settings_dep(request: Request) -> Settings:
    """The settings the app was built with (``create_app(settings=...)`` in tests)."""
    settings: Settings = request.app.state.settings
    return settings


async def referee_dep(request: Request) -> Referee:
    referee: Referee = request.app.state.referee
    return referee


async def lobby_dep(request: Request) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


async def outbound_dep(request: Request) -> Outbound:
    outbound: Outbound = request.app.state.outbound
    return outbound

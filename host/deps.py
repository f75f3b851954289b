"""FastAPI dependencies: settings and the shared services hung on ``app.state``."""

from __future__ import annotations

from fastapi import Request

from host.config import Settings
from host.lobby import Lobby
from host.outbound import Outbound
from host.referee import Referee


def settings_dep(request: Request) -> Settings:
    """The settings the app was built with (``create_app(settings=...)`` in tests)."""
    settings: Settings = request.app.state.settings
    return settings


def referee_dep(request: Request) -> Referee:
    referee: Referee = request.app.state.referee
    return referee


def lobby_dep(request: Request) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


def outbound_dep(request: Request) -> Outbound:
    outbound: Outbound = request.app.state.outbound
    return outbound

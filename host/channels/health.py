"""``GET /healthz`` for load balancers: the database answers a read and takes a write.

200 ``{"status": "ok"}``; else 503 with the part that failed (``read`` or ``write``) and
why (``read-only``, ``full``, ``unreachable``, ``busy``, ...: host/store/health.py). The
answer is at most a second old, whoever asks and however often.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from host.store.health import Health

router = APIRouter()


def _health(request: Request) -> Health:
    state = request.app.state
    health: Health | None = getattr(state, "health", None)
    if health is None:
        health = state.health = Health(state.store)
    return health


@router.get("/healthz")
def healthz(request: Request) -> JSONResponse:
    failure = _health(request).check()
    if failure is None:
        return JSONResponse({"status": "ok"})
    body = {"status": "unavailable", "failed": failure.part, "why": failure.why}
    return JSONResponse(body, status_code=503, headers={"Retry-After": "5"})

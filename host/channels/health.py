"""``GET /healthz`` for load balancers: the database answers."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

router = APIRouter()


def _store_ok(request: Request) -> bool:
    request.app.state.store.execute("SELECT 1")
    return True


@router.get("/healthz")
def healthz(ok: Annotated[bool, Depends(_store_ok)]) -> dict[str, str]:
    return {"status": "ok" if ok else "degraded"}

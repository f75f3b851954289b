"""What statements take and give: parameters, rows, and the session and input rows as the
Store hands them out."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Row = Mapping[str, Any]  # rows support ``row["col"]``
Params = Sequence[Any] | Mapping[str, Any]
Result = tuple[list[Row], int]  # a statement's rows and count


@dataclass(frozen=True)
class StoredInput:
    seq: int
    at: float
    body: dict[str, Any]


@dataclass(frozen=True)
class SessionRow:
    id: str
    game: str
    config: dict[str, Any]
    code: str | None
    status: str
    created: float
    updated: float
    seq: int = 0  # the last input logged (0: none yet)


def session_row(r: Row) -> SessionRow:
    return SessionRow(
        id=r["id"],
        game=r["game"],
        config=json.loads(r["config"]),
        code=r["code"],
        status=r["status"],
        created=r["created"],
        updated=r["updated"],
        seq=int(r["seq"]),
    )

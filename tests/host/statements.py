"""The SQL a store sends, as its tests count it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event

from host.store import Store


def statements_seen(store: Store) -> list[str]:
    """A list that fills with every statement ``store`` sends from now on."""
    statements: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    event.listen(store.engine, "before_cursor_execute", seen)
    return statements

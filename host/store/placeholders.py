"""Statements are written once, with ``?`` and ``:name`` placeholders (SQL both databases
understand), and put in each driver's own placeholders on the way out."""

from __future__ import annotations

import re
from functools import lru_cache

_PLACEHOLDER = re.compile(r"\?|(?<![:\w]):(\w+)")


@lru_cache(maxsize=1024)
def native_placeholders(sql: str, pyformat: bool) -> str:
    """``sql`` in the driver's own placeholders: sqlite3 takes ``?`` and ``:name`` as they
    are; psycopg wants ``%s`` and ``%(name)s``, and ``%%`` for every percent sign (quoted
    ones too). Placeholders are only looked for outside quotes."""
    if not pyformat:
        return sql
    parts = sql.replace("%", "%%").split("'")

    def native(m: re.Match[str]) -> str:
        return "%s" if m.group(0) == "?" else f"%({m.group(1)})s"

    for i in range(0, len(parts), 2):
        parts[i] = _PLACEHOLDER.sub(native, parts[i])
    return "'".join(parts)


@lru_cache(maxsize=1024)
def numbered_placeholders(sql: str) -> tuple[bytes, tuple[str | None, ...]]:
    """``sql`` with PostgreSQL's own placeholders (``$1``, ``$2``, ...) for the protocol's
    parameters, and what each stands for: a ``:name``, or None for the next ``?``. Only
    looked for outside quotes."""
    names: list[str | None] = []

    def number(m: re.Match[str]) -> str:
        name = m.group(1)
        if name is None or name not in names:
            names.append(name)
            return f"${len(names)}"
        return f"${names.index(name) + 1}"

    parts = sql.split("'")
    for i in range(0, len(parts), 2):
        parts[i] = _PLACEHOLDER.sub(number, parts[i])
    return "'".join(parts).encode(), tuple(names)

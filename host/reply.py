"""What the host says after one request, as a value channels deliver without cutting it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reply:
    """``news`` and ``prompt`` go to the whole table (what happened, then what next, or the
    result); ``private`` only to whoever spoke. ``events`` are the JSON lines of ``--json``."""

    session_id: str
    news: list[str] = field(default_factory=list)
    prompt: str | None = None
    private: list[str] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    turn: int | None = None
    next_player: str | None = None
    game_over: bool = False
    accepted: bool = False  # an input was written to the log
    confirm: str | None = None  # a read-back waits for yes or no: the move in words

    @property
    def public(self) -> list[str]:
        return [*self.news, *([self.prompt] if self.prompt else [])]

    @property
    def lines(self) -> list[str]:
        return [*self.public, *self.private]

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Reply:
        data = dict(data)
        if "public" in data:  # stored by an earlier release: all public lines as news
            data["news"] = data.pop("public")
        if not isinstance(data.get("confirm"), str | None):
            data["confirm"] = str(data["confirm"])
        return cls(**data)

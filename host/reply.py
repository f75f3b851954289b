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


@dataclass(frozen=True)
class Hearing:
    """What a recogniser heard: alternatives best first and a confidence in 0..1.
    Text channels pass no hearing; their words are taken as typed."""

    alternatives: tuple[str, ...]
    confidence: float | None = None
    #: Heard by an open microphone at a table (not a phone's answer to a prompt): anyone's
    #: remark may sound like a command, so what ends something is read back, and only the
    #: command said again confirms it.
    open_mic: bool = False
    #: Seconds a question asked on this hearing waits for its answer before it lapses and
    #: changes nothing (None: it waits). An open microphone's table talks on.
    lapse: float | None = None
    #: The hearing itself is doubtful (other readings of the sound hold much of it): a move
    #: is read back even when it would cost nothing, for a read-back costs less than a wrong
    #: number in the chain.
    doubtful: bool = False

"""What the host says after one request, as a value channels deliver without cutting it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reply:
    """``news`` and ``prompt`` go to the whole table (what happened, then what next, or the
    result); ``answer`` only to whoever spoke, closed by ``answer_prompt`` (the turn prompt
    after "I didn't catch that.", a refusal, a repeat, or alone for "whose turn").
    ``events`` are the JSON lines of ``--json``.

    The prompts are values of their own: a text channel shows them as written
    (:attr:`public`, :attr:`private`), a phone call says its spoken prompt instead of the
    written one (``host/channels/spoken.py``), and nobody cuts a text apart."""

    session_id: str
    news: list[str] = field(default_factory=list)
    prompt: str | None = None
    answer: list[str] = field(default_factory=list)
    answer_prompt: str | None = None
    #: ``answer_prompt`` goes on a line of its own (after repeated news), not after the
    #: answer's last sentence.
    prompt_apart: bool = False
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
    def private(self) -> list[str]:
        """The answer as written, its prompt after its last sentence (or apart).

        >>> Reply("s", answer=["I didn't catch that."], answer_prompt="Ann: say a number.").private
        ["I didn't catch that. Ann: say a number."]
        >>> Reply("s", answer=["Ann said 12."], answer_prompt="Bob next.", prompt_apart=True).private
        ['Ann said 12.', 'Bob next.']
        """
        if not self.answer_prompt:
            return list(self.answer)
        if self.prompt_apart or not self.answer:
            return [*self.answer, self.answer_prompt]
        return [*self.answer[:-1], f"{self.answer[-1]} {self.answer_prompt}"]

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
        if "private" in data:  # stored by an earlier release: the prompt inside the answer
            data["answer"] = data.pop("private")
        if not isinstance(data.get("confirm"), str | None):
            data["confirm"] = str(data["confirm"])
        return cls(**data)

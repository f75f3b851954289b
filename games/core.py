"""What every game shares: events, the value a game ends with, refusals, and the two
moves every game takes (Leave, End).

Games are pure: ``play(state, move) -> (new_state, events)``. Events are small frozen
values; a game's talk turns them into words, ``event_to_json`` into JSON lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Refusal:
    """A move the rules forbid now. ``reason`` names the phrase; ``fields`` fill it."""

    reason: str
    fields: dict[str, object] = field(default_factory=dict)


class IllegalMove(ValueError):
    """``play`` was given a move its ``refusal`` forbids (python-chess ``IllegalMoveError``)."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.reason)
        self.refusal = refusal


@dataclass(frozen=True)
class Leave:
    """Every game's move: ``player`` leaves the table."""

    player: str


@dataclass(frozen=True)
class End:
    """Every game's move: the game ends now, on request (``player`` asked, if known)."""

    player: str | None = None


@dataclass(frozen=True)
class Event:
    """Something that happened in a game. ``type`` is the JSON name of the event."""

    type: str = field(init=False, default="event")


@dataclass(frozen=True)
class MoveUndone(Event):
    """A move taken back (the host's undo): the game's talk says it in its own words."""

    player: str | None
    move: Any  # the game's own move
    type: str = field(init=False, default="undo")


@dataclass(frozen=True)
class Outcome:
    """How a game ended (python-chess ``Outcome``, OpenSpiel ``returns()``): a value,
    announced by a pure function. Games subclass it for what else their result says."""

    reason: str
    winners: tuple[str, ...] = ()  # empty: nobody won (a draw, a game cut short)
    scores: tuple[tuple[str, int], ...] = ()  # per player, in the game's own unit

    @property
    def winner(self) -> str | None:
        return self.winners[0] if len(self.winners) == 1 else None

    def to_json(self) -> dict[str, object]:
        """The fields of the ``game_over`` JSON line."""
        data: dict[str, object] = {"reason": self.reason}
        if self.winner is not None:
            data["winner"] = self.winner
        if self.winners:
            data["winners"] = list(self.winners)
        if self.scores:
            data["scores"] = dict(self.scores)
        return data


@dataclass(frozen=True)
class GameOver(Event):
    outcome: Outcome
    type: str = field(init=False, default="game_over")


def json_value(value: object) -> object:
    """Values as JSON has them: cards and suits as their text, tuples as lists."""
    if isinstance(value, tuple):
        return [json_value(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def event_to_json(event: Event) -> dict[str, object]:
    """Flatten an event into the JSON object printed by ``--json`` (one per line)."""
    data: dict[str, object] = {"type": event.type}
    for name in event.__dataclass_fields__:
        if name == "type":
            continue
        value = getattr(event, name)
        if isinstance(value, Outcome):
            data.update(value.to_json())
        elif name in ("tally", "scores"):
            data[name] = dict(value)
        else:
            data[name] = json_value(value)
    return data

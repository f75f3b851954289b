"""Types shared by every game: events a move produces and the value a game ends with.

Games are pure: ``play(state, move) -> (new_state, events)``. Events are small frozen
values; the host turns them into words (``host/phrasing.py``) and JSON lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Mode(StrEnum):
    TOURNAMENT = "tournament"
    TRAINING = "training"


class RuleError(ValueError):
    """A move the engine cannot even consider (not a mistake: a caller bug or a stale input)."""


@dataclass(frozen=True)
class Event:
    """Something that happened in a game. ``type`` is the JSON name of the event."""

    type: str = field(init=False, default="event")


@dataclass(frozen=True)
class MoveMade(Event):
    player: str
    number: int
    valid: bool
    previous: int | None
    type: str = field(init=False, default="move")


@dataclass(frozen=True)
class PlayerOut(Event):
    player: str
    reason: str  # "mistake", "timeout", "left"
    type: str = field(init=False, default="out")


@dataclass(frozen=True)
class MistakeCounted(Event):
    """Training mode: the mistake is counted and the same player tries again."""

    player: str
    mistakes: int
    type: str = field(init=False, default="mistake")


@dataclass(frozen=True)
class TurnPassed(Event):
    """A turn ran out in training mode: nobody is penalised, the next player goes."""

    player: str
    type: str = field(init=False, default="pass")


@dataclass(frozen=True)
class PlayerLeft(Event):
    player: str
    type: str = field(init=False, default="left")


@dataclass(frozen=True)
class MoveUndone(Event):
    player: str
    number: int
    type: str = field(init=False, default="undo")


@dataclass(frozen=True)
class Outcome:
    """How a game ended (python-chess ``Outcome``): a value, announced by a pure function."""

    reason: str  # "last_player_in", "requested", "rounds", "players_left", "tricks", "draw", "player_left"
    winner: str | None = None
    last_mistake: str | None = None
    mistakes: tuple[tuple[str, int], ...] = ()
    # Card games: everyone who won (all children when the parent misses the bid), tricks
    # per player as scored, the auction's result, and who left if that ended the game.
    winners: tuple[str, ...] = ()
    scores: tuple[tuple[str, int], ...] = ()
    parent: str | None = None
    bid: int | None = None
    left: str | None = None


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
            data["reason"] = value.reason
            if value.winner is not None:
                data["winner"] = value.winner
            if value.last_mistake is not None or value.mistakes:
                data["last_mistake"] = value.last_mistake
                data["mistakes"] = dict(value.mistakes)
            if value.winners:
                data["winners"] = list(value.winners)
            if value.scores:
                data["tricks"] = dict(value.scores)
            for extra in ("parent", "bid", "left"):
                if getattr(value, extra) is not None:
                    data[extra] = getattr(value, extra)
        elif name in ("tally", "scores"):
            data[name] = dict(value)
        else:
            data[name] = json_value(value)
    return data

"""A session is its log: the ordered inputs a table accepted, folded into its state.

The log is kept by ``host/store/``; the state is rebuilt by replaying it through the
game's rules (``games/base.py``), so undo, crash recovery and idempotency come from one
pure fold, :func:`apply`. Rows written by earlier releases are upcast as they are read
(:func:`upcast`), so a stored session goes on after an upgrade.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter, model_validator

from games.base import GameSpec, default_game, find_game
from games.core import End, Event, Leave, MoveUndone
from grammars import REFERENCE
from host.store import StoredInput


class SessionConfig(BaseModel):
    """What a table agreed on before the first move; stored with the session."""

    game: str = Field(default_factory=lambda: default_game().name)
    # The game's own options (its GameSpec.options fields), as JSON.
    options: dict[str, Any] = Field(default_factory=dict)
    lang: str = REFERENCE
    # Seconds after a move in which it may be taken back; None switches undo off.
    undo_grace: float | None = 30.0
    # Speech: a costly move heard with less confidence than this is read back first.
    confirm_below: float = 0.75
    # Seconds a player has for a turn (None: no limit). Half way they get a reminder; at
    # the limit the game's timeout rule applies. Only games with a turn clock use it.
    turn_timeout: float | None = None

    @model_validator(mode="before")
    @classmethod
    def _upcast(cls, data: Any) -> Any:
        """Earlier releases kept every game's options beside these fields (mode, low, high,
        revoke_penalty, ...): the game's own become its options, the others are dropped."""
        if isinstance(data, dict):
            own = set(cls.model_fields)
            extra = {k: v for k, v in data.items() if k not in own}
            if extra:
                spec = find_game(str(data["game"])) if data.get("game") else default_game()
                known = {o.name for o in spec.option_info()}
                data = {k: v for k, v in data.items() if k in own}
                kept = {k: v for k, v in extra.items() if k in known}
                data["options"] = {**kept, **data.get("options", {})}
        return data

    @property
    def spec(self) -> GameSpec[Any, Any, Any]:
        return find_game(self.game)


# -- the inputs a session is made of ---------------------------------------------------------


class Seat(BaseModel):
    kind: Literal["seat"] = "seat"
    name: str
    address: str | None = None  # phone number, for channels that have one
    channel: str | None = None


class Unseat(BaseModel):
    """A player leaves the table while no game runs."""

    kind: Literal["unseat"] = "unseat"
    name: str


class Begin(BaseModel):
    kind: Literal["begin"] = "begin"
    seed: int = 0


class Play(BaseModel):
    """A move ruled: the game's own (its codec's JSON), or Leave / End."""

    kind: Literal["play"] = "play"
    move: dict[str, Any]
    text: str = ""


class Ask(BaseModel):
    """A move heard unsurely, or a command that takes something back or ends something,
    read back ("Did you say ...?") before it counts."""

    kind: Literal["ask"] = "ask"
    move: dict[str, Any] | None = None
    command: str | None = None  # a command asked about instead of a move
    player: str = ""  # who may answer; "" anyone at the table
    turn: int
    # Seconds the question waits for its answer, then lapses and changes nothing: a question
    # asked at an open microphone (the table talks on); None waits, as a phone call's does.
    lapse: float | None = None


class Drop(BaseModel):
    """The read-back was answered no, or went stale."""

    kind: Literal["drop"] = "drop"


class Undo(BaseModel):
    kind: Literal["undo"] = "undo"
    target: int  # seq of the Play taken back
    player: str | None = None


class TimeOut(BaseModel):
    kind: Literal["timeout"] = "timeout"
    turn: int


Input = Annotated[Seat | Unseat | Begin | Play | Ask | Drop | Undo | TimeOut, Field(discriminator="kind")]
_INPUT: TypeAdapter[Input] = TypeAdapter(Input)


def upcast(body: dict[str, Any]) -> dict[str, Any]:
    """A log row as this release writes it. Earlier releases wrote Up-or-Down's numbers as
    ``say``, card moves as ``act``, and leave / finish as inputs of their own."""
    kind = body.get("kind")
    text = str(body.get("text", ""))
    if kind == "say":
        move = {"move": "say", "player": body["player"], "number": body["number"]}
        return {"kind": "play", "move": move, "text": text}
    if kind == "act":
        fields = ("action", "player", "suits", "cards", "amount")
        return {"kind": "play", "move": {k: body[k] for k in fields if k in body}, "text": text}
    if kind == "leave":
        return {"kind": "play", "move": {"move": "leave", "player": body["player"]}}
    if kind == "finish":
        return {"kind": "play", "move": {"move": "end", "player": body.get("player")}}
    if kind == "begin":
        return {"kind": "begin", "seed": int(body.get("seed", 0))}
    return body


# -- the state a log folds into --------------------------------------------------------------


@dataclass(frozen=True)
class Player:
    name: str
    address: str | None = None
    channel: str | None = None


@dataclass(frozen=True)
class Ruled:
    seq: int
    at: float
    move: Any  # the game's move, or Leave / End
    text: str


@dataclass(frozen=True)
class Asked:
    move: Any  # None when a command is asked about
    player: str  # who may answer; "" anyone
    turn: int
    command: str | None = None
    at: float = 0.0  # when it was asked
    lapse: float | None = None  # see Ask.lapse

    def lapsed(self, now: float) -> bool:
        """Whether the question has waited longer than its lapse."""
        return self.lapse is not None and now - self.at > self.lapse


@dataclass(frozen=True)
class Table:
    """A session rebuilt from its log. ``start`` is the game as it began, for replay after
    an undo; ``moves`` this game's rulings."""

    config: SessionConfig
    spec: GameSpec[Any, Any, Any]
    options: Any
    players: tuple[Player, ...] = ()
    state: Any = None
    start: Any = None
    moves: tuple[Ruled, ...] = ()
    undone: frozenset[int] = frozenset()
    games: int = 0
    seq: int = 0
    last_events: tuple[Event, ...] = ()
    asked: Asked | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)

    @property
    def running(self) -> bool:
        return self.state is not None and not self.state.is_over

    @property
    def lang(self) -> str:
        return self.config.lang

    def to_act(self) -> frozenset[str]:
        """Who may move now (empty: anyone at the table, or no game running)."""
        return self.spec.rules.to_act(self.state) if self.running else frozenset()

    @property
    def current_player(self) -> str | None:
        """The one player to act, when exactly one may."""
        acting = self.to_act()
        return next(iter(acting)) if len(acting) == 1 else None

    def player(self, name: str) -> Player | None:
        return next((p for p in self.players if p.name == name), None)

    def by_address(self, address: str) -> Player | None:
        return next((p for p in self.players if p.address == address), None)


def new_table(config: SessionConfig) -> Table:
    spec = config.spec
    return Table(config=config, spec=spec, options=spec.make_options(config.options))


def _rule(table: Table, state: Any, item: Play | TimeOut) -> tuple[Any, list[Event], Any]:
    rules = table.spec.rules
    if isinstance(item, TimeOut):
        if item.turn != state.turn:
            return state, [], None
        new_state, events = rules.on_timeout(state)
        return new_state, events, None
    move = table.spec.decode_move(item.move)
    new_state, events = rules.play(state, move)
    return new_state, events, move


def apply(table: Table, stored: StoredInput) -> tuple[Table, list[Event]]:
    """Fold one logged input into the table. Pure; replay is ``apply`` over the log."""
    item = _INPUT.validate_python(upcast(stored.body))
    table = replace(table, seq=stored.seq)
    events: list[Event] = []
    if isinstance(item, Seat):
        if table.player(item.name) is None:
            table = replace(table, players=(*table.players, Player(item.name, item.address, item.channel)))
    elif isinstance(item, Unseat):
        table = replace(table, players=tuple(p for p in table.players if p.name != item.name))
    elif isinstance(item, Begin):
        state = table.spec.rules.new_game(table.names, table.options, item.seed, table.state)
        table = replace(
            table, state=state, start=state, moves=(), undone=frozenset(), games=table.games + 1, asked=None
        )
    elif isinstance(item, Ask):
        move = table.spec.decode_move(item.move) if item.move is not None else None
        table = replace(table, asked=Asked(move, item.player, item.turn, item.command, stored.at, item.lapse))
    elif isinstance(item, Drop):
        table = replace(table, asked=None)
    elif isinstance(item, Undo):
        target = next(m for m in table.moves if m.seq == item.target)
        undone = table.undone | {item.target}
        rebuilt = table.start
        for ruled in table.moves:
            if ruled.seq not in undone:
                rebuilt = _again(table, rebuilt, ruled.move)
        events.append(MoveUndone(table.spec.rules.owner(target.move), target.move))
        table = replace(table, state=rebuilt, undone=undone, asked=None)
    else:
        if not table.running:
            raise ValueError("no game is running")
        state, events, move = _rule(table, table.state, item)
        table = replace(table, state=state, asked=None)
        if isinstance(item, Play):
            table = replace(table, moves=(*table.moves, Ruled(stored.seq, stored.at, move, item.text)))
            if isinstance(move, Leave):
                # Who leaves a game leaves the table: the next game does not wait on them.
                table = replace(table, players=tuple(p for p in table.players if p.name != move.player))
        elif events:
            # A timeout is a ruling too: replay after an undo must see it again.
            ruled = Ruled(stored.seq, stored.at, _Timeout(item.turn), "")
            table = replace(table, moves=(*table.moves, ruled))
    return replace(table, last_events=tuple(events) if events else table.last_events), events


@dataclass(frozen=True)
class _Timeout:
    """A ruled timeout in ``Table.moves``; replayed through ``on_timeout``."""

    turn: int


def _again(table: Table, state: Any, move: Any) -> Any:
    """Replay one ruled move (after an undo)."""
    if isinstance(move, _Timeout):
        return table.spec.rules.on_timeout(state)[0] if move.turn == state.turn else state
    return table.spec.rules.play(state, move)[0]


def replay(config: SessionConfig, inputs: Sequence[StoredInput]) -> Table:
    table = new_table(config)
    for stored in inputs:
        table, _ = apply(table, stored)
    return table


def is_game_move(move: Any) -> bool:
    """A move of the game itself (what undo may take back), not Leave, End or a timeout."""
    return not isinstance(move, Leave | End | _Timeout)

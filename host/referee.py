"""The referee: whose turn it is, who may speak, undo, confirmation, persistence.

A session is its ordered list of accepted inputs (``host/store.py``); its state is rebuilt
by replaying them through the pure game (``games/up_or_down.py``). Every accepted input is
written in a transaction before anything is announced, and a repeated request key (an SMS
MessageSid, a voice turn token) finds the reply it got the first time.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from games import inversion as inv
from games import up_or_down as ud
from games.cards import Card, Suit
from games.core import Event, Mode, MoveUndone, RuleError, event_to_json
from grammars import load
from grammars.reader import (
    Ambiguous,
    CommandSaid,
    NotUnderstood,
    NumberSaid,
    Utterance,
    confusable,
    parse,
)
from host import phrasing
from host.store import Store, StoredInput

log = logging.getLogger(__name__)


class SessionConfig(BaseModel):
    """What a table agreed on before the first number; stored with the session."""

    game: Literal["up-or-down", "inversion"] = "up-or-down"
    mode: Mode = Mode.TOURNAMENT
    low: int = 1
    high: int = 100
    rounds: int | None = None
    lang: str = "en"
    # Seconds after a move in which it may be taken back; None switches undo off.
    undo_grace: float | None = 30.0
    # Speech: a hearing that would be a mistake is confirmed when confidence is below this.
    confirm_below: float = 0.75
    # Seconds a player has for a turn (None: no limit). Half way they get a reminder; at
    # the limit the turn is a mistake (tournament) or passes (training).
    turn_timeout: float | None = None
    # !nversion: what a proven revoke costs (games/inversion.py Penalty).
    revoke_penalty: inv.Penalty = inv.Penalty.ANNOUNCE

    def options(self) -> ud.Options:
        return ud.Options(low=self.low, high=self.high, mode=self.mode, rounds=self.rounds)

    def card_options(self) -> inv.Options:
        return inv.Options(revoke_penalty=self.revoke_penalty)

    @property
    def min_players(self) -> int:
        return inv.MIN_PLAYERS if self.game == "inversion" else ud.MIN_PLAYERS

    @property
    def max_players(self) -> int | None:
        return inv.MAX_PLAYERS if self.game == "inversion" else None


# -- the inputs a session is made of ---------------------------------------------------------


class Seat(BaseModel):
    kind: Literal["seat"] = "seat"
    name: str
    address: str | None = None  # phone number, for channels that have one
    channel: str | None = None


class Unseat(BaseModel):
    """A player leaves the table before a game starts."""

    kind: Literal["unseat"] = "unseat"
    name: str


class Begin(BaseModel):
    kind: Literal["begin"] = "begin"
    starter: int = 0


class Say(BaseModel):
    kind: Literal["say"] = "say"
    player: str
    number: int
    text: str = ""


class Undo(BaseModel):
    kind: Literal["undo"] = "undo"
    target: int  # seq of the Say taken back
    player: str | None = None


class TimeOut(BaseModel):
    kind: Literal["timeout"] = "timeout"
    turn: int


class Leave(BaseModel):
    kind: Literal["leave"] = "leave"
    player: str


class Finish(BaseModel):
    kind: Literal["finish"] = "finish"
    player: str | None = None


class Act(BaseModel):
    """A card-game move (``games/inversion.py``), stored as text so the log stays readable."""

    kind: Literal["act"] = "act"
    action: Literal["suits", "lane", "first", "bid", "card"]
    player: str | None = None
    suits: list[str] = Field(default_factory=list)
    cards: list[str] = Field(default_factory=list)
    amount: int | None = None  # a bid; None with action "bid" is a pass
    text: str = ""

    def move(self) -> inv.Move:
        if self.action == "suits":
            return inv.ChooseSuits(tuple(Suit(s) for s in self.suits))
        if self.action == "lane":
            return inv.LayLane(tuple(Card.parse(c) for c in self.cards))
        assert self.player is not None
        if self.action == "first":
            return inv.ChooseFirst(self.player)
        if self.action == "bid":
            return inv.Declare(self.player, self.amount)
        return inv.PlayCard(self.player, Card.parse(self.cards[0]))

    @classmethod
    def of(cls, move: inv.Move, text: str = "") -> Act:
        text = text[:200]
        if isinstance(move, inv.ChooseSuits):
            return cls(action="suits", suits=[s.value for s in move.suits], text=text)
        if isinstance(move, inv.LayLane):
            return cls(action="lane", cards=[str(c) for c in move.cards], text=text)
        if isinstance(move, inv.ChooseFirst):
            return cls(action="first", player=move.player, text=text)
        if isinstance(move, inv.Declare):
            return cls(action="bid", player=move.player, amount=move.amount, text=text)
        if isinstance(move, inv.PlayCard):
            return cls(action="card", player=move.player, cards=[str(move.card)], text=text)
        raise RuleError(f"not a table move: {move!r}")


Input = Annotated[
    Seat | Unseat | Begin | Say | Undo | TimeOut | Leave | Finish | Act, Field(discriminator="kind")
]
_INPUT: TypeAdapter[Input] = TypeAdapter(Input)
RULINGS = (Say, TimeOut, Leave, Finish, Act)


@dataclass(frozen=True)
class Player:
    name: str
    address: str | None = None
    channel: str | None = None


@dataclass(frozen=True)
class ActUndone(Event):
    """A card-game move taken back."""

    player: str | None
    action: str
    cards: tuple[str, ...] = ()
    amount: int | None = None
    suits: tuple[str, ...] = ()  # action "suits": the suits taken back
    type: str = field(init=False, default="undo")


GameState = ud.State | inv.State


@dataclass(frozen=True)
class Table:
    """A session rebuilt from its log. Up-or-Down keeps its game in ``game``, a card game in
    ``cards``; ``start`` is the game as it began, for replay after an undo."""

    config: SessionConfig
    players: tuple[Player, ...] = ()
    game: ud.State | None = None
    cards: inv.State | None = None
    start: GameState | None = None
    moves: tuple[tuple[int, float, Any], ...] = ()  # (seq, at, input) of this game's rulings
    undone: frozenset[int] = frozenset()
    games: int = 0
    seq: int = 0
    last_events: tuple[Event, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)

    @property
    def running(self) -> bool:
        state = self.state
        return state is not None and not state.is_over

    @property
    def state(self) -> GameState | None:
        """The game of either kind, for what every game has (turn, is_over, current_player)."""
        return self.cards if self.config.game == "inversion" else self.game

    def player(self, name: str) -> Player | None:
        return next((p for p in self.players if p.name == name), None)

    def by_address(self, address: str) -> Player | None:
        return next((p for p in self.players if p.address == address), None)


def _rule_cards(game: inv.State, item: Any) -> tuple[inv.State, list[Event]]:
    if isinstance(item, Act):
        return inv.play(game, item.move())
    if isinstance(item, Leave):
        return inv.play(game, inv.LeaveGame(item.player))
    if isinstance(item, Finish):
        return inv.play(game, inv.EndGame())
    if isinstance(item, TimeOut):
        return game, []
    raise RuleError(f"not a card-game ruling: {item!r}")


def _rule_any(game: GameState, item: Any) -> tuple[GameState, list[Event]]:
    if isinstance(game, inv.State):
        return _rule_cards(game, item)
    return _rule(game, item)


def _with_state(table: Table, state: GameState) -> Table:
    if isinstance(state, inv.State):
        return replace(table, cards=state)
    return replace(table, game=state)


def _rule(game: ud.State, item: Any) -> tuple[ud.State, list[Event]]:
    if isinstance(item, Say):
        if item.player != game.current_player:
            raise RuleError(f"{item.player} spoke out of turn")
        return ud.play(game, item.number)
    if isinstance(item, TimeOut):
        if item.turn != game.turn:
            return game, []
        return ud.time_out(game)
    if isinstance(item, Leave):
        return ud.leave(game, item.player)
    if isinstance(item, Finish):
        return ud.end(game)
    raise RuleError(f"not a ruling: {item!r}")


def apply(table: Table, stored: StoredInput) -> tuple[Table, list[Event]]:
    """Fold one logged input into the table. Pure; replay is ``apply`` over the log."""
    item = _INPUT.validate_python(stored.body)
    table = replace(table, seq=stored.seq)
    events: list[Event] = []
    if isinstance(item, Seat):
        if table.player(item.name) is None:
            table = replace(table, players=(*table.players, Player(item.name, item.address, item.channel)))
    elif isinstance(item, Unseat):
        table = replace(table, players=tuple(p for p in table.players if p.name != item.name))
    elif isinstance(item, Begin):
        state: GameState
        if table.config.game == "inversion":
            state = inv.new_game(table.names, table.config.card_options())
        else:
            state = ud.new_game(table.names, table.config.options(), starter=item.starter)
        table = replace(_with_state(table, state), start=state, moves=(), undone=frozenset())
        table = replace(table, games=table.games + 1)
    elif isinstance(item, Undo):
        target = next(m for m in table.moves if m[0] == item.target)
        undone = table.undone | {item.target}
        assert table.start is not None
        rebuilt = table.start
        for seq, _at, move in table.moves:
            if seq not in undone:
                rebuilt, _ = _rule_any(rebuilt, move)
        said = target[2]
        if isinstance(said, Act):
            events.append(
                ActUndone(said.player, said.action, tuple(said.cards), said.amount, tuple(said.suits))
            )
        else:
            events.append(MoveUndone(said.player, said.number))
        table = replace(_with_state(table, rebuilt), undone=undone)
    elif isinstance(item, RULINGS):
        current = table.state
        if current is None or current.is_over:
            raise RuleError("no game is running")
        state, events = _rule_any(current, item)
        table = replace(_with_state(table, state), moves=(*table.moves, (stored.seq, stored.at, item)))
    return replace(table, last_events=tuple(events) if events else table.last_events), events


def replay(config: SessionConfig, inputs: Sequence[StoredInput]) -> Table:
    table = Table(config=config)
    for stored in inputs:
        table, _ = apply(table, stored)
    return table


def prompt_text(table: Table) -> str | None:
    """What the table must do next (or the result), in any game; None before a game."""
    if table.cards is not None:
        from host import inversion_phrasing

        return inversion_phrasing.prompt(table.cards, table.config.lang)
    if table.game is not None:
        return phrasing.prompt(table.game, table.config.lang)
    return None


def describe_events(table: Table, events: Sequence[Event]) -> list[str]:
    """Lines for events of the table's game; a revoke says its cost when the table chose one."""
    if table.cards is not None:
        from host import inversion_phrasing

        penalty = table.config.revoke_penalty is inv.Penalty.TRICK
        return inversion_phrasing.describe_all(events, table.config.lang, penalty=penalty)
    return phrasing.describe_all(list(events), table.config.lang)


def turn_event(table: Table) -> dict[str, Any] | None:
    """The ``turn`` JSON line for a running game."""
    state = table.state
    if state is None or state.is_over:
        return None
    event: dict[str, Any] = {"type": "turn", "player": state.current_player, "turn": state.turn}
    if isinstance(state, inv.State):
        event["phase"] = state.phase.value
    return event


# -- replies ---------------------------------------------------------------------------------


@dataclass
class Reply:
    """What to say after one request: ``public`` lines go to the whole table, ``private``
    only to whoever spoke. ``events`` are the JSON lines of ``--json``."""

    session_id: str
    public: list[str] = field(default_factory=list)
    private: list[str] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    turn: int | None = None
    next_player: str | None = None
    game_over: bool = False
    accepted: bool = False  # an input was written to the log
    confirm: int | None = None  # waiting for yes/no on this number

    @property
    def lines(self) -> list[str]:
        return [*self.public, *self.private]

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Reply:
        return cls(**data)


@dataclass(frozen=True)
class Hearing:
    """What a recogniser heard: alternatives best first and a confidence in 0..1.
    Text channels pass no hearing; their numbers are taken as typed."""

    alternatives: tuple[str, ...]
    confidence: float | None = None


Clock = Callable[[], float]


class Referee:
    def __init__(self, store: Store, clock: Clock = time.time) -> None:
        self.store = store
        self.clock = clock
        self._cache: dict[str, Table] = {}

    # -- sessions --------------------------------------------------------------------------

    def create(
        self,
        config: SessionConfig,
        players: Sequence[str | Player] = (),
        *,
        code: str | None = None,
        begin: bool = True,
    ) -> str:
        """A new session; with ``begin`` and at least two players the first game starts."""
        if config.game == "up-or-down":
            config.options()  # a bad range fails here, before anything is stored
        elif begin:
            inv.new_game(tuple(p if isinstance(p, str) else p.name for p in players), config.card_options())
        status = "active" if begin else "lobby"
        session_id = self.store.create_session(config.game, config.model_dump(mode="json"), code, status)
        now = self.clock()
        with self.store.transaction():
            for p in players:
                player = p if isinstance(p, Player) else Player(p)
                self._append(
                    session_id, Seat(name=player.name, address=player.address, channel=player.channel), now
                )
            if begin:
                self._append(session_id, Begin(starter=0), now)
        return session_id

    def table(self, session_id: str) -> Table:
        row = self.store.session(session_id)
        if row is None:
            raise KeyError(session_id)
        cached = self._cache.get(session_id)
        last = self.store.last_seq(session_id)
        if cached is not None and cached.seq == last:
            return cached
        if cached is not None and cached.seq < last:
            table = cached
            for stored in self.store.inputs(session_id, after=cached.seq):
                table, _ = apply(table, stored)
        else:
            table = replay(SessionConfig.model_validate(row.config), self.store.inputs(session_id))
        self._cache[session_id] = table
        return table

    def _append(self, session_id: str, item: BaseModel, now: float) -> list[Event]:
        """Log an input (inside the caller's transaction) and fold it into the cached table."""
        table = self.table(session_id)
        body = item.model_dump(mode="json")
        # Rule first, so an input the game refuses never reaches the log.
        new_table, events = apply(table, StoredInput(table.seq + 1, now, body))
        seq = self.store.append(session_id, body, now)
        assert seq == new_table.seq, "log out of step with the cached table"
        self._cache[session_id] = new_table
        return events

    def join(
        self, session_id: str, name: str, address: str | None = None, channel: str | None = None
    ) -> Table:
        with self.store.transaction():
            self._append(session_id, Seat(name=name, address=address, channel=channel), self.clock())
            return self.table(session_id)

    def unseat(self, session_id: str, name: str) -> Table:
        with self.store.transaction():
            self._append(session_id, Unseat(name=name), self.clock())
            return self.table(session_id)

    def begin(self, session_id: str) -> Reply:
        """Start a game with the seated players (creator's START, or a new game)."""
        with self.store.transaction():
            table = self.table(session_id)
            return self._begin(session_id, table, self.clock())

    def _begin(self, session_id: str, table: Table, now: float) -> Reply:
        g = load(table.config.lang)
        starter = ud.next_starter(table.game) if table.game is not None else 0
        self._append(session_id, Begin(starter=starter), now)
        self.store.set_status(session_id, "active")
        self.store.set_pending(session_id, None)
        table = self.table(session_id)
        assert table.state is not None
        reply = Reply(session_id, accepted=True)
        reply.public.append(g.phrase("new_game", players=", ".join(table.names)))
        reply.events.append({"type": "new_game", "players": list(table.names), "game": table.games})
        self._after_ruling(table, reply)
        return reply

    # -- requests --------------------------------------------------------------------------

    def handle(
        self,
        session_id: str,
        text: str,
        speaker: str | None = None,
        *,
        key: str | None = None,
        hearing: Hearing | None = None,
    ) -> Reply:
        """Referee one utterance. ``speaker`` None means a shared device: moves are taken
        as the current player's. A repeated ``key`` returns the first reply unchanged."""
        with self.store.transaction():
            if key is not None and (saved := self.store.reply(key)) is not None:
                return Reply.from_json(saved)
            reply = self._handle(session_id, text, speaker, hearing, self.clock())
            if key is not None:
                self.store.save_reply(key, session_id, reply.to_json())
            return reply

    def act(self, session_id: str, move: inv.Move, text: str = "") -> Reply:
        """Apply a card-game move given directly (setup from command-line options).
        Raises RuleError with the answer a player would get if the move is refused."""
        with self.store.transaction():
            table = self.table(session_id)
            if table.cards is None:
                raise RuleError("no card game is running")
            problem = inv.refusal(table.cards, move)
            if problem is not None:
                from host.inversion_phrasing import refusal_text

                raise RuleError(refusal_text(problem, table.cards, table.config.lang))
            from host.inversion_talk import CardTalker

            talker = CardTalker(self, session_id, table, self.clock())
            return talker.rule(move, text, Reply(session_id))

    def timeout(self, session_id: str, turn: int) -> Reply | None:
        """The turn numbered ``turn`` ran out. Stale or repeated timeouts do nothing."""
        with self.store.transaction():
            table = self.table(session_id)
            # Card games have no turn timer: the table plays at its own pace.
            if not table.running or table.game is None or table.game.turn != turn:
                return None
            reply = Reply(session_id, accepted=True)
            self.store.set_pending(session_id, None)
            events = self._append(session_id, TimeOut(turn=turn), self.clock())
            self._announce(self.table(session_id), events, reply)
            return reply

    def leave(self, session_id: str, player: str) -> Reply:
        with self.store.transaction():
            return self._leave(session_id, self.table(session_id), player, self.clock())

    def _leave(self, session_id: str, table: Table, player: str, now: float) -> Reply:
        reply = Reply(session_id)
        g = load(table.config.lang)
        if table.player(player) is None:
            reply.private.append(g.phrase("not_playing", player=player))
            return reply
        reply.accepted = True
        playing = (table.game is not None and player in table.game.in_play) or table.cards is not None
        if table.running and playing:
            events = self._append(session_id, Leave(player=player), now)
            self._announce(self.table(session_id), events, reply)
        else:
            if not table.running:
                self._append(session_id, Unseat(name=player), now)
            reply.public.append(g.phrase("left", player=player))
            reply.events.append({"type": "left", "player": player})
        return reply

    def _handle(
        self, session_id: str, text: str, speaker: str | None, hearing: Hearing | None, now: float
    ) -> Reply:
        table = self.table(session_id)
        lang = table.config.lang
        g = load(lang)
        reply = Reply(session_id)
        if speaker is not None and table.player(speaker) is None:
            reply.private.append(g.phrase("not_playing", player=speaker))
            return reply
        if table.config.game == "inversion":
            from host.inversion_talk import CardTalker

            return CardTalker(self, session_id, table, now).handle(text, speaker, hearing, reply)
        utterances = [parse(t, lang) for t in (hearing.alternatives if hearing else (text,))]
        utterance = utterances[0] if utterances else parse("", lang)
        intent = utterance.intent()
        row = self.store.session(session_id)
        pending = row.pending if row is not None else None
        if pending is not None and (speaker is None or speaker == pending["player"]):
            resolved = self._resolve_pending(session_id, table, pending, utterance, reply, now)
            if resolved is not None:
                return resolved
        if isinstance(intent, NotUnderstood):
            reply.events.append({"type": "not_understood", "text": text})
            if table.running and table.game is not None:
                reply.private.append(g.phrase("not_understood", turn=phrasing.prompt(table.game, lang)))
            else:
                reply.private.append(g.phrase("not_understood_wait"))
            return reply
        if isinstance(intent, Ambiguous):
            numbers = f" {g.phrases['or']} ".join(str(n) for n in intent.numbers)
            reply.events.append({"type": "ambiguous", "numbers": list(intent.numbers)})
            reply.private.append(g.phrase("ambiguous", numbers=numbers))
            return reply
        if isinstance(intent, CommandSaid):
            return self._command(session_id, table, intent.name, speaker, reply, now)
        assert isinstance(intent, NumberSaid)
        return self._say(session_id, table, intent.value, speaker, text, hearing, utterances, reply, now)

    def _say(
        self,
        session_id: str,
        table: Table,
        number: int,
        speaker: str | None,
        text: str,
        hearing: Hearing | None,
        utterances: list[Utterance],
        reply: Reply,
        now: float,
    ) -> Reply:
        g = load(table.config.lang)
        game = table.game
        if game is None or not table.running:
            reply.private.append(g.phrase("game_finished" if game else "no_game"))
            return reply
        player = speaker or game.current_player
        if player != game.current_player:
            reply.events.append({"type": "not_your_turn", "player": player, "current": game.current_player})
            reply.private.append(g.phrase("not_your_turn", player=game.current_player))
            reply.turn, reply.next_player = game.turn, game.current_player
            return reply
        if hearing is not None and self._needs_confirmation(table, number, hearing, utterances):
            self.store.set_pending(session_id, {"player": player, "number": number, "turn": game.turn})
            reply.confirm = number
            reply.events.append({"type": "confirm", "player": player, "number": number})
            reply.private.append(g.phrase("confirm", number=number))
            reply.turn, reply.next_player = game.turn, player
            return reply
        return self._rule_say(session_id, table, player, number, text, reply, now)

    def _rule_say(
        self, session_id: str, table: Table, player: str, number: int, text: str, reply: Reply, now: float
    ) -> Reply:
        self.store.set_pending(session_id, None)
        events = self._append(session_id, Say(player=player, number=number, text=text[:200]), now)
        reply.accepted = True
        self._announce(self.table(session_id), events, reply)
        return reply

    def _needs_confirmation(
        self, table: Table, number: int, hearing: Hearing, utterances: list[Utterance]
    ) -> bool:
        """Misrecognition must not put anyone out: a hearing that would be a mistake is
        confirmed when confidence is low or something it is easily confused with is valid."""
        game = table.game
        assert game is not None
        options = game.options
        if ud.is_valid(game.last, number, options):
            return False
        if hearing.confidence is None or hearing.confidence < table.config.confirm_below:
            return True
        if any(ud.is_valid(game.last, n, options) for n in confusable(number, table.config.lang)):
            return True
        return any(ud.is_valid(game.last, n, options) for u in utterances[1:] for n in u.distinct_numbers)

    def _resolve_pending(
        self,
        session_id: str,
        table: Table,
        pending: dict[str, Any],
        utterance: Utterance,
        reply: Reply,
        now: float,
    ) -> Reply | None:
        """Answer a "Did you say fifteen?" question; None lets the utterance be handled anew."""
        g = load(table.config.lang)
        game = table.game
        if game is None or not table.running or game.turn != pending["turn"]:
            self.store.set_pending(session_id, None)
            return None
        numbers = utterance.distinct_numbers
        commands = set(utterance.commands)
        if (numbers == (pending["number"],) and "no" not in commands) or (
            not numbers and "yes" in commands and "no" not in commands
        ):
            return self._rule_say(
                session_id, table, pending["player"], pending["number"], utterance.text, reply, now
            )
        if not numbers and ("no" in commands or "undo" in commands):
            # "Undo" while asked means "not that": nothing was ruled yet, so nothing earlier
            # is taken back.
            self.store.set_pending(session_id, None)
            reply.events.append(
                {"type": "not_confirmed", "player": pending["player"], "number": pending["number"]}
            )
            reply.private.append(g.phrase("not_understood", turn=phrasing.prompt(game, table.config.lang)))
            return reply
        if len(numbers) == 1:
            # "No, fifty": the correction is a new hearing; it was said twice, so take it.
            return self._rule_say(
                session_id, table, pending["player"], numbers[0], utterance.text, reply, now
            )
        return None

    def _command(
        self, session_id: str, table: Table, name: str, speaker: str | None, reply: Reply, now: float
    ) -> Reply:
        lang = table.config.lang
        g = load(lang)
        game = table.game
        reply.events.append({"type": "command", "command": name})
        if name in ("whose_turn", "repeat", "status") and game is None:
            reply.private.append(g.phrase("no_game"))
        elif name == "whose_turn":
            assert game is not None
            reply.private.append(phrasing.prompt(game, lang))
        elif name == "repeat":
            assert game is not None
            reply.private.extend(describe_events(table, table.last_events))
            if table.running:
                reply.private.append(phrasing.prompt(game, lang))
        elif name == "status":
            assert game is not None
            reply.private.append(phrasing.status(game, lang))
        elif name == "rules":
            reply.private.append(phrasing.rules(table.config.options(), lang))
        elif name == "help":
            reply.private.append(g.phrase("help"))
        elif name == "undo":
            return self._undo(session_id, table, speaker, reply, now)
        elif name == "new_game":
            if table.running:
                reply.private.append(g.phrase("game_running"))
            elif len(table.players) < table.config.min_players:
                reply.private.append(g.phrase("need_players", count=table.config.min_players))
            else:
                begun = self._begin(session_id, table, now)
                begun.events[:0] = reply.events
                return begun
        elif name == "leave":
            state = table.state
            player = speaker or (state.current_player if state is not None and table.running else None)
            if player is None:
                reply.private.append(g.phrase("help"))
            else:
                left = self._leave(session_id, table, player, now)
                left.events[:0] = reply.events
                return left
        elif name == "finish":
            if not table.running:
                reply.private.append(g.phrase("game_finished" if table.state else "no_game"))
            else:
                events = self._append(session_id, Finish(player=speaker), now)
                reply.accepted = True
                self._announce(self.table(session_id), events, reply)
        else:  # yes / no with nothing to confirm
            reply.events[-1] = {"type": "not_understood", "text": name}
            if table.running and game is not None:
                reply.private.append(g.phrase("not_understood", turn=phrasing.prompt(game, lang)))
            else:
                reply.private.append(g.phrase("not_understood_wait"))
        return reply

    def _undo(self, session_id: str, table: Table, speaker: str | None, reply: Reply, now: float) -> Reply:
        g = load(table.config.lang)
        live = [m for m in table.moves if m[0] not in table.undone]
        grace = table.config.undo_grace
        if grace is None:
            reply.private.append(g.phrase("undo_off"))
            return reply
        if not live or not isinstance(live[-1][2], Say | Act):
            reply.private.append(g.phrase("undo_nothing"))
            return reply
        seq, at, said = live[-1]
        # Who starts is a setup step anyone answers: its player is the one chosen, not the owner.
        owner = None if isinstance(said, Act) and said.action == "first" else said.player
        if speaker is not None and owner is not None and speaker != owner:
            if isinstance(said, Act):
                from host.inversion_phrasing import move_text

                what = move_text(said.move(), table.config.lang)
            else:
                what = str(said.number)
            reply.private.append(g.phrase("undo_not_yours", player=said.player, number=what))
            return reply
        if now - at > grace:
            reply.private.append(g.phrase("undo_too_late"))
            return reply
        self.store.set_pending(session_id, None)
        events = self._append(session_id, Undo(target=seq, player=speaker), now)
        reply.accepted = True
        self._announce(self.table(session_id), events, reply)
        return reply

    def _announce(self, table: Table, events: list[Event], reply: Reply) -> None:
        reply.public.extend(describe_events(table, events))
        reply.events.extend(event_to_json(e) for e in events)
        self._after_ruling(table, reply)

    def _after_ruling(self, table: Table, reply: Reply) -> None:
        """Close a reply with what the table must do next, or the result."""
        state = table.state
        assert state is not None
        reply.turn = state.turn
        if state.is_over:
            reply.game_over = True
            said_over = any(e["type"] == "game_over" for e in reply.events)
            result = prompt_text(table)  # a game's prompt after its end is its result
            if not said_over and state.outcome is not None and result is not None:
                reply.public.append(result)
            return
        prompt, event = prompt_text(table), turn_event(table)
        assert prompt is not None and event is not None
        reply.next_player = state.current_player
        reply.public.append(prompt)
        reply.events.append(event)

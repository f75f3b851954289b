"""Up-or-Down, the number chain you play in your head (rules: docs/rules/up-or-down.txt).

After an odd N the next number is odd and above N, or even and below N; after an even N
it is even and above N, or odd and below N; never N itself, never outside the range.
The first number of a game is free within the range.

>>> g = new_game(("Ann", "Bob", "Cy"))
>>> g, _ = play(g, 53)
>>> is_valid(53, 67, g.options), is_valid(53, 2, g.options), is_valid(53, 55 - 1, g.options)
(True, True, False)

A wrong number is a mistake; the chain goes on from the wrong number itself, even one
outside the range (1,000,000 is even, so the next player needs an odd number below it).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from games.core import End, Event, GameOver, IllegalMove, Leave, Outcome, Refusal

MIN_PLAYERS = 2


class Mode(StrEnum):
    TOURNAMENT = "tournament"
    TRAINING = "training"


@dataclass(frozen=True)
class Options:
    low: int = field(default=1, metadata={"help": "The lowest number allowed."})
    high: int = field(default=100, metadata={"help": "The highest number allowed."})
    mode: Mode = field(
        default=Mode.TOURNAMENT,
        metadata={"help": "tournament: a mistake puts you out; training: nobody goes out.", "flag": "--mode"},
    )
    # Training only: the game ends after this many rounds, a round being one accepted
    # number per player still at the table. None: it ends on request.
    rounds: int | None = field(
        default=None, metadata={"help": "Training: end after this many rounds.", "flag": "--rounds"}
    )

    def __post_init__(self) -> None:
        # Three numbers are the least for which every chain number has a valid answer
        # (after the lowest odd you need a higher odd; after the top you need a lower one).
        if self.high - self.low < 2:
            raise ValueError(f"the range {self.low}-{self.high} needs at least three numbers")
        if self.rounds is not None and self.rounds < 1:
            raise ValueError("rounds must be at least 1")
        if self.rounds is not None and self.mode is not Mode.TRAINING:
            raise ValueError("rounds are for training games")


# -- moves and events ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Say:
    """``player`` says ``number``: the only move of the game."""

    player: str
    number: int


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
class UpOrDownOutcome(Outcome):
    """Training games name the last to err and everyone's mistakes; a tournament ended
    before one player was left names who was ``still_in`` (and has no winner)."""

    last_mistake: str | None = None
    mistakes: tuple[tuple[str, int], ...] = ()
    still_in: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"reason": self.reason}
        if self.winner is not None:
            data["winner"] = self.winner
        if self.last_mistake is not None or self.mistakes:
            data["last_mistake"] = self.last_mistake
            data["mistakes"] = dict(self.mistakes)
        if self.still_in:
            data["still_in"] = list(self.still_in)
        return data


@dataclass(frozen=True)
class Constraint:
    """What the next number must be: ``up`` parity above ``last`` or ``down`` parity below."""

    last: int
    up: str  # "odd" or "even", wanted above last
    down: str  # wanted below last
    low: int
    high: int
    up_possible: bool
    down_possible: bool


SEAT_IN, SEAT_OUT, SEAT_LEFT = "in", "out", "left"


@dataclass(frozen=True)
class State:
    options: Options
    players: tuple[str, ...]
    seats: tuple[str, ...]  # SEAT_IN / SEAT_OUT / SEAT_LEFT per player
    current: int
    last: int | None = None  # the number the chain continues from
    turn: int = 1  # counts rulings; carried in every message so late SMS can be placed
    mistakes: tuple[int, ...] = ()
    last_mistake: int | None = None
    accepted: int = 0  # valid numbers said (training rounds)
    starter: int = 0
    outcome: UpOrDownOutcome | None = None

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def current_player(self) -> str:
        return self.players[self.current]

    @property
    def in_play(self) -> tuple[str, ...]:
        return tuple(p for p, s in zip(self.players, self.seats, strict=True) if s == SEAT_IN)

    def seat_of(self, player: str) -> int:
        try:
            return self.players.index(player)
        except ValueError:
            raise ValueError(f"{player} is not at this table") from None


def new_game(players: tuple[str, ...] | list[str], options: Options | None = None, starter: int = 0) -> State:
    players = tuple(players)
    if len(players) < MIN_PLAYERS:
        raise ValueError(f"a game needs at least {MIN_PLAYERS} players")
    if len(set(players)) != len(players):
        raise ValueError("player names must differ")
    if not 0 <= starter < len(players):
        raise ValueError("the starting player is not at the table")
    return State(
        options=options or Options(),
        players=players,
        seats=(SEAT_IN,) * len(players),
        current=starter,
        mistakes=(0,) * len(players),
        starter=starter,
    )


def parity(n: int) -> str:
    return "even" if n % 2 == 0 else "odd"


def constraint(last: int, options: Options) -> Constraint:
    up = parity(last)
    down = "odd" if up == "even" else "even"
    lo, hi = options.low, options.high
    up_possible = any(n % 2 == last % 2 for n in range(max(last + 1, lo), hi + 1))
    down_possible = any(n % 2 != last % 2 for n in range(lo, min(last - 1, hi) + 1))
    return Constraint(last, up, down, lo, hi, up_possible, down_possible)


def is_valid(last: int | None, n: int, options: Options) -> bool:
    if not options.low <= n <= options.high:
        return False
    if last is None:
        return True
    if n > last:
        return n % 2 == last % 2
    if n < last:
        return n % 2 != last % 2
    return False


def fault(last: int | None, n: int, options: Options) -> str | None:
    """Which rule ``n`` breaks after ``last``, or None when it is valid: ``outside`` the
    range, the ``same`` number again, or its parity on the wrong side of ``last``
    (``not_above``: a number of ``last``'s parity must be above it; ``not_below``: one of
    the other parity must be below it).

    >>> o = Options()
    >>> [fault(53, n, o) for n in (101, 53, 54, 25, 67)]
    ['outside', 'same', 'not_below', 'not_above', None]
    """
    if not options.low <= n <= options.high:
        return "outside"
    if last is None:
        return None
    if n == last:
        return "same"
    if n % 2 == last % 2:
        return None if n > last else "not_above"
    return None if n < last else "not_below"


def valid_numbers(state: State) -> list[int]:
    o = state.options
    return [n for n in range(o.low, o.high + 1) if is_valid(state.last, n, o)]


def _next_seat(state: State, after: int) -> int:
    count = len(state.players)
    for step in range(1, count + 1):
        seat = (after + step) % count
        if state.seats[seat] == SEAT_IN:
            return seat
    return after


def _mistake_counts(state: State) -> tuple[tuple[str, int], ...]:
    return tuple(zip(state.players, state.mistakes, strict=True))


def _finish(state: State, reason: str, winner: str | None = None) -> tuple[State, Event]:
    last_mistake = None if state.last_mistake is None else state.players[state.last_mistake]
    training = state.options.mode is Mode.TRAINING
    outcome = UpOrDownOutcome(
        reason=reason,
        winners=() if winner is None else (winner,),
        last_mistake=last_mistake if training else None,
        mistakes=_mistake_counts(state) if training else (),
        still_in=state.in_play if not training and winner is None else (),
    )
    return replace(state, outcome=outcome), GameOver(outcome)


def _check_playing(state: State) -> None:
    if state.is_over:
        raise IllegalMove(Refusal("game_over"))


def _remove(state: State, seat: int, status: str, events: list[Event]) -> State:
    """Take a seat out of the rotation; the game ends when too few are left."""
    seats = list(state.seats)
    seats[seat] = status
    state = replace(state, seats=tuple(seats))
    remaining = state.in_play
    if state.options.mode is Mode.TOURNAMENT and len(remaining) == 1:
        state, over = _finish(state, "last_player_in", winner=remaining[0])
        events.append(over)
    elif len(remaining) < MIN_PLAYERS:
        state, over = _finish(state, "players_left")
        events.append(over)
    elif seat == state.current:
        state = replace(state, current=_next_seat(state, seat))
    return state


def play(state: State, number: int) -> tuple[State, list[Event]]:
    """The current player says ``number``. Wrong numbers are refereed, never refused."""
    _check_playing(state)
    seat = state.current
    player = state.players[seat]
    valid = is_valid(state.last, number, state.options)
    events: list[Event] = [MoveMade(player, number, valid, state.last)]
    state = replace(state, turn=state.turn + 1)
    if valid:
        state = replace(state, last=number, accepted=state.accepted + 1)
        rounds = state.options.rounds
        if rounds is not None and state.accepted >= rounds * len(state.in_play):
            state, over = _finish(state, "rounds")
            return state, [*events, over]
        return replace(state, current=_next_seat(state, seat)), events

    mistakes = list(state.mistakes)
    mistakes[seat] += 1
    state = replace(state, mistakes=tuple(mistakes), last_mistake=seat)
    if state.options.mode is Mode.TRAINING:
        # The one who erred changes their number to one that fits: the chain is unchanged.
        events.append(MistakeCounted(player, mistakes[seat]))
        return state, events
    state = replace(state, last=number)
    events.append(PlayerOut(player, "mistake"))
    return _remove(state, seat, SEAT_OUT, events), events


def time_out(state: State) -> tuple[State, list[Event]]:
    """The current player let the turn run out: a mistake in a tournament, a pass in training."""
    _check_playing(state)
    seat = state.current
    state = replace(state, turn=state.turn + 1)
    events: list[Event] = []
    if state.options.mode is Mode.TRAINING:
        events.append(TurnPassed(state.players[seat]))
        return replace(state, current=_next_seat(state, seat)), events
    mistakes = list(state.mistakes)
    mistakes[seat] += 1
    state = replace(state, mistakes=tuple(mistakes), last_mistake=seat)
    events.append(PlayerOut(state.players[seat], "timeout"))
    return _remove(state, seat, SEAT_OUT, events), events


def leave(state: State, player: str) -> tuple[State, list[Event]]:
    """A player leaves: out of a tournament; in training the others play on without them."""
    _check_playing(state)
    seat = state.seat_of(player)
    if state.seats[seat] != SEAT_IN:
        return state, []
    state = replace(state, turn=state.turn + 1)
    events: list[Event] = []
    if state.options.mode is Mode.TOURNAMENT:
        events.append(PlayerOut(player, "left"))
    else:
        events.append(PlayerLeft(player))
    return _remove(state, seat, SEAT_LEFT, events), events


def end(state: State) -> tuple[State, list[Event]]:
    """End the game on request. Training results name the last to err and the counts."""
    _check_playing(state)
    state, over = _finish(state, "requested")
    return state, [over]


def next_starter(state: State) -> int:
    """Who opens the next game: the tournament winner chooses the first number; in
    training the opening moves one seat along so everyone gets to start."""
    if state.outcome is not None and state.outcome.winner is not None:
        return state.seat_of(state.outcome.winner)
    return (state.starter + 1) % len(state.players)


class Rules:
    """Up-or-Down through the game protocol (``games/base.py``)."""

    def new_game(
        self, players: tuple[str, ...], options: Options, seed: int, previous: State | None
    ) -> State:
        """The tournament winner opens the next game; otherwise the opening moves one seat
        on, past anyone who has left the table since."""
        starter = 0
        if previous is not None:
            seat = next_starter(previous)
            ring = previous.players[seat:] + previous.players[:seat]
            starter = next((players.index(p) for p in ring if p in players), 0)
        return new_game(players, options, starter=starter)

    def to_act(self, state: State) -> frozenset[str]:
        return frozenset() if state.is_over else frozenset({state.current_player})

    def refusal(self, state: State, move: Say | Leave | End) -> Refusal | None:
        if state.is_over:
            return Refusal("game_over")
        if isinstance(move, Say) and move.player != state.current_player:
            return Refusal("not_your_turn", {"player": state.current_player})
        if isinstance(move, Leave | End) and move.player is not None:
            if move.player not in state.players:
                return Refusal("not_playing", {"player": move.player})
            # Out of a tournament: no longer in this game, so it is not theirs to end.
            if move.player not in state.in_play:
                return Refusal("not_in_play", {"player": move.player})
        return None

    def play(self, state: State, move: Say | Leave | End) -> tuple[State, list[Event]]:
        problem = self.refusal(state, move)
        if problem is not None:
            raise IllegalMove(problem)
        if isinstance(move, Say):
            return play(state, move.number)
        if isinstance(move, Leave):
            return leave(state, move.player)
        return end(state)

    def on_timeout(self, state: State) -> tuple[State, list[Event]]:
        return time_out(state)

    def owner(self, move: Say) -> str | None:
        return move.player


def encode(move: Say) -> dict[str, object]:
    return {"move": "say", "player": move.player, "number": move.number}


def decode(data: dict[str, object]) -> Say:
    number = data["number"]
    assert isinstance(number, int)
    return Say(str(data["player"]), number)

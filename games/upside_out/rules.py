"""Upside-Out, refereed by counts (``docs/rules/upside-out.txt``). Pure.

The referee cannot see hands or secrets, so it keeps what can be counted: every hand,
every player's secrets, the deck, the discard pile and the cards being resolved. It
refuses what the counts make impossible and walks each effect through the players it
faces, waiting for whoever owes an answer (a discard, a donation, a revealed secret).

Effects resolve in order of play: ``resolving`` is a queue whose head is the card being
resolved; a secret revealed meanwhile (or an effect sent back by Mirror) joins the tail.
While anyone owes an answer, ``to_act`` is exactly those players, and each may answer in
any order or react with a special card (Mirror, Counter, Decoy).

>>> r = UpsideOutRules()
>>> s = r.new_game(("Ann", "Bob"), Options(first="Ann"), 0, None)
>>> s.hands, s.secrets, s.deck
((4, 4), (3, 3), 70)
>>> s, events = r.play(s, Play("Ann", CardText("", parse_effect("draw 2"), parse_effect("discard 1"))))
>>> sorted(r.to_act(s)), s.hand("Ann")
(['Bob'], 5)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import AfterValidator

from games.core import End, Event, GameOver, IllegalMove, Leave, Outcome, Refusal
from games.upside_out.deck import COPIES, FACES, checked, load_deck
from games.upside_out.effects import SPECIALS, CardText, Effect, Step, effect_text, parse_effect

MIN_PLAYERS = 2
MAX_PLAYERS = 4
CARDS = FACES * COPIES
HAND = 7
SECRETS = 3
OPENING_SECONDS = 30  # the host's clock: on_timeout in the opening asks the second question


class Phase(StrEnum):
    OPENING_SECRET = "opening_secret"  # who will tell the group a personal secret?
    OPENING_ALONE = "opening_alone"  # who was most recently alone for 6 hours or more?
    TURN = "turn"  # the current player draws or plays
    RESOLVING = "resolving"  # a card's effects are being carried out
    OVER = "over"


OPENING = (Phase.OPENING_SECRET, Phase.OPENING_ALONE)  # who starts is still being asked


@dataclass(frozen=True)
class Options:
    deck: Annotated[str, AfterValidator(checked)] = field(
        default="sample",
        metadata={
            "help": "deck file (YAML) with the 28 card texts; 'sample' is the invented test deck",
            "flag": "--deck",
        },
    )
    first: str | None = field(
        default=None, metadata={"help": "who starts (skips the opening questions)", "flag": "--first"}
    )


# -- moves -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Start:
    """The opening: ``player`` told a secret (or was alone longest) and starts."""

    player: str


@dataclass(frozen=True)
class Draw:
    player: str


@dataclass(frozen=True)
class Play:
    """A non-special card, ``card.you`` facing its player."""

    player: str
    card: CardText


@dataclass(frozen=True)
class Discard:
    player: str
    count: int


@dataclass(frozen=True)
class Donate:
    player: str
    count: int
    to: str | None = None  # None: the recipient the effect names


@dataclass(frozen=True)
class Reveal:
    """A secret flipped: to answer "reveal", or instead of the cards still to discard."""

    player: str
    card: CardText


@dataclass(frozen=True)
class React:
    """A special card played against the effect ``player`` owes: mirror, counter or decoy."""

    player: str
    kind: str

    def __post_init__(self) -> None:
        if self.kind not in SPECIALS:
            raise ValueError(f"unknown special card {self.kind!r}")


Move = Start | Draw | Play | Discard | Donate | Reveal | React


# -- events ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerLeft(Event):
    """A player left the table (the common Leave move); their cards go to the discard pile."""

    player: str
    type: str = field(init=False, default="left")


@dataclass(frozen=True)
class Opening(Event):
    """The host asks the opening question: ``secret`` first, ``alone`` after 30 seconds."""

    question: str
    type: str = field(init=False, default="opening")


@dataclass(frozen=True)
class FirstPlayer(Event):
    player: str
    order: tuple[str, ...]
    type: str = field(init=False, default="first")


@dataclass(frozen=True)
class Played(Event):
    """``card`` is the deck file's name, empty for a card described on the fly."""

    player: str
    card: str
    you: tuple[str, ...]
    others: tuple[str, ...]
    type: str = field(init=False, default="played")


@dataclass(frozen=True)
class EffectDue(Event):
    """``player`` must carry out ``what`` (a step) from ``card`` played by ``by``;
    ``owes``: the referee waits for their answer."""

    player: str
    what: str
    card: str
    by: str
    owes: bool = False
    type: str = field(init=False, default="effect")


@dataclass(frozen=True)
class Drew(Event):
    player: str
    count: int
    source: str = "deck"
    type: str = field(init=False, default="drew")


@dataclass(frozen=True)
class Discarded(Event):
    """Cards from a hand, or (``resolved``) the card ``player`` played or revealed, done."""

    player: str
    count: int
    card: str = ""
    resolved: bool = False
    type: str = field(init=False, default="discarded")


@dataclass(frozen=True)
class Donated(Event):
    player: str
    count: int
    to: str
    type: str = field(init=False, default="donated")


@dataclass(frozen=True)
class SecretsSet(Event):
    player: str
    count: int
    type: str = field(init=False, default="set")


@dataclass(frozen=True)
class Revealed(Event):
    """A secret flipped; it resolves as if ``player`` played it, after what came before."""

    player: str
    card: str
    you: tuple[str, ...]
    others: tuple[str, ...]
    waits: int  # cards still to resolve before it
    type: str = field(init=False, default="revealed")


@dataclass(frozen=True)
class Cancelled(Event):
    """An effect that cannot be carried out (nothing to draw, no card to set or donate)."""

    player: str
    what: str
    type: str = field(init=False, default="cancelled")


@dataclass(frozen=True)
class Reacted(Event):
    player: str
    kind: str  # mirror, counter, decoy
    what: str
    by: str  # whose effect it answers
    type: str = field(init=False, default="reacted")


@dataclass(frozen=True)
class Reversed(Event):
    order: tuple[str, ...]  # the new turn order, from the current player
    type: str = field(init=False, default="reversed")


@dataclass(frozen=True)
class Skipped(Event):
    player: str
    type: str = field(init=False, default="skipped")


@dataclass(frozen=True)
class Stuck(Event):
    """No card to play and nothing to draw: the turn passes."""

    player: str
    type: str = field(init=False, default="stuck")


@dataclass(frozen=True)
class Reshuffled(Event):
    deck: int
    type: str = field(init=False, default="reshuffled")


@dataclass(frozen=True)
class KnockedOut(Event):
    player: str
    order: tuple[str, ...]  # the turn order of those left
    type: str = field(init=False, default="knocked_out")


@dataclass(frozen=True)
class Counts(Event):
    hands: tuple[tuple[str, int], ...]
    secrets: tuple[tuple[str, int], ...]
    deck: int
    discard: int
    why: str = "turn"  # deal, turn
    type: str = field(init=False, default="counts")


EVENTS: tuple[type[Event], ...] = (
    Opening,
    FirstPlayer,
    Played,
    EffectDue,
    Drew,
    Discarded,
    Donated,
    SecretsSet,
    Revealed,
    Cancelled,
    Reacted,
    Reversed,
    Skipped,
    Stuck,
    Reshuffled,
    KnockedOut,
    Counts,
    PlayerLeft,
    GameOver,
)


@dataclass(frozen=True)
class UpsideOutcome(Outcome):
    """``winner`` is the last player left. When the last ones go out at the same turn's
    end nobody is left, so nobody wins: ``winners`` is empty and ``together`` names them.
    ``scores`` are the secrets each player had at the end."""

    together: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"reason": self.reason, "winner": self.winner}
        data["winners"] = list(self.winners)
        if self.together:
            data["out_together"] = list(self.together)
        if self.scores:
            data["secrets"] = dict(self.scores)
        return data


# -- state -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stage:
    """One step of a card carried out by each of ``targets`` in turn order; ``others``:
    by every other player in turn order from the caster, as the order stands when the step
    is carried out (a near side that reversed it has already turned it)."""

    targets: tuple[str, ...]
    step: Step
    others: bool = False


@dataclass(frozen=True)
class Pending:
    """A card waiting to resolve (or resolving, at the head of the queue). ``physical``:
    a real card that goes to the discard pile afterwards (an effect Mirror sent back is not)."""

    card: str  # the name; empty for a card described on the fly
    caster: str
    stages: tuple[Stage, ...]
    physical: bool = True


@dataclass(frozen=True)
class Owed:
    """An answer the referee waits for: ``count`` cards to discard or donate, secrets to reveal."""

    player: str
    kind: str  # discard, donate, reveal
    count: int
    step: Step
    card: str
    caster: str
    to: str | None = None  # donate: the recipient; None: the player chooses


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    hands: tuple[int, ...]
    secrets: tuple[int, ...]
    deck: int
    discard: int
    phase: Phase
    current: int = 0  # seat of the player whose turn it is
    direction: int = 1  # 1 clockwise (seating order), -1 reversed
    in_play: int = 0  # physical cards being resolved or waiting to
    out: tuple[str, ...] = ()
    skips: tuple[int, ...] = ()
    resolving: tuple[Pending, ...] = ()
    owed: tuple[Owed, ...] = ()
    turn: int = 1
    outcome: UpsideOutcome | None = None
    deck_file: str = "sample"  # the deck option: Talk.read gets no options, only the state
    # Copies seen going face up into the discard pile since it was last shuffled into the
    # deck or drawn from, by face: ("card", name), or ("special", kind) for a reaction whose
    # deck names no such face.
    discarded: tuple[tuple[tuple[str, str], int], ...] = ()
    # The deck's special faces by their reaction (mirror -> "Mirror"), so that a reaction
    # and a special card revealed as a secret count as copies of the same face.
    specials: tuple[tuple[str, str], ...] = ()
    # The name of the card face up on the discard pile; "" when the table did not say it
    # (cards discarded from a hand, a card described on the fly) or the pile is empty.
    discard_top: str = ""

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def active(self) -> tuple[str, ...]:
        return tuple(p for p in self.players if p not in self.out)

    @property
    def current_player(self) -> str | None:
        if self.phase in (Phase.TURN, Phase.RESOLVING):
            return self.players[self.current]
        return None

    def seat(self, player: str) -> int:
        return self.players.index(player)

    def hand(self, player: str) -> int:
        return self.hands[self.seat(player)]

    def secrets_of(self, player: str) -> int:
        return self.secrets[self.seat(player)]

    def owes(self, player: str) -> Owed | None:
        return next((o for o in self.owed if o.player == player), None)

    def order_from(self, player: str) -> tuple[str, ...]:
        """Players still in, in turn order starting with ``player`` (who may be out)."""
        n = len(self.players)
        start = self.seat(player)
        seats = ((start + self.direction * i) % n for i in range(n))
        return tuple(self.players[s] for s in seats if self.players[s] not in self.out)

    @property
    def order(self) -> tuple[str, ...]:
        return self.order_from(self.players[self.current])

    def copies_seen(self, face: tuple[str, str]) -> int:
        """Copies of ``face`` lying face up: in the discard pile (as far as known) or being
        resolved. Each face has :data:`COPIES`: another one cannot be on the table."""
        resolving = sum(1 for p in self.resolving if p.physical and face == ("card", p.card))
        return dict(self.discarded).get(face, 0) + resolving

    def total(self) -> int:
        """Every card the referee accounts for: always :data:`CARDS`."""
        return self.deck + self.discard + sum(self.hands) + sum(self.secrets) + self.in_play


def _with(values: tuple[int, ...], seat: int, value: int) -> tuple[int, ...]:
    return (*values[:seat], value, *values[seat + 1 :])


def _add(state: State, name: Literal["hands", "secrets", "skips"], player: str, amount: int) -> State:
    seat = state.seat(player)
    if name == "hands":
        return replace(state, hands=_with(state.hands, seat, state.hands[seat] + amount))
    if name == "secrets":
        return replace(state, secrets=_with(state.secrets, seat, state.secrets[seat] + amount))
    return replace(state, skips=_with(state.skips, seat, state.skips[seat] + amount))


def _counts(state: State, why: str = "turn") -> Counts:
    return Counts(
        tuple((p, state.hand(p)) for p in state.active),
        tuple((p, state.secrets_of(p)) for p in state.active),
        state.deck,
        state.discard,
        why,
    )


def _steps(effect: Effect) -> tuple[str, ...]:
    return tuple(str(s) for s in effect)


def _face(state: State, move: Play | Reveal | React) -> tuple[str, str] | None:
    """The face a move shows, when it is known (a card described on the fly is not)."""
    if isinstance(move, React):
        name = dict(state.specials).get(move.kind)
        return ("card", name) if name is not None else ("special", move.kind)
    return ("card", move.card.name) if move.card.name else None


def _copy_refusal(state: State, move: Play | Reveal | React) -> Refusal | None:
    face = _face(state, move)
    if face is None or state.copies_seen(face) < COPIES:
        return None
    fields: dict[str, object] = {"card": face[1], "copies": COPIES}
    if face[0] == "special":
        fields["kind"] = face[1]  # said as the special card's name
    return Refusal("no_copy_left", fields)


def _to_discard(state: State, face: tuple[str, str] | None) -> State:
    """A card onto the (face-up) discard pile: its face is known if it was named."""
    top = face[1] if face is not None and face[0] == "card" else ""
    state = replace(state, discard=state.discard + 1, discard_top=top)
    if face is None:
        return state
    seen = dict(state.discarded)
    seen[face] = seen.get(face, 0) + 1
    return replace(state, discarded=tuple(seen.items()))


# -- the rules ---------------------------------------------------------------------------------


class UpsideOutRules:
    def new_game(
        self, players: tuple[str, ...], options: Options, seed: int, previous: State | None
    ) -> State:
        # The deal is counted, not modelled: who holds which card is the table's secret.
        players = tuple(players)
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise ValueError(f"Upside-Out seats {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}")
        if len(set(players)) != len(players):
            raise ValueError("two players share a name")
        first = options.first
        if first is not None and first not in players:
            if previous is None:
                raise ValueError(f"first: {first!r} is not playing")
            # A rematch after the named first player left the table: ask who starts, as
            # the rules do when nobody is named.
            first = None
        n = len(players)
        state = State(
            players=players,
            hands=(HAND - SECRETS,) * n,
            secrets=(SECRETS,) * n,
            deck=CARDS - HAND * n,
            discard=0,
            phase=Phase.OPENING_SECRET,
            skips=(0,) * n,
            deck_file=options.deck,
            specials=tuple((f.special, f.name) for f in load_deck(options.deck).faces if f.special),
        )
        if first is not None:
            state = replace(state, phase=Phase.TURN, current=players.index(first))
        return state

    def opening_events(self, state: State) -> list[Event]:
        """What the host announces as a new game starts: the deal, then who starts or the question."""
        events: list[Event] = [_counts(state, "deal")]
        if state.phase is Phase.OPENING_SECRET:
            events.append(Opening("secret"))
        elif state.current_player is not None:
            events.append(FirstPlayer(state.current_player, state.order))
        return events

    def to_act(self, state: State) -> frozenset[str]:
        if state.phase in (Phase.OPENING_SECRET, Phase.OPENING_ALONE, Phase.OVER):
            return frozenset()
        if state.owed:
            return frozenset(o.player for o in state.owed)
        return frozenset({state.players[state.current]})

    def owner(self, move: Move) -> str | None:
        return None if isinstance(move, Start) else move.player

    def deadline(self, state: State) -> float | None:
        """Only the first opening question is timed: nobody claiming a secret within
        30 seconds brings the second question; the rest of the game has no clock."""
        return float(OPENING_SECONDS) if state.phase is Phase.OPENING_SECRET else None

    def on_timeout(self, state: State) -> tuple[State, list[Event]]:
        if state.phase is Phase.OPENING_SECRET:
            return replace(state, phase=Phase.OPENING_ALONE, turn=state.turn + 1), [Opening("alone")]
        return state, []

    # -- judging --

    def refusal(self, state: State, move: Move | Leave | End) -> Refusal | None:
        if state.is_over:
            return Refusal("game_over")
        if isinstance(move, End):
            return None
        if move.player not in state.active:
            return Refusal("not_playing", {"player": move.player})
        if isinstance(move, Leave):
            return None
        if isinstance(move, Start):
            if state.phase not in (Phase.OPENING_SECRET, Phase.OPENING_ALONE):
                return Refusal("already_started", {"player": state.players[state.current]})
            return None
        if state.phase in (Phase.OPENING_SECRET, Phase.OPENING_ALONE):
            return Refusal(
                "opening", {"question": "secret" if state.phase is Phase.OPENING_SECRET else "alone"}
            )
        if isinstance(move, Draw | Play):
            return self._turn_refusal(state, move)
        return self._answer_refusal(state, move)

    def _turn_refusal(self, state: State, move: Draw | Play) -> Refusal | None:
        if state.phase is Phase.RESOLVING:
            return Refusal("resolving", {"waiting": tuple(o.player for o in state.owed)})
        current = state.players[state.current]
        if move.player != current:
            return Refusal("not_your_turn", {"player": current})
        if isinstance(move, Draw):
            if state.deck + state.discard == 0:
                return Refusal("nothing_to_draw")
            return None
        if state.hand(move.player) == 0:
            return Refusal("empty_hand", {"player": move.player})
        return _copy_refusal(state, move)

    def _answer_refusal(self, state: State, move: Discard | Donate | Reveal | React) -> Refusal | None:
        owed = state.owes(move.player)
        if owed is None:
            waiting = tuple(o.player for o in state.owed)
            if isinstance(move, React):
                return Refusal("nothing_to_react", {"player": move.player, "kind": move.kind})
            return Refusal("owes_nothing", {"player": move.player, "waiting": waiting})
        hand = state.hand(move.player)
        if isinstance(move, React):
            if hand == 0:
                return Refusal("empty_hand", {"player": move.player})
            if move.kind == "decoy" and owed.kind != "discard":
                return Refusal("decoy_discard_only", {"player": move.player})
            if move.kind != "decoy" and owed.caster == move.player:
                return Refusal("own_effect", {"player": move.player, "kind": move.kind})
            return _copy_refusal(state, move)
        if isinstance(move, Reveal):
            if owed.kind not in ("reveal", "discard"):
                return Refusal(
                    "wrong_answer", {"player": move.player, "owed": owed.kind, "count": owed.count}
                )
            if state.secrets_of(move.player) == 0:
                return Refusal("no_secrets", {"player": move.player})
            return _copy_refusal(state, move)
        want = "discard" if isinstance(move, Discard) else "donate"
        if owed.kind != want:
            return Refusal("wrong_answer", {"player": move.player, "owed": owed.kind, "count": owed.count})
        if move.count < 1 or move.count > owed.count:
            return Refusal("too_many", {"player": move.player, "owed": owed.kind, "count": owed.count})
        if move.count > hand:
            return Refusal("hand_short", {"player": move.player, "hand": hand})
        if isinstance(move, Donate) and move.to is not None:
            if owed.to is not None and move.to != owed.to:
                return Refusal("wrong_recipient", {"player": move.player, "to": owed.to})
            if move.to == move.player or move.to not in state.active:
                return Refusal("bad_recipient", {"player": move.player, "to": move.to})
        if isinstance(move, Donate) and move.to is None and owed.to is None:
            # "donate 1 to anyone": the giver chooses, so they must say whom.
            return Refusal("name_recipient", {"player": move.player})
        return None

    # -- playing --

    def play(self, state: State, move: Move | Leave | End) -> tuple[State, list[Event]]:
        refused = self.refusal(state, move)
        if refused is not None:
            raise IllegalMove(refused)
        events: list[Event] = []
        state = replace(state, turn=state.turn + 1)
        if isinstance(move, End):
            return _finish(state, "ended", (), events), events
        if isinstance(move, Leave):
            return _leave(state, move.player, events), events
        if isinstance(move, Start):
            state = replace(state, phase=Phase.TURN, current=state.seat(move.player))
            events.append(FirstPlayer(move.player, state.order))
            return state, events
        if isinstance(move, Draw):
            state = _draw(state, move.player, 1, "deck", events)
            return _end_turn(state, events), events
        if isinstance(move, Play):
            return _play(state, move, events), events
        return _answer(state, move, events), events


def _play(state: State, move: Play, events: list[Event]) -> State:
    card = move.card
    events.append(Played(move.player, card.name, _steps(card.you), _steps(card.others)))
    state = _add(state, "hands", move.player, -1)
    state = replace(state, phase=Phase.RESOLVING, in_play=state.in_play + 1)
    pending = _pending(state, move.player, card)
    state = replace(state, resolving=(*state.resolving, pending))
    return _run(state, events)


def _pending(state: State, caster: str, card: CardText, physical: bool = True) -> Pending:
    """Its facing side on its player, then its far side on everyone else in turn order."""
    stages = [Stage((caster,), s) for s in card.you if s.kind != "nothing"]
    stages += [Stage((), s, others=True) for s in card.others if s.kind != "nothing"]
    return Pending(card.name, caster, tuple(stages), physical)


def _run(state: State, events: list[Event]) -> State:
    """Carry out stages until someone owes an answer or nothing is left to resolve."""
    while not state.owed and state.resolving:
        head = state.resolving[0]
        if not head.stages:
            state = replace(state, resolving=state.resolving[1:])
            if head.physical:
                face = ("card", head.card) if head.card else None
                state = _to_discard(replace(state, in_play=state.in_play - 1), face)
                events.append(Discarded(head.caster, 1, head.card, resolved=True))
            continue
        state = replace(state, resolving=(replace(head, stages=head.stages[1:]), *state.resolving[1:]))
        state = _stage(state, head, head.stages[0], events)
    if not state.owed and not state.resolving and state.phase is Phase.RESOLVING:
        state = _end_turn(state, events)
    return state


def _stage(state: State, pending: Pending, stage: Stage, events: list[Event]) -> State:
    step = stage.step
    if stage.others:  # the caster may have left meanwhile: order_from then leaves them out
        chosen = tuple(p for p in state.order_from(pending.caster) if p != pending.caster)
    else:
        chosen = stage.targets
    targets = tuple(t for t in chosen if t not in state.out)
    if step.kind == "reverse":
        # The turn order is the table's, not a player's: it turns once however many it faces.
        if targets:
            state = replace(state, direction=-state.direction)
            events.append(Reversed(state.order))
        return state
    for target in targets:
        state = _apply(state, pending, step, target, events)
    return state


def _apply(state: State, pending: Pending, step: Step, target: str, events: list[Event]) -> State:
    due = EffectDue(target, str(step), pending.card, pending.caster)
    hand, secrets = state.hand(target), state.secrets_of(target)
    if step.kind == "draw":
        events.append(due)
        return _draw(state, target, step.count, step.source, events)
    if step.kind == "skip":
        events.append(due)
        return _add(state, "skips", target, 1)
    if step.kind == "set":
        events.append(due)
        count = min(step.count, hand, SECRETS - secrets)
        if count == 0:
            events.append(Cancelled(target, str(step)))
            return state
        events.append(SecretsSet(target, count))
        return _add(_add(state, "hands", target, -count), "secrets", target, count)
    if step.kind in ("reorder", "reorient", "nothing"):
        events.append(due)  # no count changes: the referee only says it
        return state
    owed: Owed | None = None
    if step.kind == "discard" and (hand or secrets):
        owed = Owed(target, "discard", step.count, step, pending.card, pending.caster)
    elif step.kind == "reveal" and secrets:
        owed = Owed(target, "reveal", min(step.count, secrets), step, pending.card, pending.caster)
    elif step.kind == "donate" and hand:
        to = _recipient(state, step, target, pending.caster)
        owed = Owed(target, "donate", min(step.count, hand), step, pending.card, pending.caster, to)
    if owed is None:
        events.extend([due, Cancelled(target, str(step))])
        return state
    events.append(replace(due, owes=True))
    return replace(state, owed=(*state.owed, owed))


def _recipient(state: State, step: Step, target: str, caster: str) -> str | None:
    to = step.to or ("caster" if caster != target else "next")
    if to == "caster" and caster != target and caster not in state.out:
        return caster
    order = state.order_from(target)
    if to == "previous" and len(order) > 1:
        return order[-1]
    if to in ("next", "caster") and len(order) > 1:
        return order[1]
    return None


def _draw(state: State, player: str, count: int, source: str, events: list[Event]) -> State:
    got = 0
    if source == "discard":
        got = min(count, state.discard)
        # Which cards were taken is the drawer's secret: what was known of the pile is not.
        if got:
            state = replace(state, discard=state.discard - got, discarded=(), discard_top="")
    else:
        while got < count:
            if state.deck == 0:
                if state.discard == 0:
                    break
                state = replace(state, deck=state.discard, discard=0, discarded=(), discard_top="")
                events.append(Reshuffled(state.deck))
            take = min(count - got, state.deck)
            state = replace(state, deck=state.deck - take)
            got += take
    if got:
        state = _add(state, "hands", player, got)
        events.append(Drew(player, got, source))
    if got < count:
        events.append(
            Cancelled(player, f"draw {count - got}" + (" from discard" if source == "discard" else ""))
        )
    return state


def _settle(state: State, owed: Owed, left: int) -> State:
    others = tuple(o for o in state.owed if o is not owed)
    if left > 0:
        others = tuple(replace(o, count=left) if o is owed else o for o in state.owed)
    return replace(state, owed=others)


def _answer(state: State, move: Discard | Donate | Reveal | React, events: list[Event]) -> State:
    owed = state.owes(move.player)
    assert owed is not None  # refusal checked it
    player = move.player
    if isinstance(move, Discard):
        state = _add(state, "hands", player, -move.count)
        state = replace(state, discard=state.discard + move.count, discard_top="")
        events.append(Discarded(player, move.count))
        left = owed.count - move.count
        if left and state.hand(player) == 0 and state.secrets_of(player) == 0:
            events.append(Cancelled(player, f"discard {left}"))
            left = 0
        state = _settle(state, owed, left)
    elif isinstance(move, Donate):
        to = move.to or owed.to
        assert to is not None
        state = _add(_add(state, "hands", player, -move.count), "hands", to, move.count)
        events.append(Donated(player, move.count, to))
        state = _settle(state, owed, owed.count - move.count if state.hand(player) else 0)
    elif isinstance(move, Reveal):
        waits = len(state.resolving)
        state = _add(state, "secrets", player, -1)
        state = replace(state, in_play=state.in_play + 1)
        events.append(
            Revealed(player, move.card.name, _steps(move.card.you), _steps(move.card.others), waits)
        )
        state = replace(state, resolving=(*state.resolving, _pending(state, player, move.card)))
        # One secret stands for all the cards still to discard ("in lieu of any number").
        left = owed.count - 1 if owed.kind == "reveal" else 0
        state = _settle(state, owed, min(left, state.secrets_of(player)))
    else:
        state = _to_discard(_add(state, "hands", player, -1), _face(state, move))
        events.append(Reacted(player, move.kind, str(owed.step), owed.caster))
        state = _settle(state, owed, 0)
        if move.kind == "mirror":
            # The caster now faces the whole step, after what is already waiting.
            back = Pending(owed.card, player, (Stage((owed.caster,), owed.step),), False)
            state = replace(state, resolving=(*state.resolving, back))
    return _run(state, events)


def _end_turn(state: State, events: list[Event]) -> State:
    """Knock out whoever has no secrets, then the next player (or the winner)."""
    gone = tuple(p for p in state.active if state.secrets_of(p) == 0)
    for player in gone:
        # A knocked-out hand goes to the discard pile so that every card stays counted.
        top = "" if state.hand(player) else state.discard_top
        state = replace(
            state, discard=state.discard + state.hand(player), out=(*state.out, player), discard_top=top
        )
        state = _add(state, "hands", player, -state.hand(player))
        events.append(KnockedOut(player, state.active))
    state = replace(state, phase=Phase.TURN, resolving=(), owed=())
    events.append(_counts(state))
    if len(state.active) == 1:
        return _finish(state, "last_left", state.active, events)
    if not state.active:
        # Everyone left went out at the same turn's end: nobody is left to win.
        return _finish(state, "all_out", (), events, together=gone)
    return _advance(state, events)


def _advance(state: State, events: list[Event]) -> State:
    n = len(state.players)
    stuck = 0
    seat = state.current
    while True:
        seat = (seat + state.direction) % n
        player = state.players[seat]
        if player in state.out:
            continue
        if state.skips[seat]:
            state = replace(state, skips=_with(state.skips, seat, state.skips[seat] - 1))
            events.append(Skipped(player))
            continue
        if state.hand(player) == 0 and state.deck + state.discard == 0:
            events.append(Stuck(player))
            stuck += 1
            if stuck >= len(state.active):  # a guard: 84 cards never all fit in secrets
                best = max(state.secrets_of(p) for p in state.active)
                winners = tuple(p for p in state.active if state.secrets_of(p) == best)
                return _finish(state, "stalled", winners, events)
            continue
        return replace(state, current=seat)


def _leave(state: State, player: str, events: list[Event]) -> State:
    seat = state.seat(player)
    state = replace(
        state,
        discard=state.discard + state.hand(player) + state.secrets_of(player),
        discard_top="" if state.hand(player) + state.secrets_of(player) else state.discard_top,
        hands=_with(state.hands, seat, 0),
        secrets=_with(state.secrets, seat, 0),
        out=(*state.out, player),
        owed=tuple(o for o in state.owed if o.player != player),
    )
    events.append(PlayerLeft(player))
    if len(state.active) == 1:
        return _finish(state, "left", state.active, events)
    # A donation owed to the leaver goes where the card would send it now they are gone.
    redirected = (_redirect(state, o) if o.to == player else o for o in state.owed)
    state = replace(state, owed=tuple(redirected))
    if state.phase is Phase.RESOLVING:
        return _run(state, events)
    if state.phase is Phase.TURN and seat == state.current:
        return _advance(state, events)
    return state


def _redirect(state: State, owed: Owed) -> Owed:
    return replace(owed, to=_recipient(state, owed.step, owed.player, owed.caster))


def _finish(
    state: State, reason: str, winners: tuple[str, ...], events: list[Event], together: tuple[str, ...] = ()
) -> State:
    scores = tuple((p, state.secrets_of(p)) for p in state.players)
    outcome = UpsideOutcome(reason, winners, scores, together)
    events.append(GameOver(outcome))
    return replace(state, phase=Phase.OVER, outcome=outcome, owed=())


# -- the JSON codec ----------------------------------------------------------------------------


def _card_json(card: CardText) -> dict[str, Any]:
    return {"name": card.name, "you": effect_text(card.you), "others": effect_text(card.others)}


def _card(data: dict[str, Any]) -> CardText:
    return CardText(
        str(data.get("name", "")), parse_effect(str(data["you"])), parse_effect(str(data["others"]))
    )


def encode(move: Move) -> dict[str, Any]:
    """A move as the session log keeps it; :func:`decode` gives it back."""
    data: dict[str, Any] = {"move": type(move).__name__.lower(), "player": move.player}
    if isinstance(move, Discard | Donate):
        data["count"] = move.count
    if isinstance(move, Donate) and move.to is not None:
        data["to"] = move.to
    if isinstance(move, Play | Reveal):
        data["card"] = _card_json(move.card)
    if isinstance(move, React):
        data["kind"] = move.kind
    return data


def decode(data: dict[str, Any]) -> Move:
    kind, player = data.get("move"), str(data["player"])
    if kind == "start":
        return Start(player)
    if kind == "draw":
        return Draw(player)
    if kind == "play":
        return Play(player, _card(data["card"]))
    if kind == "reveal":
        return Reveal(player, _card(data["card"]))
    if kind == "discard":
        return Discard(player, int(data["count"]))
    if kind == "donate":
        to = data.get("to")
        return Donate(player, int(data["count"]), None if to is None else str(to))
    if kind == "react":
        return React(player, str(data["kind"]))
    raise ValueError(f"not an Upside-Out move: {data!r}")

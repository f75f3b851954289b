"""Blófa Cards, refereed without seeing faces (``docs/rules/blofa.txt``). Pure.

Card backs are public, so the engine knows every card's colour and where it went: each
hand's blue and yellow counts and each pile's size are exact. Faces are secret until a
challenge flips them; a reading of them that cannot be the cards (wrong colours, more of a
value than exist) is refused and asked again, and end claims that cannot all be true are
flagged (a ``flagged`` event).

Seats are clockwise in the order given: the next seat plays next, so the player on a
seat's *right* is the seat before it (``seat - 1``) and the player across is ``seat + 2``.

>>> g = new_game(("Ann", "Bob", "Cy", "Dana"), Options())
>>> g, _ = play(g, PlayCards("Ann", (Colour.BLUE,), 2))
>>> sorted(to_act(g))
['Bob']
>>> g, events = play(g, Challenge("Bob"))
>>> g, events = play(g, Reveal((4,)))
>>> [e.type for e in events]
['revealed', 'clash', 'trick_won']
>>> events[1].winner, g.vp
('Bob', (-1, 1, 0, 0))
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from games.core import End, Event, GameOver, IllegalMove, Leave, Outcome, Refusal

SEATS = 4
#: How many cards of each value exist; even values are blue, odd ones yellow.
DISTRIBUTION = {0: 3, 1: 5, 2: 4, 3: 3, 4: 2, 5: 1}
CARDS = sum(DISTRIBUTION.values())
RULE_CARDS = DISTRIBUTION[0]
CAPTURER, ACROSS, RIGHT = 6, 4, 2
LOOK_BACK = 3  # the trick winner picks from the last three cards played


class Colour(StrEnum):
    BLUE = "blue"
    YELLOW = "yellow"

    @property
    def other(self) -> Colour:
        return Colour.YELLOW if self is Colour.BLUE else Colour.BLUE


def colour_of(value: int) -> Colour:
    return Colour.BLUE if value % 2 == 0 else Colour.YELLOW


@dataclass(frozen=True)
class Options:
    """Table choices the rules leave open."""

    dealer: str | None = field(
        default=None,
        metadata={
            "help": "the youngest player, who deals first (default: the first seat)",
            "flag": "--dealer",
        },
    )
    challenge_opening: bool = field(
        default=True,
        metadata={
            "help": "whether the dealer's opening declaration may be challenged",
            "flag": "--challenge-opening",
        },
    )
    dry_tricks: int = field(
        default=4,
        metadata={"help": "tricks in a row without a capture that end the game", "flag": "--dry-tricks"},
    )

    def __post_init__(self) -> None:
        if self.dry_tricks < 1:
            raise ValueError("dry_tricks must be at least 1")


class Phase(StrEnum):
    PLAY = "play"  # the seat to act opens the trick, or passes, plays or challenges
    REVEAL = "reveal"  # a challenge: the table says the flipped values
    KEEP = "keep"  # the trick winner keeps one of the last three cards
    CHECK = "check"  # the game is over: everyone says whether they hold a rule card
    OVER = "over"


# -- moves -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayCards:
    """1 or 2 cards face down, their colours (public) and the declared sum."""

    player: str
    colours: tuple[Colour, ...]
    declared: int


@dataclass(frozen=True)
class Pass:
    player: str
    pile: Colour


@dataclass(frozen=True)
class Challenge:
    player: str


@dataclass(frozen=True)
class Reveal:
    """The values of the challenged cards, as the table reads them (anyone may say them)."""

    values: tuple[int, ...]


@dataclass(frozen=True)
class Keep:
    """The trick winner keeps a card of ``colour``; ``rule``: it is a rule card, captured."""

    player: str
    colour: Colour
    rule: bool = False


@dataclass(frozen=True)
class Claim:
    """At the end: whether ``player`` holds a rule card."""

    player: str
    holds: bool


Move = PlayCards | Pass | Challenge | Reveal | Keep | Claim


def encode(move: Move) -> dict[str, Any]:
    match move:
        case PlayCards(player, colours, declared):
            return {
                "move": "play",
                "player": player,
                "colours": [str(c) for c in colours],
                "declared": declared,
            }
        case Pass(player, pile):
            return {"move": "pass", "player": player, "pile": str(pile)}
        case Challenge(player):
            return {"move": "challenge", "player": player}
        case Reveal(values):
            return {"move": "reveal", "values": list(values)}
        case Keep(player, colour, rule):
            return {"move": "keep", "player": player, "colour": str(colour), "rule": rule}
        case Claim(player, holds):
            return {"move": "claim", "player": player, "holds": holds}
    raise TypeError(f"not a Blófa move: {move!r}")


def decode(data: dict[str, Any]) -> Move:
    kind = data.get("move")
    if kind == "play":
        colours = tuple(Colour(c) for c in data["colours"])
        return PlayCards(str(data["player"]), colours, int(data["declared"]))
    if kind == "pass":
        return Pass(str(data["player"]), Colour(data["pile"]))
    if kind == "challenge":
        return Challenge(str(data["player"]))
    if kind == "reveal":
        return Reveal(tuple(int(v) for v in data["values"]))
    if kind == "keep":
        return Keep(str(data["player"]), Colour(data["colour"]), bool(data["rule"]))
    if kind == "claim":
        return Claim(str(data["player"]), bool(data["holds"]))
    raise ValueError(f"not a Blófa move: {data!r}")


# -- events ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrickStarted(Event):
    dealer: str
    trick: int
    type: str = field(init=False, default="trick_started")


@dataclass(frozen=True)
class Declared(Event):
    player: str
    colours: tuple[str, ...]
    declared: int
    type: str = field(init=False, default="declared")


@dataclass(frozen=True)
class Passed(Event):
    player: str
    pile: str
    passes: int  # in a row, this one included
    type: str = field(init=False, default="passed")


@dataclass(frozen=True)
class Challenged(Event):
    player: str
    declarer: str
    declared: int
    type: str = field(init=False, default="challenge")


@dataclass(frozen=True)
class Revealed(Event):
    declarer: str
    values: tuple[int, ...]
    total: int
    declared: int
    type: str = field(init=False, default="revealed")


@dataclass(frozen=True)
class Flagged(Event):
    """End claims that cannot all be true; the game ends as the table said (``undo`` is
    there to correct a claim). ``reason`` is "claims": ``missing`` rule cards are
    uncaptured, but the blue cards of those who claim one, with the blue pile, are only
    ``limit``."""

    reason: str
    limit: int = 0
    missing: int = 0
    type: str = field(init=False, default="flagged")


@dataclass(frozen=True)
class Clash(Event):
    winner: str
    loser: str
    lied: bool
    vp: tuple[tuple[str, int], ...]
    type: str = field(init=False, default="clash")


@dataclass(frozen=True)
class TrickWon(Event):
    player: str
    reason: str  # "passes" or "clash"
    choices: tuple[str, ...]  # the colours of the cards the winner may keep
    type: str = field(init=False, default="trick_won")


@dataclass(frozen=True)
class Kept(Event):
    player: str
    colour: str
    type: str = field(init=False, default="kept")


@dataclass(frozen=True)
class Captured(Event):
    player: str
    captured: int  # rule cards captured so far
    type: str = field(init=False, default="captured")


@dataclass(frozen=True)
class CheckStarted(Event):
    """The game is over; the table says who still holds a rule card."""

    reason: str  # "all_captured", "dealer_empty", "dry"
    type: str = field(init=False, default="rule_card_check")


@dataclass(frozen=True)
class Claimed(Event):
    player: str
    holds: bool
    type: str = field(init=False, default="claim")


@dataclass(frozen=True)
class ScoreLine:
    """One captured rule card's points."""

    capturer: str
    across: str
    right: str

    def to_json(self) -> dict[str, object]:
        return {"capturer": self.capturer, "across": self.across, "right": self.right}


@dataclass(frozen=True)
class BlofaOutcome(Outcome):
    vp: tuple[tuple[str, int], ...] = ()  # final points, bonuses included
    eliminated: tuple[str, ...] = ()
    lines: tuple[ScoreLine, ...] = ()
    left: str | None = None  # who left, if that ended the game

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "reason": self.reason,
            "winner": self.winner,
            "vp": dict(self.vp),
            "eliminated": list(self.eliminated),
            "scoring": [line.to_json() for line in self.lines],
        }
        if self.left is not None:
            data["left"] = self.left
        return data


EVENTS: tuple[type[Event], ...] = (
    TrickStarted,
    Declared,
    Passed,
    Challenged,
    Revealed,
    Flagged,
    Clash,
    TrickWon,
    Kept,
    Captured,
    CheckStarted,
    Claimed,
    GameOver,
)


# -- state -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Played:
    seat: int
    colours: tuple[Colour, ...]
    declared: int
    values: tuple[int, ...] | None = None  # known once flipped


@dataclass(frozen=True)
class Hand:
    blue: int
    yellow: int

    def count(self, colour: Colour) -> int:
        return self.blue if colour is Colour.BLUE else self.yellow

    def add(self, colour: Colour, n: int) -> Hand:
        if colour is Colour.BLUE:
            return Hand(self.blue + n, self.yellow)
        return Hand(self.blue, self.yellow + n)

    @property
    def size(self) -> int:
        return self.blue + self.yellow


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    options: Options
    phase: Phase
    dealer: int
    seat: int  # who acts in PLAY; the trick winner in KEEP
    hands: tuple[Hand, ...]
    piles: Hand  # the blue and yellow draw piles
    plays: tuple[Played, ...] = ()
    passes: int = 0  # in a row
    last_pile: Colour | None = None  # the pile the last passer of this trick drew from
    vp: tuple[int, ...] = (0, 0, 0, 0)
    captures: tuple[int, ...] = ()  # the capturer's seat, per captured rule card
    dry: int = 0  # tricks in a row without a capture
    trick: int = 1
    challenger: int | None = None
    claims: tuple[bool | None, ...] = (None, None, None, None)
    end_reason: str = ""
    turn: int = 1
    outcome: BlofaOutcome | None = None

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def declarer(self) -> int | None:
        return self.plays[-1].seat if self.plays else None

    @property
    def last_declared(self) -> int | None:
        return self.plays[-1].declared if self.plays else None

    @property
    def allowed_sums(self) -> tuple[int, int]:
        last = self.last_declared
        return (1, 2) if last is None else (last + 1, last + 2)

    @property
    def required_pile(self) -> Colour | None:
        """The pile the next passer must draw from; None: either (the first passer)."""
        return None if self.last_pile is None else self.last_pile.other

    def can_pass(self) -> bool:
        if not self.plays:
            return False
        need = self.required_pile
        if need is None:
            return self.piles.size > 0
        return self.piles.count(need) > 0

    def trick_cards(self) -> list[tuple[Colour, int | None]]:
        """Every card of this trick in play order, with its value if flipped."""
        out: list[tuple[Colour, int | None]] = []
        for p in self.plays:
            for i, colour in enumerate(p.colours):
                out.append((colour, None if p.values is None else p.values[i]))
        return out

    def choices(self) -> list[tuple[Colour, int | None]]:
        return self.trick_cards()[-LOOK_BACK:]

    def index(self, player: str) -> int:
        return self.players.index(player)

    def total_vp(self) -> tuple[tuple[str, int], ...]:
        return tuple(zip(self.players, self.vp, strict=True))


def across(seat: int) -> int:
    return (seat + 2) % SEATS


def right_of(seat: int) -> int:
    """Play runs clockwise, to each player's left: the player on the right played before."""
    return (seat - 1) % SEATS


# -- the rules -------------------------------------------------------------------------------------


def new_game(
    players: tuple[str, ...], options: Options, seed: int = 0, previous: State | None = None
) -> State:
    """A deal: each hand 2 blue and 2 yellow, one card of each colour as the piles. The
    dealer is ``options.dealer`` (the youngest), else the last game's last trick winner,
    else the first seat."""
    del seed  # the deal is real cards: nothing random for the referee
    if len(players) != SEATS or len(set(players)) != SEATS:
        raise ValueError("Blófa Cards needs exactly 4 players with different names")
    if options.dealer is not None:
        if options.dealer not in players:
            raise ValueError(f"dealer {options.dealer!r} is not one of the players")
        dealer = players.index(options.dealer)
    elif previous is not None and previous.players == tuple(players):
        dealer = previous.dealer
    else:
        dealer = 0
    return State(
        players=tuple(players),
        options=options,
        phase=Phase.PLAY,
        dealer=dealer,
        seat=dealer,
        hands=tuple(Hand(2, 2) for _ in players),
        piles=Hand(1, 1),
    )


def to_act(state: State) -> frozenset[str]:
    if state.phase in (Phase.PLAY, Phase.KEEP):
        return frozenset({state.players[state.seat]})
    if state.phase is Phase.CHECK:
        return frozenset(p for p, c in zip(state.players, state.claims, strict=True) if c is None)
    return frozenset()  # REVEAL: anyone reads the flipped cards; OVER: nobody acts


def owner(move: Move) -> str | None:
    return None if isinstance(move, Reveal) else move.player


def card_count(state: State) -> int:
    """Every card the engine tracks; always ``CARDS`` (hands, piles, trick, captured)."""
    in_trick = sum(len(p.colours) for p in state.plays)
    return sum(h.size for h in state.hands) + state.piles.size + in_trick + len(state.captures)


def _seat_refusal(state: State, player: str) -> Refusal | None:
    if player not in state.players:
        return Refusal("unknown_player", {"player": player})
    if player not in to_act(state):
        return Refusal("not_your_turn", {"player": player, "turn": state.players[state.seat]})
    return None


def _phase_refusal(state: State, want: Phase) -> Refusal | None:
    if state.phase is want:
        return None
    if state.phase is Phase.REVEAL:
        declarer = state.players[state.declarer or 0]
        return Refusal("reveal_first", {"declarer": declarer, "cards": len(state.plays[-1].colours)})
    if state.phase is Phase.KEEP:
        return Refusal("keep_first", {"player": state.players[state.seat]})
    if state.phase is Phase.CHECK:
        return Refusal("claims_first", {"players": tuple(sorted(to_act(state)))})
    return Refusal("not_now", {"turn": state.players[state.seat]})


def refusal(state: State, move: Move | Leave | End) -> Refusal | None:
    if state.is_over:
        return Refusal("game_over")
    if isinstance(move, Leave):
        return None if move.player in state.players else Refusal("unknown_player", {"player": move.player})
    if isinstance(move, End):
        return None
    if isinstance(move, Reveal):
        return _phase_refusal(state, Phase.REVEAL) or _reveal_refusal(state, move)
    if isinstance(move, Keep):
        return (
            _phase_refusal(state, Phase.KEEP)
            or _seat_refusal(state, move.player)
            or _keep_refusal(state, move)
        )
    if isinstance(move, Claim):
        return _phase_refusal(state, Phase.CHECK) or _claim_refusal(state, move)
    wrong = _phase_refusal(state, Phase.PLAY) or _seat_refusal(state, move.player)
    if wrong:
        return wrong
    if isinstance(move, PlayCards):
        return _play_refusal(state, move)
    if isinstance(move, Pass):
        return _pass_refusal(state, move)
    return _challenge_refusal(state, move)


def _play_refusal(state: State, move: PlayCards) -> Refusal | None:
    hand = state.hands[state.seat]
    if not 1 <= len(move.colours) <= 2:
        return Refusal("card_count", {"cards": len(move.colours)})
    want = Counter(move.colours)
    for colour, n in want.items():
        if hand.count(colour) < n:
            return Refusal(
                "not_in_hand", {"colour": str(colour), "cards": n, "blue": hand.blue, "yellow": hand.yellow}
            )
    low, high = state.allowed_sums
    if move.declared not in (low, high):
        return Refusal("declaration", {"declared": move.declared, "low": low, "high": high})
    return None


def _pass_refusal(state: State, move: Pass) -> Refusal | None:
    if not state.plays:
        return Refusal("must_open", {"low": 1, "high": 2})
    need = state.required_pile
    if need is not None and move.pile is not need:
        if state.piles.count(need) == 0:
            return Refusal("no_pass", {"pile": str(need)})
        return Refusal("wrong_pile", {"pile": str(move.pile), "need": str(need)})
    if state.piles.count(move.pile) == 0:
        if need is None and state.piles.count(move.pile.other):
            return Refusal("pile_empty", {"pile": str(move.pile), "other": str(move.pile.other)})
        return Refusal("no_pass", {"pile": str(move.pile)})
    return None


def _challenge_refusal(state: State, move: Challenge) -> Refusal | None:
    if not state.plays:
        return Refusal("must_open", {"low": 1, "high": 2})
    # A protected opening, unless the player has no other option (no card to play, no pile
    # to draw from): "you have 3 options", so a turn always has one.
    protected = len(state.plays) == 1 and not state.options.challenge_opening
    if protected and (state.hands[state.seat].size or state.can_pass()):
        return Refusal("opening_safe", {"declarer": state.players[state.plays[0].seat]})
    return None


def _reveal_refusal(state: State, move: Reveal) -> Refusal | None:
    colours = state.plays[-1].colours
    if len(move.values) != len(colours):
        return Refusal("reveal_count", {"cards": len(colours), "said": len(move.values)})
    bad = [v for v in move.values if v not in DISTRIBUTION]
    if bad:
        return Refusal("no_such_card", {"value": bad[0]})
    # A reading that cannot be the cards on the table (a blue card is even, a yellow one
    # odd; no value on more cards than exist) is asked again, never ruled on.
    blue = sum(1 for v in move.values if colour_of(v) is Colour.BLUE)
    if blue != colours.count(Colour.BLUE):
        return Refusal("reveal_colours", {"colours": tuple(str(c) for c in colours), "values": move.values})
    for value, n in sorted(Counter(move.values).items()):
        limit = DISTRIBUTION[value] - (len(state.captures) if value == 0 else 0)
        if n > limit:
            return Refusal("reveal_too_many", {"value": value, "limit": limit})
    return None


def _keep_refusal(state: State, move: Keep) -> Refusal | None:
    choices = state.choices()
    colours = tuple(dict.fromkeys(str(c) for c, _ in choices))
    if not any(c is move.colour for c, _ in choices):
        return Refusal("keep_colour", {"colour": str(move.colour), "choices": colours})
    # A blue card flipped as 0 is a rule card (flipped values always fit their colours).
    if not move.rule and move.colour is Colour.BLUE and all(v == 0 for c, v in choices if c is move.colour):
        return Refusal("must_capture", {"player": move.player})
    if move.rule:
        left = RULE_CARDS - len(state.captures)
        maybe_zero = any(c is Colour.BLUE and v in (None, 0) for c, v in choices)
        if move.colour is not Colour.BLUE or not maybe_zero or left == 0:
            return Refusal("no_rule_card", {"left": left})
    return None


def _claim_refusal(state: State, move: Claim) -> Refusal | None:
    if move.player not in state.players:
        return Refusal("unknown_player", {"player": move.player})
    seat = state.index(move.player)
    if state.claims[seat] is not None:
        return Refusal("already_claimed", {"player": move.player, "holds": state.claims[seat]})
    if move.holds:
        if state.hands[seat].blue == 0:
            return Refusal("holds_no_blue", {"player": move.player})
        left = RULE_CARDS - len(state.captures)
        if sum(1 for c in state.claims if c) >= left:
            return Refusal("too_many_holders", {"left": left})
    return None


def play(state: State, move: Move | Leave | End) -> tuple[State, list[Event]]:
    wrong = refusal(state, move)
    if wrong is not None:
        raise IllegalMove(wrong)
    state = replace(state, turn=state.turn + 1)
    if isinstance(move, Leave):
        return _finish(state, "left", [], scoring=False, left=move.player)
    if isinstance(move, End):
        return _finish(state, "ended", [], scoring=False)
    if isinstance(move, PlayCards):
        return _play_cards(state, move)
    if isinstance(move, Pass):
        return _pass(state, move)
    if isinstance(move, Challenge):
        return _challenge(state, move)
    if isinstance(move, Reveal):
        return _reveal(state, move)
    if isinstance(move, Keep):
        return _keep(state, move)
    return _claim(state, move)


def on_timeout(state: State) -> tuple[State, list[Event]]:
    return state, []


def _next(seat: int) -> int:
    return (seat + 1) % SEATS


def _set_hand(hands: tuple[Hand, ...], seat: int, hand: Hand) -> tuple[Hand, ...]:
    return tuple(hand if i == seat else h for i, h in enumerate(hands))


def _add_vp(vp: tuple[int, ...], seat: int, points: int) -> tuple[int, ...]:
    return tuple(v + points if i == seat else v for i, v in enumerate(vp))


def _play_cards(state: State, move: PlayCards) -> tuple[State, list[Event]]:
    hand = state.hands[state.seat]
    for colour in move.colours:
        hand = hand.add(colour, -1)
    state = replace(
        state,
        hands=_set_hand(state.hands, state.seat, hand),
        plays=(*state.plays, Played(state.seat, move.colours, move.declared)),
        passes=0,
        seat=_next(state.seat),
    )
    return state, [Declared(move.player, tuple(str(c) for c in move.colours), move.declared)]


def _pass(state: State, move: Pass) -> tuple[State, list[Event]]:
    hand = state.hands[state.seat].add(move.pile, 1)
    state = replace(
        state,
        hands=_set_hand(state.hands, state.seat, hand),
        piles=state.piles.add(move.pile, -1),
        passes=state.passes + 1,
        last_pile=move.pile,
        seat=_next(state.seat),
    )
    events: list[Event] = [Passed(move.player, str(move.pile), state.passes)]
    if state.passes == SEATS - 1:
        declarer = state.declarer
        assert declarer is not None
        state = replace(state, vp=_add_vp(state.vp, declarer, 1))
        return _trick_won(state, declarer, "passes", events)
    return state, events


def _challenge(state: State, move: Challenge) -> tuple[State, list[Event]]:
    declarer = state.declarer
    assert declarer is not None
    state = replace(state, phase=Phase.REVEAL, challenger=state.seat)
    return state, [Challenged(move.player, state.players[declarer], state.plays[-1].declared)]


def _reveal(state: State, move: Reveal) -> tuple[State, list[Event]]:
    last = state.plays[-1]
    declarer, challenger = last.seat, state.challenger
    assert challenger is not None
    total = sum(move.values)
    events: list[Event] = [Revealed(state.players[declarer], move.values, total, last.declared)]
    # Values said in any order: pair them with the colours (evens to blue).
    ordered = _pair(last.colours, move.values)
    state = replace(state, plays=(*state.plays[:-1], replace(last, values=ordered)))
    lied = total != last.declared
    winner, loser = (challenger, declarer) if lied else (declarer, challenger)
    vp = _add_vp(_add_vp(state.vp, winner, 1), loser, -1)
    state = replace(state, vp=vp)
    events.append(Clash(state.players[winner], state.players[loser], lied, state.total_vp()))
    return _trick_won(state, winner, "clash", events)


def _pair(colours: tuple[Colour, ...], values: tuple[int, ...]) -> tuple[int, ...]:
    """Values said in any order, each put on a card of its colour (the refusal made sure
    the colours fit)."""
    pool = list(values)
    out: list[int] = []
    for colour in colours:
        pick = next(v for v in pool if colour_of(v) is colour)
        pool.remove(pick)
        out.append(pick)
    return tuple(out)


def _trick_won(state: State, winner: int, reason: str, events: list[Event]) -> tuple[State, list[Event]]:
    state = replace(state, phase=Phase.KEEP, seat=winner, challenger=None)
    choices = tuple(str(c) for c, _ in state.choices())
    events.append(TrickWon(state.players[winner], reason, choices))
    return state, events


def _keep(state: State, move: Keep) -> tuple[State, list[Event]]:
    winner = state.seat
    hands = state.hands
    captures = state.captures
    events: list[Event] = []
    if move.rule:
        captures = (*captures, winner)
        events.append(Captured(move.player, len(captures)))
    else:
        hands = _set_hand(hands, winner, hands[winner].add(move.colour, 1))
        events.append(Kept(move.player, str(move.colour)))
    # Every other card of the trick goes back to its colour's pile.
    back = Counter(c for p in state.plays for c in p.colours)
    back[move.colour] -= 1
    piles = state.piles.add(Colour.BLUE, back[Colour.BLUE]).add(Colour.YELLOW, back[Colour.YELLOW])
    dry = 0 if move.rule else state.dry + 1
    state = replace(
        state,
        hands=hands,
        captures=captures,
        piles=piles,
        plays=(),
        passes=0,
        last_pile=None,
        dry=dry,
        dealer=winner,
        seat=winner,
        phase=Phase.PLAY,
    )
    if len(captures) == RULE_CARDS:
        return _check(state, "all_captured", events)
    if state.hands[winner].size == 0:
        return _check(state, "dealer_empty", events)
    if dry >= state.options.dry_tricks:
        return _check(state, "dry", events)
    state = replace(state, trick=state.trick + 1)
    events.append(TrickStarted(state.players[winner], state.trick))
    return state, events


def _check(state: State, reason: str, events: list[Event]) -> tuple[State, list[Event]]:
    state = replace(state, phase=Phase.CHECK, end_reason=reason)
    events.append(CheckStarted(reason))
    if RULE_CARDS - len(state.captures) == 0:
        # Nobody can hold one: no need to ask.
        state = replace(state, claims=tuple(False for _ in state.players))
        return _finish(state, reason, events, scoring=True)
    return state, events


def _claim(state: State, move: Claim) -> tuple[State, list[Event]]:
    seat = state.index(move.player)
    claims = tuple(move.holds if i == seat else c for i, c in enumerate(state.claims))
    state = replace(state, claims=claims)
    events: list[Event] = [Claimed(move.player, move.holds)]
    if any(c is None for c in claims):
        return state, events
    # Every uncaptured rule card is on a claimant's hand (a hand may hold two or three:
    # it holds blue cards, not one rule card) or in the blue pile. Only claims that no
    # such spread can explain are flagged.
    left = RULE_CARDS - len(state.captures)
    room = state.piles.blue + sum(h.blue for h, c in zip(state.hands, claims, strict=True) if c)
    if left > room:
        events.append(Flagged("claims", limit=room, missing=left))
    return _finish(state, state.end_reason, events, scoring=True)


def score(state: State) -> BlofaOutcome:
    """Points with the seating bonuses; who is eliminated; the winner (None on a tie)."""
    vp = list(state.vp)
    lines = []
    for seat in state.captures:
        vp[seat] += CAPTURER
        vp[across(seat)] += ACROSS
        vp[right_of(seat)] += RIGHT
        names = state.players
        lines.append(ScoreLine(names[seat], names[across(seat)], names[right_of(seat)]))
    eliminated = tuple(p for p, c in zip(state.players, state.claims, strict=True) if c)
    standing = [(v, p) for p, v in zip(state.players, vp, strict=True) if p not in eliminated]
    best = max((v for v, _ in standing), default=None)
    top = tuple(p for v, p in standing if v == best)
    totals = tuple(zip(state.players, vp, strict=True))
    return BlofaOutcome(
        reason=state.end_reason,
        winners=top if len(top) == 1 else (),
        scores=totals,
        vp=totals,
        eliminated=eliminated,
        lines=tuple(lines),
    )


def _finish(
    state: State, reason: str, events: list[Event], scoring: bool, left: str | None = None
) -> tuple[State, list[Event]]:
    if scoring:
        outcome = score(replace(state, end_reason=reason))
    else:
        # Cut short: no bonuses, no winner (nobody has said whether they hold a rule card).
        outcome = BlofaOutcome(reason=reason, scores=state.total_vp(), vp=state.total_vp(), left=left)
    state = replace(state, phase=Phase.OVER, end_reason=reason, outcome=outcome)
    events.append(GameOver(outcome))
    return state, events


class BlofaRules:
    """The :class:`games.base.Rules` half: the module's functions."""

    def new_game(
        self, players: tuple[str, ...], options: Options, seed: int, previous: State | None
    ) -> State:
        return new_game(players, options, seed, previous)

    def to_act(self, state: State) -> frozenset[str]:
        return to_act(state)

    def refusal(self, state: State, move: Move | Leave | End) -> Refusal | None:
        return refusal(state, move)

    def play(self, state: State, move: Move | Leave | End) -> tuple[State, list[Event]]:
        return play(state, move)

    def on_timeout(self, state: State) -> tuple[State, list[Event]]:
        return on_timeout(state)

    def owner(self, move: Move) -> str | None:
        return owner(move)

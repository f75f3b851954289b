"""!nversion, refereed without seeing hands (``docs/rules/inversion.txt``). Pure.

The table plays real cards; the engine knows what it has been told: the chosen suits, the
lane, the declarations and each card played. It cannot see hands, so playing off suit
without making 11 is kept as a *claim* ("I hold no hearts") and checked against every
later card: a player who then plays a heart, or who provably must still hold one because
too few other cards are left unseen, is caught revoking.

A game is its players, options and moves: ``new_game`` then ``play(state, move)`` for each
move, which returns the new state and the events that happened. ``refusal(state, move)``
says why a move cannot be taken now (a wrong card name, out of turn, a provable failure
to follow); ``play`` raises ``IllegalMove`` for such a move.

>>> from games.inversion.cards import Card as C, Suit
>>> g = new_game(("Ann", "Bob"))
>>> g, _ = play(g, ChooseSuits((Suit.HEART, Suit.SPADE, Suit.CLUB)))
>>> g, _ = play(g, LayLane(tuple(C.parse(c) for c in "9H 1C 2C 3C 4C 5C 6C 7C 8C 10C".split())))
>>> g, _ = play(g, ChooseFirst("Ann"))
>>> g, _ = play(g, PlayCard("Ann", C.parse("8H")))
>>> g, events = play(g, PlayCard("Bob", C.parse("2S")))
>>> [e.type for e in events]
['card_played', 'inversion', 'trick_won', 'trick_started']
>>> events[2].winner, str(events[2].card), events[2].reason
('Bob', '9H', 'inversion')
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from games.core import End, Event, GameOver, IllegalMove, Leave, Outcome, Refusal
from games.inversion.cards import Card, Suit, deck

MIN_PLAYERS = 2
MAX_PLAYERS = 4
HAND = 10
LANE = 10
TRICKS = 10
MAKES = 11  # a card and the follow card adding up to this invert


@dataclass(frozen=True)
class InversionOutcome(Outcome):
    """Scores are tricks as counted (after any revoke penalty); with an auction, who was
    the parent and for how many; ``left``: who left, if that ended the game."""

    parent: str | None = None
    bid: int | None = None
    left: str | None = None

    def to_json(self) -> dict[str, object]:
        data = super().to_json()
        if "scores" in data:
            data["tricks"] = data.pop("scores")  # a card table's scores are its tricks
        for name in ("parent", "bid", "left"):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        return data


class Phase(StrEnum):
    SUITS = "suits"  # the table names players+1 suits
    LANE = "lane"  # the 10 lane cards, nearest the reference card first
    FIRST = "first"  # 2 players: who plays first; 3-4: who declares first
    BIDDING = "bidding"
    PLAYING = "playing"
    OVER = "over"


class Penalty(StrEnum):
    """What a proven revoke costs (the rules name none; tables differ)."""

    ANNOUNCE = "announce"  # said out loud, nothing else
    TRICK = "trick"  # counts one trick to the other side at the end


@dataclass(frozen=True)
class Options:
    revoke_penalty: Penalty = field(
        default=Penalty.ANNOUNCE,
        metadata={"help": "A proven revoke is only announced, or costs a trick.", "flag": "--revoke-penalty"},
    )


# -- moves -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChooseSuits:
    suits: tuple[Suit, ...]


@dataclass(frozen=True)
class LayLane:
    """One or more lane cards, continuing the lane from where it stops."""

    cards: tuple[Card, ...]


@dataclass(frozen=True)
class ChooseFirst:
    player: str


@dataclass(frozen=True)
class Declare:
    player: str
    amount: int | None  # None passes


@dataclass(frozen=True)
class PlayCard:
    player: str
    card: Card


Move = ChooseSuits | LayLane | ChooseFirst | Declare | PlayCard
AnyMove = Move | End | Leave


# -- events ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SuitsChosen(Event):
    suits: tuple[Suit, ...]
    type: str = field(init=False, default="suits")


@dataclass(frozen=True)
class LaneLaid(Event):
    cards: tuple[Card, ...]
    total: int
    type: str = field(init=False, default="lane")


@dataclass(frozen=True)
class FirstChosen(Event):
    player: str
    bidding: bool
    type: str = field(init=False, default="first")


@dataclass(frozen=True)
class BidMade(Event):
    player: str
    amount: int | None  # None: passed
    type: str = field(init=False, default="bid")


@dataclass(frozen=True)
class AuctionWon(Event):
    parent: str
    bid: int
    children: tuple[str, ...]
    type: str = field(init=False, default="parent")


@dataclass(frozen=True)
class TrickStarted(Event):
    trick: int
    follow: Card
    leader: str
    type: str = field(init=False, default="trick_started")


@dataclass(frozen=True)
class CardPlayed(Event):
    player: str
    card: Card
    trick: int
    follow: Card  # the follow card this card was played to
    followed: bool  # same suit as the follow card
    type: str = field(init=False, default="card_played")


@dataclass(frozen=True)
class Inversion(Event):
    player: str
    card: Card  # went into the lane: the new follow card
    took: Card  # came out of the lane: counts as the player's card
    trick: int
    type: str = field(init=False, default="inversion")


@dataclass(frozen=True)
class Revoke(Event):
    """Proof that ``player`` held ``suit`` when they played ``claimed_card`` off suit."""

    player: str
    suit: Suit
    claimed_trick: int
    claimed_card: Card
    trick: int
    evidence: str  # "played": they played the suit since; "count": too few other cards left
    card: Card | None = None  # the card of that suit played since (evidence "played")
    hand: int = 0  # evidence "count": cards still in their hand ...
    others: int = 0  # ... and unseen cards of other suits
    type: str = field(init=False, default="revoke")


@dataclass(frozen=True)
class TrickWon(Event):
    trick: int
    winner: str
    card: Card  # the winning card as counted (an inverter's card taken from the lane)
    reason: str  # "inversion", "follow_suit", "highest"
    tie: bool  # another card of the same number lost by coming later
    follow_suit: Suit  # the suit the trick opened with
    pile: tuple[Card, ...]
    tally: tuple[tuple[str, int], ...]
    type: str = field(init=False, default="trick_won")


@dataclass(frozen=True)
class CardsAccounted(Event):
    """The end-of-game audit: every card of the chosen suits in exactly one pile."""

    total: int
    missing: tuple[Card, ...] = ()
    doubled: tuple[Card, ...] = ()
    type: str = field(init=False, default="cards_accounted")


# -- state -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Played:
    player: str
    card: Card  # put down by the player
    counts: Card  # considered for the trick: the lane card taken on an inversion
    inverted: bool


@dataclass(frozen=True)
class Claim:
    """Playing ``card`` off suit without making 11 says "I hold no ``suit``"."""

    player: str
    suit: Suit
    trick: int
    card: Card


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    options: Options = Options()
    phase: Phase = Phase.SUITS
    suits: tuple[Suit, ...] = ()
    lane: tuple[Card, ...] = ()  # as laid, nearest the reference card first
    seen: frozenset[Card] = frozenset()  # lane and played cards: nobody can hold these
    opener: int = 0  # who plays first (2 players) or declares first (3-4)
    current: int = 0
    bids: tuple[tuple[str, int | None], ...] = ()
    passed: frozenset[str] = frozenset()
    parent: str | None = None
    bid: int | None = None
    trick: int = 0
    follow: Card | None = None
    plays: tuple[Played, ...] = ()
    cards_played: tuple[int, ...] = ()  # per seat, over the whole game
    piles: tuple[tuple[str, tuple[Card, ...]], ...] = ()  # (winner, cards) per trick won
    claims: tuple[Claim, ...] = ()  # open claims of holding no suit
    revokes: tuple[Revoke, ...] = ()
    # The number of the move awaited, from 1 (as Up-or-Down counts turns): one more than the
    # moves accepted so far. A stale timer, token or confirmation names an older one.
    turn: int = 1
    outcome: InversionOutcome | None = None

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def bidding(self) -> bool:
        """Whether this table has an auction (3 or 4 players)."""
        return len(self.players) > 2

    @property
    def current_player(self) -> str | None:
        """Who must act; None while the whole table sets up or after the end."""
        if self.phase in (Phase.BIDDING, Phase.PLAYING):
            return self.players[self.current]
        return None

    @property
    def high_bid(self) -> int | None:
        amounts = [a for _, a in self.bids if a is not None]
        return max(amounts) if amounts else None

    def tricks(self, player: str) -> int:
        return sum(1 for winner, _ in self.piles if winner == player)

    def tally(self) -> tuple[tuple[str, int], ...]:
        return tuple((p, self.tricks(p)) for p in self.players)

    def hand_size(self, player: str) -> int:
        return HAND - self.cards_played[self.players.index(player)]

    @property
    def unseen(self) -> frozenset[Card]:
        """Cards that must be in somebody's hand."""
        return deck(self.suits) - self.seen

    @property
    def lane_ahead(self) -> tuple[Card, ...]:
        """Lane cards still to come as follow cards in later tricks."""
        return self.lane[self.trick :] if self.phase is Phase.PLAYING else self.lane

    def must_follow(self, player: str) -> tuple[int, int] | None:
        """(hand, others) when ``player`` provably holds the follow suit: more cards in
        hand than unseen cards of other suits. None when they may be void."""
        if self.follow is None:
            return None
        hand = self.hand_size(player)
        others = sum(1 for c in self.unseen if c.suit != self.follow.suit)
        return (hand, others) if others < hand else None

    def allowed(self) -> tuple[Suit, int] | None:
        """The follow suit and the number that makes 11, for the current player."""
        if self.follow is None:
            return None
        return self.follow.suit, MAKES - self.follow.rank


def new_game(players: tuple[str, ...] | list[str], options: Options = Options()) -> State:
    players = tuple(players)
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise ValueError(f"!nversion is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}")
    if len(set(players)) != len(players):
        raise ValueError("player names must differ")
    return State(players=players, options=options, cards_played=(0,) * len(players))


# -- judging ---------------------------------------------------------------------------------


def refusal(state: State, move: AnyMove) -> Refusal | None:
    """Why ``move`` cannot be taken now, or None when it can."""
    if isinstance(move, End):
        return Refusal("game_over") if state.is_over else None
    if isinstance(move, Leave):
        if move.player not in state.players:
            return Refusal("not_playing", {"player": move.player})
        return Refusal("game_over") if state.is_over else None
    if state.is_over:
        return Refusal("game_over")
    if isinstance(move, ChooseSuits):
        return _suits_refusal(state, move)
    if isinstance(move, LayLane):
        return _lane_refusal(state, move)
    if isinstance(move, ChooseFirst):
        if state.phase is not Phase.FIRST:
            return Refusal("wrong_phase", {"phase": state.phase.value})
        if move.player not in state.players:
            return Refusal("not_playing", {"player": move.player})
        return None
    if isinstance(move, Declare):
        return _bid_refusal(state, move)
    return _card_refusal(state, move)


def _suits_refusal(state: State, move: ChooseSuits) -> Refusal | None:
    if state.phase is not Phase.SUITS:
        return Refusal("wrong_phase", {"phase": state.phase.value})
    need = len(state.players) + 1
    if len(set(move.suits)) != len(move.suits):
        return Refusal("duplicate_suit", {"count": need})
    if len(move.suits) != need:
        return Refusal("suit_count", {"count": need, "got": len(move.suits)})
    return None


def _lane_refusal(state: State, move: LayLane) -> Refusal | None:
    if state.phase is not Phase.LANE:
        return Refusal("wrong_phase", {"phase": state.phase.value})
    if not move.cards:
        return Refusal("lane_count", {"count": LANE - len(state.lane)})
    for card in move.cards:
        if card.suit not in state.suits:
            return Refusal("unused_suit", {"card": card, "suits": state.suits})
    laid = [*state.lane, *move.cards]
    for i, card in enumerate(laid):
        if card in laid[:i]:
            return Refusal("lane_duplicate", {"card": card})
    if len(laid) > LANE:
        return Refusal("lane_full", {"count": LANE - len(state.lane), "got": len(move.cards)})
    return None


def _bid_refusal(state: State, move: Declare) -> Refusal | None:
    if state.phase is not Phase.BIDDING:
        return Refusal("wrong_phase", {"phase": state.phase.value})
    current = state.players[state.current]
    if move.player != current:
        return Refusal("not_your_turn", {"player": current})
    high = state.high_bid
    if move.amount is None:
        if high is None and len(state.passed) == len(state.players) - 1:
            return Refusal("must_declare", {"player": current})
        return None
    if move.amount < 0:
        return Refusal("bid_too_low", {"bid": 0 if high is None else high})
    if move.amount == 0 and high is None:
        return Refusal("first_bid_zero")
    if move.amount > TRICKS:
        return Refusal("bid_too_high", {"most": TRICKS})
    if high is not None and move.amount <= high:
        return Refusal("bid_too_low", {"bid": high})
    return None


def where_seen(state: State, card: Card) -> dict[str, object]:
    """Where a seen card is, for "that card is already ..." answers."""
    for trick, (winner, pile) in enumerate(state.piles, start=1):
        if card in pile:
            return {"where": "pile", "trick": trick, "player": winner}
    if card == state.follow:
        return {"where": "follow"}
    # An inverter's own card went into the lane: the trick holds what each player counts.
    for p in state.plays:
        if card == p.counts:
            return {"where": "trick", "player": p.player, "trick": state.trick}
    return {"where": "lane", "position": state.lane.index(card) + 1}


def _card_refusal(state: State, move: PlayCard) -> Refusal | None:
    if state.phase is not Phase.PLAYING:
        return Refusal("wrong_phase", {"phase": state.phase.value})
    current = state.players[state.current]
    if move.player != current:
        return Refusal("not_your_turn", {"player": current})
    card = move.card
    if card.suit not in state.suits:
        return Refusal("unused_suit", {"card": card, "suits": state.suits})
    if card in state.seen:
        return Refusal("card_seen", {"card": card, **where_seen(state, card)})
    assert state.follow is not None
    if card.suit != state.follow.suit and card.rank + state.follow.rank != MAKES:
        proof = state.must_follow(move.player)
        if proof is not None:
            hand, others = proof
            return Refusal(
                "must_follow",
                {
                    "player": move.player,
                    "suit": state.follow.suit,
                    "rank": MAKES - state.follow.rank,
                    "hand": hand,
                    "others": others,
                },
            )
    return None


# -- playing ---------------------------------------------------------------------------------


def play(state: State, move: AnyMove) -> tuple[State, list[Event]]:
    """Apply a move; raises IllegalMove with the refusal if it cannot be taken."""
    problem = refusal(state, move)
    if problem is not None:
        raise IllegalMove(problem)
    state = replace(state, turn=state.turn + 1)
    if isinstance(move, ChooseSuits):
        return replace(state, suits=move.suits, phase=Phase.LANE), [SuitsChosen(move.suits)]
    if isinstance(move, LayLane):
        lane = (*state.lane, *move.cards)
        state = replace(state, lane=lane, seen=state.seen | set(move.cards))
        if len(lane) == LANE:
            state = replace(state, phase=Phase.FIRST)
        return state, [LaneLaid(move.cards, len(lane))]
    if isinstance(move, ChooseFirst):
        return _choose_first(state, move.player)
    if isinstance(move, Declare):
        return _declare(state, move)
    if isinstance(move, PlayCard):
        return _play_card(state, move)
    if isinstance(move, End):
        return _finish(state, "requested")
    return _finish(state, "player_left", left=move.player)


def _choose_first(state: State, player: str) -> tuple[State, list[Event]]:
    seat = state.players.index(player)
    events: list[Event] = [FirstChosen(player, state.bidding)]
    if state.bidding:
        return replace(state, opener=seat, current=seat, phase=Phase.BIDDING), events
    state = replace(state, opener=seat)
    return _start_play(state, seat, events)


def _start_play(state: State, leader: int, events: list[Event]) -> tuple[State, list[Event]]:
    state = replace(state, phase=Phase.PLAYING, trick=1, follow=state.lane[0], current=leader, plays=())
    assert state.follow is not None
    events.append(TrickStarted(1, state.follow, state.players[leader]))
    return state, events


def _next_bidder(state: State, seat: int) -> int:
    n = len(state.players)
    for step in range(1, n + 1):
        candidate = (seat + step) % n
        if state.players[candidate] not in state.passed:
            return candidate
    return seat


def _declare(state: State, move: Declare) -> tuple[State, list[Event]]:
    events: list[Event] = [BidMade(move.player, move.amount)]
    passed = state.passed | {move.player} if move.amount is None else state.passed
    state = replace(state, bids=(*state.bids, (move.player, move.amount)), passed=passed)
    high = state.high_bid
    still_in = [p for p in state.players if p not in passed]
    if high is not None and (high == TRICKS or len(still_in) == 1):
        parent = next(p for p, a in reversed(state.bids) if a == high)
        children = tuple(p for p in state.players if p != parent)
        state = replace(state, parent=parent, bid=high)
        events.append(AuctionWon(parent, high, children))
        return _start_play(state, state.players.index(parent), events)
    return replace(state, current=_next_bidder(state, state.current)), events


def _play_card(state: State, move: PlayCard) -> tuple[State, list[Event]]:
    follow = state.follow
    assert follow is not None
    card, player, seat = move.card, move.player, state.current
    inverted = card.rank + follow.rank == MAKES
    followed = card.suit == follow.suit
    events: list[Event] = [CardPlayed(player, card, state.trick, follow, followed)]
    counts = follow if inverted else card
    played = list(state.cards_played)
    played[seat] += 1
    state = replace(
        state,
        seen=state.seen | {card},
        plays=(*state.plays, Played(player, card, counts, inverted)),
        cards_played=tuple(played),
    )
    if inverted:
        state = replace(state, follow=card)
        events.append(Inversion(player, card, follow, state.trick))
    state, revokes = _check_claims(state, player, card)
    if (
        not followed
        and not inverted
        and not any(c.player == player and c.suit == follow.suit for c in state.claims)
    ):
        state = replace(state, claims=(*state.claims, Claim(player, follow.suit, state.trick, card)))
    events.extend(revokes)
    if len(state.plays) < len(state.players):
        return replace(state, current=(seat + 1) % len(state.players)), events
    return _end_trick(state, events)


def _check_claims(state: State, player: str, card: Card) -> tuple[State, list[Revoke]]:
    """Close every open claim the new card disproves, by playing the suit or by count."""
    revokes: list[Revoke] = []
    kept: list[Claim] = []
    unseen = state.unseen
    for claim in state.claims:
        if claim.player == player and card.suit == claim.suit:
            revokes.append(
                Revoke(claim.player, claim.suit, claim.trick, claim.card, state.trick, "played", card=card)
            )
            continue
        hand = state.hand_size(claim.player)
        others = sum(1 for c in unseen if c.suit != claim.suit)
        if others < hand:
            revokes.append(
                Revoke(
                    claim.player,
                    claim.suit,
                    claim.trick,
                    claim.card,
                    state.trick,
                    "count",
                    hand=hand,
                    others=others,
                )
            )
            continue
        kept.append(claim)
    return replace(state, claims=tuple(kept), revokes=(*state.revokes, *revokes)), revokes


def trick_winner(plays: tuple[Played, ...], follow_suit: Suit) -> tuple[int, str, bool]:
    """(index of the winning play, reason, won on a tie) by the reference card's priorities."""
    if any(p.inverted for p in plays):
        candidates, reason = list(range(len(plays))), "inversion"
    else:
        candidates = [i for i, p in enumerate(plays) if p.counts.suit == follow_suit]
        reason = "follow_suit"
        if not candidates:
            candidates, reason = list(range(len(plays))), "highest"
    best = max(plays[i].counts.rank for i in candidates)
    tied = [i for i in candidates if plays[i].counts.rank == best]
    return tied[0], reason, len(tied) > 1


def _end_trick(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    assert state.follow is not None
    opening_follow = state.lane[state.trick - 1]
    index, reason, tie = trick_winner(state.plays, opening_follow.suit)
    win = state.plays[index]
    pile = (*(p.counts for p in state.plays), state.follow)
    state = replace(state, piles=(*state.piles, (win.player, pile)), plays=())
    events.append(
        TrickWon(state.trick, win.player, win.counts, reason, tie, opening_follow.suit, pile, state.tally())
    )
    if state.trick == TRICKS:
        return _finish(state, "tricks", events=events)
    trick = state.trick + 1
    leader = state.players.index(win.player)
    state = replace(state, trick=trick, follow=state.lane[trick - 1], current=leader)
    events.append(TrickStarted(trick, state.lane[trick - 1], win.player))
    return state, events


def scores(state: State) -> tuple[tuple[str, int], ...]:
    """Tricks per player for the result, after any revoke penalty the table chose."""
    counts = dict(state.tally())
    if state.options.revoke_penalty is Penalty.TRICK:
        for revoke in state.revokes:
            offender = revoke.player
            if counts[offender] == 0:
                continue  # nobody can hand over a trick they do not have
            if state.parent is None or offender != state.parent:
                # To the other side: the opponent (2 players) or the parent.
                taker = state.parent or next(p for p in state.players if p != offender)
            else:
                seat = state.players.index(offender)
                taker = state.players[(seat + 1) % len(state.players)]  # the next child
            counts[offender] -= 1
            counts[taker] += 1
    return tuple(counts.items())


def _finish(
    state: State, reason: str, *, events: list[Event] | None = None, left: str | None = None
) -> tuple[State, list[Event]]:
    events = [] if events is None else events
    if reason == "tricks":
        events.append(audit(state))
    score = scores(state)
    winners: tuple[str, ...] = ()
    if reason == "tricks":
        if state.parent is not None and state.bid is not None:
            made = dict(score)[state.parent] >= state.bid
            winners = (state.parent,) if made else tuple(p for p in state.players if p != state.parent)
        else:
            best = max(s for _, s in score)
            top = tuple(p for p, s in score if s == best)
            winners = top if len(top) == 1 else ()
    outcome = InversionOutcome(
        reason="draw" if reason == "tricks" and not winners else reason,
        winners=winners,
        scores=score,
        parent=state.parent,
        bid=state.bid,
        left=left,
    )
    state = replace(state, phase=Phase.OVER, outcome=outcome)
    events.append(GameOver(outcome))
    return state, events


def audit(state: State) -> CardsAccounted:
    """Every card of the chosen suits should sit in exactly one pile at the end."""
    counted: dict[Card, int] = {}
    for _, pile in state.piles:
        for card in pile:
            counted[card] = counted.get(card, 0) + 1
    everything = deck(state.suits)
    missing = tuple(sorted(everything - set(counted)))
    doubled = tuple(sorted(c for c, n in counted.items() if n > 1 or c not in everything))
    return CardsAccounted(len(everything), missing, doubled)


def playable(state: State) -> tuple[Card, ...]:
    """Cards the current player could put down without being refused (for phrase lists)."""
    if state.phase is not Phase.PLAYING:
        return ()
    player = state.players[state.current]
    return tuple(sorted(c for c in state.unseen if refusal(state, PlayCard(player, c)) is None))


class Rules:
    """!nversion through the game protocol (``games/base.py``)."""

    def new_game(
        self, players: tuple[str, ...], options: Options, seed: int, previous: State | None
    ) -> State:
        return new_game(players, options)

    def to_act(self, state: State) -> frozenset[str]:
        current = state.current_player
        return frozenset() if current is None else frozenset({current})

    def refusal(self, state: State, move: AnyMove) -> Refusal | None:
        return refusal(state, move)

    def play(self, state: State, move: AnyMove) -> tuple[State, list[Event]]:
        return play(state, move)

    def on_timeout(self, state: State) -> tuple[State, list[Event]]:
        return state, []  # a card table plays at its own pace: no turn clock

    def owner(self, move: Move) -> str | None:
        # Setup belongs to the whole table; who starts names a player but is anyone's step.
        return getattr(move, "player", None) if isinstance(move, Declare | PlayCard) else None


def encode(move: Move) -> dict[str, object]:
    """A move as the session log keeps it (readable: cards as "9H")."""
    if isinstance(move, ChooseSuits):
        return {"action": "suits", "suits": [s.value for s in move.suits]}
    if isinstance(move, LayLane):
        return {"action": "lane", "cards": [str(c) for c in move.cards]}
    if isinstance(move, ChooseFirst):
        return {"action": "first", "player": move.player}
    if isinstance(move, Declare):
        return {"action": "bid", "player": move.player, "amount": move.amount}
    return {"action": "card", "player": move.player, "cards": [str(move.card)]}


def decode(data: dict[str, object]) -> Move:
    action, player = data["action"], str(data.get("player") or "")
    suits, cards = data.get("suits") or [], data.get("cards") or []
    assert isinstance(suits, list) and isinstance(cards, list)
    if action == "suits":
        return ChooseSuits(tuple(Suit(str(s)) for s in suits))
    if action == "lane":
        return LayLane(tuple(Card.parse(str(c)) for c in cards))
    if action == "first":
        return ChooseFirst(player)
    if action == "bid":
        amount = data.get("amount")
        return Declare(player, amount if isinstance(amount, int) else None)
    return PlayCard(player, Card.parse(str(cards[0])))

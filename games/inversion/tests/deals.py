"""Dealt !nversion games for tests and benchmarks: a seeded shuffle, real hands, and a table
that follows suit when it can (optionally revoking once), played out by the engine."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from games.inversion import rules as inv
from games.inversion.cards import Card, Suit, deck


def deal(rng: random.Random, players: int) -> tuple[list[Suit], list[list[Card]], list[Card]]:
    """Suits, one hand per player, and the lane (the 10 cards left)."""
    suits = rng.sample(list(Suit), players + 1)
    cards = sorted(deck(suits))
    rng.shuffle(cards)
    hands = [cards[i * 10 : (i + 1) * 10] for i in range(players)]
    return suits, hands, cards[players * 10 :]


@dataclass
class DealtGame:
    suits: list[Suit]
    lane: list[Card]
    moves: list[inv.Move] = field(default_factory=list)  # after setup: bids, then cards
    lines: list[str] = field(default_factory=list)  # the same moves as "Name: words"
    kinds: list[str] = field(default_factory=list)  # event types the moves caused
    final: inv.State | None = None

    @property
    def setup(self) -> list[inv.Move]:
        return [inv.ChooseSuits(tuple(self.suits)), inv.LayLane(tuple(self.lane))]


def dealt_game(seed: int, players: list[str], *, revoke: bool = False, bid: int = 3) -> DealtGame:
    """A whole game: the first player declares ``bid`` and the rest pass (3-4 players); each
    player then follows suit when able. With ``revoke`` one player once plays off suit while
    holding it, which the engine proves sooner or later (every card gets played)."""
    rng = random.Random(seed)
    suits, dealt, lane = deal(rng, len(players))
    hands = dict(zip(players, dealt, strict=True))
    game = DealtGame(suits, lane)
    state = inv.new_game(players)
    for move in (*game.setup, inv.ChooseFirst(players[0])):
        state, _ = inv.play(state, move)
    if state.bidding:
        for i, player in enumerate(players):
            amount = bid if i == 0 else None
            state, _ = inv.play(state, inv.Declare(player, amount))
            game.moves.append(inv.Declare(player, amount))
            game.lines.append(f"{player}: {f'I bid {amount}' if amount else 'pass'}")
    revoked = not revoke
    while not state.is_over:
        mover = state.current_player
        assert mover is not None and state.follow is not None
        hand = hands[mover]
        follow = [c for c in hand if c.suit == state.follow.suit]
        off = [c for c in hand if c.suit != state.follow.suit and c.rank + state.follow.rank != inv.MAKES]
        if follow and off and not revoked and inv.refusal(state, inv.PlayCard(mover, off[0])) is None:
            card, revoked = off[0], True
        else:
            card = (follow or hand)[0]
        hand.remove(card)
        state, events = inv.play(state, inv.PlayCard(mover, card))
        game.moves.append(inv.PlayCard(mover, card))
        game.lines.append(f"{mover}: {card}")
        game.kinds += [e.type for e in events]
    game.final = state
    return game

"""A second referee for !nversion, written from the rule text alone (``docs/rules/
inversion.txt``) and the readings of its vague points in ``docs/inversion.md``.

It imports nothing of the game. Cards are ``(rank, suit)`` with suit one of ``SUITS``;
moves are tuples: ``("suits", [suit, ...])``, ``("lane", [card, ...])``, ``("first",
player)``, ``("bid", player, amount or None)``, ``("card", player, card)``, ``("leave",
player)``, ``("end",)``. ``act`` rules on a move (False: refused, nothing changes) and
``facts`` is what the table can see, for ``test_oracle.py`` to compare with the game.
"""

from __future__ import annotations

from typing import Any

SUITS = ("club", "spade", "heart", "diamond", "clown")
RANKS = range(1, 11)
ELEVEN = 11
TRICKS = 10
Card = tuple[int, str]
Move = tuple[Any, ...]


def name(card: Card) -> str:
    letter = {"club": "C", "spade": "S", "heart": "H", "diamond": "D", "clown": "X"}[card[1]]
    return f"{card[0]}{letter}"


class InversionOracle:
    def __init__(self, players: tuple[str, ...], penalty_trick: bool = False) -> None:
        self.players = players
        self.penalty_trick = penalty_trick
        self.step = "suits"  # suits, lane, first, bidding, playing, over
        self.suits: list[str] = []
        self.lane: list[Card] = []
        self.seen: set[Card] = set()  # face up: the lane, played cards; nobody holds them
        self.turn: str | None = None
        self.bids: list[tuple[str, int | None]] = []
        self.passed: set[str] = set()
        self.parent: str | None = None
        self.bid: int | None = None
        self.trick = 0
        self.follow: Card | None = None
        self.opening_suit = ""  # the suit of the lane card the trick opened with
        self.played: list[tuple[str, Card, bool]] = []  # (player, card counted, inverted)
        self.in_hand = dict.fromkeys(players, 10)
        self.won = dict.fromkeys(players, 0)
        self.piles: list[tuple[str, list[str]]] = []  # per trick: its winner and its cards
        self.claims: list[tuple[str, str, int]] = []  # (player, suit, trick): "I hold no ..."
        self.revokes: list[tuple[str, str, str, int]] = []  # (player, suit, evidence, trick of claim)
        self.result: dict[str, Any] = {}

    # -- helpers ----------------------------------------------------------------------------

    def _deck(self) -> set[Card]:
        return {(r, s) for s in self.suits for r in RANKS}

    def _unseen_outside(self, suit: str) -> int:
        """Cards nobody has seen yet that are not of ``suit``: all a void hand can hold."""
        return sum(1 for c in self._deck() - self.seen if c[1] != suit)

    def _next(self, player: str) -> str:
        return self.players[(self.players.index(player) + 1) % len(self.players)]

    def _high(self) -> int | None:
        amounts = [a for _, a in self.bids if a is not None]
        return max(amounts) if amounts else None

    # -- rulings ----------------------------------------------------------------------------

    def act(self, move: Move) -> bool:
        kind = move[0]
        if self.step == "over":
            return False
        if kind == "end":
            self._over("requested")
            return True
        if kind == "leave":
            if move[1] not in self.players:
                return False
            self._over("player_left")
            return True
        if kind in ("suits", "lane", "first"):
            if kind != self.step:
                return False
            if kind == "suits":
                return self._suits(move[1])
            return self._lane(move[1]) if kind == "lane" else self._first(move[1])
        if kind == "bid":
            return self.step == "bidding" and move[1] == self.turn and self._bid(move[1], move[2])
        if kind == "card":
            return self.step == "playing" and move[1] == self.turn and self._card(move[1], move[2])
        raise ValueError(move)

    def _suits(self, suits: list[str]) -> bool:
        # "Use number of players + 1 suits"
        if len(set(suits)) != len(suits) or len(suits) != len(self.players) + 1:
            return False
        self.suits, self.step = list(suits), "lane"
        return True

    def _lane(self, cards: list[Card]) -> bool:
        laid = self.lane + list(cards)
        if not cards or len(laid) > 10 or len(set(laid)) != len(laid):
            return False
        if any(c[1] not in self.suits for c in cards):
            return False
        self.lane = laid
        self.seen |= set(cards)
        if len(laid) == 10:
            self.step = "first"
        return True

    def _first(self, player: str) -> bool:
        if player not in self.players:
            return False
        if len(self.players) == 2:
            self._start(player)
        else:
            self.step, self.turn = "bidding", player
        return True

    def _bid(self, player: str, amount: int | None) -> bool:
        high = self._high()
        if amount is None:
            # The auction needs a parent with a declaration: the last one in must declare.
            if high is None and len(self.passed) == len(self.players) - 1:
                return False
            self.passed.add(player)
        elif amount > TRICKS or amount < 0 or (high is None and amount == 0):
            return False  # "You can't declare 0 when first declaring"; 10 tricks at most
        elif high is not None and amount <= high:
            return False  # "each player must declare a larger number or pass"
        self.bids.append((player, amount))
        high = self._high()
        left = [p for p in self.players if p not in self.passed]
        if high is not None and (high == TRICKS or len(left) == 1):
            self.parent = next(p for p, a in reversed(self.bids) if a == high)
            self.bid = high
            self._start(self.parent)
            return True
        nxt = self._next(player)
        while nxt in self.passed:
            nxt = self._next(nxt)
        self.turn = nxt
        return True

    def _start(self, leader: str) -> None:
        self.step, self.trick = "playing", 0
        self._new_trick(leader)

    def _new_trick(self, leader: str) -> None:
        self.trick += 1
        self.follow = self.lane[self.trick - 1]
        self.opening_suit = self.follow[1]
        self.played = []
        self.turn = leader

    def _card(self, player: str, card: Card) -> bool:
        follow = self.follow
        assert follow is not None
        if card[1] not in self.suits or card in self.seen:
            return False
        makes_eleven = card[0] + follow[0] == ELEVEN
        off_suit = card[1] != follow[1] and not makes_eleven
        # Caught in the act: more cards in hand than unseen cards of other suits means the
        # player holds the follow suit and must play it (or a card making 11).
        if off_suit and self.in_hand[player] > self._unseen_outside(follow[1]):
            return False
        self.seen.add(card)
        self.in_hand[player] -= 1
        if makes_eleven:  # an inversion: the card goes into the lane, the lane card is theirs
            self.played.append((player, follow, True))
            self.follow = card
        else:
            self.played.append((player, card, False))
        self._check_claims(player, card)
        if off_suit and not any(c[0] == player and c[1] == follow[1] for c in self.claims):
            self.claims.append((player, follow[1], self.trick))
        if len(self.played) < len(self.players):
            self.turn = self._next(player)
            return True
        self._end_trick()
        return True

    def _check_claims(self, player: str, card: Card) -> None:
        kept = []
        for who, suit, trick in self.claims:
            if who == player and card[1] == suit:
                self.revokes.append((who, suit, "played", trick))
            elif self.in_hand[who] > self._unseen_outside(suit):
                self.revokes.append((who, suit, "count", trick))
            else:
                kept.append((who, suit, trick))
        self.claims = kept

    def _end_trick(self) -> None:
        if any(inv for _, _, inv in self.played):
            # "the player with the highest numbered card wins, regardless of suit"
            contenders = self.played
        else:
            contenders = [p for p in self.played if p[1][1] == self.opening_suit] or self.played
        best = max(c[1][0] for c in contenders)
        winner = next(p for p, c, _ in contenders if c[0] == best)  # ties: the first
        self.won[winner] += 1
        # "the cards from that trick and the trick's follower card" (as counted, and the
        # follow card the trick ended with)
        assert self.follow is not None
        self.piles.append((winner, sorted(name(c) for c in [*(c for _, c, _ in self.played), self.follow])))
        if self.trick == TRICKS:
            self._over("tricks")
        else:
            self._new_trick(winner)

    def _scores(self) -> dict[str, int]:
        score = dict(self.won)
        if self.penalty_trick:
            for who, _, _, _ in self.revokes:
                if score[who] == 0:
                    continue  # nothing to hand over
                if self.parent is None:
                    taker = next(p for p in self.players if p != who)
                elif who != self.parent:
                    taker = self.parent
                else:
                    taker = self._next(who)
                score[who] -= 1
                score[taker] += 1
        return score

    def _over(self, reason: str) -> None:
        score = self._scores()
        winners: list[str] = []
        if reason == "tricks":
            if self.parent is not None and self.bid is not None:
                made = score[self.parent] >= self.bid
                winners = [self.parent] if made else [p for p in self.players if p != self.parent]
            else:
                best = max(score.values())
                top = [p for p in self.players if score[p] == best]
                winners = top if len(top) == 1 else []
                if not winners:
                    reason = "draw"
        self.step, self.turn = "over", None
        self.result = {"reason": reason, "winners": winners, "tricks": score}

    def facts(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "to_act": [] if self.turn is None or self.step == "over" else [self.turn],
            "parent": self.parent,
            "bid": self.bid,
            "trick": self.trick,
            "follow": name(self.follow) if self.follow is not None else None,
            "won": dict(self.won),
            "piles": list(self.piles),
            "revokes": list(self.revokes),
            "result": dict(self.result),
        }

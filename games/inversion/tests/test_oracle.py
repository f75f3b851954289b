"""Random !nversion games from real deals, honest play with revokes and probes that must be
refused, ruled by the game and by the second referee written from the rule text
(``oracle.py``): every ruling must agree. ``python -m games.inversion.tests.test_oracle``
prints the figures."""

from __future__ import annotations

import random
from typing import Any

from games.core import End, Leave
from games.inversion import SPEC
from games.inversion.cards import Card, Suit
from games.inversion.rules import (
    ChooseFirst,
    ChooseSuits,
    Declare,
    LayLane,
    Options,
    Penalty,
    PlayCard,
    State,
)
from games.inversion.tests.oracle import SUITS, InversionOracle
from games.oracle_report import report, rules_as_the_text

NAMES = ("Ann", "Bob", "Cy", "Dee")
RULES = SPEC.rules
OCard = tuple[int, str]
Pair = tuple[Any, tuple[Any, ...]]  # a move for the game, the same for the oracle


def real_facts(state: State) -> dict[str, Any]:
    result: dict[str, Any] = {}
    if state.outcome is not None:
        o = state.outcome
        result = {"reason": o.reason, "winners": list(o.winners), "tricks": dict(o.scores)}
    return {
        "step": state.phase.value,
        "to_act": sorted(RULES.to_act(state)),
        "parent": state.parent,
        "bid": state.bid,
        "trick": state.trick,
        "follow": None if state.follow is None else str(state.follow),
        "won": dict(state.tally()),
        "piles": [(w, sorted(str(c) for c in pile)) for w, pile in state.piles],
        "revokes": [(r.player, r.suit.value, r.evidence, r.claimed_trick) for r in state.revokes],
        "result": result,
    }


def card(c: OCard) -> Card:
    return Card(c[0], Suit(c[1]))


class Game:
    """One dealt table: the real hands (which the referees never see) and both referees."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.players = NAMES[: rng.randint(2, 4)]
        self.suits = rng.sample(SUITS, len(self.players) + 1)
        cards = [(r, s) for s in self.suits for r in range(1, 11)]
        rng.shuffle(cards)
        self.hands = {p: cards[10 * i : 10 * i + 10] for i, p in enumerate(self.players)}
        self.lane = cards[10 * len(self.players) :]
        penalty = rng.random() < 0.5
        options = Options(Penalty.TRICK if penalty else Penalty.ANNOUNCE)
        self.state = RULES.new_game(self.players, options, 0, None)
        self.oracle = InversionOracle(self.players, penalty)
        self.rulings = 0
        self.wrong: list[str] = []

    def rule(self, move: Any, said: tuple[Any, ...]) -> bool | None:
        """Whether the game takes ``move`` (None: it cannot be said, so nobody rules on it).
        ``tests/test_oracles_by_text.py`` says it to the host instead."""
        if RULES.refusal(self.state, move) is not None:
            return False
        self.state, _ = RULES.play(self.state, move)
        return True

    def both(self, move: Any, said: tuple[Any, ...]) -> bool:
        """Rule on one move with both referees (a disagreement is recorded); whether the
        game took it."""
        ok = self.rule(move, said)
        if ok is None:
            return False
        agreed = self.oracle.act(said)
        self.rulings += 1
        if ok != agreed or real_facts(self.state) != self.oracle.facts():
            took = {True: "took", False: "refused"}
            self.wrong.append(
                f"{said}: game {took[ok]} it, oracle {took[agreed]} it; "
                f"game {real_facts(self.state)}, oracle {self.oracle.facts()}"
            )
        return ok

    def probe_or(self, honest: Pair, probes: list[Pair]) -> None:
        """Sometimes a probe first (most must be refused), then the honest move."""
        if probes and self.rng.random() < 0.3:
            move, said = self.rng.choice(probes)
            if self.both(move, said) or self.wrong:
                return
        self.both(*honest)

    # -- setup ------------------------------------------------------------------------------

    def setup(self) -> None:
        rng = self.rng
        wrong_count = rng.sample(SUITS, rng.choice([k for k in range(1, 6) if k != len(self.players) + 1]))
        self.probe_or(
            (ChooseSuits(tuple(Suit(s) for s in self.suits)), ("suits", self.suits)),
            [
                (ChooseSuits(tuple(Suit(s) for s in wrong_count)), ("suits", wrong_count)),
                (
                    ChooseSuits((Suit(self.suits[0]),) * (len(self.players) + 1)),
                    ("suits", [self.suits[0]] * (len(self.players) + 1)),
                ),
            ],
        )
        laid = 0
        while laid < 10 and not self.wrong and not self.state.is_over:
            n = rng.randint(1, 10 - laid)
            chunk = self.lane[laid : laid + n]
            unused = [s for s in SUITS if s not in self.suits]
            bad = [*chunk, (rng.randint(1, 10), rng.choice(unused))] if unused else chunk + chunk
            probes = [(LayLane(tuple(map(card, bad))), ("lane", bad))]
            if laid:
                again = [self.lane[0]]
                probes.append((LayLane(tuple(map(card, again))), ("lane", again)))
            before = self.rulings
            self.probe_or((LayLane(tuple(map(card, chunk))), ("lane", chunk)), probes)
            if self.state.phase.value != "lane" or len(self.state.lane) > laid:
                laid = len(self.state.lane)
            elif self.rulings == before:
                break
        first = rng.choice(self.players)
        self.probe_or((ChooseFirst(first), ("first", first)), [(ChooseFirst("Zed"), ("first", "Zed"))])

    # -- the auction ------------------------------------------------------------------------

    def auction(self) -> None:
        rng = self.rng
        for _ in range(40):
            if self.wrong or self.state.phase.value != "bidding":
                return
            player = self.oracle.turn
            assert player is not None
            high = self.oracle._high()
            low = 1 if high is None else high + 1
            amount: int | None = None
            if low <= 10 and rng.random() < 0.45:
                amount = rng.randint(low, min(10, low + 2))
            # Too low, 0 first, more than 10 tricks; a pass out of turn.
            other = rng.choice(self.players)
            bad = (Declare(player, rng.choice((0, -1, 11, high or 0))), Declare(other, None))
            probes: list[Pair] = [(m, ("bid", m.player, m.amount)) for m in bad]
            before = len(self.wrong)
            self.probe_or((Declare(player, amount), ("bid", player, amount)), probes)
            stuck = self.state.phase.value == "bidding" and self.oracle.turn == player
            if len(self.wrong) == before and stuck:
                # The pass was refused (the last player must declare): declare instead.
                self.both(Declare(player, max(low, 1)), ("bid", player, max(low, 1)))

    # -- tricks -----------------------------------------------------------------------------

    def tricks(self) -> None:
        rng = self.rng
        for _ in range(200):
            if self.wrong or self.state.phase.value != "playing":
                return
            if rng.random() < 0.01:
                self.both(End(), ("end",))
                return
            if rng.random() < 0.005:
                who = rng.choice(self.players)
                self.both(Leave(who), ("leave", who))
                return
            player = self.oracle.turn
            assert player is not None and self.oracle.follow is not None
            hand = self.hands[player]
            rank, suit = self.oracle.follow
            following = [c for c in hand if c[1] == suit or c[0] + rank == 11]
            holds_suit = any(c[1] == suit for c in hand)
            revoke = [c for c in hand if c not in following]
            if holds_suit and revoke and rng.random() < 0.08:
                choice = rng.choice(revoke)  # a revoke: off suit while holding it
            elif holds_suit:
                choice = rng.choice(following)
            else:
                choice = rng.choice(hand)
            seen = sorted(self.oracle.seen)
            other = [c for p, h in self.hands.items() if p != player for c in h]
            unused = [s for s in SUITS if s not in self.suits]
            probes: list[Pair] = []
            if seen:
                c = rng.choice(seen)
                probes.append((PlayCard(player, card(c)), ("card", player, c)))
            if unused:
                c = (rng.randint(1, 10), rng.choice(unused))
                probes.append((PlayCard(player, card(c)), ("card", player, c)))
            if other:
                c = rng.choice(other)
                who = rng.choice([p for p in self.players if p != player])
                probes.append((PlayCard(who, card(c)), ("card", who, c)))  # out of turn
            if rng.random() < 0.3:
                move, said = rng.choice(probes)
                if self.both(move, said):
                    self.wrong.append(f"probe {said} was taken by both referees")
                    return
            if not self.both(PlayCard(player, card(choice)), ("card", player, choice)):
                # A revoke refused: counting proves the player holds the suit. Follow it.
                if self.wrong:
                    return
                choice = rng.choice(following)
                self.both(PlayCard(player, card(choice)), ("card", player, choice))
            if not self.wrong:
                hand.remove(choice)


def play_game(seed: int, table: type[Game] = Game) -> tuple[int, int, list[str]]:
    game = table(random.Random(seed))
    game.setup()
    game.auction()
    game.tricks()
    if not game.wrong and not game.state.is_over:
        game.wrong.append(f"seed {seed}: the game did not end ({game.state.phase})")
    return 1, game.rulings, [f"seed {seed}: {w}" for w in game.wrong]


test_the_game_rules_as_the_rule_text_does = rules_as_the_text(play_game, 120)


if __name__ == "__main__":  # the figures for a report: python -m games.inversion.tests.test_oracle [N]
    report(play_game, 500)

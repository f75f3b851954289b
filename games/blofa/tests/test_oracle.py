"""Random Blófa games with real faces, honest play (bluffs, true and false challenges) and
probes that must be refused, ruled by the game and by the second referee written from the
rule text (``oracle.py``): every ruling must agree. ``python -m games.blofa.tests.test_oracle``
prints the figures."""

from __future__ import annotations

import random
from typing import Any

from games.blofa import SPEC
from games.blofa.rules import Challenge, Claim, Colour, Keep, Options, Pass, PlayCards, Reveal, State
from games.blofa.tests.oracle import HOW_MANY, BlofaOracle, colour
from games.core import End, Event, Leave
from games.oracle_report import report, rules_as_the_text

P = ("Ann", "Bob", "Cy", "Dee")
RULES = SPEC.rules
Pair = tuple[Any, tuple[Any, ...]]  # a move for the game, the same for the oracle


def real_facts(state: State, flagged: bool) -> dict[str, Any]:
    result: dict[str, Any] = {}
    if state.outcome is not None:
        o = state.outcome
        result = {"reason": o.reason, "winner": o.winner, "vp": dict(o.vp), "eliminated": list(o.eliminated)}
    return {
        "step": state.phase.value,
        "to_act": sorted(RULES.to_act(state)),
        "dealer": state.players[state.dealer],
        "hands": {p: (h.blue, h.yellow) for p, h in zip(state.players, state.hands, strict=True)},
        "piles": (state.piles.blue, state.piles.yellow),
        "vp": dict(zip(state.players, state.vp, strict=True)),
        "captures": [state.players[s] for s in state.captures],
        "declared": state.last_declared,
        "passes": state.passes,
        "flagged": flagged,
        "result": result,
    }


class Game:
    """One table with real cards (faces the referees never see) and both referees."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        dealer = rng.choice(P)
        protect = rng.random() < 0.3
        dry = rng.randint(1, 5)
        options = Options(dealer=dealer, challenge_opening=not protect, dry_tricks=dry)
        self.state = RULES.new_game(P, options, 0, None)
        self.oracle = BlofaOracle(P, dealer, protect, dry)
        blue = [v for v, n in HOW_MANY.items() for _ in range(n) if v % 2 == 0]
        yellow = [v for v, n in HOW_MANY.items() for _ in range(n) if v % 2]
        rng.shuffle(blue)
        rng.shuffle(yellow)
        self.hands = {p: [blue.pop(), blue.pop(), yellow.pop(), yellow.pop()] for p in P}
        self.piles = {"blue": blue, "yellow": yellow}
        self.trick: list[tuple[str, int]] = []  # the cards of this trick, (colour, value) in order
        self.last_play: list[int] = []
        self.flagged = False
        self.rulings = 0
        self.wrong: list[str] = []

    def rule(self, move: Any, said: tuple[Any, ...]) -> bool | None:
        """Whether the game takes ``move`` (None: it cannot be said, so nobody rules on it).
        ``tests/test_oracles_by_text.py`` says it to the host instead."""
        if RULES.refusal(self.state, move) is not None:
            return False
        events: list[Event]
        self.state, events = RULES.play(self.state, move)
        self.flagged = self.flagged or any(e.type == "flagged" for e in events)
        return True

    def both(self, move: Any, said: tuple[Any, ...]) -> bool:
        """Rule on one move with both referees (a disagreement is recorded); whether the
        game took it."""
        ok = self.rule(move, said)
        if ok is None:
            return False
        agreed = self.oracle.act(said)
        self.rulings += 1
        if ok != agreed or real_facts(self.state, self.flagged) != self.oracle.facts():
            took = {True: "took", False: "refused"}
            self.wrong.append(
                f"{said}: game {took[ok]} it, oracle {took[agreed]} it; "
                f"game {real_facts(self.state, self.flagged)}, oracle {self.oracle.facts()}"
            )
        return ok

    def probe(self, probes: list[Pair]) -> bool:
        """Maybe one move the rule text forbids first; True when a referee took it (a
        failure: a probe is never a move the table could make)."""
        if not probes or self.rng.random() >= 0.25:
            return False
        move, said = self.rng.choice(probes)
        if self.both(move, said):
            self.wrong.append(f"a move the rules forbid was taken: {said}")
            return True
        return bool(self.wrong)

    def turn(self) -> None:
        rng, o = self.rng, self.oracle
        if rng.random() < 0.004:
            who = rng.choice((*P, "Zed"))
            self.both(Leave(who), ("leave", who))
        elif rng.random() < 0.004:
            self.both(End(), ("end",))
        elif o.step == "play":
            self.play_step()
        elif o.step == "reveal":
            self.reveal_step()
        elif o.step == "keep":
            self.keep_step()
        elif o.step == "check":
            self.check_step()

    # -- one step each ----------------------------------------------------------------------

    def play_probes(self, player: str) -> list[Pair]:
        o = self.oracle
        low, high = o._sums()
        other = self.rng.choice([p for p in P if p != player])
        off = self.rng.choice((low - 1, high + 1, high + 5))
        probes: list[Pair] = [
            (PlayCards(player, (Colour.BLUE,) * 3, low), ("play", player, ["blue"] * 3, low)),
            (PlayCards(player, (Colour.YELLOW, Colour.BLUE), off), ("play", player, ["yellow", "blue"], off)),
            (PlayCards(other, (Colour.BLUE,), low), ("play", other, ["blue"], low)),
            (Challenge(other), ("challenge", other)),
            (Reveal((1,)), ("reveal", [1])),
            (Keep(player, Colour.BLUE), ("keep", player, "blue", False)),
            (Claim(player, False), ("claim", player, False)),
        ]
        for c in ("blue", "yellow"):
            if o.hands[player][c] < 2:
                n = o.hands[player][c] + 1
                probes.append((PlayCards(player, (Colour(c),) * n, low), ("play", player, [c] * n, low)))
            if not o.trick or c == o.last_pile or o.piles[c] == 0:
                probes.append((Pass(player, Colour(c)), ("pass", player, c)))
        protected = o.protect_opening and len(o.trick) == 1
        if not o.trick or (protected and (o.holding(player) or o._can_pass())):
            probes.append((Challenge(player), ("challenge", player)))
        return probes

    def play_step(self) -> None:
        rng, o = self.rng, self.oracle
        player = o.turn
        assert player is not None
        if self.probe(self.play_probes(player)):
            return
        hand = self.hands[player]
        low, high = o._sums()
        piles = [p for p in ("blue", "yellow") if o.trick and o.piles[p] and p != o.last_pile]
        protected = o.protect_opening and len(o.trick) == 1 and (hand or piles)
        can_challenge = o.trick and not protected
        options = ["play"] * bool(hand) + ["pass"] * 3 * bool(piles)
        if can_challenge and (rng.random() < 0.35 or not options):
            options.append("challenge")
        if not options:
            self.wrong.append(f"{player} has no move: hand {hand}, piles {o.piles}")
            return
        pick = rng.choice(options)
        if pick == "play":
            n = rng.choice((1, 2)) if len(hand) > 1 else 1
            values = [hand[i] for i in rng.sample(range(len(hand)), n)]
            true = sum(values)
            declared = true if true in (low, high) and rng.random() < 0.7 else rng.choice((low, high))
            colours = [colour(v) for v in values]
            if self.both(
                PlayCards(player, tuple(Colour(c) for c in colours), declared),
                ("play", player, colours, declared),
            ):
                for v in values:
                    hand.remove(v)
                self.trick += list(zip(colours, values, strict=True))
                self.last_play = values
        elif pick == "pass":
            pile = rng.choice(piles)
            if self.both(Pass(player, Colour(pile)), ("pass", player, pile)):
                hand.append(self.piles[pile].pop(rng.randrange(len(self.piles[pile]))))
        else:
            self.both(Challenge(player), ("challenge", player))

    def reveal_step(self) -> None:
        rng, o = self.rng, self.oracle
        values = list(self.last_play)
        rng.shuffle(values)
        flip = values[0] + 1 if values[0] < 5 else values[0] - 1
        someone = rng.choice(P)
        probes: list[Pair] = [
            (Reveal((*values, 1)), ("reveal", [*values, 1])),
            (Reveal((6,) * len(values)), ("reveal", [6] * len(values))),
            (Reveal((flip, *values[1:])), ("reveal", [flip, *values[1:]])),  # a colour it is not
            (Challenge(someone), ("challenge", someone)),
        ]
        if len(values) == 2 and colour(values[0]) == colour(values[1]) == "yellow":
            probes.append((Reveal((5, 5)), ("reveal", [5, 5])))  # one 5 exists
        if len(values) == 2 and colour(values[0]) == colour(values[1]) == "blue" and len(o.captures) >= 2:
            probes.append((Reveal((0, 0)), ("reveal", [0, 0])))
        if self.probe(probes):
            return
        self.both(Reveal(tuple(values)), ("reveal", values))

    def keep_step(self) -> None:
        rng, o = self.rng, self.oracle
        winner = o.turn
        assert winner is not None
        last = self.trick[-3:]
        other = rng.choice([p for p in P if p != winner])
        probes: list[Pair] = [
            (Keep(other, Colour(last[-1][0])), ("keep", other, last[-1][0], False)),
            (Keep(winner, Colour.YELLOW, rule=True), ("keep", winner, "yellow", True)),
        ]
        for c in ("blue", "yellow"):
            if c not in {c for c, _ in last}:
                probes.append((Keep(winner, Colour(c)), ("keep", winner, c, False)))
        if self.probe(probes):
            return
        i = rng.randrange(len(last))
        col, value = last[i]
        # A 0 picked is captured; a dishonest winner sometimes says it is a plain blue card,
        # which only a flipped 0 gives away.
        rule = value == 0 and rng.random() < 0.7
        if not self.both(Keep(winner, Colour(col), rule=rule), ("keep", winner, col, rule)):
            if self.wrong:
                return
            rule = True
            self.both(Keep(winner, Colour(col), rule=True), ("keep", winner, col, True))
        self.trick.pop(len(self.trick) - len(last) + i)
        if not rule:
            self.hands[winner].append(value)
        for c, v in self.trick:
            self.piles[c].append(v)
        self.trick = []

    def check_step(self) -> None:
        rng, o = self.rng, self.oracle
        waiting = [p for p in P if p not in o.claims]
        player = rng.choice(waiting)
        probes: list[Pair] = [(Claim("Zed", False), ("claim", "Zed", False))]
        probes += [(Claim(p, h), ("claim", p, h)) for p, h in o.claims.items()]
        if o.hands[player]["blue"] == 0:
            probes.append((Claim(player, True), ("claim", player, True)))
        if sum(o.claims.values()) >= 3 - len(o.captures):
            probes.append((Claim(player, True), ("claim", player, True)))
        if self.probe(probes):
            return
        holds = 0 in self.hands[player]
        if rng.random() < 0.1:
            holds = not holds  # a lie only counting can catch
        if not self.both(Claim(player, holds), ("claim", player, holds)) and not self.wrong:
            self.both(Claim(player, not holds), ("claim", player, not holds))


def play_game(seed: int, table: type[Game] = Game) -> tuple[int, int, list[str]]:
    game = table(random.Random(seed))
    for _ in range(1500):
        if game.wrong or game.state.is_over:
            break
        game.turn()
    if not game.wrong and not game.state.is_over:
        game.wrong.append(f"the game did not end: {game.state.phase}")
    return 1, game.rulings, [f"seed {seed}: {w}" for w in game.wrong]


test_the_game_rules_as_the_rule_text_does = rules_as_the_text(play_game, 100)


if __name__ == "__main__":  # the figures for a report: python -m games.blofa.tests.test_oracle [N]
    report(play_game, 500)

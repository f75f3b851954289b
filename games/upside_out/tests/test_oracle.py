"""Random Upside-Out games, honest moves (deck cards either way round, cards described on
the fly with any steps, answers, reactions, secrets) and probes that must be refused, ruled
by the game and by the second referee written from the rule text (``oracle.py``): every
ruling and every count must agree. ``python -m games.upside_out.tests.test_oracle`` prints
the figures."""

from __future__ import annotations

import random
from typing import Any

from games.core import End, Leave
from games.oracle_report import report, rules_as_the_text
from games.upside_out import SPEC
from games.upside_out.deck import load_deck
from games.upside_out.effects import SPECIALS, CardText, parse_effect
from games.upside_out.rules import (
    Discard,
    Donate,
    Draw,
    Options,
    Play,
    React,
    Reveal,
    Start,
    State,
)
from games.upside_out.tests.oracle import UpsideOutOracle

NAMES = ("Ann", "Bob", "Cy", "Dee")
RULES = SPEC.rules
FACES = [f.card for f in load_deck("sample").faces if f.card is not None]
NOTHING = parse_effect("nothing")
# Mirror, Counter and Decoy set as secrets: revealed, they do nothing.
SPECIAL_SECRETS = [CardText(f.name, NOTHING, NOTHING) for f in load_deck("sample").faces if f.special]
Pair = tuple[Any, tuple[Any, ...]]  # a move for the game, the same for the oracle


def real_facts(state: State) -> dict[str, Any]:
    result: dict[str, Any] = {}
    if state.outcome is not None:
        o = state.outcome
        result = {"reason": o.reason, "winners": list(o.winners), "together": list(o.together)}
    playing = state.phase.value in ("turn", "resolving")
    return {
        "step": state.phase.value,
        "to_act": sorted(RULES.to_act(state)),
        "order": list(state.order) if playing else None,
        "hands": dict(zip(state.players, state.hands, strict=True)),
        "secrets": dict(zip(state.players, state.secrets, strict=True)),
        "deck": state.deck,
        "discard": state.discard,
        "in_play": state.in_play,
        "out": list(state.out),
        "skips": dict(zip(state.players, state.skips, strict=True)),
        "owed": sorted((o.player, o.kind, o.count, o.to or "") for o in state.owed),
        "result": result,
    }


def said(card: CardText) -> tuple[str, list[str], list[str]]:
    return card.name, [str(s) for s in card.you], [str(s) for s in card.others]


def random_step(rng: random.Random) -> str:
    kinds = ("draw", "draw", "discard", "discard", "donate", "set", "reveal", "reorder", "reverse", "skip")
    kind = rng.choice((*kinds, "nothing"))
    if kind in ("reorder", "reverse", "skip", "nothing"):
        return kind
    n = rng.randint(1, 3)
    if kind == "draw" and rng.random() < 0.3:
        return f"draw {n} from discard"
    if kind == "donate" and rng.random() < 0.6:
        return f"donate {n} to {rng.choice(('caster', 'next', 'previous', 'any'))}"
    return f"{kind} {n}"


def random_card(rng: random.Random) -> CardText:
    if rng.random() < 0.65:
        card = rng.choice(FACES)
        return card.turned() if rng.random() < 0.3 else card
    sides = [", ".join(random_step(rng) for _ in range(rng.randint(1, 2))) for _ in range(2)]
    return CardText("", parse_effect(sides[0]), parse_effect(sides[1]))


class Game:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.players = NAMES[: rng.randint(2, 4)]
        first = rng.choice((None, None, *self.players))
        self.state = RULES.new_game(self.players, Options(first=first), 0, None)
        self.oracle = UpsideOutOracle(self.players, first)
        self.rulings = 0
        self.wrong: list[str] = []

    def rule(self, move: Any, words: tuple[Any, ...]) -> bool | None:
        """Whether the game takes ``move`` (None: it cannot be said, so nobody rules on it).
        ``tests/test_oracles_by_text.py`` says it to the host instead."""
        if move == "timeout":
            self.state, _ = RULES.on_timeout(self.state)
            return True
        if RULES.refusal(self.state, move) is not None:
            return False
        self.state, _ = RULES.play(self.state, move)
        return True

    def both(self, move: Any, words: tuple[Any, ...]) -> bool:
        """Rule on one move with both referees (a disagreement is recorded); whether the
        game took it."""
        ok = self.rule(move, words)
        if ok is None:
            return False
        agreed = self.oracle.act(words)
        self.rulings += 1
        if ok != agreed or real_facts(self.state) != self.oracle.facts():
            took = {True: "took", False: "refused"}
            self.wrong.append(
                f"{words}: game {took[ok]} it, oracle {took[agreed]} it; "
                f"game {real_facts(self.state)}, oracle {self.oracle.facts()}"
            )
        return ok

    def step(self) -> None:
        rng, o = self.rng, self.oracle
        roll = rng.random()
        if roll < 0.004:
            who = rng.choice((*self.players, "Zed"))
            self.both(Leave(who), ("leave", who))
        elif roll < 0.006:
            self.both(End(), ("end",))
        elif o.step.startswith("opening"):
            self.opening()
        elif o.owed:
            self.answer()
        else:
            self.turn()

    def opening(self) -> None:
        rng, o = self.rng, self.oracle
        roll = rng.random()
        if roll < 0.15:
            self.both("timeout", ("timeout",))
        elif roll < 0.25:
            who = rng.choice(o.active)
            self.both(Draw(who), ("draw", who))  # refused: nobody has started
        else:
            who = rng.choice(o.active)
            self.both(Start(who), ("start", who))

    def probes(self) -> list[Pair]:
        """Moves the rules forbid now (out of turn, owing nothing, the wrong answer...)."""
        rng, o = self.rng, self.oracle
        out: list[Pair] = []
        idle = [p for p in o.active if p not in o.to_act()]
        if idle:
            p = rng.choice(idle)
            out += [(Draw(p), ("draw", p)), (Discard(p, 1), ("discard", p, 1))]
            out.append((React(p, "counter"), ("react", p, "counter")))
            card = random_card(rng)
            out.append((Play(p, card), ("play", p, said(card))))
        p = rng.choice(o.active)
        out.append((Start(p), ("start", p)))
        for owed in o.owed:
            p = owed.player
            out.append((Discard(p, owed.count + 1), ("discard", p, owed.count + 1)))
            out.append((Donate(p, 1, p), ("donate", p, 1, p)))
            if owed.kind != "discard":
                out.append((React(p, "decoy"), ("react", p, "decoy")))
            if owed.caster == p:
                out.append((React(p, "mirror"), ("react", p, "mirror")))
            if owed.kind == "donate" and owed.to is None:  # "to anyone": to whom is not said
                out.append((Donate(p, 1), ("donate", p, 1, None)))
            if owed.kind == "discard":  # the wrong answer
                out.append((Donate(p, 1, None), ("donate", p, 1, None)))
            else:
                out.append((Discard(p, 1), ("discard", p, 1)))
        if o.step == "resolving":
            cur = o.current
            out.append((Draw(cur), ("draw", cur)))
        return out

    def probe(self) -> bool:
        if self.rng.random() >= 0.15:
            return False
        move, words = self.rng.choice(self.probes())
        if self.both(move, words):
            self.wrong.append(f"a move the rules forbid was taken: {words}")
        return True

    def turn(self) -> None:
        rng, o = self.rng, self.oracle
        if self.probe():
            return
        p = o.current
        if rng.random() < 0.3 or o.hand[p] == 0:
            self.both(Draw(p), ("draw", p))
            return
        card = random_card(rng)
        if not self.both(Play(p, card), ("play", p, said(card))) and not self.wrong:
            # A fourth copy of the face: that card cannot be in the hand. Another one.
            card = CardText("", parse_effect(random_step(rng)), parse_effect(random_step(rng)))
            self.both(Play(p, card), ("play", p, said(card)))

    def answer(self) -> None:
        rng, o = self.rng, self.oracle
        if self.probe():
            return
        owed = rng.choice(o.owed)
        p = owed.player
        hand, secrets = o.hand[p], o.secrets[p]
        options: list[Pair] = []
        if owed.kind == "discard" and hand:
            n = rng.randint(1, min(owed.count, hand))
            options.append((Discard(p, n), ("discard", p, n)))
        if owed.kind == "donate":
            n = rng.randint(1, min(owed.count, hand))
            to = owed.to if owed.to is not None and rng.random() < 0.5 else None
            if owed.to is None:
                to = rng.choice([q for q in o.active if q != p])
            options.append((Donate(p, n, to), ("donate", p, n, to)))
        if owed.kind in ("discard", "reveal") and secrets:
            card = rng.choice(SPECIAL_SECRETS) if rng.random() < 0.1 else random_card(rng)
            options.append((Reveal(p, card), ("reveal", p, said(card))))
        if hand and rng.random() < 0.3:
            kinds = [
                k
                for k in SPECIALS
                if (k != "decoy" or owed.kind == "discard") and (k == "decoy" or owed.caster != p)
            ]
            if kinds:
                k = rng.choice(kinds)
                options.append((React(p, k), ("react", p, k)))
        if not options:
            self.wrong.append(f"{p} owes {owed.kind} {owed.count}: no answer (hand {hand}, {secrets} left)")
            return
        move, words = rng.choice(options)
        if not self.both(move, words) and not self.wrong:
            # A fourth copy of a face: a secret described on the fly instead.
            card = CardText("", parse_effect("nothing"), parse_effect(random_step(rng)))
            if owed.kind in ("discard", "reveal") and secrets:
                self.both(Reveal(p, card), ("reveal", p, said(card)))
            elif hand and owed.kind == "discard":
                self.both(Discard(p, 1), ("discard", p, 1))


def play_game(seed: int, moves: int = 400, table: type[Game] = Game) -> tuple[int, int, list[str]]:
    game = table(random.Random(seed))
    for _ in range(moves):
        if game.wrong or game.state.is_over:
            break
        game.step()
    return 1, game.rulings, [f"seed {seed}: {w}" for w in game.wrong]


test_the_game_rules_as_the_rule_text_does = rules_as_the_text(play_game, 80)


if __name__ == "__main__":  # the figures for a report: python -m games.upside_out.tests.test_oracle [N]
    report(play_game, 300)

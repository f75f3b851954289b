"""Random Up-or-Down games, honest moves and probes that must be refused, ruled by the
game and by the second referee written from the rule text (``oracle.py``): every ruling
must agree. ``python -m games.up_or_down.tests.test_oracle`` prints the figures."""

from __future__ import annotations

import random
from typing import Any

from games.core import End, Leave
from games.oracle_report import report, rules_as_the_text
from games.up_or_down import SPEC
from games.up_or_down.rules import Mode, Options, Say, State
from games.up_or_down.tests.oracle import UpOrDownOracle

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve")
RULES = SPEC.rules


def real_facts(state: State | None) -> dict[str, Any]:
    assert state is not None
    result: dict[str, Any] = {}
    if state.outcome is not None:
        result = {"winner": None, **state.outcome.to_json()}
    return {
        "to_act": sorted(RULES.to_act(state)),
        "last": state.last,
        "in": list(state.in_play),
        "mistakes": dict(zip(state.players, state.mistakes, strict=True)),
        "over": state.is_over,
        "result": result,
    }


def pick_move(rng: random.Random, state: State, oracle: UpOrDownOracle) -> tuple[Any, tuple[Any, ...]]:
    """A move for both referees: (the game's move, the oracle's)."""
    o = state.options
    roll = rng.random()
    current = oracle.current
    if roll < 0.6:
        fitting = [n for n in range(o.low, o.high + 1) if oracle.fits(n)]
        n = rng.choice(fitting)
    elif roll < 0.75:  # a mistake: the wrong parity, the same number, or out of range
        n = rng.choice([rng.randint(o.low - 3, o.high + 3), oracle.last or 0, 1_000_000, -5])
    elif roll < 0.83:  # out of turn: refused
        current = rng.choice(state.players)
        n = rng.randint(o.low, o.high)
    elif roll < 0.9:
        return "timeout", ("timeout",)
    elif roll < 0.96:
        leaver = rng.choice((*state.players, "Zed"))
        return Leave(leaver), ("leave", leaver)
    else:
        asker = rng.choice((*state.players, None))
        return End(asker), ("end", asker)
    return Say(current, n), ("say", current, n)


class RulesTable:
    """The game's side of a table: its rules called directly. ``rule`` says whether the
    game took a move; ``tests/test_oracles_by_text.py`` puts the host's words in
    between instead."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.state: State | None = None
        self.left: set[str] = set()  # who left the table: the rematch seats the rest

    def new_game(self, seated: tuple[str, ...]) -> None:
        self.state = RULES.new_game(seated, self.options, 0, self.state)

    def seated(self, before: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(p for p in before if p not in self.left)

    def rule(self, move: Any, said: tuple[Any, ...]) -> bool:
        assert self.state is not None
        if move == "timeout":
            self.state, _ = RULES.on_timeout(self.state)
            return True
        if RULES.refusal(self.state, move) is not None:
            return False
        self.state, _ = RULES.play(self.state, move)
        if isinstance(move, Leave):
            self.left.add(move.player)
        return True


def play_games(seed: int, games: int = 2, table: type[RulesTable] = RulesTable) -> tuple[int, int, list[str]]:
    """Play up to ``games`` in a row at one table (rematches with whoever did not leave);
    returns (games played, rulings compared, disagreements)."""
    rng = random.Random(seed)
    seated = NAMES[: rng.randint(2, 5)]
    training = rng.random() < 0.4
    low = rng.choice((1, 1, 0, -3, 10))
    high = low + rng.choice((2, 3, 9, 99))
    rounds = rng.choice((None, 1, 3)) if training else None
    mode = Mode.TRAINING if training else Mode.TOURNAMENT
    both = table(Options(low=low, high=high, mode=mode, rounds=rounds))
    oracle: UpOrDownOracle | None = None
    rulings, played = 0, 0
    for _ in range(games):
        if len(seated) < 2:
            break
        both.new_game(seated)
        oracle = UpOrDownOracle(seated, low, high, training, rounds, oracle)
        played += 1
        for _step in range(300):
            state = both.state
            assert state is not None
            if state.is_over:
                break
            move, said = pick_move(rng, state, oracle)
            ok = both.rule(move, said)
            agreed = oracle.act(said)
            rulings += 1
            if ok != agreed or real_facts(both.state) != oracle.facts():
                took = {True: "took", False: "refused"}
                return (
                    played,
                    rulings,
                    [
                        f"seed {seed}: {said}: game {took[ok]} it, oracle {took[agreed]} it; "
                        f"game {real_facts(both.state)}, oracle {oracle.facts()}"
                    ],
                )
        seated = both.seated(seated)
    return played, rulings, []


test_the_game_rules_as_the_rule_text_does = rules_as_the_text(play_games, 150)


if __name__ == "__main__":  # the figures for a report: python -m games.up_or_down.tests.test_oracle [N]
    report(play_games, 1000)

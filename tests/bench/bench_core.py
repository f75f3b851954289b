"""Core throughput: parsed utterances per second and refereed moves per second.

Run: python tests/bench/bench_core.py. Figures are printed with ratios against the pure
rules engine measured in the same run, so later work has a baseline to compare with.
"""

from __future__ import annotations

import itertools
import random
import tempfile
import time
from pathlib import Path

from games.up_or_down import rules as ud
from grammars.reader import parse, to_words
from host.referee import Referee
from host.session import SessionConfig
from host.store import Store

SECONDS = 2.0


def rate(fn, seconds: float = SECONDS) -> float:  # type: ignore[no-untyped-def]
    count, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        fn()
        count += 1
    return count / elapsed


def main() -> None:
    rng = random.Random(1)
    utterances = [
        rng.choice(
            [str(n), to_words(n), f"um, I'll say {to_words(n)}", f"{to_words(n)} no {n + 1}", "whose turn"]
        )
        for n in (rng.randint(1, 100) for _ in range(500))
    ]
    it = itertools.cycle(utterances)
    parsed = rate(lambda: parse(next(it)))

    players = ("Ann", "Bob", "Cy")
    state = {"g": ud.new_game(players)}

    def engine_move() -> None:
        g = state["g"]
        if g.is_over or g.turn > 200:
            g = ud.new_game(players)
        options = ud.valid_numbers(g)
        g, _ = ud.play(g, rng.choice(options))
        state["g"] = g

    engine = rate(engine_move)

    def referee_rate(store: Store) -> float:
        referee = Referee(store)
        box = {"sid": referee.create(SessionConfig(undo_grace=None), players)}

        def move() -> None:
            table = referee.table(box["sid"])
            game = table.state
            assert game is not None
            if game.turn > 200:
                box["sid"] = referee.create(SessionConfig(undo_grace=None), players)
                game = referee.table(box["sid"]).state
                assert game is not None
            referee.handle(box["sid"], str(rng.choice(ud.valid_numbers(game))))

        return rate(move)

    in_memory = referee_rate(Store(":memory:"))
    with tempfile.TemporaryDirectory() as tmp:
        on_disk = referee_rate(Store(Path(tmp) / "bench.sqlite3"))

    print(f"{'measure':44} {'per second':>12} {'vs engine':>10}")
    print(f"{'parsed utterances':44} {parsed:12,.0f} {parsed / engine:10.3f}")
    print(f"{'rules engine moves (baseline)':44} {engine:12,.0f} {1:10.3f}")
    print(f"{'refereed moves, SQLite in memory':44} {in_memory:12,.0f} {in_memory / engine:10.3f}")
    print(f"{'refereed moves, SQLite file (WAL)':44} {on_disk:12,.0f} {on_disk / engine:10.3f}")


if __name__ == "__main__":
    main()

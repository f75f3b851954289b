"""!nversion throughput and latency: card talk parsed, engine plays, refereed plays.

Run: python tests/bench/bench_inversion.py. Whole dealt 4-player games (auction and 10
tricks) are played honestly, over and over; figures are printed with ratios against the
pure engine measured in the same run, and the referee's per-card latency on a WAL file.
"""

from __future__ import annotations

import itertools
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from games.inversion import rules as inv
from games.inversion.cards import Card, Suit, deck
from games.inversion.tests.deals import dealt_game
from games.inversion.words import card_words, parse_cards
from host.referee import Referee
from host.session import SessionConfig
from host.store import Store

SECONDS = 2.0
PLAYERS = ("Ann", "Bob", "Cy", "Dee")


def rate(fn: Callable[[], object], seconds: float = SECONDS) -> float:
    count, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        fn()
        count += 1
    return count / elapsed


def games(seed: int) -> Iterator[tuple[list[Suit], list[Card], list[inv.Move]]]:
    """Endless dealt games: the setup and every later move of an honest table."""
    for n in itertools.count(seed * 1_000_000):
        game = dealt_game(n, list(PLAYERS))
        yield game.suits, game.lane, game.moves


def said(move: inv.Move) -> str:
    if isinstance(move, inv.PlayCard):
        return card_words(move.card)
    assert isinstance(move, inv.Declare)
    return "pass" if move.amount is None else f"I bid {move.amount}"


def main() -> None:
    rng = random.Random(1)
    everything = list(deck(list(Suit)))
    talk = [
        rng.choice([str(c), card_words(c), f"um, the {card_words(c)}", "I bid three", "pass", "whose turn"])
        for c in (rng.choice(everything) for _ in range(500))
    ]
    it = itertools.cycle(talk)
    parsed = rate(lambda: parse_cards(next(it), players=PLAYERS))

    source = games(2)
    box: dict[str, object] = {}

    def engine_move() -> None:
        state = box.get("state")
        moves = box.get("moves")
        if not isinstance(state, inv.State) or not isinstance(moves, list) or not moves:
            suits, lane, later = next(source)
            state = inv.new_game(PLAYERS)
            for setup in (inv.ChooseSuits(tuple(suits)), inv.LayLane(tuple(lane)), inv.ChooseFirst("Ann")):
                state, _ = inv.play(state, setup)
            moves = list(later)
        state, _ = inv.play(state, moves.pop(0))
        box["state"], box["moves"] = state, moves

    engine = rate(engine_move)

    def referee_run(store: Store, latencies: list[float] | None = None) -> float:
        referee = Referee(store)
        games_source = games(3)
        current: dict[str, object] = {}

        def move() -> None:
            moves = current.get("moves")
            if not isinstance(moves, list) or not moves:
                suits, lane, later = next(games_source)
                config = SessionConfig(game="inversion", undo_grace=None)
                sid = referee.create(config, PLAYERS)
                referee.handle(sid, " ".join(s.value for s in suits))
                referee.handle(sid, " ".join(map(str, lane)))
                referee.handle(sid, "Ann")
                current["sid"], current["moves"] = sid, list(later)
                moves = current["moves"]
                assert isinstance(moves, list)
            next_move = moves.pop(0)
            start = time.perf_counter()
            reply = referee.handle(str(current["sid"]), said(next_move), next_move.player)
            if latencies is not None:
                latencies.append(time.perf_counter() - start)
            assert reply.accepted, reply.lines

        return rate(move)

    in_memory = referee_run(Store(":memory:"))
    latencies: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        on_disk = referee_run(Store(Path(tmp) / "bench.sqlite3"), latencies)
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[int(len(latencies) * 0.99)] * 1000

    print(f"{'measure (4 players, dealt games)':44} {'per second':>12} {'vs engine':>10}")
    print(f"{'parsed card talk':44} {parsed:12,.0f} {parsed / engine:10.3f}")
    print(f"{'rules engine moves (baseline)':44} {engine:12,.0f} {1:10.3f}")
    print(f"{'refereed moves, SQLite in memory':44} {in_memory:12,.0f} {in_memory / engine:10.3f}")
    print(f"{'refereed moves, SQLite file (WAL)':44} {on_disk:12,.0f} {on_disk / engine:10.3f}")
    print(f"referee latency per move on the WAL file: p50 {p50:.2f} ms, p99 {p99:.2f} ms")


if __name__ == "__main__":
    main()

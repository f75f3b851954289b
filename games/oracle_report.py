"""The figures of an oracle test for a report: games played, rulings compared, disagreements.

Each ``games/<game>/tests/test_oracle.py`` plays seeded games against an independent reading
of its rule text; run as a module it prints these figures (``python -m
games.inversion.tests.test_oracle [N]``)."""

from __future__ import annotations

import sys
from collections.abc import Callable

#: One seed's games: (games played, rulings compared, disagreements as lines).
Play = Callable[[int], tuple[int, int, list[str]]]


def report(play: Play, seeds: int, argv: list[str] | None = None) -> None:
    """Play ``seeds`` seeds (or the count given as the first argument) and print the totals,
    with the first disagreement of each seed that had any."""
    args = sys.argv[1:] if argv is None else argv
    games = rulings = wrong = 0
    for seed in range(int(args[0]) if args else seeds):
        g, r, w = play(seed)
        games, rulings, wrong = games + g, rulings + r, wrong + len(w)
        for line in w[:1]:
            print(line)
    print(f"games {games}, rulings compared {rulings}, disagreements {wrong}")

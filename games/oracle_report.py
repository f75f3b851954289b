"""The oracle tests' common part: a hypothesis test over seeds, and the figures for a report.

Each ``games/<game>/tests/test_oracle.py`` plays seeded games against an independent reading
of its rule text (:func:`rules_as_the_text`); run as a module it prints games played,
rulings compared and disagreements (``python -m games.inversion.tests.test_oracle [N]``)."""

from __future__ import annotations

import sys
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

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


def rules_as_the_text(play: Play, examples: int) -> Callable[[int], None]:
    """A test that the referee rules ``examples`` seeded games as the oracle does."""

    @settings(max_examples=examples, deadline=None, derandomize=True)
    @given(st.integers(min_value=0, max_value=2**32))
    def test(seed: int) -> None:
        _, _, wrong = play(seed)
        assert not wrong, wrong[0]

    return test

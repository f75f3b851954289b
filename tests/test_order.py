"""tests/order.py: each slow test it names still exists, and each worker starts with its share
of the slow ones."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.order import SLOW, runs, seconds, slowest_first

ROOT = Path(__file__).resolve().parents[1]


def test_every_name_is_a_test_file_or_a_test_in_it() -> None:
    for name in SLOW:
        path, _, test = name.partition("::")
        source = ROOT / path
        assert source.is_file(), name
        if test:
            assert re.search(rf"^def {re.escape(test)}", source.read_text(), re.M), name


def test_a_test_takes_the_seconds_of_its_longest_name() -> None:
    exit_tests = "tests/table/test_table_exit.py::test_a_table_game_ends_with_exit_code_0"
    assert seconds(f"{exit_tests}[--quiet]") == SLOW[exit_tests] > SLOW["tests/table/test_table_exit.py"]
    assert (
        seconds("tests/table/test_table_exit.py::test_exit_while_announcements")
        == SLOW["tests/table/test_table_exit.py"]
    )
    assert seconds("games/inversion/tests/test_rules.py::test_x") == 0


@dataclass
class Item:
    nodeid: str


def test_each_worker_starts_with_its_share_of_the_slow_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    slow = list(SLOW)[:9]  # a file's name stands for its tests: it is one here
    light = [f"games/up_or_down/tests/test_rules.py::test_{i}" for i in range(40)]
    collected = [Item(n) for n in light[:20] + slow + light[20:]]
    items: list[Any] = list(collected)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # this test may run in a worker
    slowest_first(items)  # not under xdist: as collected
    assert items == collected
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "3")
    slowest_first(items)
    assert sorted(i.nodeid for i in items) == sorted(i.nodeid for i in collected)  # all, once
    # worksteal sends each worker a contiguous run: 16, 16, 17 of the 49 tests.
    assert runs(49, 3) == [16, 16, 17] and sum(runs(2370, 3)) == 2370
    starts = [0, 16, 32, 49]
    lanes = [items[a:b] for a, b in itertools.pairwise(starts)]
    loads = [sum(seconds(i.nodeid) for i in lane) for lane in lanes]
    assert all(seconds(lane[0].nodeid) > 0 for lane in lanes)  # every worker starts on a slow one
    assert max(loads) - min(loads) <= max(seconds(n) for n in slow)  # no worker left with most
    for lane in lanes:  # slow first, then light ones in the order collected
        weights = [seconds(i.nodeid) for i in lane]
        assert weights == sorted(weights, reverse=True)
        rest = [i.nodeid for i in lane if seconds(i.nodeid) == 0]
        assert rest == sorted(rest, key=light.index)

"""tests/order.py: each slow test it names still exists, and the slowest run first."""

from __future__ import annotations

import re
from pathlib import Path

from tests.order import SLOW, seconds

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

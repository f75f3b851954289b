"""A database written by the previous release (tests/fixtures/release-0.1.sqlite3, made by
its own code) loads and goes on: old log rows are upcast as they are read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from host.referee import Referee
from host.store import Store
from tests.clock import Clock

FIXTURES = Path(__file__).parent.parent / "fixtures"


@pytest.fixture
def old(tmp_path: Path) -> tuple[Referee, list[str]]:
    path = tmp_path / "old.sqlite3"
    shutil.copy(FIXTURES / "release-0.1.sqlite3", path)
    ids = (FIXTURES / "release-0.1.ids").read_text().split()
    return Referee(Store(path), Clock(1_700_000_100.0)), ids


def test_sessions_of_the_last_release_load_where_they_stood(old: tuple[Referee, list[str]]) -> None:
    referee, (chain, training, over, cards, left) = old
    table = referee.table(chain)
    assert table.spec.name == "up-or-down" and table.state.last == 55 and table.current_player == "Cy"
    assert [m.move.number for m in table.moves] == [53, 40, 55] and len(table.undone) == 1
    table = referee.table(training)
    assert table.options.mode == "training" and (table.options.low, table.options.high) == (1, 50)
    assert table.options.rounds == 3 and table.state.last == 20 and table.current_player == "Eve"
    # A read-back was a column then; a question left open by the old release is not asked again.
    assert table.asked is None
    assert referee.table(over).state.outcome.winner == "Fay"
    table = referee.table(cards)
    assert table.spec.name == "inversion" and table.options.revoke_penalty == "trick"
    assert table.state.trick == 2 and dict(table.state.tally()) == {"Hal": 0, "Ivy": 1}
    assert referee.table(left).state.outcome.left == "Lu"


def test_they_go_on_after_the_upgrade(old: tuple[Referee, list[str]]) -> None:
    referee, (chain, training, over, cards, _left) = old
    assert referee.handle(chain, "57", "Cy").news == ["Cy said 57."]
    assert referee.handle(training, "15", "Eve").accepted
    begun = referee.handle(over, "new game", "Gus")
    assert begun.accepted and begun.next_player == "Fay"  # the winner opens the next game
    assert referee.handle(cards, "undo", "Ivy").private == ["Too late to take that back."]
    assert referee.handle(cards, "9C", "Ivy").accepted


def test_a_reply_stored_by_the_last_release_is_found_again(old: tuple[Referee, list[str]]) -> None:
    referee, (chain, *_) = old
    again = referee.handle(chain, "55", "Bob", key="SM-old-key")
    assert again.news[0] == "Bob said 55." and not again.private
    assert referee.table(chain).state.last == 55  # ruled once, when it first came

"""Databases written by earlier releases (tests/fixtures/release-0.*.sqlite3, made by their
own code) load and go on: old log rows are upcast as they are read, and the migrations
take over tables made before there were any."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from host import cli
from host.migrations import head
from host.referee import Referee
from host.store import Store
from tests.clock import Clock
from tests.sms.conftest import build
from tests.twilio_helpers import FakeTwilio

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


# -- release 0.2: tables made by each part of the host, no migrations yet -------------------


def test_a_release_0_2_database_is_migrated_in_place_and_its_games_go_on(
    tmp_path: Path, fake: FakeTwilio
) -> None:
    path = tmp_path / "old.sqlite3"
    shutil.copy(FIXTURES / "release-0.2.sqlite3", path)
    duo, trio, lobby = (line.split() for line in (FIXTURES / "release-0.2.ids").read_text().splitlines())
    result = CliRunner().invoke(cli.app, ["migrate", "--db", str(path)])
    assert result.exit_code == 0 and f"from no revision to {head()}" in result.output, result.output
    again = CliRunner().invoke(cli.app, ["migrate", "--database-url", f"sqlite:///{path}"])
    assert again.exit_code == 0 and "is up to date" in again.output, again.output
    sms = build(tmp_path, fake, Clock(1_800_000_500.0), str(path))
    # (MessageSids of its own: the old server's replies to SM...01 and on are stored.)
    try:
        assert sms.text(duo[0], "54", sid="SM-upgraded-1") == [
            "#4 Ann said 54. Bob: an even number above 54 or an odd number below 54."
        ]
        assert sms.table(trio[1]).state.last == 40
        assert sms.text(trio[1], "41", sid="SM-upgraded-2")[0].startswith("#3 Eve said 41.")
        # The reminder sent by the old server is remembered: Ann's clock is past that turn.
        assert sms.app.state.store.execute("SELECT COUNT(*) AS n FROM turn_reminders")[0]["n"] == 1
        # The old outbox rows keep their columns, and new ones are sent.
        assert any(item.status == "sent" for item in sms.app.state.outbound.items(limit=100))
        assert sms.last(duo[1]).startswith("#4 Ann said 54.")
        # The lobby game still takes players by its code; the opted-out number stays out.
        assert "as Hal" in sms.text("+15550300003", f"JOIN {lobby[1]} Hal", sid="SM-upgraded-3")[0]
        assert sms.app.state.lobby.opted_out("+15550300002")
        # A retried webhook of the old release is answered as then, not ruled again.
        assert sms.text(trio[0], "40", sid="SM-release-0.2-key")[0].startswith("#2 Dee said 40")
    finally:
        sms.app.state.store.close()

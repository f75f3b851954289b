"""Issue 43, item 7: text budgets (``host/channels/sms/budget.py``). Texts out are counted
per number and per game a minute and in all an hour; a text that comes in over one is not
acted on, its number is told once and then hears nothing until the window turns. NEW from a
number whose lobby is open gives that lobby again. (``toll.py`` against a server shows it.)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from host.config import Settings
from tests.clock import Clock
from tests.sms.conftest import PHONES, Sms, build
from tests.twilio_helpers import FakeTwilio

SLOW_DOWN = "Too many texts just now. Wait a minute, then text again."


@pytest.fixture
def budgets(tmp_path: Path, fake: FakeTwilio, database: str) -> Iterator[Any]:
    hosts: list[Sms] = []

    def make(**limits: int) -> Sms:
        values = {"sms_budget_per_number": 0, "sms_budget_per_game": 0, "sms_budget_per_hour": 0, **limits}
        host = build(tmp_path / str(len(hosts)), fake, Clock(), database, **values)
        hosts.append(host)
        return host

    (tmp_path / "0").mkdir()
    (tmp_path / "1").mkdir()
    yield make
    for host in hosts:
        host.app.state.store.close()


def sent(sms: Sms, phone: str, body: str) -> tuple[list[str], int]:
    """What the sender got (TwiML) and how many texts went out in all (TwiML and REST)."""
    assert sms.fake is not None
    before = len(sms.fake.messages)
    said = sms.text(phone, body)
    return said, len(said) + len(sms.fake.messages) - before


def test_one_number_asking_for_the_rules_is_told_once_then_nothing(budgets: Any) -> None:
    sms = budgets(sms_budget_per_number=10)
    out, answers = 0, []
    for _ in range(100):
        said, n = sent(sms, PHONES[0], "RULES INVERSION")
        out += n
        answers.append(said)
    rules = len(answers[0])
    told = [i for i, a in enumerate(answers) if a == [SLOW_DOWN]]
    assert len(told) == 1 and all(a == [] for a in answers[told[0] + 1 :])
    assert out <= 10 + rules + 1  # a budget, at most one answer over it, the one notice
    sms.clock.advance(60)  # the next minute: a new budget
    assert len(sms.text(PHONES[0], "RULES INVERSION")) == rules


def test_a_game_over_its_budget_rules_nothing_more_this_minute(budgets: Any) -> None:
    sms = budgets(sms_budget_per_game=1000)
    phones = sms.new_game(4)
    game = sms.app.state.lobby.member(phones[0]).session_id
    counted = sms.app.state.store.execute("SELECT scope, n FROM text_counts WHERE scope LIKE 'g:%'")
    # The others told of each JOIN (1 + 2 + 3) and the START (4); NEW's and the JOINs'
    # own answers went to numbers in no game yet: on the budget those share.
    assert {r["scope"]: r["n"] for r in counted} == {f"g:{game}": 10, "g:-": 4}
    sms.app.state.sms.budget.per_game = 11
    moves = sms.table(phones[0]).seq
    said, n = sent(sms, phones[0], "50")  # within budget when it came in: ruled
    assert said[0].startswith("#2 Ann said 50.") and n == 4
    assert sent(sms, phones[1], "49") == ([SLOW_DOWN], 1)  # over: told, not ruled
    assert sent(sms, phones[1], "51") == ([], 0)  # then nothing
    assert sent(sms, phones[2], "status") == ([SLOW_DOWN], 1)  # each number is told once
    assert sms.table(phones[0]).seq == moves + 1
    sms.clock.advance(60)
    said, _ = sent(sms, phones[1], "49")
    assert "Bob said 49" in said[0]


def test_the_hours_ceiling_stops_a_flood_of_new_games_silently(budgets: Any) -> None:
    sms = budgets(sms_budget_per_hour=20)
    made, out = 0, 0
    for i in range(60):
        said, n = sent(sms, f"+1555998{i:04d}", "NEW Mal")
        made += bool(said) and "is ready" in said[0]
        out += n
    assert made == 20 and out == 20  # past the ceiling: no game, and not a word
    sms.clock.advance(3600)
    assert "is ready" in sms.text("+15559989999", "NEW Mal")[0]


def test_numbers_in_no_game_share_one_game_budget(budgets: Any) -> None:
    sms = budgets(sms_budget_per_game=15)
    answered = sum(bool(sms.text(f"+1555997{i:04d}", "hello")) for i in range(40))
    assert answered == 15  # strangers over it are not told: telling them is the flood
    phones = PHONES[:2]
    assert sms.text(phones[0], "hello") == []
    sms.clock.advance(60)
    assert sms.text(phones[0], "hello")


def test_an_opt_out_is_taken_over_budget(budgets: Any) -> None:
    sms = budgets(sms_budget_per_number=4)
    phones = sms.new_game(2)
    for _ in range(5):
        sms.text(phones[1], "status")
    assert sms.text(phones[1], "STOP") == []
    assert sms.app.state.lobby.opted_out(phones[1])
    assert sms.app.state.lobby.member(phones[1]) is None


def test_new_from_a_creator_with_an_open_lobby_reuses_it(budgets: Any) -> None:
    sms = budgets()
    first = sms.text(PHONES[0], "NEW BLOFA Ann")
    code = first[0].split()[1].rstrip(":")
    again = sms.text(PHONES[0], "NEW Zed")  # another game named, another name: the same lobby
    assert again[0].startswith(f"Game {code} is ready: Blofa Cards") and "You are Ann." in again[0]
    assert len(sms.app.state.store.sessions()) == 1
    sms.text(PHONES[1], f"JOIN {code} Bob")
    assert sms.text(PHONES[1], "NEW")[0].startswith(f"You are in game {code}")  # not Bob's lobby


def test_budgets_are_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAMEHOST_SMS_BUDGET_PER_NUMBER", "7")
    monkeypatch.setenv("GAMEHOST_SMS_BUDGET_PER_GAME", "70")
    monkeypatch.setenv("GAMEHOST_SMS_BUDGET_PER_HOUR", "700")
    settings = Settings()
    assert (settings.sms_budget_per_number, settings.sms_budget_per_game, settings.sms_budget_per_hour) == (
        7,
        70,
        700,
    )
    defaults = Settings.model_fields
    assert [defaults[f"sms_budget_per_{k}"].default for k in ("number", "game", "hour")] == [30, 120, 2000]


def test_a_long_text_is_not_echoed_back_in_many_texts(budgets: Any) -> None:
    """Blófa quoted a 1600-character text it could not read in 11 texts; the referee
    reads the first 320 characters of a text (``channel.MAX_SAID``)."""
    sms = budgets()
    phones = sms.new_game(4, "BLOFA")
    said, out = sent(sms, phones[0], "hmm " + " ".join(["blah"] * 319))
    assert said[0].startswith("#1 I didn't catch") and out <= 3


def test_a_flood_of_new_from_many_numbers_is_held_to_the_shared_budget(budgets: Any) -> None:
    sms = budgets(sms_budget_per_game=25)
    made = sum("is ready" in " ".join(sms.text(f"+1555996{i:04d}", "NEW Mal")) for i in range(60))
    assert made == 25

"""Issue 25, hole 5: with Twilio slow, one REST call at a time starves the outbox. The
sender makes up to GAMEHOST_OUTBOX_CONCURRENCY calls at once per process, never sends a
row twice (two processes on PostgreSQL included), and keeps each recipient's rows in
order (one of them in flight at a time)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from host.outbound import Outbound
from host.store import Store
from tests.pg import PgServer
from tests.twilio_helpers import FakeTwilio, make_settings

WAIT = 20.0  # bounded waits for threads on a loaded machine (not measurements)


def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def _outbound(database: str, fake: FakeTwilio, tmp_path: Path, concurrency: int) -> Outbound:
    extra = {"database_url": database} if "://" in database else {}
    settings = make_settings(
        Path(database) if not extra else tmp_path / "unused.sqlite3",
        fake,
        outbox_concurrency=concurrency,
        twilio_timeout=WAIT,
        **extra,
    )
    return Outbound(settings, Store(settings.database))


def _sent(out: Outbound, rows: int) -> bool:
    items = out.items(limit=rows + 10)
    return len(items) == rows and all(i.status == "sent" for i in items)


def test_the_sender_makes_up_to_its_bound_of_calls_at_once(tmp_path: Path, fake: FakeTwilio) -> None:
    out = _outbound(str(tmp_path / "o.sqlite3"), fake, tmp_path, concurrency=4)
    fake.hold = threading.Event()  # Twilio holds every request until released
    for n in range(12):
        out.send_sms(f"+1555010{n:04d}", f"message {n}")
    out.start(poll=0.05)
    try:
        _until(lambda: fake.in_flight == 4, "4 requests in flight at once")
        fake.hold.set()
        _until(lambda: _sent(out, 12), "every row sent")
    finally:
        fake.hold.set()
        out.stop()
    assert fake.most_in_flight == 4  # the bound, never more
    assert sorted(m["Body"] for m in fake.messages) == sorted(f"message {n}" for n in range(12))


def test_one_recipients_rows_go_one_at_a_time_in_order(tmp_path: Path, fake: FakeTwilio) -> None:
    out = _outbound(str(tmp_path / "o.sqlite3"), fake, tmp_path, concurrency=4)
    fake.answer_after = 0.05
    for n in range(5):
        out.send_sms("+15550100001", f"#{n} in order")
    out.start(poll=0.05)
    try:
        _until(lambda: _sent(out, 5), "every row sent")
    finally:
        out.stop()
    assert fake.most_in_flight == 1
    assert fake.messages_to("+15550100001") == [f"#{n} in order" for n in range(5)]


def test_two_processes_on_postgresql_send_each_row_once(
    pg_server: PgServer, fake: FakeTwilio, tmp_path: Path
) -> None:
    database = pg_server.migrated_database()
    first = _outbound(database, fake, tmp_path, concurrency=4)
    second = _outbound(database, fake, tmp_path, concurrency=4)
    fake.hold = threading.Event()
    numbers = [f"+1555020{n:04d}" for n in range(10)]
    for n in range(40):  # four texts to each of ten numbers
        first.send_sms(numbers[n % 10], f"text {n}")
    first.start(poll=0.05)
    second.start(poll=0.05)
    try:
        _until(lambda: fake.in_flight == 8, "both processes sending at their bound")
        fake.hold.set()
        _until(lambda: _sent(first, 40), "every row sent")
    finally:
        fake.hold.set()
        first.stop()
        second.stop()
        first.store.close()
        second.store.close()
    bodies = Counter(m["Body"] for m in fake.messages)
    assert bodies == Counter(f"text {n}" for n in range(40))  # each once
    assert fake.most_in_flight == 8
    for number in numbers:  # and each number's texts in the order they were written
        got = [int(b.split()[1]) for b in fake.messages_to(number)]
        assert got == sorted(got), (number, got)

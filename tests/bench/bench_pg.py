"""Signed SMS load on SQLite (1 worker) and PostgreSQL (1, 2 and 4 workers behind one port).

Run: python tests/bench/bench_pg.py [--games 200] [--clients 32] [--seconds 8]

Each configuration is a real ``gamehost serve [--workers N]`` in a child process on
127.0.0.1 (no Twilio account: the other players' texts go to the outbox), PostgreSQL a
private cluster started here (tests/pg.py). ``--games`` two-player training games are made
by text, then client threads keep them all moving, one request in flight per thread,
each move a signed form post. Afterwards every game's log is compared with the moves the
clients had answered: a move missing from the log is lost, one there twice is doubled
(both must be 0). Prints requests/s, p50/p99 latency, and the ratios of PostgreSQL 1 worker to
SQLite 1 worker and of 2 and 4 workers to 1.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_sms import TOKEN, Run, drive, make_games  # beside this script

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from host.store import Store
from tests import pg
from tests.servers import free_port, stop, wait_healthy


class Served:
    """``gamehost serve`` on a free port."""

    def __init__(self, database: str, workers: int) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "TWILIO_AUTH_TOKEN": TOKEN, "GAMEHOST_MODE": "production",
               "GAMEHOST_DATABASE_URL": database, "GAMEHOST_WORKERS": str(workers),
               "GAMEHOST_PUBLIC_URL": self.base}  # production serve needs it; the moves are signed for it
        for unset in ("TWILIO_ACCOUNT_SID", "GAMEHOST_DB"):
            env.pop(unset, None)
        cmd = [sys.executable, "-m", "host.cli", "serve", "--port", str(self.port)]
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_healthy(self.base, self.proc, 60, f"gamehost serve --workers {workers}", error=RuntimeError)
        except RuntimeError:
            self.stop()
            raise
        time.sleep(0.5 * workers)  # the other workers come up after the first answers

    def stop(self) -> None:
        stop(self.proc, 20)


def audit(database: str, moves: dict[str, int]) -> tuple[int, int]:
    """(lost, doubled): answered moves missing from the logs, and logged moves never answered
    or logged twice."""
    store = Store(database)
    try:
        lost = doubled = 0
        for phone, answered in moves.items():
            member = store.execute("SELECT session_id FROM members WHERE address = ?", (phone,))
            logged = sum(1 for i in store.inputs(member[0]["session_id"]) if i.body["kind"] == "play")
            lost += max(answered - logged, 0)
            doubled += max(logged - answered, 0)
        return lost, doubled
    finally:
        store.close()


def measure(database: str, workers: int, args: argparse.Namespace) -> tuple[Run, int, int]:
    server = Served(database, workers)
    try:
        games = make_games(server.base, args.games)
        moves: dict[str, int] = {}
        # A warm-up second, its moves counted in the audit too.
        drive(server.base, games, args.clients, 1.0, True, moves, timeout=60)
        run = drive(server.base, games, args.clients, args.seconds, True, moves, timeout=60)
    finally:
        server.stop()
    lost, doubled = audit(database, moves)
    return run, lost, doubled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=8.0)
    args = parser.parse_args()
    results: list[tuple[str, Run, int, int]] = []
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = str(Path(tmp) / "bench.sqlite3")
        results.append(("SQLite, 1 worker", *measure(sqlite, 1, args)))
        if not pg.available():
            print("PostgreSQL 15 is not installed: only SQLite was measured", file=sys.stderr)
        else:
            for server in pg.serve():
                for workers in (1, 2, 4):
                    url = server.new_database()
                    results.append((f"PostgreSQL, {workers} worker{'s' * (workers > 1)}",
                                    *measure(url, workers, args)))
    print(f"Signed SMS moves: {args.games} games, {args.clients} client threads, loopback,"
          f" {args.seconds:.0f} s each, {os.cpu_count()} cores")
    print(f"{'':24}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}{'lost':>6}{'doubled':>9}")
    for name, run, lost, doubled in results:
        print(f"{name:24}{run.rate:9.0f}{run.pct(50):9.1f}{run.pct(99):9.1f}{run.errors:8d}{lost:6d}{doubled:9d}")
    by = {name: run for name, run, _, _ in results}
    one, four = by.get("PostgreSQL, 1 worker"), by.get("PostgreSQL, 4 workers")
    lite, two = by.get("SQLite, 1 worker"), by.get("PostgreSQL, 2 workers")
    if one and lite and lite.rate:
        print(f"ratio PostgreSQL 1 worker : SQLite 1 worker: throughput {one.rate / lite.rate:.2f}x,"
              f" p50 {one.pct(50) / lite.pct(50):.2f}x, p99 {one.pct(99) / lite.pct(99):.2f}x")
    if one and two and one.rate:
        print(f"ratio PostgreSQL 2 workers : 1 worker: throughput {two.rate / one.rate:.2f}x")
    if one and four and one.rate:
        print(f"ratio PostgreSQL 4 workers : 1 worker: throughput {four.rate / one.rate:.2f}x,"
              f" p50 {four.pct(50) / one.pct(50):.2f}x, p99 {four.pct(99) / one.pct(99):.2f}x")
    print(json.dumps({name: round(run.rate, 1) for name, run, _, _ in results}))
    if any(lost or doubled for _, _, lost, doubled in results):
        sys.exit(1)


if __name__ == "__main__":
    main()

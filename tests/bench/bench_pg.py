"""Signed SMS load on SQLite (1 worker) and PostgreSQL (1, 2 and 4 workers behind one port).

Run: python tests/bench/bench_pg.py [--games 200] [--clients 32] [--seconds 8] [--workers 1,2,4]
     [--rounds 1]

Each configuration is a real ``gamehost serve [--workers N]`` in a child process on
127.0.0.1 (no Twilio account: the other players' texts go to the outbox), PostgreSQL a
private cluster started here (tests/pg.py). ``--games`` two-player training games are made
by text, then client threads keep them all moving, one request in flight per thread,
each move a signed form post. Afterwards every game's log is compared with the moves the
clients had answered: a move missing from the log is lost, one there twice is doubled
(both must be 0). Prints requests/s, p50/p99 latency, the CPU the server's processes
(``cpu``) and PostgreSQL's (``pg cpu``) spent per move (from /proc: the client's share is
not in them, and on a machine others share they move less than throughput does), and the
ratios of PostgreSQL 1 worker to SQLite 1 worker and of 2 and 4 workers to 1.
``--rounds N`` measures every configuration N times, taking turns, and prints each round's
ratios and the pooled ones: compare figures of one round, close in time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench_sms import TOKEN, Run, cpu_seconds, drive, make_games  # beside this script

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from host.store import Store
from tests import pg
from tests.servers import free_port, stop, wait_healthy


class Served:
    """``gamehost serve`` on a free port."""

    def __init__(self, database: str, workers: int) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "TWILIO_AUTH_TOKEN": TOKEN,
            "GAMEHOST_MODE": "production",
            "GAMEHOST_DATABASE_URL": database,
            "GAMEHOST_WORKERS": str(workers),
            "GAMEHOST_PUBLIC_URL": self.base,
        }  # production serve needs it; the moves are signed for it
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


def load_average() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def tree_cpu(root: int) -> float:
    """CPU seconds so far of ``root`` and every process under it (a server's workers,
    PostgreSQL's backends)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += cpu_seconds(pid)
        todo.extend(children.get(pid, []))
    return total


@dataclass
class Measured:
    run: Run
    lost: int
    doubled: int
    cpu_ms: float  # the server's processes, per answered move
    pg_cpu_ms: float  # PostgreSQL's processes, per answered move (0: SQLite)


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


def measure(database: str, workers: int, args: argparse.Namespace, postmaster: int | None) -> Measured:
    server = Served(database, workers)
    try:
        games = make_games(server.base, args.games)
        moves: dict[str, int] = {}
        # A warm-up second, its moves counted in the audit too.
        drive(server.base, games, args.clients, 1.0, True, moves, timeout=60)
        cpu0, pg0 = tree_cpu(server.proc.pid), tree_cpu(postmaster) if postmaster else 0.0
        run = drive(server.base, games, args.clients, args.seconds, True, moves, timeout=60)
        cpu, pg_cpu = tree_cpu(server.proc.pid) - cpu0, tree_cpu(postmaster) - pg0 if postmaster else 0.0
    finally:
        server.stop()
    lost, doubled = audit(database, moves)
    answered = max(len(run.latencies), 1)
    return Measured(run, lost, doubled, 1000 * cpu / answered, 1000 * pg_cpu / answered)


def ratios(by: dict[str, Run], indent: str = "") -> None:
    one, four = by.get("PostgreSQL, 1 worker"), by.get("PostgreSQL, 4 workers")
    lite, two = by.get("SQLite, 1 worker"), by.get("PostgreSQL, 2 workers")
    if one and lite and lite.rate:
        print(
            f"{indent}ratio PostgreSQL 1 worker : SQLite 1 worker: throughput {one.rate / lite.rate:.2f}x,"
            f" p50 {one.pct(50) / lite.pct(50):.2f}x, p99 {one.pct(99) / lite.pct(99):.2f}x"
        )
    if one and two and one.rate:
        print(f"{indent}ratio PostgreSQL 2 workers : 1 worker: throughput {two.rate / one.rate:.2f}x")
    if one and four and one.rate:
        print(
            f"{indent}ratio PostgreSQL 4 workers : 1 worker: throughput {four.rate / one.rate:.2f}x,"
            f" p50 {four.pct(50) / one.pct(50):.2f}x, p99 {four.pct(99) / one.pct(99):.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--workers", default="1,2,4", help="PostgreSQL worker counts, comma-separated")
    parser.add_argument("--rounds", type=int, default=1, help="measure each configuration N times, by turns")
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",") if n.strip()]
    rounds: list[list[tuple[str, Measured]]] = []
    loads = [load_average()]
    with tempfile.TemporaryDirectory() as tmp:
        servers = pg.serve() if pg.available() else iter([None])
        server = next(servers)
        if server is None:
            print("PostgreSQL 15 is not installed: only SQLite is measured", file=sys.stderr)
        try:
            postmaster = server.postmaster() if server is not None else None
            for r in range(args.rounds):
                results: list[tuple[str, Measured]] = []
                sqlite = str(Path(tmp) / f"bench{r}.sqlite3")
                results.append(("SQLite, 1 worker", measure(sqlite, 1, args, None)))
                for workers in counts if server is not None else []:
                    url = server.new_database()
                    results.append(
                        (
                            f"PostgreSQL, {workers} worker{'s' * (workers > 1)}",
                            measure(url, workers, args, postmaster),
                        )
                    )
                rounds.append(results)
                loads.append(load_average())
        finally:
            next(servers, None)  # stops the cluster
    print(
        f"Signed SMS moves: {args.games} games, {args.clients} client threads, loopback,"
        f" {args.seconds:.0f} s each, {args.rounds} round{'s' * (args.rounds > 1)}"
    )
    print(
        f"{os.cpu_count()} cores; load average (1 min) at the start, then after each round:"
        f" {', '.join(loads)}"
    )
    header = (
        f"{'':24}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'cpu ms':>8}{'pg cpu':>8}"
        f"{'errors':>8}{'lost':>6}{'doubled':>9}"
    )
    for r, results in enumerate(rounds, 1):
        print(f"round {r}:" if args.rounds > 1 else "")
        print(header)
        for name, m in results:
            run = m.run
            print(
                f"{name:24}{run.rate:9.0f}{run.pct(50):9.1f}{run.pct(99):9.1f}{m.cpu_ms:8.2f}{m.pg_cpu_ms:8.2f}"
                f"{run.errors:8d}{m.lost:6d}{m.doubled:9d}"
            )
        ratios({name: m.run for name, m in results}, "  " if args.rounds > 1 else "")
    if args.rounds > 1:
        pooled: dict[str, Run] = {}
        for results in rounds:
            for name, m in results:
                pooled[name] = pooled[name] + m.run if name in pooled else m.run
        print("pooled:")
        ratios(pooled, "  ")
    print(json.dumps([{name: round(m.run.rate, 1) for name, m in results} for results in rounds]))
    if any(m.lost or m.doubled for results in rounds for _, m in results):
        sys.exit(1)


if __name__ == "__main__":
    main()

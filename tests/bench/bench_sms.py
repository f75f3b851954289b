"""SMS webhook throughput and latency: signed moves across many concurrent games.

Run: python tests/bench/bench_sms.py [--games 64] [--workers 16] [--seconds 4] [--rounds 3]

The host runs as a real uvicorn server in a child process on 127.0.0.1 (its own SQLite file,
no Twilio credentials: the other players' texts go to the local outbox). Client threads
each keep one game moving: the player whose turn it is texts a valid number, signed with
the SDK's RequestValidator, one request in flight per game. A bare FastAPI endpoint that
only parses the form runs beside it and is measured the same way: the two take turns,
``--rounds`` times, so a machine busy with other work weighs on both alike; the ratios
are the figures (each round's, and all rounds pooled). Also printed: the server process's
CPU time per request (from /proc, so the client's share is not in it), and the SQL
statements one move runs (tests/bench/statements.py). Loopback only, about a minute.
"""

from __future__ import annotations

import argparse
import itertools
import logging
import os
import random
import statistics
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from fastapi import FastAPI, Request, Response
from live_server import Server, host_app, run_workers  # beside this script (run as a script, not a package)
from twilio.request_validator import RequestValidator

from games.up_or_down import rules as ud
from games.up_or_down.rules import Mode

TOKEN = "bench-auth-token"
HOST_NUMBER = "+15005550006"
log = logging.getLogger("bench_sms")


# -- the servers (child processes) ----------------------------------------------------------


def bare_app() -> FastAPI:
    app = FastAPI()

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/twilio/sms")
    async def sms(request: Request) -> Response:
        await request.form()
        return Response("<Response><Message>ok</Message></Response>", media_type="application/xml")

    return app


def serve(kind: str, port: int, db: str) -> None:
    import uvicorn

    app = host_app(db, TOKEN) if kind == "sms" else bare_app()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


# -- the client -----------------------------------------------------------------------------

_sids = itertools.count(1)


def post(client: httpx.Client, base: str, phone: str, body: str) -> list[str]:
    params = {
        "From": phone,
        "To": HOST_NUMBER,
        "Body": body,
        "MessageSid": f"SM{next(_sids):032x}",
        "AccountSid": "AC" + "0" * 32,
    }
    signature = RequestValidator(TOKEN).compute_signature(f"{base}/twilio/sms", params)
    response = client.post("/twilio/sms", data=params, headers={"X-Twilio-Signature": signature})
    response.raise_for_status()
    return [m.text or "" for m in ET.fromstring(response.text)]


@dataclass
class Game:
    phones: tuple[str, str]
    state: ud.State
    rng: random.Random

    def next_move(self) -> tuple[str, str]:
        if self.state.is_over:
            raise RuntimeError("a training game does not end")
        number = self.rng.choice(ud.valid_numbers(self.state))
        phone = self.phones[self.state.current]
        self.state, _ = ud.play(self.state, number)
        return phone, str(number)


def make_games(base: str, count: int) -> list[Game]:
    games = []
    with httpx.Client(base_url=base, timeout=30) as client:
        for g in range(count):
            a, b = f"+1555{g:07d}", f"+1666{g:07d}"
            code = post(client, base, a, "NEW TRAINING Ann")[0].split()[1]
            post(client, base, b, f"JOIN {code} Bob")
            started = post(client, base, a, "START")
            assert started[0].startswith("#1 New game"), started
            state = ud.new_game(("Ann", "Bob"), ud.Options(mode=Mode.TRAINING))
            games.append(Game((a, b), state, random.Random(g)))
    return games


@dataclass
class Run:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    elapsed: float = 0.0
    cpu: float = 0.0  # the server process's CPU seconds meanwhile (0: not measured)

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.elapsed if self.elapsed else 0.0

    @property
    def cpu_ms(self) -> float:
        """Server CPU milliseconds per answered request."""
        return 1000 * self.cpu / len(self.latencies) if self.latencies else float("nan")

    def __add__(self, other: Run) -> Run:
        return Run(
            self.latencies + other.latencies,
            self.errors + other.errors,
            self.elapsed + other.elapsed,
            self.cpu + other.cpu,
        )

    def pct(self, p: float) -> float:
        if not self.latencies:
            return float("nan")
        return statistics.quantiles(self.latencies, n=100, method="inclusive")[int(p) - 1] * 1000


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of a process and its threads so far (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def drive(
    base: str,
    games: list[Game],
    workers: int,
    seconds: float,
    check: bool,
    moves: dict[str, int] | None = None,
    timeout: float = 30.0,
    pid: int | None = None,
) -> Run:
    """``workers`` threads, each moving its share of the games, one request at a time;
    ``moves`` (if given) counts each game's answered moves, by its first phone; ``pid``:
    the server process whose CPU time is taken."""
    run = Run()
    cpu0 = cpu_seconds(pid) if pid is not None else 0.0
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def worker(mine: list[Game]) -> None:
        latencies: list[float] = []
        errors = 0
        done: dict[str, int] = {}
        with httpx.Client(base_url=base, timeout=timeout) as client:
            for game in itertools.cycle(mine):
                if time.perf_counter() >= stop:
                    break
                phone, number = game.next_move()
                t0 = time.perf_counter()
                try:
                    answer = post(client, base, phone, number)
                except httpx.HTTPError:
                    errors += 1
                    continue
                latencies.append(time.perf_counter() - t0)
                if answer and f"said {number}." in answer[0]:
                    done[game.phones[0]] = done.get(game.phones[0], 0) + 1
                elif check:
                    errors += 1
        with lock:
            run.latencies.extend(latencies)
            run.errors += errors
            if moves is not None:
                for first, count in done.items():
                    moves[first] = moves.get(first, 0) + count

    run.elapsed = run_workers(worker, games, workers)
    run.cpu = cpu_seconds(pid) - cpu0 if pid is not None else 0.0
    return run


def bare_games(count: int) -> list[Game]:
    return [
        Game(
            (f"+1555{g:07d}", f"+1666{g:07d}"),
            ud.new_game(("Ann", "Bob"), ud.Options(mode=Mode.TRAINING)),
            random.Random(g),
        )
        for g in range(count)
    ]


def load() -> str:
    """The machine's load average and cores, for the record (others may be using it)."""
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return f"{os.cpu_count()} cores"
    return f"{os.cpu_count()} cores, load average {one:.1f} (1 min) {five:.1f} (5 min)"


def rounds_table(name: str, ours: list[Run], bare: list[Run], label: str) -> None:
    """Each round's figures and all rounds pooled, ours against bare."""
    print(
        f"{'':26}{'req/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'cpu ms':>8}{'errors':>7}"
        f"{'x req/s':>9}{'x p50':>7}{'x p99':>7}"
    )

    def row(what: str, run: Run, base: Run | None) -> None:
        ratios = ""
        if base is not None and base.rate:
            ratios = (
                f"{run.rate / base.rate:9.2f}{run.pct(50) / base.pct(50):7.1f}"
                f"{run.pct(99) / base.pct(99):7.1f}"
            )
        print(
            f"{what:26}{run.rate:8.0f}{run.pct(50):9.2f}{run.pct(99):9.2f}{run.cpu_ms:8.2f}"
            f"{run.errors:7d}{ratios}"
        )

    for i, (o, b) in enumerate(zip(ours, bare, strict=True), 1):
        row(f"round {i}: bare", b, None)
        row(f"round {i}: {label}", o, b)
    pooled_o, pooled_b = sum(ours, Run()), sum(bare, Run())
    row("all rounds: bare", pooled_b, None)
    row(f"all rounds: {label}", pooled_o, pooled_b)
    each = sorted(o.rate / b.rate for o, b in zip(ours, bare, strict=True) if b.rate)
    if each:
        print(
            f"ratio {name}/bare: throughput {pooled_o.rate / pooled_b.rate:.2f}x pooled"
            f" (rounds {', '.join(f'{r:.2f}' for r in each)}),"
            f" p50 {pooled_o.pct(50) / pooled_b.pct(50):.1f}x,"
            f" p99 {pooled_o.pct(99) / pooled_b.pct(99):.1f}x,"
            f" server CPU per request {pooled_o.cpu_ms / pooled_b.cpu_ms:.1f}x"
        )


def statement_counts() -> None:
    """The SQL statements per request, counted on the real app in this process."""
    from statements import measure, table  # beside this script

    with tempfile.TemporaryDirectory() as tmp:
        print(table(measure(str(Path(tmp) / "count.sqlite3"))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=4.0, help="per round, for each server")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--serve", choices=["sms", "bare"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.port, args.db)
        return
    workers = min(args.workers, args.games)
    began = load()

    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "bench.sqlite3")
        sms_server, bare_server = Server(__file__, "sms", db), Server(__file__, "bare", db)
        ours: list[Run] = []
        bare: list[Run] = []
        try:
            games = make_games(sms_server.base, args.games)
            others = bare_games(args.games)
            drive(sms_server.base, games, workers, 1.0, check=True)  # warm up
            drive(bare_server.base, others, workers, 1.0, check=False)
            for _ in range(args.rounds):
                bare.append(
                    drive(bare_server.base, others, workers, args.seconds, False, pid=bare_server.proc.pid)
                )
                ours.append(
                    drive(sms_server.base, games, workers, args.seconds, True, pid=sms_server.proc.pid)
                )
        finally:
            sms_server.stop()
            bare_server.stop()

    print(
        f"SMS webhook benchmark: {args.games} games, {workers} client threads, loopback, SQLite WAL;"
        f" {args.rounds} rounds of {args.seconds:g} s each, taking turns"
    )
    print(f"machine: {began} before, {load()} after")
    rounds_table("SMS", ours, bare, "signed SMS moves")
    print()
    statement_counts()


if __name__ == "__main__":
    main()

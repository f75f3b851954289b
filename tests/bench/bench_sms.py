"""SMS webhook throughput and latency: signed moves across many concurrent games.

Run: python tests/bench/bench_sms.py [--games 64] [--workers 16] [--seconds 8]

The host runs as a real uvicorn server in a child process on 127.0.0.1 (its own SQLite file,
no Twilio credentials: the other players' texts go to the local outbox). Client threads
each keep one game moving: the player whose turn it is texts a valid number, signed with
the SDK's RequestValidator, one request in flight per game. A bare FastAPI endpoint that
only parses the form is measured the same way in the same run; the ratio is the figure.
Loopback only, bounded to well under a minute.
"""

from __future__ import annotations

import argparse
import itertools
import logging
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

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.elapsed if self.elapsed else 0.0

    def pct(self, p: float) -> float:
        if not self.latencies:
            return float("nan")
        return statistics.quantiles(self.latencies, n=100, method="inclusive")[int(p) - 1] * 1000


def drive(
    base: str, games: list[Game], workers: int, seconds: float, check: bool,
    moves: dict[str, int] | None = None, timeout: float = 30.0,
) -> Run:
    """``workers`` threads, each moving its share of the games, one request at a time;
    ``moves`` (if given) counts each game's answered moves, by its first phone."""
    run = Run()
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--serve", choices=["sms", "bare"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.port, args.db)
        return
    workers = min(args.workers, args.games)

    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "bench.sqlite3")
        server = Server(__file__, "sms", db)
        try:
            games = make_games(server.base, args.games)
            drive(server.base, games, workers, 1.0, check=True)  # warm up
            sms = drive(server.base, games, workers, args.seconds, check=True)
        finally:
            server.stop()
        server = Server(__file__, "bare", db)
        try:
            games = bare_games(args.games)
            drive(server.base, games, workers, 1.0, check=False)
            bare = drive(server.base, games, workers, args.seconds / 2, check=False)
        finally:
            server.stop()

    print(f"SMS webhook benchmark: {args.games} games, {workers} client threads, loopback, SQLite WAL")
    print(f"{'':22}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}{'errors':>8}")
    for name, run in (("signed SMS moves", sms), ("bare FastAPI endpoint", bare)):
        print(f"{name:22}{run.rate:10.0f}{run.pct(50):10.2f}{run.pct(99):10.2f}{run.errors:8d}")
    if bare.rate and sms.rate:
        print(
            f"ratio SMS/bare: throughput {sms.rate / bare.rate:.2f}x,"
            f" p50 latency {sms.pct(50) / bare.pct(50):.1f}x, p99 latency {sms.pct(99) / bare.pct(99):.1f}x"
        )


if __name__ == "__main__":
    main()

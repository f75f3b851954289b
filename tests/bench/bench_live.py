"""Live pages at scale: 3,000 Server-Sent Event streams on one game.

Run: python tests/bench/bench_live.py [--streams 3000] [--window 8] [--moves 8]

The server is the app ``gamehost serve`` runs (one process, SQLite), in a child process,
with a counter of the SQL statements it sends its database (SQLAlchemy's cursor events)
read at ``GET /bench/queries``. A game is made over signed SMS webhooks. Then:

1. one stream on the game: SQL statements a second over a quiet window;
2. ``--streams`` streams on the same game, each its own connection, from 150 loopback
   addresses (127.0.0.2...; 20 each, the default per-client cap, which a 21st proves):
   statements a second over a quiet window, then ``--moves`` moves texted one a second
   while another process samples ``GET /healthz`` every 20 ms (its p50/p99/max), with the
   webhook's own latency and the time from its answer until every stream had the move.

Before issue 25 each stream polled the database every 50 ms itself: 20 statements a
second per stream (60,000 for 3,000), which this prints for comparison.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: tests.* from the checkout
from tests.servers import free_port, stop, wait_healthy
from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, sign

HOST_NUMBER = "+15005550006"
ANN, BOB = "+15550300001", "+15550300002"
PER_ADDRESS = 20  # Settings.live_streams_per_client's default
OLD_POLLS_PER_STREAM = 20  # one MAX(seq) every 50 ms, per stream, before issue 25
EVENT_ID = re.compile(rb"(?:^|\n)id: (\d+)\n")


def _more_files() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# -- the server (child process) --------------------------------------------------------------


def serve(port: int, db: str) -> None:
    import uvicorn
    from sqlalchemy import event

    from host.app import create_app, settle_heap
    from host.config import Settings
    from host.store import Store

    _more_files()
    settings = Settings(
        db=Path(db),
        database_url=None,
        twilio_auth_token=TEST_AUTH_TOKEN,
        twilio_account_sid=None,
        public_url=f"http://127.0.0.1:{port}",
        sms_turn_timeout=None,
        mode="production",
    )
    store = Store(settings.database)
    statements = [0]

    def counted(*_: Any) -> None:
        statements[0] += 1

    event.listen(store.engine, "before_cursor_execute", counted)
    app = create_app(settings, store)
    lags: list[float] = []  # how late a 10 ms sleep of the event loop woke, in ms
    gc_ms: list[float] = []
    gc_start = [0.0]

    def collected(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            gc_start[0] = time.perf_counter()
        elif info.get("generation") == 2:
            gc_ms.append((time.perf_counter() - gc_start[0]) * 1000)

    import gc

    gc.callbacks.append(collected)

    async def watch_the_loop() -> None:
        while True:
            t0 = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append((time.perf_counter() - t0 - 0.01) * 1000)

    async def start(app: Any) -> None:
        app.state.bench_lag = asyncio.create_task(watch_the_loop())

    app.state.background.append(start)

    @app.get("/bench/queries")
    def queries() -> dict[str, Any]:
        return {"queries": statements[0]}

    @app.get("/bench/lag")
    def lag() -> dict[str, Any]:
        out = {"lag_ms": list(lags), "gc2_ms": list(gc_ms)}
        lags.clear()
        gc_ms.clear()
        return out

    settle_heap()  # as gamehost serve does
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


# -- /healthz from another process ---------------------------------------------------------


def sample_healthz(base: str, seconds: float) -> None:
    latencies: list[float] = []
    failures = 0
    deadline = time.monotonic() + seconds
    with httpx.Client(base_url=base, timeout=10) as client:
        while time.monotonic() < deadline:
            t0 = time.perf_counter()
            try:
                client.get("/healthz").raise_for_status()
                latencies.append((time.perf_counter() - t0) * 1000)
            except httpx.HTTPError:
                failures += 1
            time.sleep(0.02)
    print(json.dumps({"ms": latencies, "failures": failures}))


def healthz_from_another_process(base: str, seconds: float) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--healthz", base, "--seconds", str(seconds)],
        capture_output=True,
        text=True,
        timeout=seconds + 60,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))] if ordered else float("nan")


# -- the clients -----------------------------------------------------------------------------


class Streams:
    """Raw SSE connections (one asyncio stream each): when each saw each event id."""

    def __init__(self, port: int, path: str) -> None:
        self.port, self.path = port, path
        self.open = 0
        self.refused = 0
        self.seen: dict[int, list[float]] = {}  # event id -> arrival times
        self.tasks: list[asyncio.Task[None]] = []

    async def one(self, ip: str) -> int:
        """Open one stream from the address ``ip``; its HTTP status."""
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port, local_addr=(ip, 0))
        writer.write(
            f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        await writer.drain()
        status = int((await reader.readline()).split()[1])
        while (await reader.readline()).strip():
            pass  # headers
        if status != 200:
            self.refused += 1
            writer.close()
            return status
        self.open += 1
        self.tasks.append(asyncio.create_task(self._read(reader, writer)))
        return status

    async def _read(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # Whole reads, searched for event ids: thousands of these share the machine with the
        # server measured, so they do as little as they can.
        tail = b""
        try:
            while chunk := await reader.read(1 << 16):
                now = time.perf_counter()
                data = tail + chunk
                for found in EVENT_ID.finditer(data):
                    self.seen.setdefault(int(found.group(1)), []).append(now)
                tail = data[-16:] if b"\n" not in data[-16:] else b""
        finally:
            self.open -= 1
            writer.close()

    def everyone_has(self, seq: int, streams: int) -> bool:
        return len(self.seen.get(seq, ())) >= streams

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def statements_per_second(client: httpx.AsyncClient, seconds: float) -> float:
    before = (await client.get("/bench/queries")).json()["queries"]
    await asyncio.sleep(seconds)
    after = (await client.get("/bench/queries")).json()["queries"]
    return (after - before - 0) / seconds


def text(client: httpx.Client, base: str, phone: str, body: str, n: int) -> str:
    params = {
        "From": phone,
        "To": HOST_NUMBER,
        "Body": body,
        "MessageSid": f"SM{n:032x}",
        "AccountSid": TEST_ACCOUNT_SID,
    }
    answer = client.post(
        "/twilio/sms", data=params, headers={"X-Twilio-Signature": sign(base + "/twilio/sms", params)}
    )
    answer.raise_for_status()
    return answer.text


async def run(args: argparse.Namespace, port: int, base: str) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    with httpx.Client(base_url=base, timeout=30) as sms:
        made = text(sms, base, ANN, "NEW Ann", 1)
        code = made.split("Game ")[1].split()[0]
        text(sms, base, BOB, f"JOIN {code} Bob", 2)
        text(sms, base, ANN, "START", 3)
    path = f"/t/{code}/events"
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        # 1. One stream.
        one = Streams(port, path)
        await one.one("127.0.0.2")
        await asyncio.sleep(1.0)
        figures["statements_1"] = await statements_per_second(client, args.window)
        await one.close()
        await asyncio.sleep(0.5)

        # 2. Many streams, from many addresses, within the per-client cap.
        many = Streams(port, path)
        count = -(-args.streams // PER_ADDRESS)
        addresses = [f"127.0.{1 + i // 250}.{2 + i % 250}" for i in range(count)]
        t0 = time.perf_counter()
        for start in range(0, args.streams, 200):  # ramped: a burst of connects is not the test
            ends = range(start, min(start + 200, args.streams))
            await asyncio.gather(*(many.one(addresses[i // PER_ADDRESS]) for i in ends))
        figures["refused_within_cap"] = many.refused
        figures["extra_over_cap"] = await many.one(addresses[0])  # the 21st from one address
        first = min(many.seen) if many.seen else 0
        deadline = time.monotonic() + 60
        while not many.everyone_has(first, args.streams) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        figures["open_seconds"] = time.perf_counter() - t0
        figures["streams_open"] = many.open
        figures["statements_many"] = await statements_per_second(client, args.window)

        # 3. Moves while another process samples /healthz.
        await client.get("/bench/lag")  # from here on
        seconds = args.moves + 3.0
        sampler = asyncio.create_task(asyncio.to_thread(healthz_from_another_process, base, seconds))
        await asyncio.sleep(1.0)
        webhook_ms, fanout_ms = [], []
        before = (await client.get("/bench/queries")).json()["queries"]
        t_moves = time.perf_counter()
        with httpx.Client(base_url=base, timeout=30) as sms:
            number = 50
            for i in range(args.moves):
                phone = ANN if i % 2 == 0 else BOB
                target = max(many.seen) + 1
                t1 = time.perf_counter()
                await asyncio.to_thread(text, sms, base, phone, str(number), 10 + i)
                answered = time.perf_counter()
                webhook_ms.append((answered - t1) * 1000)
                while not many.everyone_has(target, args.streams) and time.perf_counter() - answered < 30:
                    await asyncio.sleep(0.005)
                arrivals = many.seen.get(target, [])
                fanout_ms.append((max(arrivals) - answered) * 1000 if arrivals else float("nan"))
                number += 2  # after an even number: an even number above it
                await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - t1)))
        moves_s = time.perf_counter() - t_moves
        after = (await client.get("/bench/queries")).json()["queries"]
        figures["statements_moves"] = (after - before) / moves_s
        health = await sampler
        figures["healthz"] = health
        figures["server"] = (await client.get("/bench/lag")).json()
        figures["webhook_ms"] = webhook_ms
        figures["fanout_ms"] = fanout_ms
        figures["streams_at_end"] = many.open
        await many.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=3000)
    parser.add_argument("--window", type=float, default=8.0, help="seconds each quiet measurement lasts")
    parser.add_argument("--moves", type=int, default=8, help="moves texted one a second under load")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--healthz", help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=10.0, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.port, args.db)
        return
    if args.healthz:
        sample_healthz(args.healthz, args.seconds)
        return
    _more_files()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "server.log"
        with log.open("wb") as out:
            db = str(Path(tmp) / "live.sqlite3")
            proc = subprocess.Popen(
                [sys.executable, __file__, "--serve", "--port", str(port), "--db", db],
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
            try:
                wait_healthy(base, proc, 60, "the live-page server", log, error=RuntimeError)
                figures = asyncio.run(run(args, port, base))
            finally:
                stop(proc)
    health = figures["healthz"]["ms"]
    n, f = args.streams, figures
    print(f"Live pages: {n} SSE streams on one game, one server process (SQLite), {os.cpu_count()} cores")
    print(
        f"  opened in {f['open_seconds']:.1f} s; open {f['streams_open']}, refused within the cap"
        f" {f['refused_within_cap']}, a 21st from one address: HTTP {f['extra_over_cap']}"
    )
    one, many = f["statements_1"], f["statements_many"]
    print(
        f"  SQL statements/s, quiet: 1 stream {one:.1f}, {n} streams {many:.1f} (ratio {many / one:.2f}x;"
        f" a poll per stream every 50 ms, as before, would be {OLD_POLLS_PER_STREAM * n:,})"
    )
    print(f"  with a move a second: {f['statements_moves']:.1f} statements/s")
    print(
        f"  /healthz from another process ({len(health)} samples, {f['healthz']['failures']} failures):"
        f" p50 {statistics.median(health):.1f} ms, p99 {pct(health, 99):.1f} ms, max {max(health):.1f} ms"
    )
    wh, fo = figures["webhook_ms"], figures["fanout_ms"]
    print(
        f"  SMS move webhook: p50 {statistics.median(wh):.0f} ms, max {max(wh):.0f} ms;"
        f" answer to the last of {n} streams: p50 {statistics.median(fo):.0f} ms, max {max(fo):.0f} ms"
    )
    lag, gc2 = figures["server"]["lag_ms"], figures["server"]["gc2_ms"]
    print(
        f"  the server's event loop meanwhile: late by p50 {statistics.median(lag):.1f} ms,"
        f" p99 {pct(lag, 99):.1f} ms, max {max(lag):.1f} ms; full garbage collections {len(gc2)},"
        f" longest {max(gc2, default=0.0):.0f} ms"
    )
    print(f"  streams still open at the end: {figures['streams_at_end']}")
    print(
        json.dumps(
            {
                "streams": n,
                "statements_1": round(figures["statements_1"], 1),
                "statements_many": round(figures["statements_many"], 1),
                "healthz_p99_ms": round(pct(health, 99), 1),
                "fanout_max_ms": round(max(fo), 1),
            }
        )
    )


if __name__ == "__main__":
    main()

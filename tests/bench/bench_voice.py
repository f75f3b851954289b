"""Voice webhook latency: signed Twilio Voice actions across many concurrent calls.

Run: python tests/bench/bench_voice.py [--games 32] [--workers 16] [--seconds 4] [--rounds 3]

The host runs as a real uvicorn server in a child process on 127.0.0.1 (its own SQLite
file, no Twilio credentials: live call updates go to the local outbox, so the notifier's
work is still done). Half the games are one phone for a table of three, the other half two
callers on their own phones. Every call is set up through the real menus; then client
threads keep each game moving, one request in flight per game: the current caller answers
the ``<Gather>`` of the TwiML it holds with a spoken valid number (SpeechResult and
Confidence, signed with the SDK's RequestValidator), and in two-caller games the other
caller's waiting loop comes round (``/wait``) to pick up its turn. A bare FastAPI endpoint
that only parses the form and answers fixed TwiML runs beside it and is measured the same
way: the two take turns, ``--rounds`` times, so other work on the machine weighs on both
alike; the ratios are the figures. Also printed: the server process's CPU time per request
and the SQL statements each voice action runs (tests/bench/statements.py). Loopback only,
about a minute. The SMS benchmark's figures follow (tests/bench/bench_sms.py) unless --no-sms.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from bench_sms import cpu_seconds, load, statement_counts  # beside this script
from fastapi import FastAPI, Request, Response
from live_server import Server, host_app, run_workers  # beside this script (run as a script, not a package)
from twilio.request_validator import RequestValidator

from games.up_or_down import rules as ud
from games.up_or_down.rules import Mode
from grammars.reader import to_words
from host.channels.voice.prompts import code_heard

TOKEN = "bench-auth-token"
HOST_NUMBER = "+15005550006"
ACCOUNT = "AC" + "0" * 32
BARE_TWIML = (
    '<?xml version="1.0" encoding="UTF-8"?><Response><Gather action="{url}" input="speech dtmf">'
    "<Say>ok</Say></Gather></Response>"
)


# -- the servers (child processes) ----------------------------------------------------------


def bare_app(port: int) -> FastAPI:
    app = FastAPI()

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/twilio/voice/move")
    async def move(request: Request) -> Response:
        await request.form()
        url = f"http://127.0.0.1:{port}/twilio/voice/move"
        return Response(BARE_TWIML.format(url=url), media_type="application/xml")

    return app


def serve(kind: str, port: int, db: str) -> None:
    import uvicorn

    app = host_app(db, TOKEN) if kind == "voice" else bare_app(port)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


# -- callers --------------------------------------------------------------------------------

_sids = itertools.count(1)


@dataclass
class Caller:
    number: str
    sid: str = field(default_factory=lambda: f"CA{next(_sids):032x}")
    twiml: ET.Element | None = None

    def post(self, client: httpx.Client, url: str, **extra: str) -> ET.Element:
        params = {
            "CallSid": self.sid,
            "AccountSid": ACCOUNT,
            "From": self.number,
            "To": HOST_NUMBER,
            "CallStatus": "in-progress",
            "Direction": "inbound",
            **extra,
        }
        signature = RequestValidator(TOKEN).compute_signature(url, params)
        response = client.post(url, data=params, headers={"X-Twilio-Signature": signature})
        response.raise_for_status()
        self.twiml = ET.fromstring(response.text)
        return self.twiml

    def action(self) -> str:
        assert self.twiml is not None
        gather = self.twiml.find("Gather")
        assert gather is not None, ET.tostring(self.twiml)
        return gather.get("action") or ""

    def redirect(self) -> str:
        assert self.twiml is not None
        return (self.twiml.findall("Redirect")[-1].text or "").strip()

    def heard(self) -> str:
        assert self.twiml is not None
        return " ".join(e.text or "" for e in self.twiml.iter("Say"))


@dataclass
class Game:
    callers: list[Caller]  # one: the whole table on one phone
    state: ud.State
    rng: random.Random
    waiting: bool = False  # two callers: the other one's waiting loop comes round next

    @property
    def shared(self) -> bool:
        return len(self.callers) == 1


def setup_games(base: str, count: int) -> list[Game]:
    games: list[Game] = []
    training = ud.Options(mode=Mode.TRAINING)  # games that never end on their own
    with httpx.Client(timeout=30) as client:
        for g in range(count):
            if g % 2 == 0:
                phone = Caller(f"+1555{g:07d}")
                phone.post(client, f"{base}/twilio/voice")
                phone.post(client, phone.action(), SpeechResult="this phone, training", Confidence="0.9")
                phone.post(client, phone.action(), Digits="3")
                for _ in range(3):
                    phone.post(client, phone.action())  # no name said: Player 1, 2, 3
                assert "Player one, your turn" in phone.heard(), phone.heard()
                state = ud.new_game(("Player 1", "Player 2", "Player 3"), training)
                games.append(Game([phone], state, random.Random(g)))
            else:
                ann, bob = Caller(f"+1555{g:07d}"), Caller(f"+1666{g:07d}")
                ann.post(client, f"{base}/twilio/voice")
                ann.post(client, ann.action(), SpeechResult="new training game", Confidence="0.9")
                ann.post(client, ann.action(), SpeechResult="Ann", Confidence="0.9")
                code = code_heard(ann.heard().split("Your game code is ")[1].split(".")[0], "en")
                bob.post(client, f"{base}/twilio/voice")
                bob.post(client, bob.action(), Digits="2")
                bob.post(client, bob.action(), SpeechResult="Bob", Confidence="0.9")
                bob.post(client, bob.action(), Digits=code)
                assert "You're in, Bob." in bob.heard(), bob.heard()
                ann.post(client, ann.action(), Digits="2")  # start
                assert "Ann, your turn" in ann.heard(), ann.heard()
                games.append(Game([ann, bob], ud.new_game(("Ann", "Bob"), training), random.Random(g)))
    return games


@dataclass
class Run:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: int = 0
    elapsed: float = 0.0
    cpu: float = 0.0  # the server process's CPU seconds meanwhile

    def cpu_ms(self) -> float:
        n = self.count()
        return 1000 * self.cpu / n if n else float("nan")

    def __add__(self, other: Run) -> Run:
        merged = {k: list(v) for k, v in self.latencies.items()}
        for k, v in other.latencies.items():
            merged.setdefault(k, []).extend(v)
        return Run(merged, self.errors + other.errors, self.elapsed + other.elapsed, self.cpu + other.cpu)

    def add(self, kind: str, seconds: float) -> None:
        self.latencies.setdefault(kind, []).append(seconds)

    def count(self, kind: str | None = None) -> int:
        return sum(len(v) for k, v in self.latencies.items() if kind is None or k == kind)

    def rate(self, kind: str | None = None) -> float:
        return self.count(kind) / self.elapsed if self.elapsed else 0.0

    def pct(self, p: int, kind: str | None = None) -> float:
        values = [x for k, v in self.latencies.items() if kind is None or k == kind for x in v]
        if len(values) < 2:
            return float("nan")
        return statistics.quantiles(values, n=100, method="inclusive")[p - 1] * 1000


def step(client: httpx.Client, game: Game, run: Run, lock: threading.Lock, check: bool) -> None:
    """One request for this game: the current player's move, or the other's wait loop."""
    if game.waiting:
        caller = game.callers[game.state.current]
        t0 = time.perf_counter()
        caller.post(client, caller.redirect())
        with lock:
            run.add("wait loop (two callers)", time.perf_counter() - t0)
        if check and caller.twiml is not None and caller.twiml.find("Gather") is None:
            raise AssertionError(f"no turn for {caller.number}: {caller.heard()}")
        game.waiting = False
        return
    caller = game.callers[0 if game.shared else game.state.current]
    number = game.rng.choice(ud.valid_numbers(game.state))
    action = caller.action()
    t0 = time.perf_counter()
    caller.post(client, action, SpeechResult=to_words(number), Confidence="0.95")
    kind = "move, one phone" if game.shared else "move, two callers"
    with lock:
        run.add(kind, time.perf_counter() - t0)
    game.state, _ = ud.play(game.state, number)
    if check and f"said {to_words(number)}." not in caller.heard():
        raise AssertionError(f"{number} not ruled: {caller.heard()}")
    game.waiting = not game.shared


def drive(
    base: str, games: list[Game], workers: int, seconds: float, check: bool, pid: int | None = None
) -> Run:
    run = Run()
    cpu0 = cpu_seconds(pid) if pid else 0.0
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def worker(mine: list[Game]) -> None:
        with httpx.Client(timeout=30) as client:
            for game in itertools.cycle(mine):
                if time.perf_counter() >= stop:
                    break
                try:
                    step(client, game, run, lock, check)
                except (httpx.HTTPError, AssertionError) as exc:
                    with lock:
                        run.errors += 1
                    print(f"error: {exc}", file=sys.stderr)
                    return

    run.elapsed = run_workers(worker, games, workers)
    run.cpu = cpu_seconds(pid) - cpu0 if pid else 0.0
    return run


def drive_bare(base: str, calls: int, workers: int, seconds: float, pid: int | None = None) -> Run:
    run = Run()
    cpu0 = cpu_seconds(pid) if pid else 0.0
    lock = threading.Lock()
    stop = time.perf_counter() + seconds
    url = f"{base}/twilio/voice/move"

    def worker(mine: list[Caller]) -> None:
        with httpx.Client(timeout=30) as client:
            for caller in itertools.cycle(mine):
                if time.perf_counter() >= stop:
                    break
                t0 = time.perf_counter()
                caller.post(client, url, SpeechResult="fifty three", Confidence="0.95")
                with lock:
                    run.add("bare", time.perf_counter() - t0)

    callers = [Caller(f"+1777{i:07d}") for i in range(calls)]
    run.elapsed = run_workers(worker, callers, workers)
    run.cpu = cpu_seconds(pid) - cpu0 if pid else 0.0
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=4.0, help="per round, for each server")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-sms", action="store_true", help="skip the SMS figures printed alongside")
    parser.add_argument("--serve", choices=["voice", "bare"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.port, args.db)
        return
    workers = min(args.workers, args.games)
    began = time.perf_counter()
    load_before = load()

    ours: list[Run] = []
    bare: list[Run] = []
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "bench.sqlite3")
        server, bare_server = Server(__file__, "voice", db), Server(__file__, "bare", db)
        try:
            t0 = time.perf_counter()
            games = setup_games(server.base, args.games)
            setup_seconds = time.perf_counter() - t0
            drive(server.base, games, workers, 1.0, check=True)  # warm up
            drive_bare(bare_server.base, args.games, workers, 1.0)
            for _ in range(args.rounds):
                bare.append(
                    drive_bare(bare_server.base, args.games, workers, args.seconds, bare_server.proc.pid)
                )
                ours.append(drive(server.base, games, workers, args.seconds, True, server.proc.pid))
        finally:
            server.stop()
            bare_server.stop()

    calls = sum(len(g.callers) for g in games)
    print(
        f"Voice webhook benchmark: {args.games} games ({calls} live calls), {workers} client threads,"
        f" loopback, SQLite WAL, live updates to the outbox; {args.rounds} rounds of {args.seconds:g} s"
        " each, taking turns"
    )
    print(f"machine: {load_before} before, {load()} after")
    print(f"set-up through the menus: {setup_seconds:.2f} s for {calls} calls")
    print(f"{'':28}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'cpu ms':>8}{'x req/s':>9}{'p50 x':>8}{'p99 x':>8}")
    voice, base = sum(ours, Run()), sum(bare, Run())
    base50, base99 = base.pct(50), base.pct(99)
    for i, (o, b) in enumerate(zip(ours, bare, strict=True), 1):
        print(f"{f'round {i}: bare':28}{b.rate():9.0f}{b.pct(50):9.2f}{b.pct(99):9.2f}{b.cpu_ms():8.2f}")
        print(
            f"{f'round {i}: all voice actions':28}{o.rate():9.0f}{o.pct(50):9.2f}{o.pct(99):9.2f}"
            f"{o.cpu_ms():8.2f}{o.rate() / b.rate():9.2f}{o.pct(50) / b.pct(50):8.1f}"
            f"{o.pct(99) / b.pct(99):8.1f}"
        )
    rows: list[tuple[str, Run, str | None]] = [(kind, voice, kind) for kind in sorted(voice.latencies)]
    rows += [("all rounds: all voice actions", voice, None), ("all rounds: bare", base, None)]
    for name, run, kind in rows:
        p50, p99 = run.pct(50, kind), run.pct(99, kind)
        cpu = f"{run.cpu_ms():8.2f}" if kind is None else f"{'':8}"
        print(
            f"{name:28}{run.rate(kind):9.0f}{p50:9.2f}{p99:9.2f}{cpu}{run.rate(kind) / base.rate():9.2f}"
            f"{p50 / base50:8.1f}{p99 / base99:8.1f}"
        )
    each = ", ".join(f"{o.rate() / b.rate():.2f}" for o, b in zip(ours, bare, strict=True))
    print(
        f"ratio voice/bare: throughput {voice.rate() / base.rate():.2f}x pooled (rounds {each}),"
        f" server CPU per request {voice.cpu_ms() / base.cpu_ms():.1f}x"
    )
    print(f"errors: {voice.errors}; whole run {time.perf_counter() - began:.1f} s")
    print()
    statement_counts()
    sms_bench = Path(__file__).with_name("bench_sms.py")
    if not args.no_sms and sms_bench.is_file():
        # The SMS webhook figures next to these, from their own benchmark (one round fewer).
        print()
        sys.stdout.flush()
        rounds = str(max(1, args.rounds - 1))
        cmd = [sys.executable, str(sms_bench), "--games", str(args.games), "--rounds", rounds]
        subprocess.run(cmd, check=False, timeout=180)


if __name__ == "__main__":
    main()

"""Memory with many games, and the price of a game that fell out of the table cache.

Run: python tests/bench/bench_memory.py [--sessions 100000] [--cold 300] [--long 400]

The real app in this process, on its own SQLite file, with the default settings (the
referee keeps ``GAMEHOST_TABLE_CACHE`` tables). ``--sessions`` two-player Up-or-Down games
are written straight into the database, each a copy of one game started by text (its seats
and start, members and numbers under new phone numbers); then every one of them makes one
move through the SMS channel (``SmsChannel.receive``: the webhook's whole transaction, less
HTTP). Printed: the process's resident memory idle (after a game was played, so grammars
and code paths are loaded) and after all the moves, the difference per game, and the tables
held. Then the time to rule on a game the cache has let go (its table rebuilt from the log:
a cold replay) against one still held, for games of one move and for one of ``--long``
moves, and how long the turn timer's once-a-second look at the running clocks takes with
all those games active. About two minutes.
"""

from __future__ import annotations

import argparse
import gc
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: host.* from the checkout
from games.up_or_down import rules as ud
from games.up_or_down.rules import Mode
from host.app import create_app
from host.channels.sms.channel import SmsChannel
from host.config import Settings

HOST_NUMBER = "+15005550006"


def rss_mb() -> float:
    """This process's resident set (Linux /proc), MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def settle() -> float:
    gc.collect()
    return rss_mb()


class Texts:
    def __init__(self, channel: SmsChannel) -> None:
        self.channel = channel
        self.sid = 0

    def send(self, phone: str, body: str) -> list[str]:
        self.sid += 1
        return self.channel.receive(phone, HOST_NUMBER, body, f"SM{self.sid:032x}").messages


def start_game(texts: Texts, a: str, b: str) -> str:
    code = texts.send(a, "NEW TRAINING Ann")[0].split()[1]
    texts.send(b, f"JOIN {code} Bob")
    assert texts.send(a, "START")[0].startswith("#1 New game")
    return code


def copy_games(db: Path, template: str, count: int) -> list[tuple[str, str]]:
    """``count`` copies of the started game ``template`` (its sessions, inputs, members and
    sms_numbers rows under new ids and phones), in one transaction; their phone pairs."""
    conn = sqlite3.connect(db)
    try:
        conn.row_factory = sqlite3.Row
        session = dict(conn.execute("SELECT * FROM sessions WHERE id = ?", (template,)).fetchone())
        inputs = [
            dict(r)
            for r in conn.execute("SELECT * FROM inputs WHERE session_id = ? ORDER BY seq", (template,))
        ]
        members = [dict(r) for r in conn.execute("SELECT * FROM members WHERE session_id = ?", (template,))]
        old = [m["address"] for m in sorted(members, key=lambda m: m["joined"])]
        phones = [(f"+1777{i:07d}", f"+1888{i:07d}") for i in range(count)]
        sessions, logged, seated, numbers = [], [], [], []
        for i, pair in enumerate(phones):
            sid = f"mem{i:09d}"
            sessions.append({**session, "id": sid, "code": f"m{i}"})
            for row in inputs:
                body = row["body"]
                for before, after in zip(old, pair, strict=True):
                    body = body.replace(before, after)
                logged.append({**row, "session_id": sid, "body": body})
            for m in members:
                seated.append({**m, "session_id": sid, "address": pair[old.index(m["address"])]})
            numbers.extend((phone, HOST_NUMBER, session["created"]) for phone in pair)

        def insert(table: str, rows: list[dict[str, object]]) -> None:
            cols = list(rows[0])
            conn.executemany(
                f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                [tuple(r[c] for c in cols) for r in rows],
            )

        with conn:
            insert("sessions", sessions)
            insert("inputs", logged)  # the seq trigger keeps sessions.seq as it was copied
            insert("members", seated)
            conn.executemany("INSERT INTO sms_numbers (address, host, at) VALUES (?, ?, ?)", numbers)
        return phones
    finally:
        conn.close()


def timed_move(texts: Texts, phone: str, number: int) -> float:
    t0 = time.perf_counter()
    answer = texts.send(phone, str(number))
    elapsed = time.perf_counter() - t0
    assert answer and f"said {number}." in answer[0], answer
    return elapsed * 1000


def ms(values: list[float]) -> str:
    q = statistics.quantiles(values, n=10, method="inclusive")
    return f"median {statistics.median(values):6.2f} ms, p90 {q[8]:6.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--cold", type=int, default=300, help="games timed cold, and as many warm")
    parser.add_argument("--long", type=int, default=400, help="moves in the long game replayed cold")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "memory.sqlite3"
        settings = Settings(
            db=db, twilio_auth_token=None, twilio_account_sid=None, public_url=None, validate_signatures=False
        )
        app = create_app(settings)  # no server loop: no timer or outbox thread runs meanwhile
        texts = Texts(app.state.sms)
        referee = app.state.referee
        rng = random.Random(1)

        # A long game first, so that the many after it push it out of the cache.
        long_phones = ("+15550000001", "+15550000002")
        start_game(texts, *long_phones)
        state = ud.new_game(("Ann", "Bob"), ud.Options(mode=Mode.TRAINING))
        for _ in range(args.long):
            number = rng.choice(ud.valid_numbers(state))
            texts.send(long_phones[state.current], str(number))
            state, _ = ud.play(state, number)
        template = start_game(texts, "+15550000003", "+15550000004")
        template_id = app.state.store.execute("SELECT id FROM sessions WHERE code = ?", (template,))[0]["id"]
        idle = settle()

        t0 = time.perf_counter()
        phones = copy_games(db, template_id, args.sessions)
        copied = time.perf_counter() - t0
        first = ud.new_game(("Ann", "Bob"), ud.Options(mode=Mode.TRAINING))
        opening = rng.choice(ud.valid_numbers(first))
        after, _ = ud.play(first, opening)
        t0 = time.perf_counter()
        for i, (a, _b) in enumerate(phones):
            texts.send(a, str(opening))
            if i % 20_000 == 19_999:
                print(f"  {i + 1:,} games moved, {rss_mb() - idle:6.1f} MB above idle", flush=True)
        moved = time.perf_counter() - t0
        full = settle()
        held = len(referee._cache)

        # Cold: the first games moved are long gone from the cache; warm: the last ones.
        second = rng.choice(ud.valid_numbers(after))
        cold = [timed_move(texts, b, second) for _a, b in phones[: args.cold]]
        warm = [timed_move(texts, b, second) for _a, b in phones[-args.cold :]]
        long_cold = timed_move(texts, long_phones[state.current], rng.choice(ud.valid_numbers(state)))
        timer = app.state.turn_timer
        ticks = []
        for _ in range(3):
            t0 = time.perf_counter()
            timer.tick()
            ticks.append((time.perf_counter() - t0) * 1000)
        # The read alone when every game's turn is half gone (the tick would then remind all).
        t0 = time.perf_counter()
        due = len(app.state.store.running_clocks(time.time() + (settings.sms_turn_timeout or 0), ()))
        all_due = (time.perf_counter() - t0) * 1000
        app.state.store.close()

    per_game = (full - idle) * 1024 * 1024 / args.sessions
    print(
        f"Memory: {args.sessions:,} two-player SMS games, one move each, through SmsChannel.receive"
        f" (SQLite); GAMEHOST_TABLE_CACHE {settings.table_cache:,}"
    )
    print(
        f"copied {args.sessions:,} started games in {copied:.1f} s; moved each once in {moved:.0f} s"
        f" ({1000 * moved / args.sessions:.2f} ms a move)"
    )
    print(f"RSS idle (a game played)       {idle:8.1f} MB")
    print(f"RSS after the moves            {full:8.1f} MB")
    print(
        f"above idle                     {full - idle:8.1f} MB   (goal <= 150 MB)"
        f"  = {per_game:,.0f} bytes a game; tables held {held:,}"
    )
    print(f"a move on a game in the cache  {ms(warm)}")
    ratio = statistics.median(cold) / statistics.median(warm)
    print(f"a move on a game let go (cold) {ms(cold)}  ({ratio:.1f}x warm)")
    print(f"a move on a {args.long}-move game let go: {long_cold:.2f} ms")
    each = ", ".join(f"{t:.1f}" for t in ticks)
    print(f"turn timer tick over {args.sessions:,} active games, none due: {each} ms")
    print(f"its read when all {due:,} are due (half their turn gone): {all_due:.0f} ms")


if __name__ == "__main__":
    main()

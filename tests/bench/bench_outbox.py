"""The outbox against a slow Twilio: messages a second per process, sent in parallel with a
bound (GAMEHOST_OUTBOX_CONCURRENCY) against one REST call at a time (the old sender).

Run: python tests/bench/bench_outbox.py [--delay 1.0] [--seconds 12] [--bounds 1,8,32]

A local stand-in for Twilio's API (tests/twilio_helpers.py FakeTwilio, the real SDK talking
to it) takes each message and answers it ``--delay`` seconds later. For each bound, enough
texts to distinct numbers for about ``--seconds`` of sending are written to a fresh outbox
(SQLite, as one server process has it) and the real sender (``Outbound.start``) sends
them; the run ends when every row is ``sent``. Bound 1 is the old sender. Every row must
reach Twilio exactly once. Prints messages/s per bound and each one's ratio to bound 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: tests.* from the checkout
from host.outbound import Outbound
from host.store import Store
from tests.twilio_helpers import FakeTwilio, make_settings


def measure(fake: FakeTwilio, folder: Path, bound: int, rows: int, delay: float) -> tuple[float, int]:
    """(messages a second, rows not sent exactly once) for one bound."""
    settings = make_settings(
        folder / f"outbox-{bound}.sqlite3",
        fake,
        outbox_concurrency=bound,
        twilio_timeout=max(10.0, delay * 4),
    )
    out = Outbound(settings, Store(settings.database))
    before = len(fake.messages)
    for n in range(rows):
        out.send_sms(f"+1555{bound:03d}{n:04d}", f"bench {bound} #{n}")
    started = time.perf_counter()
    out.start(poll=0.05)
    deadline = started + rows * delay + 60  # bounded even if something is wrong
    try:
        while time.perf_counter() < deadline:
            left = out.store.execute("SELECT COUNT(*) AS n FROM outbox WHERE status != 'sent'")[0]["n"]
            if left == 0:
                break
            time.sleep(0.02)
        elapsed = time.perf_counter() - started
    finally:
        out.stop()
        out.store.close()
    taken = Counter(m["Body"] for m in fake.messages[before:])
    wrong = sum(1 for n in range(rows) if taken[f"bench {bound} #{n}"] != 1)
    return rows / elapsed, wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=1.0, help="seconds Twilio takes to answer")
    parser.add_argument("--seconds", type=float, default=12.0, help="about this long per bound")
    parser.add_argument("--bounds", default="1,8,32", help="GAMEHOST_OUTBOX_CONCURRENCY values (1 first)")
    args = parser.parse_args()
    bounds = [int(b) for b in args.bounds.split(",")]
    results: dict[int, tuple[float, int]] = {}
    with FakeTwilio() as fake, tempfile.TemporaryDirectory() as tmp:
        fake.answer_after = args.delay
        for bound in bounds:
            rows = max(bound, round(bound * args.seconds / args.delay))
            results[bound] = measure(fake, Path(tmp), bound, rows, args.delay)
    base = results[bounds[0]][0]
    print(f"Outbox against a Twilio answering in {args.delay:g} s (one process, SQLite):")
    print(f"{'bound':>6}{'msg/s':>9}{'ratio':>8}{'not once':>10}")
    for bound, (rate, wrong) in results.items():
        print(f"{bound:6d}{rate:9.2f}{rate / base:7.1f}x{wrong:10d}")
    print(json.dumps({str(b): round(r, 2) for b, (r, _) in results.items()}))
    if any(wrong for _, wrong in results.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()

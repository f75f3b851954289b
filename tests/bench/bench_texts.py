"""Texts out per text in, worst cases, before and after the text budgets (issue 43 item 7).

Run: python tests/bench/bench_texts.py

The scenarios of ``toll.py`` (issue 43), in-process: signed SMS webhooks (the SDK's
RequestValidator) against the app on a SQLite file with no Twilio credentials, so the
others' texts land in the local outbox and are counted there; the sender's own are the
TwiML ``<Message>``s. Each scenario runs with the budgets off ("before") and at their
defaults (``host/config.py``, "after"). A flood comes in within one minute of the host's
clock; "paced" moves the clock 5 s per text, as people text, to show a game is not held
up. Printed per scenario: texts in, texts out, the most out for one text in, and out per in.
"""

from __future__ import annotations

import logging
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: tests.* from the checkout
from host.config import Settings
from tests.clock import Clock
from tests.sms.conftest import Sms, build

log = logging.getLogger("bench_texts")
OFF = {"sms_budget_per_number": 0, "sms_budget_per_game": 0, "sms_budget_per_hour": 0}


@dataclass
class Tally:
    host: Sms
    pace: float = 0.0
    texts_in: int = 0
    texts_out: int = 0
    most: int = 0

    def _outbox(self) -> int:
        rows = self.host.app.state.store.execute("SELECT COUNT(*) AS n FROM outbox WHERE kind = 'sms'")
        return int(rows[0]["n"])

    def text(self, phone: str, body: str) -> list[str]:
        before = self._outbox()
        said = self.host.text(phone, body)
        out = len(said) + self._outbox() - before
        self.texts_in += 1
        self.texts_out += out
        self.most = max(self.most, out)
        self.host.clock.advance(self.pace)
        return said


def rules_flood(t: Tally) -> None:
    for _ in range(100):
        t.text("+15559990101", "RULES")


def new_flood(t: Tally) -> None:
    for i in range(200):
        t.text(f"+1555998{i:04d}", "NEW Mal")


def ten_phones(t: Tally) -> None:
    """Up-or-Down with 10 phones: joins, two phones leaving and joining 10 times, the
    start, a move, a mistake, finish and a new game (the most texts one text makes)."""
    phones = [f"+155599700{i:02d}" for i in range(10)]
    code = re.findall(r"\b\d{6}\b", " ".join(t.text(phones[0], "NEW P0")))[0]
    for i, phone in enumerate(phones[1:], 1):
        t.text(phone, f"JOIN {code} Player{i}xxxxx")
    for _ in range(10):
        for phone in phones[8:]:
            t.text(phone, "LEAVE")
            t.text(phone, f"JOIN {code}")
    t.text(phones[0], "START")
    t.text(phones[0], "50")
    t.text(phones[1], "49")
    t.text(phones[2], "finish")
    t.text(phones[3], "new game")


def blofa_echo(t: Tally) -> None:
    phones = [f"+155599600{i:02d}" for i in range(4)]
    code = re.findall(r"\b\d{6}\b", " ".join(t.text(phones[0], "NEW BLOFA Ann")))[0]
    for i, phone in enumerate(phones[1:], 1):
        t.text(phone, f"JOIN {code} P{i}")
    t.text(phones[0], "START")
    for _ in range(20):
        t.text(phones[0], "hmm " + " ".join(["blah"] * 319))


SCENARIOS: list[tuple[str, Callable[[Tally], None], float]] = [
    ("100 x RULES from one number", rules_flood, 0.0),
    ("NEW from 200 numbers", new_flood, 0.0),
    ("10 phones, joins/leaves/finish/new game", ten_phones, 0.0),
    ("10 phones as above, paced 5 s a text", ten_phones, 5.0),
    ("Blofa: 20 x a 1600-character text", blofa_echo, 0.0),
]


def run(limits: dict[str, int], scenario: Callable[[Tally], None], pace: float) -> Tally:
    with tempfile.TemporaryDirectory() as folder:
        host = build(Path(folder), None, Clock(), **limits)
        try:
            tally = Tally(host, pace)
            scenario(tally)
            return tally
        finally:
            host.app.state.store.close()


def main() -> None:
    logging.basicConfig(level=logging.ERROR)
    defaults = {k: Settings.model_fields[k].default for k in OFF}
    print("budgets after:", ", ".join(f"{k.removeprefix('sms_budget_')}={v}" for k, v in defaults.items()))
    print(f"{'scenario':44} {'':6} {'in':>5} {'out':>5} {'most':>5} {'out/in':>7}")
    for name, scenario, pace in SCENARIOS:
        for label, limits in (("before", OFF), ("after", defaults)):
            t = run(limits, scenario, pace)
            ratio = t.texts_out / t.texts_in
            print(f"{name:44} {label:6} {t.texts_in:5} {t.texts_out:5} {t.most:5} {ratio:7.2f}")


if __name__ == "__main__":
    main()

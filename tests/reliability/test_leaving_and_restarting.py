"""Issue 12, rules holes: who may end or restart a game, and who is seated in the next one.

Decisions: a player who leaves (a move while their game runs, or LEAVE after it) leaves the
table, so the next game neither seats nor waits on them; the next game's opener is the
tournament winner, or, if they left, the next player round the table who is still there;
"finish" is for players still in the game (an eliminated player watches); "new game" after
the end is anyone's at the table.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from host.referee import Referee
from host.session import SessionConfig
from host.store import Store
from tests.clock import Clock
from tests.sms.conftest import Sms

SCRIPT = "Ann: 53\nBob: 41\nCy: 40\nAnn: 41\nCy: leave\nnew game\n"


def gamehost(db: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "host.cli", "play", "up-or-down", "--db", str(db), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_new_game_after_the_winner_left_starts_without_them(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    done = gamehost(db, "--players", "Ann,Bob,Cy", stdin=SCRIPT)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    lines = done.stdout.splitlines()
    assert "Cy wins! Cy opens the next game: say new game." in lines
    assert lines[-2:] == ["New game: Ann, Bob.", "Ann: any number from 1 to 100."]
    session = done.stderr.split()[1]
    resumed = gamehost(db, "--resume", session, stdin="Ann: 12\n")
    assert resumed.returncode == 0 and "Traceback" not in resumed.stderr, resumed.stderr
    assert resumed.stdout.splitlines()[-2:] == [
        "Ann said 12.",
        "Bob: an even number above 12 or an odd number below 12.",
    ]


def test_an_eliminated_player_cannot_end_the_tournament() -> None:
    referee = Referee(Store(":memory:"), Clock())
    sid = referee.create(SessionConfig(), ["Ann", "Bob", "Cy"])
    referee.handle(sid, "53", "Ann")
    assert referee.handle(sid, "41", "Bob").news[0] == (
        "Bob said 41. Wrong: 41 is odd, so it must be above 53. Bob is out."
    )
    refused = referee.handle(sid, "finish", "Bob")
    assert not refused.accepted and refused.private == ["Bob is not playing in this game."]
    assert referee.table(sid).running
    ended = referee.handle(sid, "finish", "Cy")
    assert ended.accepted and not referee.table(sid).running


def test_a_player_who_left_by_text_is_not_seated_again(sms: Sms) -> None:
    ann, bob, cy = sms.new_game(3)
    sms.text(ann, "53")
    sms.text(bob, "41")  # out
    sms.text(cy, "40")
    sms.text(ann, "41")  # out: Cy wins
    assert sms.text(cy, "LEAVE")[0].startswith("You left the game.")
    started = sms.text(ann, "NEW")
    assert "New game: Ann, Bob." in started[0], started
    table = sms.table(ann)
    assert table.names == ("Ann", "Bob") and table.running and table.current_player == "Ann"

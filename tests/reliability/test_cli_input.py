"""Issue 12, item 11 (the command line): bad input gets a clear message and exit 2, never a
traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["up-or-down", "--players", "Ann,Bob", "--range", "junk"], "--range must look like 1-100"),
        (["up-or-down", "--players", "Ann,Bob", "--range", "1-99999999999999999999999"], "--range"),
        (["up-or-down", "--players", "Ann,Bob", "--opt", "rounds=x"], "rounds"),
        (["inversion"], "needs its players"),
        (["inversion", "--players", "Ann,Bob", "--opt", "revoke_penalty=never"], "revoke_penalty"),
        (["chess", "--players", "Ann,Bob"], "unknown game 'chess'; known games:"),
    ],
)
def test_bad_command_lines_exit_2_with_a_message(tmp_path: Path, args: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "host.cli", "play", *args, "--db", str(tmp_path / "g.sqlite3")],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr

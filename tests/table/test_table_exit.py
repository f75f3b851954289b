"""`gamehost table` ends cleanly, announcements spoken or not, at the end of the audio and on
Ctrl-C: real processes, real Piper speech, the way a user runs it.

The spoken path used to end with exit code 134 and "terminate called without an active
exception": the thread preparing announcements was still inside Piper (onnxruntime) when
the interpreter exited. With no sound card the host still prepares and synthesises (it
learns there is no card on the first announcement), so the path runs here too; an ALSA
"null" card (through a ~/.asoundrc in a temporary HOME) stands for a sound card that
plays, without a sound in the room.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from host.speech.audio import read_wav, write_wav
from tests.speech.conftest import silence
from tests.table.test_english_table import piper

_BIN = Path(sys.executable).parent / "gamehost"
GAMEHOST = [str(_BIN)] if _BIN.exists() else [sys.executable, "-m", "host"]
# What a native abort leaves on the terminal (the backtrace comes from ggml's handler).
CRASH_SIGNS = ("terminate called", "Traceback", "[New LWP", "Aborted")
TIMEOUT_S = 240


def _env(home: Path | None) -> dict[str, str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if home is not None:
        env["HOME"] = str(home)
    return env


@pytest.fixture(scope="module")
def null_card(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A HOME whose ALSA default device is the null plugin: a card that plays into nothing."""
    home = tmp_path_factory.mktemp("home")
    (home / ".asoundrc").write_text("pcm.!default { type null }\nctl.!default { type hw card 0 }\n")
    probe = "import sounddevice as sd; sd.query_devices(kind='output')"
    if subprocess.run([sys.executable, "-c", probe], env=_env(home), capture_output=True).returncode != 0:
        pytest.skip("PortAudio sees no ALSA null device here")
    return home


def _has_output_device() -> bool:
    probe = "import sounddevice as sd; sd.query_devices(kind='output')"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def game_wav(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Room after each move for the host's answer: with a card, the input heard while it
    # speaks is dropped (see host/channels/table/runner.py).
    path = tmp_path_factory.mktemp("exit") / "game.wav"
    write_wav(path, silence(3.5) + piper("fifty three") + silence(7.0) + piper("forty") + silence(7.0))
    return path


# A process started in the background by a non-interactive shell (as `cmd &` in a script
# running the suite) has SIGINT ignored, and its children inherit that: Ctrl-C would never
# reach the host. A user's Ctrl-C comes to a process in the foreground: SIGINT as default.
FOREGROUND = [sys.executable, "-c", "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
              "os.execv(sys.argv[1], sys.argv[1:])"]  # fmt: skip


def table(wav: Path, db: Path, *args: str, home: Path | None = None) -> subprocess.Popen[str]:
    command = [*GAMEHOST, "table", "up-or-down", "--players", "Ann,Bob,Cy", "--audio", str(wav)]
    return subprocess.Popen(
        [*FOREGROUND, *command, "--db", str(db), "--json", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(home),
    )


def moves(stdout: str) -> list[tuple[str, int]]:
    events = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    return [(e["player"], e["number"]) for e in events if e["type"] == "move"]


def assert_clean(code: int, stdout: str, stderr: str) -> None:
    assert code == 0, stderr
    for sign in CRASH_SIGNS:
        assert sign not in stdout and sign not in stderr, (sign, stdout, stderr)


@pytest.mark.parametrize("how", ["spoken, no sound card", "spoken, a sound card", "--quiet"])
def test_a_table_game_ends_with_exit_code_0(
    tmp_path: Path, game_wav: Path, how: str, request: pytest.FixtureRequest
) -> None:
    args: Sequence[str] = ("--quiet",) if how == "--quiet" else ()
    home = request.getfixturevalue("null_card") if how == "spoken, a sound card" else None
    if how == "spoken, no sound card" and _has_output_device():
        pytest.skip("this machine has a sound card (the null card case covers playing)")
    process = table(game_wav, tmp_path / "t.db", *args, home=home)
    stdout, stderr = process.communicate(timeout=TIMEOUT_S)
    assert_clean(process.returncode, stdout, stderr)
    assert moves(stdout) == [("Ann", 53), ("Bob", 40)]
    if how == "spoken, no sound card":
        # said once, before anything is synthesised; the game goes on in print
        assert stderr.count("no sound card to speak through") == 1, stderr


def test_ctrl_c_in_the_middle_of_the_audio_ends_with_exit_code_0(
    tmp_path: Path, game_wav: Path, null_card: Path
) -> None:
    # Minutes of room after the moves: the process is still reading when Ctrl-C comes,
    # right after the first ruling (announcements still being prepared then).
    long = tmp_path / "long.wav"
    write_wav(long, read_wav(game_wav)[0] + silence(300.0))
    process = table(long, tmp_path / "t.db", home=null_card)
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if '"type": "move"' in line:
            break
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=TIMEOUT_S)
    assert_clean(process.returncode, "".join(lines) + stdout, stderr)
    # A second move after the signal means the run went on to the end of the audio.
    assert "Stopped. Session" in stderr, (moves(stdout), stderr)
    assert moves("".join(lines)) == [("Ann", 53)]


@pytest.mark.parametrize("rate", [16000, 8000], ids=["table", "phone call"])
def test_exit_while_announcements_are_being_prepared(rate: int) -> None:
    # The hazard itself: the interpreter exits while the preparing thread is in Piper. A
    # Media Stream call prepares at 8 kHz (StreamSession.start) and `serve` exits the same
    # way when stopped.
    script = (
        "import time\n"
        "from host.speech import tts\n"
        f"tts.prepare_in_background('en', {rate})\n"
        "while not tts._cache:\n"
        "    time.sleep(0.01)\n"  # the first announcement is made: the next is under way
        "print('exiting', flush=True)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=TIMEOUT_S, env=_env(None)
    )
    assert_clean(result.returncode, result.stdout, result.stderr)
    assert result.stdout == "exiting\n"

"""The README's first screen: the two commands, then a "Try it" that works as a newcomer types
it (its ``curl`` lines posted to a real development-mode ``gamehost serve`` on a fresh
database, the outbox, the page, twice; its recording played at a table), before any
architecture; and no document calls a shipped part "in progress"."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import httpx

from tests.servers import free_port, stop, wait_healthy
from tests.timeouts import stretch

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_opens_with_the_two_commands_then_try_it() -> None:
    blocks = re.findall(r"```bash\n(.*?)```", README, re.S)
    assert blocks[0].strip().endswith(".venv/bin/gamehost serve") and "GAMEHOST_MODE=development" in blocks[0]
    assert blocks[1].strip() == "bash scripts/test"
    headings = re.findall(r"^## (.+)$", README, re.M)
    assert headings[0] == "Try it"
    assert headings.index("Architecture") > headings.index("The table on a screen")
    assert README.index("**A game is a folder.**") > README.index("## Architecture")
    assert README.splitlines().index("## Try it") < 30  # right after the commands, not 569 lines on


def try_it() -> str:
    return README[README.index("## Try it") : README.index("gamehost is a referee you can talk to")]


def bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, re.S)


class Newcomer:
    """A shell in a fresh account, as far as gamehost can tell: no GAMEHOST_ or TWILIO_
    settings and a user data directory of its own (the default database is there), typing
    the README's lines in this checkout. Only the port is another: 8000 may be taken."""

    def __init__(self, tmp_path: Path) -> None:
        self.port = free_port()
        self.home = tmp_path
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("GAMEHOST_", "TWILIO_"))}
        self.env["XDG_DATA_HOME"] = str(tmp_path / "data")
        gamehost = ROOT / ".venv" / "bin" / "gamehost"
        self.gamehost = str(gamehost) if gamehost.exists() else f"{sys.executable} -m host.cli"

    def typed(self, line: str) -> str:
        """A line as the README has it, with this port and this checkout's gamehost."""
        line = line.replace("127.0.0.1:8000", f"127.0.0.1:{self.port}")
        return line.replace(".venv/bin/gamehost", self.gamehost)

    def run(self, *lines: str, cwd: Path = ROOT) -> str:
        script = "\n".join(self.typed(line) for line in lines)
        done = subprocess.run(
            ["bash", "-c", script],
            cwd=cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120 * stretch(),
        )
        assert done.returncode == 0, f"{script}\n{done.stdout}{done.stderr}"
        return done.stdout

    def serve(self, command: str) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            ["bash", "-c", f"exec env {self.typed(command)} --port {self.port}"],  # env: VAR=value cmd
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        wait_healthy(f"http://127.0.0.1:{self.port}", proc, 60, "gamehost serve")
        return proc


def answers(twiml: str) -> list[str]:
    root = ElementTree.fromstring(twiml)
    assert root.tag == "Response", twiml
    return [message.text or "" for message in root.iter("Message")]


def as_commented(comment: str, code: str) -> re.Pattern[str]:
    """The answer a line's comment quotes ("Game 684527 is ready ..."), with this game's code."""
    quoted = comment.replace("684527", code)
    return re.compile(".*?".join(re.escape(part) for part in quoted.split("...")))


def test_try_it_as_a_newcomer_types_it_twice(tmp_path: Path) -> None:
    """The first command's server, in development mode on a fresh database, and the texts of
    "Try it" posted by curl as written; then the outbox; the page; then all of it again after
    the README's way to start clean (the second time once answered "You are in game ...")."""
    first = bash_blocks(README)[0].strip().split("&&")[-1].strip()
    assert first == "GAMEHOST_MODE=development .venv/bin/gamehost serve"
    block = bash_blocks(try_it())[0].strip().splitlines()
    define = next(line for line in block if line.startswith("sms()"))
    texts = [line for line in block if line.startswith("sms +")]
    assert [shlex.split(line.split("#")[0])[2] for line in texts] == [
        "NEW Ann",
        "JOIN 684 527 Bob",
        "START",
        "53",
    ]
    outbox = next(line for line in block if "gamehost outbox" in line).split("#")[0]
    clean = re.search(r"\(`(sms \+15550001 LEAVE; sms \+15550002 LEAVE)`\)", try_it())
    assert clean, "Try it says how to start clean"
    newcomer = Newcomer(tmp_path)
    server = newcomer.serve(first)
    try:
        for walk in ("first", "again"):
            if walk == "again":
                newcomer.run(define, clean[1])
            code = ""
            for line in texts:
                said, _, comment = line.partition("#")
                said = said.replace("684 527", f"{code[:3]} {code[3:]}")
                answer = " ".join(answers(newcomer.run(define, said)))
                code = code or re.search(r"Game (\d{6}) is ready", answer)[1]  # type: ignore[index]
                quoted = re.fullmatch(r'\s*"(.*)"\s*', comment)
                if quoted:
                    assert as_commented(quoted[1], code).match(answer), f"{walk}: {said} -> {answer}"
            assert answer == "#2 Ann said 53. Bob: an odd number above 53 or an even number below 53."
            stored = " ".join(newcomer.run(outbox).split())
            assert "sms to Bob (+15550002) stored (no Twilio credentials)" in stored, stored
            assert "said: #2 Ann said 53." in stored
            page = httpx.get(f"http://127.0.0.1:{newcomer.port}/t/{code}", timeout=10)
            assert page.status_code == 200 and "Ann said 53." in page.text
            # "Text 40 from Bob's number and watch it change."
            assert "Bob said 40." in " ".join(answers(newcomer.run(define, "sms +15550002 '40'")))
            assert "Bob said 40." in httpx.get(f"http://127.0.0.1:{newcomer.port}/t/{code}", timeout=10).text
    finally:
        stop(server)


def test_try_it_at_a_table_from_a_recording(tmp_path: Path) -> None:
    """The recording lines of "Try it", typed in an empty folder: it prints each ruling."""
    block = bash_blocks(try_it())[1].strip().splitlines()
    assert block[0].startswith("espeak-ng") and block[-1].endswith("--quiet")
    printed = Newcomer(tmp_path).run(*block, cwd=tmp_path)
    assert "Ann said 53." in printed and "Bob said 40." in printed


def test_no_document_calls_a_shipped_part_in_progress() -> None:
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = " ".join(doc.read_text(encoding="utf-8").split())
        assert "(in progress)" not in text, doc.name

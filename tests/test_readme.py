"""The README's first screen: the two commands, then a "Try it" whose texts work as written
(posted unsigned to a development-mode host, as its ``curl`` lines do), before any
architecture; and no document calls a shipped part "in progress"."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from fastapi.testclient import TestClient

from host.app import create_app
from host.config import Settings
from host.store import Store
from tests.sms.conftest import messages_of

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


def test_the_try_it_texts_play_a_game(tmp_path: Path) -> None:
    block = README[README.index("## Try it") :]
    block = re.search(r"```bash\n(.*?)```", block, re.S)[1]  # type: ignore[index]
    texts = [shlex.split(line.split("#")[0])[1:] for line in block.splitlines() if line.startswith("sms +")]
    assert [body for _, body in texts] == ["NEW Ann", "JOIN 684 527 Bob", "START", "53"]
    settings = Settings(db=tmp_path / "try.sqlite3", database_url=None, mode="development")
    app = create_app(settings, Store(settings.database))
    client = TestClient(app)
    code = ""
    answers = []
    for phone, body in texts:
        body = body.replace("684 527", f"{code[:3]} {code[3:]}")
        answer = messages_of(client.post("/twilio/sms", data={"From": phone, "Body": body}))
        answers.append(answer)
        code = code or re.search(r"Game (\d{6}) is ready", answer[0])[1]  # type: ignore[index]
    assert answers[-1] == ["#2 Ann said 53. Bob: an odd number above 53 or an even number below 53."]
    page = client.get(f"/t/{code}")
    assert page.status_code == 200 and "Ann said 53." in page.text
    app.state.store.close()


def test_no_document_calls_a_shipped_part_in_progress() -> None:
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = " ".join(doc.read_text(encoding="utf-8").split())
        assert "(in progress)" not in text, doc.name

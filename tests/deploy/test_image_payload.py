"""What the image installs is enough for ``serve``, checked without a Docker engine.

The Dockerfile's build stage copies a few paths and ``pip install``s them (a wheel, not the
editable install the tests otherwise use). Here exactly those paths are copied, built into a
wheel, unpacked, and ``gamehost serve`` is run from it outside the repository: its pages,
static files, grammars and game data must all be in the wheel for /, /static, a signed SMS
and the table page to work.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import httpx

from tests.servers import free_port, stop, wait_healthy
from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, sign

ROOT = Path(__file__).resolve().parents[2]


def build_stage_copies() -> list[str]:
    """The repository paths the Dockerfile's first (build) stage copies."""
    lines = (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("FROM ")]
    sources: list[str] = []
    for line in lines[starts[0] : starts[1]]:
        if line.startswith("COPY ") and "--from=" not in line:
            sources += line.split()[1:-1]
    return sources


def test_the_wheel_the_image_installs_serves(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    sources = build_stage_copies()
    assert {"pyproject.toml", "host", "games", "grammars"} <= set(sources)
    for source in sources:
        if (ROOT / source).is_dir():
            shutil.copytree(ROOT / source, src / source, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(ROOT / source, src / source)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(src), "-w", str(tmp_path / "wheel")],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (tmp_path / "wheel").glob("gamehost-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        archive.extractall(site)
    assert not [n for n in names if n.startswith("tests/") or n.endswith((".sqlite3", ".env"))]
    data = [p for d in ("games", "grammars") for p in (ROOT / d).rglob("*.yaml")]  # languages, decks
    missing = {p.relative_to(ROOT).as_posix() for p in data} - set(names)
    assert data and not missing, sorted(missing)

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GAMEHOST_", "TWILIO_"))}
    env.update(
        PYTHONPATH=str(site),  # ahead of the editable install of this checkout
        GAMEHOST_DB=str(tmp_path / "gamehost.sqlite3"),
        GAMEHOST_PUBLIC_URL=base,
        GAMEHOST_TWILIO_API_BASE="http://127.0.0.1:9",  # nothing is sent in this test
        TWILIO_ACCOUNT_SID=TEST_ACCOUNT_SID,
        TWILIO_AUTH_TOKEN=TEST_AUTH_TOKEN,
    )
    where = subprocess.run(
        [sys.executable, "-c", "import host; print(host.__file__)"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.strip().startswith(str(site)), where.stdout

    log = (tmp_path / "serve.log").open("wb")
    serve = [sys.executable, "-m", "host", "serve", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(serve, env=env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_healthy(base, proc, 60, "serve from the wheel", tmp_path / "serve.log")
        with httpx.Client(base_url=base, timeout=10) as client:
            assert client.get("/").status_code == 200  # templates
            assert client.get("/static/web/table.css").status_code == 200  # static files
            params = {
                "From": "+15550000001",
                "To": "+15559990000",
                "Body": "NEW",
                "MessageSid": "SM" + "2" * 32,
                "AccountSid": TEST_ACCOUNT_SID,
            }
            headers = {"X-Twilio-Signature": sign(base + "/twilio/sms", params)}
            answer = client.post("/twilio/sms", data=params, headers=headers)  # grammars, games
            found = re.search(r"Game (\d{6}) is ready", answer.text)
            assert answer.status_code == 200 and found, answer.text
            assert client.get(f"/t/{found.group(1)}").status_code == 200
    finally:
        stop(proc)
        log.close()

"""The documents say what the host does (issue 42): who may play each game, stated once and
refused beyond it at the terminal; what a call in a language without its own spoken words
sounds like; what production `serve` needs; which recogniser the table uses."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from games.base import GameSpec, all_games
from host.channels.voice.steps import MAX_ROOM, MIN_ROOM
from host.cli import app
from host.cli.options import seats_text
from host.config import Settings
from tests.voice.conftest import build, says

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
runner = CliRunner()


def doc(name: str) -> str:
    return " ".join((ROOT / "docs" / name).read_text(encoding="utf-8").split())


def test_every_game_has_one_player_limit_and_the_readme_states_it() -> None:
    rows = dict(re.findall(r"^\| `([a-z-]+)`[^|]*\| ([^|]+) \|", README, re.M))
    for spec in all_games():
        assert spec.max_players is not None, f"{spec.name} seats any number: one limit per game"
        assert rows[spec.name].strip() == seats_text(spec), spec.name
    assert "2+" not in README


@pytest.mark.parametrize("spec", all_games(), ids=lambda s: s.name)
def test_the_terminal_seats_no_more_than_the_game(tmp_path: Path, spec: GameSpec[Any, Any, Any]) -> None:
    assert spec.max_players is not None
    names = ",".join(f"P{i}" for i in range(spec.max_players + 1))
    result = runner.invoke(app, ["play", spec.name, "--players", names, "--db", str(tmp_path / "g.db")])
    assert result.exit_code == 2
    seats = seats_text(spec).replace("-", " to ")
    said = " ".join(result.stderr.split())
    assert f"--players: {spec.name} seats {seats} players, not {spec.max_players + 1}" in said, said


def test_the_channels_caps_are_stated_where_the_channels_are() -> None:
    assert f"how many are in the room ({MIN_ROOM} to {MAX_ROOM})" in doc("voice.md")
    start = next(line for line in doc("sms.md").split("|") if "the creator begins the game" in line)
    assert not re.search(r"\d", start), start  # the game's limit, not restated here


def test_production_serve_needs_what_the_docs_say(tmp_path: Path) -> None:
    problem = Settings(
        db=tmp_path / "g.db", _env_file=None, twilio_auth_token=None, public_url=None
    ).serve_problem()
    assert problem is not None
    needed = set(re.findall(r"\b(TWILIO_AUTH_TOKEN|GAMEHOST_PUBLIC_URL) is not set", problem))
    assert needed == {"TWILIO_AUTH_TOKEN", "GAMEHOST_PUBLIC_URL"}
    for text in (doc("sms.md"), " ".join(README.split())):
        for said in re.findall(r"refuses to start without (.+?)[.;(]", text):
            assert set(re.findall(r"`([A-Z_]+)`", said)) == needed, said


def test_a_korean_call_is_described_as_it_sounds(tmp_path: Path) -> None:
    host = build(tmp_path, None, lang="ko")
    try:
        twiml = host.phone("+15550001").call()
    finally:
        host.app.state.store.close()
    heard = says(twiml)
    voice = {(e.get("language"), e.get("voice")) for e in twiml.iter("Say")}
    text = " ".join(doc("voice.md").split())
    opening = re.search(r'A Korean caller, for example: "([^"]+?)(?: \.\.\.)?"', text)
    assert opening is not None and opening[1] in heard, heard
    assert not re.search(r"[A-Za-z]", heard)  # Korean throughout: no English words
    assert voice == {("ko-KR", "Polly.Seoyeon")} and "Polly.Seoyeon" in text
    assert "speaks the English wording" not in text and "but a mix" not in text


def test_the_table_is_said_to_hear_english_with_pocketsphinx() -> None:
    intro = " ".join(README[: README.index("## Games")].split())
    assert "offline speech recognition with Vosk)" not in intro
    assert "pocketsphinx" in intro

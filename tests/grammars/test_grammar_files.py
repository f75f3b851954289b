"""Every grammar folder loads, and its test file says what the parser must make of it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from grammars import ROOT, GrammarError, languages, load, pronunciations
from grammars.reader import parse

CASES = [
    (lang, case)
    for lang in languages()
    for case in yaml.safe_load((ROOT / lang / "tests.yaml").read_text(encoding="utf-8"))
]


def test_english_is_there() -> None:
    assert "en" in languages()


@pytest.mark.parametrize("lang", languages())
def test_grammar_loads(lang: str) -> None:
    g = load(lang)
    assert g.commands["help"] and g.phrases["not_understood"]


@pytest.mark.parametrize(("lang", "case"), CASES, ids=[f"{lang}:{c['text']}" for lang, c in CASES])
def test_sentence(lang: str, case: dict[str, object]) -> None:
    u = parse(str(case["text"]), lang)
    if "numbers" in case:
        assert list(u.numbers) == case["numbers"]
    if "command" in case:
        assert u.commands[:1] == (case["command"],)


def _copy_en(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "en", tmp_path / "en")
    return tmp_path


def test_a_wrong_value_is_reported_with_file_and_line(tmp_path: Path) -> None:
    root = _copy_en(tmp_path)
    numbers = root / "en" / "numbers.yaml"
    lines = numbers.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip() == "seven: 7")
    lines[at] = "  seven: seven"
    numbers.write_text("\n".join(lines) + "\n")
    with pytest.raises(GrammarError, match=rf"numbers\.yaml:{at + 1}: units\.seven"):
        load("en", root)


def test_broken_yaml_is_reported_with_file_and_line(tmp_path: Path) -> None:
    root = _copy_en(tmp_path)
    commands = root / "en" / "commands.yaml"
    commands.write_text(commands.read_text() + "help: [unclosed\n")
    with pytest.raises(GrammarError, match=r"commands\.yaml:\d+"):
        load("en", root)


def test_a_yaml_boolean_key_is_caught(tmp_path: Path) -> None:
    root = _copy_en(tmp_path)
    commands = root / "en" / "commands.yaml"
    commands.write_text(commands.read_text() + "maybe: [yes]\n")
    with pytest.raises(GrammarError, match=r"commands\.yaml:\d+: maybe"):
        load("en", root)


def test_a_missing_command_is_named(tmp_path: Path) -> None:
    root = _copy_en(tmp_path)
    commands = root / "en" / "commands.yaml"
    kept = [line for line in commands.read_text().splitlines() if not line.startswith("undo:")]
    commands.write_text("\n".join(kept) + "\n")
    with pytest.raises(GrammarError, match="missing commands: undo"):
        load("en", root)


@pytest.mark.parametrize(
    ("line", "message"),
    [("whos: hh uw z", "expected phones like"), ("Who's: HH UW Z", "one word"), ("whos: [HH]", "a text")],
)
def test_a_wrong_pronunciation_is_named_with_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    root = _copy_en(tmp_path)
    (root / "en" / "pronunciations.yaml").write_text(f"# a comment\nclovers: K L OW V ER Z\n{line}\n")
    with pytest.raises(GrammarError, match=r"pronunciations\.yaml:\d+: .*" + message):
        pronunciations("en", root)


def test_pronunciations_are_optional() -> None:
    assert pronunciations("en")["whos"] == "HH UW Z"
    assert pronunciations("ko") == {}

"""No fallback that mixes languages: every message key any channel can send is in every
language folder, and a language that lacks one is refused for that channel at start-up.

The keys are walked in the source (host/ and games/): every literal key handed to a phrase
or a spoken line (``g.phrase("key")``, ``vp.say(lang, "key")``, ``voice_phrase(lang,
"key")``, the SMS lobby's ``"sms_..."`` answers, the room check's ``check_phrase(lang,
"key")``), and every key of the English folders, which are the reference the start-up check
measures against."""

from __future__ import annotations

import ast
import shutil
from functools import partial
from pathlib import Path

import pytest
import yaml

import host.config
from grammars import ROOT, game_grammars, languages, wording_gaps
from host.config import Settings

REPO = ROOT.parent
SOURCES = sorted([*(REPO / "host").rglob("*.py"), *(REPO / "games").rglob("*.py")])
VOICE_CALLS = {"say", "voice_phrase"}  # vp.say, grammars.voice_phrase, a game's voice_phrase
CHECK_CALLS = {"check_phrase"}  # grammars.check_phrase: the room check's words (check.yaml)


def _sms_key(value: object) -> bool:
    return isinstance(value, str) and value.startswith("sms_") and value.isidentifier()


def _keys_in_source() -> tuple[dict[str, set[Path]], dict[str, set[Path]], dict[str, set[Path]]]:
    """(phrase keys, voice keys, room check keys) -> the files that send them."""
    phrases: dict[str, set[Path]] = {}
    voice: dict[str, set[Path]] = {}
    check: dict[str, set[Path]] = {}
    for path in SOURCES:
        if "tests" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            # The SMS channel's answers picked from a table ({"full": "sms_full"}[result]).
            if isinstance(node, ast.Constant) and _sms_key(node.value) and "sms" in path.parts:
                phrases.setdefault(str(node.value), set()).add(path)
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            literal = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if name == "phrase" and literal:
                phrases.setdefault(literal[0], set()).add(path)
            elif name in VOICE_CALLS and len(node.args) >= 2 and literal:
                voice.setdefault(literal[-1], set()).add(path)
            elif name in CHECK_CALLS and len(node.args) >= 2 and literal:
                check.setdefault(literal[-1], set()).add(path)
    return phrases, voice, check


PHRASE_KEYS, VOICE_KEYS, CHECK_KEYS = _keys_in_source()


def _yaml(path: Path) -> dict[str, object]:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else None
    return data if isinstance(data, dict) else {}


def _game_of(path: Path) -> Path | None:
    """The grammar folder of the game a source file belongs to (None: host/)."""
    parts = path.relative_to(REPO).parts
    return REPO / "games" / parts[1] / "grammar" if parts[0] == "games" and len(parts) > 2 else None


def _phrases(lang: str, grammar: Path | None) -> set[str]:
    keys = set(_yaml(ROOT / lang / "phrases.yaml"))
    if grammar is not None:
        words = _yaml(grammar / lang / "words.yaml")
        for section in words.values():
            if isinstance(section, dict):
                keys |= {str(k) for k in section}
    return keys


def test_the_walk_finds_the_keys_every_channel_sends() -> None:
    assert {"sms_welcome", "sms_created", "sms_no_such_game", "not_understood", "new_game"} <= set(
        PHRASE_KEYS
    )
    assert {"menu", "welcome", "say_again", "your_code", "turn_both", "trouble"} <= set(VOICE_KEYS)
    assert {"say_two", "heard_at", "heard_nothing", "room", "quiet", "echoes", "all_well"} <= set(CHECK_KEYS)


@pytest.mark.parametrize("lang", languages())
def test_every_phrase_key_the_code_sends_is_in_every_language(lang: str) -> None:
    missing = [
        f"{key} (sent by {path.relative_to(REPO)})"
        for key, paths in sorted(PHRASE_KEYS.items())
        for path in sorted(paths)
        if key not in _phrases(lang, _game_of(path))
        # A key of another game's words, sent from games/<g> for that game only.
        and not any(key in _phrases(lang, g) for g in game_grammars() if _game_of(path) is None)
    ]
    assert not missing, f"grammars/{lang}: {missing}"


@pytest.mark.parametrize("lang", languages())
def test_every_spoken_key_the_code_sends_is_in_every_language(lang: str) -> None:
    spoken = set(_yaml(ROOT / lang / "voice.yaml"))
    for grammar in game_grammars():
        spoken |= set(_yaml(grammar / lang / "words.yaml").get("spoken", {}) or {})  # type: ignore[arg-type]
    missing = sorted(key for key in VOICE_KEYS if key not in spoken)
    assert not missing, f"grammars/{lang}/voice.yaml or a game's spoken lines lack {missing}"


@pytest.mark.parametrize("lang", languages())
def test_every_room_check_key_the_code_sends_is_in_every_language(lang: str) -> None:
    """The room check (``gamehost table --check``, the live page's) says and prints only
    its language's words: every key the code sends, and no other than English has."""
    words = set(_yaml(ROOT / lang / "check.yaml"))
    missing = sorted(key for key in CHECK_KEYS if key not in words)
    assert not missing, f"grammars/{lang}/check.yaml lacks {missing}"
    assert words == set(_yaml(ROOT / "en" / "check.yaml")), f"grammars/{lang}/check.yaml"


@pytest.mark.parametrize("lang", languages())
@pytest.mark.parametrize("channel", ["sms", "voice", "web"])
def test_every_language_folder_has_every_line_of_every_channel(lang: str, channel: str) -> None:
    assert wording_gaps(lang, channel) == []


def test_english_has_every_key_the_code_sends() -> None:
    """The reference the start-up check measures against is itself complete."""
    assert set(VOICE_KEYS) <= set(_yaml(ROOT / "en" / "voice.yaml")) | {
        k
        for g in game_grammars()
        for k in (_yaml(g / "en" / "words.yaml").get("spoken") or {})  # type: ignore[union-attr]
    }


def _broken_korean(tmp_path: Path) -> Path:
    """A copy of the grammars whose Korean voice.yaml lacks its menu."""
    root = tmp_path / "grammars"
    for lang in languages():
        shutil.copytree(ROOT / lang, root / lang)
    voice = root / "ko" / "voice.yaml"
    voice.write_text(
        "\n".join(
            line for line in voice.read_text(encoding="utf-8").splitlines() if not line.startswith("menu:")
        )
        + "\n",
        encoding="utf-8",
    )
    return root


def test_a_language_missing_a_line_is_refused_at_start_up_with_a_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _broken_korean(tmp_path)
    gaps = wording_gaps("ko", "voice", root)
    assert gaps == [f"{root / 'ko' / 'voice.yaml'}: menu"]
    assert wording_gaps("ko", "sms", root) == []  # texts need no voice.yaml
    monkeypatch.setattr(host.config, "wording_gaps", partial(wording_gaps, root=root))
    settings = Settings(number_langs={"+15005550006": "ko"}, mode="development")
    problem = settings.serve_problem()
    assert problem == f"The voice channel cannot speak 'ko': it lacks {root / 'ko' / 'voice.yaml'}: menu."
    assert Settings(lang="xx", mode="development").serve_problem() == (
        "GAMEHOST_LANG or GAMEHOST_NUMBER_LANGS names 'xx', which has no grammars/xx/"
        f" (have: {', '.join(languages())})."
    )
    assert Settings(mode="development").serve_problem() is None


def test_host_names_no_language() -> None:
    """No language code as a literal in host/ (a default argument, a table of tags): every
    language is a folder of grammars/."""
    found = []
    for path in (REPO / "host").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in set(languages()):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value!r}")
    assert not found, found

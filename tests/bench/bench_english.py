"""English speech out of the box: accuracy, latency, speed, phone audio and noise.

Run: python tests/bench/bench_english.py [--quick] [--only accuracy,latency,ruling,speed,phone,noise]

Speech is synthesised here: the numbers 1..100 by Piper's joe voice and espeak-ng
(en-us), and Sino-Korean numbers by espeak-ng for the Vosk figures. Each clip is 0.5 s of
silence, the number (espeak's own leading/trailing silence trimmed) and 1.2 s of silence,
streamed in 20 ms chunks through ``Endpointer(recognizer_for(...))``.

* accuracy: first-try (top-1) readings with pocketsphinx and a JSGF grammar of the 100
  numbers; baseline in the same run: pocketsphinx's default language model (no grammar).
* latency: from the true end of the synthesised speech to the Hearing (stream time waited
  plus the compute time of the chunk that produced it), with and without the early end of
  complete phrases, for pocketsphinx (English) and Vosk (Korean). "complete" numbers are
  those no other number extends (53, 17); "prefix" ones (90, 5) must wait the full silence.
* ruling: compute from a Hearing to the ruling (reading the N-best list, the referee),
  with ``Talk.listen_for`` remembered per game state vs asked afresh (baseline).
* speed: CPU seconds per second of audio (RTF) per stream, and how many concurrent 8 kHz
  Media Streams one core sustains at real time (mu-law decode, resampling, Silero VAD
  and decoding, 40 % silence as in a call).
* phone: the numbers (with the English decoys in the phrase list) through an 8 kHz mu-law
  round trip, decoded by upsampling to 16 kHz vs pocketsphinx's 8 kHz front end, and as a
  call's first utterance (fresh decoder) with the model's cepstral mean vs the phone one.
* noise: 24 utterances in one ~56 s stream, mixed with white noise, fan noise (low-passed
  noise) and card slaps (clicks) at 0..20 dB SNR; utterances found / merged / split,
  false alarms and correct readings, Silero VAD vs the energy VAD on the same audio.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from grammars import load as load_grammar
from host.listening.listener import Listener
from host.listening.phrases import PLAYING
from host.listening.reading import read
from host.referee import Referee
from host.session import SessionConfig
from host.speech import sphinx, tts
from host.speech.audio import (
    SAMPLE_RATE,
    Resampler,
    as_int16,
    mulaw_decode,
    mulaw_encode,
    pcm_chunks,
    resample,
)
from host.speech.endpointer import Endpointer
from host.speech.engines import recognizer_for
from host.speech.frontend import PHONE_DECODE_RATE
from host.speech.hearing import Hearing
from host.speech.model import SpeechModel, load_model
from host.speech.phrase_index import complete_phrases
from host.store import Store
from tests.speech.english import NUMBERS_EN, parse_english
from tests.speech.korean import parse_sino, sino

LEAD_S, TAIL_S = 0.5, 1.2
CHUNK_MS = 20


def trim(pcm: bytes) -> bytes:
    samples = as_int16(pcm)
    loud = np.nonzero(np.abs(samples) > 50)[0]
    return samples[loud[0] : loud[-1] + 1].tobytes() if loud.size else pcm


def silence(seconds: float, rate: int = SAMPLE_RATE) -> bytes:
    return bytes(2 * round(rate * seconds))


def corpus(voice: str, texts: Sequence[str]) -> list[bytes]:
    if voice == "piper":
        return [trim(tts.piper_synthesize(t, SAMPLE_RATE)) for t in texts]
    lang = "ko" if voice == "espeak-ko" else "en-us"
    return [trim(tts.espeak_synthesize(t, lang, SAMPLE_RATE)) for t in texts]


def decode_clip(
    endpointer: Endpointer, speech: bytes, rate: int = SAMPLE_RATE
) -> tuple[Hearing | None, float]:
    """The first Hearing of lead + speech + tail, and its latency from the end of speech."""
    speech_end = endpointer.time + LEAD_S + len(speech) / (2 * rate)
    pcm = silence(LEAD_S, rate) + speech + silence(TAIL_S, rate)
    for chunk in pcm_chunks(pcm, rate, CHUNK_MS):
        started = time.perf_counter()
        hearing = endpointer.feed(chunk)
        if hearing is not None:
            compute = time.perf_counter() - started
            endpointer.reset()
            return hearing, endpointer.time - speech_end + compute
    hearing = endpointer.flush()
    return hearing, float("nan")


def pct(values: Sequence[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


# --- accuracy -----------------------------------------------------------------------------


def accuracy(model: SpeechModel, clips: dict[str, list[bytes]]) -> None:
    print("\n== first-try accuracy, numbers 1..100, pocketsphinx ==")
    for voice, pcms in clips.items():
        row = []
        for name, phrases in (("default LM (baseline)", None), ("JSGF grammar", NUMBERS_EN)):
            endpointer = Endpointer(recognizer_for(model, SAMPLE_RATE, phrases))
            right = 0
            for n, pcm in enumerate(pcms, start=1):
                hearing, _ = decode_clip(endpointer, pcm)
                right += hearing is not None and parse_english(hearing.text) == n
            row.append(right)
            print(f"  {voice:10s} {name:22s} {right:3d}/{len(pcms)}")
        print(f"  {voice:10s} grammar / baseline: {row[1] / max(row[0], 1):.1f}x")


# --- latency ------------------------------------------------------------------------------


def latency(model: SpeechModel, ko_model: SpeechModel, clips: dict[str, list[bytes]]) -> None:
    print("\n== end of speech -> hearing (s): p50 / p99 ==")
    cases: list[tuple[str, SpeechModel, list[str], list[bytes], Callable[[str], int | None]]] = [
        ("pocketsphinx en (piper)", model, NUMBERS_EN, clips["piper"], parse_english),
        ("vosk ko (espeak)", ko_model, [sino(n) for n in range(1, 101)], clips["espeak-ko"], parse_sino),
    ]
    for name, m, phrases, pcms, parse in cases:
        complete = complete_phrases(tuple(phrases))
        results = {}
        for early in (None, 0.2):
            endpointer = Endpointer(recognizer_for(m, SAMPLE_RATE, phrases), early_silence_s=early)
            kinds: dict[str, list[float]] = {"complete": [], "prefix": [], "heard right": []}
            right = 0
            for n, pcm in enumerate(pcms, start=1):
                hearing, lat = decode_clip(endpointer, pcm)
                if hearing is None or lat != lat:
                    continue
                right += parse(hearing.text) == n
                kinds["complete" if phrases[n - 1] in complete else "prefix"].append(lat)
                if phrases[n - 1] in complete and hearing.text == phrases[n - 1]:
                    kinds["heard right"].append(lat)
            results[early] = kinds
            label = "early end 0.2 s" if early else "full silence (baseline)"
            c, p, h = kinds["complete"], kinds["prefix"], kinds["heard right"]
            print(
                f"  {name:24s} {label:24s} complete {pct(c, 50):.2f} / {pct(c, 99):.2f} (n={len(c)})"
                f"   of them heard right {pct(h, 50):.2f} / {pct(h, 99):.2f} (n={len(h)})"
                f"   prefix {pct(p, 50):.2f} / {pct(p, 99):.2f} (n={len(p)})   right {right}/100"
            )
        base, new = results[None]["complete"], results[0.2]["complete"]
        print(
            f"  {name:24s} complete-move ratio early/baseline: p50 {pct(new, 50) / pct(base, 50):.2f}"
            f", p99 {pct(new, 99) / pct(base, 99):.2f}"
        )


# --- ruling compute -----------------------------------------------------------------------


def ruling(ko_model: SpeechModel, en_model: SpeechModel) -> None:
    """What the listener adds after the hearing: reading the N-best list and ruling it.
    Baseline in the same run: ``Talk.listen_for`` asked afresh on every reading."""
    print("\n== hearing -> ruling compute (ms per utterance, Up-or-Down, 3 players): p50 / p99 ==")
    korean = [sino(n) for n in range(1, 101)]
    for lang, model, say in (("en", en_model, NUMBERS_EN), ("ko", ko_model, korean)):
        with tempfile.TemporaryDirectory() as tmp:
            referee = Referee(Store(Path(tmp) / "bench.sqlite3"))
            session = referee.create(SessionConfig(lang=lang), ["Ann", "Bob", "Cy"])
            listener = Listener(referee, session, model, report_missing=False)
            table = referee.table(session)
            hearings = [_hearing((say[n], 0.7), (say[(n + 10) % 100], 0.3)) for n in range(100)]
            cached, fresh = [], []
            for h in hearings:
                started = time.perf_counter()
                listener.read(h)
                cached.append(1000 * (time.perf_counter() - started))
                started = time.perf_counter()
                read(h, table, PLAYING, decoys=listener.grammar.decoys)
                fresh.append(1000 * (time.perf_counter() - started))
            handled = []
            for n in range(40):  # ruled one after another, whatever the game makes of them
                started = time.perf_counter()
                listener.handle(hearings[(n * 37) % 100])
                handled.append(1000 * (time.perf_counter() - started))
            referee.store.close()
        print(
            f"  {lang}: read, listen_for asked afresh (baseline) {pct(fresh, 50):.2f} / {pct(fresh, 99):.2f}"
            f"   remembered per state {pct(cached, 50):.2f} / {pct(cached, 99):.2f}"
            f"   ratio p50 {pct(cached, 50) / pct(fresh, 50):.2f}"
            f"   | read + rule {pct(handled, 50):.2f} / {pct(handled, 99):.2f}"
        )


def _hearing(*alternatives: tuple[str, float]) -> Hearing:
    return Hearing(alternatives, (0.0,) * len(alternatives), (), 0.0, 0.5, False, 0.5, 0.7)


# --- speed --------------------------------------------------------------------------------


def speed(model: SpeechModel, ko_model: SpeechModel, clips: dict[str, list[bytes]]) -> None:
    print("\n== CPU per stream (RTF = CPU s / audio s, one thread) ==")
    stream = b"".join(silence(0.8) + pcm for pcm in clips["piper"][:30])
    ko_stream = b"".join(silence(0.8) + pcm for pcm in clips["espeak-ko"][:30])
    audio_s = len(stream) / (2 * SAMPLE_RATE)
    g = load_grammar("en")
    talk = [*g.decoys, *g.talk]  # the talk gate's words (docs/speech.md): a second decoder
    cases = [
        ("pocketsphinx 16k, energy VAD", model, NUMBERS_EN, stream, "energy", ()),
        ("pocketsphinx 16k, Silero VAD", model, NUMBERS_EN, stream, "silero", ()),
        ("pocketsphinx 16k, Silero, talk gate", model, NUMBERS_EN, stream, "silero", talk),
        ("vosk ko 16k, Silero VAD", ko_model, [sino(n) for n in range(1, 101)], ko_stream, "silero", ()),
    ]

    def rtf(m: SpeechModel, phrases: Sequence[str], pcm: bytes, vad: str, words: Sequence[str]) -> float:
        endpointer = Endpointer(recognizer_for(m, SAMPLE_RATE, phrases, talk=words), vad=vad)
        started = time.process_time()
        list(endpointer.hearings(pcm_chunks(pcm, SAMPLE_RATE, CHUNK_MS)))
        return (time.process_time() - started) / (len(pcm) / (2 * SAMPLE_RATE))

    for name, m, phrases, pcm, vad, words in cases:
        print(f"  {name:32s} RTF {rtf(m, phrases, pcm, vad, words):.3f}")
        if words and m.engine == "pocketsphinx":  # the same without the lenient gate
            chosen, sphinx.LENIENT_TALK_WEIGHT = sphinx.LENIENT_TALK_WEIGHT, None
            print(f"  {'  ... without the lenient gate':32s} RTF {rtf(m, phrases, pcm, vad, words):.3f}")
            sphinx.LENIENT_TALK_WEIGHT = chosen

    # A phone call as the media path would run it: 20 ms mu-law frames in, pcm out.
    mulaw = mulaw_encode(resample(stream, SAMPLE_RATE, 8000))
    endpointer = Endpointer(recognizer_for(model, PHONE_DECODE_RATE, NUMBERS_EN, phone=True, talk=talk))
    resampler = Resampler(8000, PHONE_DECODE_RATE)
    started = time.process_time()
    for i in range(0, len(mulaw), 160):
        endpointer.feed(resampler(mulaw_decode(mulaw[i : i + 160])))
    endpointer.flush()
    cpu = time.process_time() - started
    rtf = cpu / audio_s
    path = f"mu-law -> {PHONE_DECODE_RATE} Hz, Silero, pocketsphinx, talk gate"
    print(f"  8 kHz Media Stream ({path})  RTF {rtf:.3f}")
    print(f"  concurrent 8 kHz streams one core sustains at real time: ~{int(1 / rtf)}")


# --- phone audio --------------------------------------------------------------------------


def phone(model: SpeechModel, clips: dict[str, list[bytes]]) -> None:
    """Each number as the first words of a call (a fresh decoder: live CMN not yet adapted)
    and as a later one (one decoder for all), with the decoys in the phrase list."""
    print("\n== phone audio: 8 kHz mu-law (as Twilio), pocketsphinx + JSGF numbers and decoys ==")
    phrases = [*NUMBERS_EN, *load_grammar("en").decoys]
    cases: list[tuple[str, int, bool, bool]] = [
        ("8 kHz front end, later utterance", 8000, False, False),
        ("upsampled 16k, later utterance", SAMPLE_RATE, False, False),
        ("upsampled 16k, first, model CMN (baseline)", SAMPLE_RATE, True, False),
        ("upsampled 16k, first, phone CMN", SAMPLE_RATE, True, True),
    ]
    for voice, pcms in clips.items():
        if voice == "espeak-ko":
            continue
        narrow = [mulaw_decode(mulaw_encode(resample(pcm, SAMPLE_RATE, 8000))) for pcm in pcms]
        row: dict[str, int] = {}
        for name, rate, cold, phone_cmn in cases:
            shared = Endpointer(recognizer_for(model, rate, phrases, phone=phone_cmn))
            right = 0
            for n, pcm in enumerate(narrow, start=1):
                endpointer = shared
                if cold and n > 1:
                    endpointer = Endpointer(recognizer_for(model, rate, phrases, phone=phone_cmn))
                hearing, _ = decode_clip(endpointer, resample(pcm, 8000, rate), rate)
                right += hearing is not None and parse_english(hearing.text) == n
            row[name] = right
            print(f"  {voice:8s} {name:44s} {right:3d}/{len(pcms)}")
        base = row["upsampled 16k, first, model CMN (baseline)"]
        ratio = row["upsampled 16k, first, phone CMN"] / max(base, 1)
        print(f"  {voice:8s} first utterance, phone CMN / baseline: {ratio:.2f}x")
    print(f"  default for streams: PHONE_DECODE_RATE = {PHONE_DECODE_RATE}, phone CMN on")


# --- noise --------------------------------------------------------------------------------


def noise_stream(clips: list[bytes], texts: list[str]) -> tuple[np.ndarray, list[tuple[float, float, str]]]:
    """24 utterances with 1.0-1.6 s gaps: the samples and the (start, end, text) truth."""
    rng = np.random.default_rng(7)
    parts, truth, t = [silence(1.0)], [], 1.0
    for pcm, text in zip(clips, texts, strict=True):
        d = len(pcm) / (2 * SAMPLE_RATE)
        truth.append((t, t + d, text))
        gap = float(rng.uniform(1.0, 1.6))
        parts += [pcm, silence(gap)]
        t += d + gap
    return as_int16(b"".join(parts)).astype(np.float64), truth


def make_noise(kind: str, n: int, seed: int = 11) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "white":
        return rng.normal(0, 1, n)
    if kind == "fan":
        white = rng.normal(0, 1, n)
        hum = np.sin(2 * np.pi * 120 * np.arange(n) / SAMPLE_RATE)
        return np.convolve(white, np.ones(40) / 40, mode="same") * 6 + 0.3 * hum
    # card slaps: sharp decaying clicks, 1-3 a second, of varying strength
    out = np.zeros(n)
    click = rng.normal(0, 1, 800) * np.exp(-np.arange(800) / 120)
    pos = 0
    while True:
        pos += int(rng.uniform(0.3, 1.0) * SAMPLE_RATE)
        if pos + click.size >= n:
            return out
        out[pos : pos + click.size] += click * rng.uniform(0.5, 1.5)


def mix(speech: np.ndarray, truth: list[tuple[float, float, str]], noise: np.ndarray, snr_db: float) -> bytes:
    voiced = np.concatenate([speech[round(a * SAMPLE_RATE) : round(b * SAMPLE_RATE)] for a, b, _ in truth])
    p_speech = float(np.mean(voiced**2))
    if noise is not None and np.any(noise):
        # clicks: SNR against the power of the clicks themselves, not of the silence between
        loud = noise[np.abs(noise) > 1e-9]
        p_noise = float(np.mean(loud**2))
        noise = noise * np.sqrt(p_speech / p_noise / 10 ** (snr_db / 10))
    return np.clip(speech + noise, -32768, 32767).astype("<i2").tobytes()


def score(hearings: list[Hearing], truth: list[tuple[float, float, str]]) -> dict[str, int]:
    def overlaps(h: Hearing, a: float, b: float) -> bool:
        return h.start < b + 0.1 and h.end > a - 0.1

    result = {"found": 0, "merged": 0, "split": 0, "false": 0, "right": 0}
    for h in hearings:
        hit = [i for i, (a, b, _) in enumerate(truth) if overlaps(h, a, b)]
        if not hit:
            result["false"] += 1
        elif len(hit) > 1:
            result["merged"] += len(hit)
    for a, b, text in truth:
        mine = [h for h in hearings if overlaps(h, a, b)]
        only_mine = [h for h in mine if sum(overlaps(h, x, y) for x, y, _ in truth) == 1]
        if len(only_mine) > 1:
            result["split"] += 1
        elif len(mine) == 1 and only_mine:
            result["found"] += 1
            result["right"] += only_mine[0].text == text
    return result


def noise(model: SpeechModel, clips: dict[str, list[bytes]], levels: Sequence[float]) -> None:
    print("\n== noise: 24 utterances, found / merged / split / false alarms / right ==")
    picks = list(range(3, 100, 4))[:24]
    texts = [NUMBERS_EN[i] for i in picks]
    speech, truth = noise_stream([clips["piper"][i] for i in picks], texts)
    print(f"  stream {speech.size / SAMPLE_RATE:.0f} s, {len(truth)} utterances (Piper joe, pocketsphinx)")
    for kind in ("white", "fan", "slaps"):
        base = make_noise(kind, speech.size)
        for snr in levels:
            pcm = mix(speech, truth, base, snr)
            row = []
            for vad in ("energy", "silero"):
                endpointer = Endpointer(recognizer_for(model, SAMPLE_RATE, NUMBERS_EN), vad=vad)
                hearings = list(endpointer.hearings(pcm_chunks(pcm, SAMPLE_RATE, 100)))
                s = score(hearings, truth)
                counts = "/".join(f"{s[k]:2d}" for k in ("found", "merged", "split", "false", "right"))
                row.append(f"{vad:6s} {counts}")
            print(f"  {kind:5s} {snr:4.0f} dB   " + "   ".join(row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer numbers and noise levels")
    parser.add_argument("--only", default="accuracy,latency,ruling,speed,phone,noise")
    args = parser.parse_args()
    parts = set(args.only.split(","))
    if shutil.which("espeak-ng") is None:
        sys.exit("needs espeak-ng")
    numbers = range(1, 101)
    started = time.perf_counter()
    model = load_model(lang="en", engine="pocketsphinx", download=False)
    ko_model = load_model(lang="ko", engine="vosk", download=False)
    clips = {
        "piper": corpus("piper", [NUMBERS_EN[n - 1] for n in numbers]),
        "espeak": corpus("espeak", [NUMBERS_EN[n - 1] for n in numbers]),
    }
    if parts & {"latency", "speed"}:
        clips["espeak-ko"] = corpus("espeak-ko", [sino(n) for n in numbers])
    print(f"corpus synthesised in {time.perf_counter() - started:.0f} s")
    english = {k: v for k, v in clips.items() if k != "espeak-ko"}
    if "accuracy" in parts:
        accuracy(model, english)
    if "latency" in parts:
        latency(model, ko_model, clips)
    if "ruling" in parts:
        ruling(ko_model, model)
    if "speed" in parts:
        speed(model, ko_model, clips)
    if "phone" in parts:
        phone(model, english)
    if "noise" in parts:
        noise(model, clips, (0, 10, 20) if args.quick else (0, 5, 10, 20))
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()

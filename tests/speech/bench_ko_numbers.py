"""How well does the packaged Korean model hear espeak-ng saying 1..100?

Not a test (slow-ish, and measures TTS quality as much as recognition). Run with
``python -m tests.speech.bench_ko_numbers`` to guide grammar design. Each number is
synthesised with espeak-ng, padded with 0.5 s of silence and decoded by the real
pipeline (GrammarRecognizer + Endpointer) with a phrase list of all 100 numbers.
"right" means the best alternative, with spaces removed, is the number; "top 3" means
one of the first three alternatives is.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable

import numpy as np

from host.speech.audio import pcm_chunks
from host.speech.endpointer import Endpointer
from host.speech.model import load_model
from host.speech.recognizer import GrammarRecognizer
from host.speech.tts import espeak_synthesize
from tests.speech.korean import native, parse_sino, sino


def trim(pcm: bytes) -> bytes:
    """Cut espeak-ng's leading/trailing digital silence (about 0.3 s at the end)."""
    samples = np.frombuffer(pcm, dtype="<i2")
    loud = np.nonzero(np.abs(samples) > 50)[0]
    return samples[loud[0] : loud[-1] + 1].tobytes() if loud.size else b""


def run(
    label: str,
    phrases: list[str],
    spoken: dict[int, str],
    value: Callable[[str], int | None],
    audio: dict[str, bytes],
) -> None:
    model = load_model(lang="ko")
    endpointer = Endpointer(GrammarRecognizer(model, 16000, phrases))
    silence = bytes(16000)  # 0.5 s
    top1 = top3 = 0
    wrong = []
    for n, text in spoken.items():
        pcm = silence + audio[text] + silence + silence
        hearings = list(endpointer.hearings(pcm_chunks(pcm, 16000, 20)))
        alternatives = [t for h in hearings[:1] for t, _ in h.alternatives]
        values = [value(t) for t in alternatives]
        top1 += bool(values) and values[0] == n
        top3 += n in values[:3]
        if not values or values[0] != n:
            wrong.append(f"{n}:{'/'.join(alternatives[:2]) or '-'}")
    grammar = model.missing_words(phrases)
    print(f"{label}: top-1 {top1}/{len(spoken)}, top-3 {top3}/{len(spoken)}")
    print(f"  phrases dropped for missing words: {len(grammar)} words {grammar[:8]}")
    print(f"  first misses: {' '.join(wrong[:20])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO if args.verbose else logging.ERROR)

    whole = {n: sino(n, spaced=False) for n in range(1, 101)}
    audio = {t: trim(espeak_synthesize(t, "ko")) for t in whole.values()}
    run("Sino-Korean, phrases as one word (오십삼)", list(whole.values()), whole, parse_sino, audio)
    spaced = [sino(n) for n in range(1, 101)]
    run("Sino-Korean, phrases spaced (오십 삼)", spaced, whole, parse_sino, audio)

    natives = {n: native(n) for n in range(1, 100)}
    native_audio = {t: trim(espeak_synthesize(t.replace(" ", ""), "ko")) for t in natives.values()}
    by_text = {t.replace(" ", ""): n for n, t in natives.items()}
    run(
        "Native Korean 1..99, spaced (스물 셋)",
        list(natives.values()),
        natives,
        lambda t: by_text.get(t.replace(" ", "")),
        native_audio,
    )


if __name__ == "__main__":
    main()

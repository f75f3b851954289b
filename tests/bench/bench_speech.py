"""Speech refereeing: move accuracy, wrong eliminations, latency and speed on Korean speech.

Run: python tests/bench/bench_speech.py [--quick] [--fit] [--workers N]

The corpus is synthesised here: every number 1..100 said by espeak-ng Korean in several
voices (rate -s 130/160/190, pitch -p 25/50/75), clean and with white or babble noise
(other espeak-ng voices talking) mixed in at 20 dB and 10 dB SNR. Each clip is 0.5 s of
lead-in, the number, and 1.2 s of trailing audio, streamed in 20 ms chunks.

Two pipelines decode every clip with the real packaged Korean model:

* baseline: a plain phrase list of the 100 numbers, top-1 text parsed (the figure of
  issue 5: 22/100 on the clean default voice);
* pipeline: ``host/listening/``: the per-state phrase list (numbers 0..105,
  commands, names, decoys), re-reading of the N-best list with the valid-move prior,
  calibrated confidence, and the referee's confirmation policy, a "Did you say ...?"
  being answered truthfully ("네" or "아니요", synthesised and decoded in the same voice
  and noise) by a simulated player.

Every number is played in two game situations: one where it is an allowed move (move
accuracy, wrong eliminations) and one where it is a mistake (are real mistakes still
caught?). "wrong out" counts players put out although they said an allowed number:
for the baseline and for the pipeline without the confirmation policy the reading is
ruled as heard. Latency is from the end of speech (the VAD's last speech frame) to the
ruling: the endpointer's wait in stream time plus the compute time of the last chunk and
the ruling, for utterances the endpointer closed (in babble the noise may never go quiet
before the clip ends). RTF is decoding time over audio time, in one process.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import random
import shutil
import subprocess
import tempfile
import time
import wave
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from games.up_or_down import rules as ud
from games.up_or_down.talk import UpOrDownTalk
from grammars import load as load_grammar
from grammars.reader import NumberSaid, number_phrases, parse, to_words
from host.listening.listener import Listener
from host.listening.phrases import CONFIRMING, phrase_list, waits_for_no_rank
from host.listening.reading import INVALID_PRIOR, calibrate
from host.referee import Referee
from host.session import SessionConfig
from host.speech.audio import SAMPLE_RATE, pcm_chunks, resample
from host.speech.endpointer import Endpointer
from host.speech.hearing import Hearing
from host.speech.model import load_model
from host.speech.recognizer import GrammarRecognizer
from host.store import Store

# The listener's end-of-utterance settings for Korean (Listener builds its Endpointer so).
_SILENCE = getattr(load_grammar("ko"), "phrase_silence_s", None)
ENDPOINTING: dict[str, object] = (
    {"phrase_silence_s": _SILENCE, "settles": waits_for_no_rank("ko")} if _SILENCE is not None else {}
)
NUMBERS = range(1, 101)
VOICES = ((160, 50), (130, 50), (190, 50), (160, 25), (160, 75))  # (words per minute, pitch)
NOISES = (("clean", None), ("white", 20), ("white", 10), ("babble", 20), ("babble", 10))
PLAYERS = ("민수", "지영", "철수")
BABBLE = (
    "오늘 저녁에 뭐 먹을까",
    "이번 판은 내가 이길 거야",
    "잠깐만 기다려 줘 화장실 좀",
    "어제 그 영화 봤어 정말 재미있더라",
    "커피 한 잔 더 마실래",
    "주말에 어디 갈까 바다 어때",
)
LEAD_S, TAIL_S = 0.5, 1.2


def espeak(text: str, rate: int = 160, pitch: int = 50, voice: str = "ko") -> bytes:
    exe = shutil.which("espeak-ng")
    assert exe is not None, "needs espeak-ng"
    proc = subprocess.run(
        [exe, "-v", voice, "-s", str(rate), "-p", str(pitch), "--stdout"],
        input=text.encode(),
        capture_output=True,
        check=True,
    )
    with wave.open(io.BytesIO(proc.stdout)) as w:
        pcm, src = w.readframes(w.getnframes()), w.getframerate()
    samples = np.frombuffer(resample(pcm, src, SAMPLE_RATE), "<i2")
    loud = np.nonzero(np.abs(samples) > 50)[0]  # espeak pads with digital silence
    return samples[loud[0] : loud[-1] + 1].tobytes()


@cache
def babble_track() -> np.ndarray:
    voices = [(150, 40), (175, 60), (140, 70), (185, 30)]
    tracks = [
        np.frombuffer(espeak(" ".join(BABBLE[i:] + BABBLE[:i]), r, p), "<i2").astype(np.float64)
        for i, (r, p) in enumerate(voices)
    ]
    size = min(t.size for t in tracks)
    return sum(t[:size] for t in tracks)  # type: ignore[return-value]


def with_noise(clip: bytes, speech: bytes, kind: str, snr: float | None, rng: random.Random) -> bytes:
    if snr is None:
        return clip
    x = np.frombuffer(clip, "<i2").astype(np.float64)
    power = float(np.mean(np.frombuffer(speech, "<i2").astype(np.float64) ** 2))
    if kind == "white":
        noise = np.random.default_rng(rng.randrange(2**32)).normal(0.0, 1.0, x.size)
    else:
        track = babble_track()
        start = rng.randrange(track.size - x.size)
        noise = track[start : start + x.size]
    noise *= math.sqrt(power / 10 ** (snr / 10) / float(np.mean(noise**2)))
    return np.clip(x + noise, -32768, 32767).astype("<i2").tobytes()


def clip_of(speech: bytes) -> bytes:
    return bytes(2 * int(SAMPLE_RATE * LEAD_S)) + speech + bytes(2 * int(SAMPLE_RATE * TAIL_S))


@dataclass
class Decoded:
    hearing: Hearing | None
    latency: float | None  # stream + compute seconds from end of speech to the hearing
    compute: float  # seconds spent decoding the clip


def decode(phrases: Sequence[str], pcm: bytes, **endpointing: object) -> Decoded:
    recognizer = GrammarRecognizer(load_model(lang="ko", download=False), SAMPLE_RATE, phrases)
    endpointer = Endpointer(recognizer, **endpointing)  # type: ignore[arg-type]
    first: Hearing | None = None
    latency = None
    start = time.perf_counter()
    for chunk in pcm_chunks(pcm, SAMPLE_RATE, 20):
        began = time.perf_counter()
        hearing = endpointer.feed(chunk)
        if hearing is not None and first is None:
            first = hearing
            if not hearing.forced:
                latency = hearing.latency + time.perf_counter() - began
    if first is None:
        # Ended by the end of the clip (speech-like noise never went quiet): no latency.
        first = endpointer.flush()
    return Decoded(first, latency, time.perf_counter() - start)


@dataclass
class Item:
    """One clip: a number said in one voice and noise, tried in both game situations."""

    number: int
    voice: tuple[int, int]
    noise: str
    audio_s: float
    compute: float
    base_compute: float
    base_value: int | None = None
    read_value: int | None = None  # what the pipeline read where the number is allowed
    share: float | None = None  # pooled share of that reading
    top: bool = False  # the reading is what the best path says
    in_nbest: bool = False  # some alternative of the N-best list parses as the number said
    latency: float | None = None  # end of speech to ruling, when ruled without a question
    latency_right: float | None = None  # the same, when the number ruled is the one said
    # outcome per (policy, situation); policies: "base", "direct" (pipeline ruled as
    # read), ("confirm", prior); outcomes: "right", "other" (another allowed number),
    # "out", "none" where the number is allowed; "caught", "missed", "none" where not.
    outcomes: dict[tuple[object, bool], str] = field(default_factory=dict)
    asked: dict[tuple[object, bool], bool] = field(default_factory=dict)


def said(text: str) -> int | None:
    """The number a text says, read by the plain parser."""
    intent = parse(text, "ko").intent()
    return intent.value if isinstance(intent, NumberSaid) else None


def ruled(events: list[dict[str, object]], player: str) -> tuple[int | None, bool]:
    """The number a player was ruled to have said, and whether they went out."""
    number = next((int(e["number"]) for e in events if e["type"] == "move"), None)  # type: ignore[call-overload]
    out = any(e["type"] == "out" and e["player"] == player for e in events)
    return number, out


def outcome(intended: int, number: int | None, out: bool, valid_context: bool) -> str:
    if number is None:
        return "none"
    if not valid_context:
        return "caught" if out else "missed"
    if out:
        return "out"
    return "right" if number == intended else "other"


def situation(n: int, valid: bool, rng: random.Random) -> int:
    """A last number after which ``n`` is allowed (or, with ``valid`` false, a mistake)."""
    options = ud.Options()
    candidates = [m for m in NUMBERS if m != n and ud.is_valid(m, n, options) == valid]
    return rng.choice(candidates)


class Table:
    """A referee on a scratch database; a fresh session per trial."""

    def __init__(self, directory: Path) -> None:
        self.referee = Referee(Store(directory / "bench.sqlite3"))
        self.model = load_model(lang="ko", download=False)

    def session(self, last: int, prior: float = INVALID_PRIOR) -> Listener:
        session_id = self.referee.create(SessionConfig(lang="ko", confirm_below=0.75), PLAYERS)
        self.referee.handle(session_id, str(last))  # 민수 plays; 지영 speaks next
        listener = Listener(self.referee, session_id, self.model)
        listener.invalid_prior = prior
        return listener


def as_ruled(n: int, last: int, value: int | None, valid: bool) -> str:
    """Outcome of ruling ``value`` as heard, without any question."""
    return outcome(n, value, value is not None and not ud.is_valid(last, value, ud.Options()), valid)


Task = tuple[tuple[int, int], str, float | None, tuple[int, ...], int, tuple[float, ...]]


def run_condition(task: Task) -> list[Item]:
    (rate, pitch), kind, snr, numbers, seed, priors = task
    rng = random.Random(f"{seed}-{rate}-{pitch}-{kind}-{snr}")
    label = kind if snr is None else f"{kind} {snr:g} dB"
    plain = number_phrases(NUMBERS, "ko")
    with tempfile.TemporaryDirectory() as tmp:
        table = Table(Path(tmp))
        template = table.session(1)
        playing = template.phrases()
        confirming = phrase_list(table.referee.table(template.session_id), CONFIRMING)
        answers = {}
        for word in ("네", "아니요"):
            speech = espeak(word, rate, pitch)
            answers[word] = decode(confirming, with_noise(clip_of(speech), speech, kind, snr, rng)).hearing
        items = []
        for n in numbers:
            speech = espeak(to_words(n, "ko"), rate, pitch)
            clip = with_noise(clip_of(speech), speech, kind, snr, rng)
            base = decode(plain, clip)
            full = decode(playing, clip, **ENDPOINTING)
            base_intent = parse(base.hearing.text, "ko").intent() if base.hearing else None
            item = Item(n, (rate, pitch), label, len(clip) / (2 * SAMPLE_RATE), full.compute, base.compute)
            item.base_value = base_intent.value if isinstance(base_intent, NumberSaid) else None
            item.in_nbest = full.hearing is not None and any(
                said(text) == n for text, _ in full.hearing.alternatives
            )
            items.append(item)
            for valid in (True, False):
                last = situation(n, valid, rng)
                item.outcomes["base", valid] = as_ruled(n, last, item.base_value, valid)
                for prior in priors:
                    listener = table.session(last, prior)
                    if full.hearing is None:
                        item.outcomes["direct", valid] = item.outcomes[prior, valid] = "none"
                        item.asked[prior, valid] = False
                        continue
                    reading = listener.read(full.hearing)
                    value = getattr(reading.meaning, "number", None)
                    value = value if reading.ignored is None else None
                    if prior == priors[0]:
                        item.outcomes["direct", valid] = as_ruled(n, last, value, valid)
                        if valid:
                            item.read_value, item.share, item.top = value, reading.share, reading.top
                    began = time.perf_counter()
                    reply = listener.handle(full.hearing).reply
                    handled = time.perf_counter() - began
                    asked = reply is not None and reply.confirm is not None
                    if reply is not None and asked:
                        # The simulated player answers truthfully, in the same voice and noise.
                        answer = answers["네" if reply.confirm == str(n) else "아니요"]
                        reply = listener.handle(answer).reply if answer is not None else None
                    number, out = ruled(reply.events if reply else [], PLAYERS[1])
                    item.outcomes[prior, valid] = outcome(n, number, out, valid)
                    item.asked[prior, valid] = asked
                    if prior == priors[0] and valid and reply is not None and not asked and full.latency:
                        item.latency = full.latency + handled
                        if number == n:
                            item.latency_right = item.latency
    return items


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def tally(items: list[Item], policy: object, valid: bool, value: str) -> int:
    return sum(i.outcomes.get((policy, valid)) == value for i in items)


def report(items: list[Item], title: str, key: str, prior: float) -> None:
    groups: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        groups[str(getattr(item, key))].append(item)
    print(f"\n{title}")
    head = (
        f"{'':14}{'clips':>5} | {'base':>5} {'n-best':>6} {'read':>5} {'ruled':>5} {'asked':>5} "
        f"{'none':>5} {'other':>5} "
        f"| {'wrong out: base':>15} {'direct':>6} {'confirm':>7} | {'mistakes caught: base':>21} "
        f"{'direct':>6} {'confirm':>7} | {'lat p50':>7} {'p99':>5} {'right p50':>9} {'p99':>5} | {'RTF':>5}"
    )
    print(head)
    print("-" * len(head))
    for name, group in [*sorted(groups.items()), ("all", items)]:
        count = len(group)
        latencies = [i.latency for i in group if i.latency is not None]
        right = [i.latency_right for i in group if i.latency_right is not None]
        audio = sum(i.audio_s for i in group)

        def share(policy: object, valid: bool, value: str, group: list[Item] = group) -> str:
            return f"{tally(group, policy, valid, value) / len(group):.0%}"

        def num(policy: object, valid: bool, value: str, group: list[Item] = group) -> int:
            return tally(group, policy, valid, value)

        asked = sum(i.asked.get((prior, True), False) for i in group) / count
        print(
            f"{name:14}{count:5d} | {share('base', True, 'right'):>5} "
            f"{sum(i.in_nbest for i in group) / count:6.0%} "
            f"{sum(i.read_value == i.number for i in group) / count:5.0%} {share(prior, True, 'right'):>5} "
            f"{asked:5.0%} {share(prior, True, 'none'):>5} {share(prior, True, 'other'):>5} "
            f"| {num('base', True, 'out'):15d} {num('direct', True, 'out'):6d} {num(prior, True, 'out'):7d} "
            f"| {share('base', False, 'caught'):>21} {share('direct', False, 'caught'):>6} "
            f"{share(prior, False, 'caught'):>7} | {pct(latencies, 50):7.2f} {pct(latencies, 99):5.2f} "
            f"{pct(right, 50):9.2f} {pct(right, 99):5.2f} "
            f"| {sum(i.compute for i in group) / audio:5.3f}"
        )


def sweep(items: list[Item], priors: Sequence[float]) -> None:
    print("\nvalid-move prior (weight of a number the rules forbid now), all clips:")
    print(f"{'prior':>6} {'ruled right':>12} {'asked':>6} {'wrong outs':>11} {'mistakes caught':>16}")
    count = len(items)
    for prior in priors:
        right = sum(i.outcomes.get((prior, True)) == "right" for i in items)
        asked = sum(i.asked.get((prior, True), False) for i in items)
        outs = sum(i.outcomes.get((prior, True)) == "out" for i in items)
        caught = sum(i.outcomes.get((prior, False)) == "caught" for i in items)
        print(f"{prior:6.2f} {right / count:12.1%} {asked / count:6.0%} {outs:11d} {caught / count:16.1%}")


def fit(items: list[Item]) -> None:
    """Fit calibrate()'s logistic on (pooled share, reading right) and show reliability."""
    rows = [(i.share, i.top, i.read_value == i.number) for i in items if i.read_value is not None]
    if len(rows) < 10:
        return
    s = np.clip(np.array([r[0] for r in rows]), 1e-6, 1 - 1e-6)
    x = np.log(s / (1 - s))
    top = np.array([float(r[1]) for r in rows])
    y = np.array([float(r[2]) for r in rows])
    theta = np.zeros(3)
    features = np.stack([np.ones_like(x), x, top], axis=1)
    ridge = 1.0  # keeps the fit finite when the data are (nearly) separable
    for _ in range(100):  # Newton's method for L2-regularised logistic regression
        p = 1 / (1 + np.exp(-np.clip(features @ theta, -30, 30)))
        grad = features.T @ (y - p) - ridge * theta
        hess = features.T @ (features * (p * (1 - p))[:, None]) + ridge * np.eye(3)
        theta = theta + np.linalg.solve(hess, grad)
    a, b, c = (float(t) for t in theta)
    print(f"\ncalibration fit over {len(rows)} readings: CALIBRATION = ({a:.3f}, {b:.3f}, {c:.3f})")
    calibration = UpOrDownTalk.calibration
    current = np.array([calibrate(float(v), bool(t), calibration) for v, t in zip(s, top, strict=True)])
    print(f"{'confidence':>12} {'readings':>9} {'right':>7}  (with the game's Talk.calibration)")
    for lo, hi in ((0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 0.9), (0.9, 1.01)):
        mask = (current >= lo) & (current < hi)
        if mask.any():
            print(f"{lo:5.2f}-{min(hi, 1):4.2f} {int(mask.sum()):9d} {float(y[mask].mean()):7.0%}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="20 numbers, 2 voices, 3 noise conditions")
    parser.add_argument("--fit", action="store_true", help="fit and print the confidence calibration")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--priors",
        default=f"{INVALID_PRIOR},1,0.5,0.1",
        help="valid-move priors to compare, the first is the one reported in full",
    )
    args = parser.parse_args()
    numbers = tuple(sorted(random.Random(args.seed).sample(NUMBERS, 20)) if args.quick else NUMBERS)
    voices = VOICES[:2] if args.quick else VOICES
    noises = (NOISES[0], NOISES[2], NOISES[4]) if args.quick else NOISES
    priors = tuple(dict.fromkeys(float(p) for p in args.priors.split(",")))
    tasks: list[Task] = [(v, kind, snr, numbers, args.seed, priors) for v in voices for kind, snr in noises]
    started = time.perf_counter()
    items: list[Item] = []
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        for result in pool.map(run_condition, tasks):
            items.extend(result)
    wall = time.perf_counter() - started
    audio = sum(i.audio_s for i in items)
    default = [i for i in items if i.voice == VOICES[0] and i.noise == "clean"]
    print(f"{len(items)} clips, {audio / 60:.1f} min of audio, {wall:.0f} s wall with {args.workers} workers")
    print(
        "base: plain phrase list, top-1 right | n-best: the number said is among the pipeline's "
        "alternatives (what re-reading could reach) | read: pipeline reading right | ruled: ruled right, "
        "questions answered | asked: a question was put | none: nothing ruled | other: another allowed "
        "number ruled | wrong out: put out for an allowed number (base and direct: ruled as heard) | "
        "mistakes caught: said a wrong number and went out (base, direct: for whatever was heard; "
        "confirm: only after a question naming the number said) | latency (s): end of speech to "
        "ruling, of moves ruled without a question (right: the number said) | RTF"
    )
    if default:
        base = sum(i.outcomes["base", True] == "right" for i in default)
        right = sum(i.outcomes[priors[0], True] == "right" for i in default)
        print(
            f"default voice, clean: baseline top-1 {base}/{len(default)} (issue 5 measured 22/100), "
            f"pipeline ruled right {right}/{len(default)}"
        )
    report(items, "by noise", "noise", priors[0])
    report(items, "by voice (rate, pitch)", "voice", priors[0])
    sweep(items, priors)
    base_rtf = sum(i.base_compute for i in items) / audio
    print(f"\nRTF of the baseline decoder (plain phrase list): {base_rtf:.3f}")
    if args.fit:
        fit(items)


if __name__ == "__main__":
    main()

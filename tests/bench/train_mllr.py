"""Estimate the global MLLR mean transform of pocketsphinx's US English model for a room
that rings (host/speech/room_mllr, read by host/speech/mllr.py; docs/speech.md), and the
model's means adapted further (MAP, host/speech/room_means).

Run: python tests/bench/train_mllr.py [--rooms 60] [--sessions 2] [--seed 40]
     [--words 8] [--out host/speech/room_mllr] [--with-silence] [--settle] [--voices V,V]
     [--talk SHARE] [--stats FILE.npz [--reuse]] [--means-out PATH] [--tau FRAMES]

The shipped transform: the defaults. The shipped means: ``--rooms 160 --sessions 3 --talk
0.3 --seed 41 --tau 100 --means-out host/speech/room_means --out /tmp/room_mllr`` (a third
of the utterances a sentence of table talk, none of the benches' own, so that the model
moves towards the room and not towards the games' words alone; 349,000 speech frames).

Made from synthetic speech only: the words the games listen for (numbers, cards, Blófa's
plays, Upside-Out's verbs, yes / no and the commands), said by the tuning voices of
tests/bench/rooms.py (Piper's joe at three rates and pitch-shifted, espeak-ng male and
female), from a random seat 0.6-1.8 m from a microphone lying on the table of a random
shoebox room (pyroomacoustics, RT60 0.2-1.0 s, none of the bench's rooms or seats), over
the room's noise floor. Nothing recorded, nothing downloaded.

How (one regression class, the model's three feature streams each a 13x13 block):

1. the cepstra pocketsphinx computes from the reverberant audio (the decoder's own front
   end, ``mfclogdir``); the live cepstral mean (pocketsphinx's ``cmn_live``, from the
   table's initial mean, carried over a session of a few utterances as a table's decoder
   does) and the 1s_c_d_dd deltas are then computed here (checked once by hand against
   the decoder's own senone scores, ``senlogdir``, with its top-N and clamps copied);
2. the HMM state of each frame by pocketsphinx's forced alignment (``set_align_text``,
   ``set_alignment``) of the dry twin (the same words, the same timing, no room);
3. each frame's Gaussian occupancies within its senone's codebook mixture (the senone's
   mixture weights, ``sendump``; the codebook is the phone's: a PTM model), per stream;
4. the closed-form MLLR mean estimate with diagonal covariances: row i of [b A] is
   G_i^-1 k_i, G_i = sum_m occ_m / var_mi [1 mu_m][1 mu_m]^T, k_i = sum_m sum_t
   gamma_m(t) o_t,i / var_mi [1 mu_m].
5. the MAP means: each Gaussian's transformed mean moved towards the frames it scored,
   (tau (A mu + b) + sum_t gamma_m(t) o_t) / (tau + occ_m), tau frames of prior weight.

Silence frames (SIL, noise phones) are left out unless ``--with-silence``: the one
transform is for speech.
"""

from __future__ import annotations

import argparse
import math
import struct
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.signal import fftconvolve

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from host.speech.audio import SAMPLE_RATE, as_int16
from host.speech.mllr import read_gauden, write_gauden, write_transform
from host.speech.model import SpeechModel, load_model
from host.speech.sphinx import TABLE_CMN_INIT, decoder_config
from tests.bench import rooms
from tests.bench.rooms import Room

LOGBASE = 1.0001  # pocketsphinx's -logbase
SENSCR_SHIFT = 10
CMN_WIN, CMN_WIN_HWM = 500, 800  # pocketsphinx's cmn_live window
VARFLOOR = 1e-4
#: Tuning voices only (rooms.HELD_OUT_VOICES are for the independent check).
VOICES = ("piper", "piper-fast", "piper-slow", "piper-up", "piper-down", "espeak-m", "espeak-f")
SILENCE = frozenset({"SIL", "+NSN+", "+SPN+"})
LEAD_S, TAIL_S = 0.25, 0.5  # floor before a word, tail kept after it
BLOCK = 20  # frames a process_raw chunk of 0.2 s gives: the live mean moves between blocks

# --- the words ----------------------------------------------------------------------------

_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = [
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def number_words(n: int) -> str:
    if n < 10:
        return _UNITS[n]
    if n < 20:
        return _TEENS[n - 10]
    if n < 100:
        tens, unit = divmod(n, 10)
        return _TENS[tens - 2] + ("" if unit == 0 else " " + _UNITS[unit])
    hundreds, rest = divmod(n, 100)
    return _UNITS[hundreds] + " hundred" + ("" if rest == 0 else " " + number_words(rest))


def phrases() -> list[str]:
    """What the games listen for, in the shapes players say it."""
    out = [number_words(n) for n in range(0, 121)]
    suits = ("hearts", "clubs", "spades", "diamonds", "clowns")
    out += [f"{number_words(r)} of {s}" for r in range(1, 11) for s in suits]
    out += [f"ace of {s}" for s in suits]
    out += [
        f"{c} {col} {card}"
        for c in ("one", "two")
        for col in ("blue", "yellow")
        for card in ("card", "cards")
    ]
    out += ["pass", "i pass", "draw", "challenge", "liar", "keep", "take", "capture", "i hold a rule card",
            "no rule card", "i draw", "i play mirror", "counter", "decoy", "reveal a secret", "discard",
            "done", "yes", "no", "yeah", "that's right", "undo", "whose turn", "new game", "repeat",
            "score", "help", "take it back", "okay", "me first"]  # fmt: skip
    return out


#: Table talk to train on, none of it in the benches' corpora (tests/bench/table_talk/):
#: the model is adapted to the room, not to the games' words alone.
TALK = [
    "where did you put the remote",
    "my phone is almost dead",
    "did anyone see the game last night",
    "the dog wants to go outside",
    "i think it is going to rain tomorrow",
    "turn the music down a bit",
    "we should do this every week",
    "who brought the salad",
    "i need to leave by eleven",
    "that was a long day at work",
    "can you open the window",
    "the neighbours are loud again",
    "my sister is coming over later",
    "is the oven still on",
    "i forgot my glasses in the car",
    "this chair is really comfortable",
    "let me get some more ice",
    "what time does the shop close",
    "somebody left the lights on upstairs",
    "i love this song",
    "how is your mother doing",
    "the train was late again",
    "we ran out of milk",
    "did you finish that book",
    "the cat is on the table",
    "i can not find my keys",
    "tell me about your holiday",
    "the baby is finally asleep",
    "who is driving home tonight",
    "these chips are a bit salty",
    "i will wash the dishes after",
    "it is cold in here",
    "can somebody pass the napkins",
    "my brother said hello",
    "we have to try that new restaurant",
    "the garden looks lovely",
    "i am so tired today",
    "put the kettle on would you",
    "the movie starts at nine",
    "have you seen my jacket",
    "what are you doing this weekend",
    "the wifi is really slow",
    "i bought a new bike",
    "that reminds me of a story",
    "the pizza should be here soon",
    "wait a minute",
    "hold on i need to think",
    "that is not fair",
    "you always win this game",
    "good one",
    "oh come on",
    "no way",
    "seriously",
    "hurry up",
    "my turn after you",
    "nice move",
]

# --- the model ------------------------------------------------------------------------------


@dataclass
class Model:
    """The numbers of pocketsphinx's PTM model that the estimate needs."""

    means: list[np.ndarray]  # per stream: [codebook, density, 13]
    variances: list[np.ndarray]  # the same, floored as pocketsphinx floors them
    mixw: np.ndarray  # [stream, density, senone], natural log
    phones: dict[str, int]  # CI phone -> its codebook (PTM: one a phone)

    @classmethod
    def load(cls, hmm: Path) -> Model:
        means = read_gauden(hmm / "means")
        return cls(
            means,
            [np.maximum(v, VARFLOOR) for v in read_gauden(hmm / "variances")],
            read_sendump(hmm / "sendump"),
            {name: i for i, name in enumerate(ciphones(hmm / "mdef", len(means[0])))},
        )

    def log_gauss(self, o: np.ndarray, stream: int, codebooks: np.ndarray) -> np.ndarray:
        """log N(o_t; mu, var) of every density of each frame's codebook: [T, density]."""
        mu, var = self.means[stream][codebooks], self.variances[stream][codebooks]
        det = -0.5 * np.sum(np.log(2 * np.pi * var), axis=-1)
        return det - 0.5 * np.sum((o[:, None, :] - mu) ** 2 / var, axis=-1)


def read_sendump(path: Path) -> np.ndarray:
    """The senones' mixture weights (pocketsphinx's 8-bit sendump): [stream, density, senone]."""
    raw = path.read_bytes()
    at = 0

    def string() -> bytes:
        nonlocal at
        (n,) = struct.unpack("<i", raw[at : at + 4])
        at += 4 + n
        return raw[at - n : at]

    string(), string()  # title, header
    while text := string():
        key, _, value = text.rstrip(b"\0").partition(b" ")
        if (key, value) in ((b"cluster_count", b"16"), (b"cluster_count", b"15")) or (
            key == b"feature_count" and value != b"3"
        ):
            raise ValueError(f"{path}: {text!r} not supported")
    rows, cols = struct.unpack("<2i", raw[at : at + 8])
    mixw = np.frombuffer(raw, np.uint8, 3 * rows * cols, at + 8).reshape(3, rows, cols)
    # -log_1.0001(w) >> 10
    return -mixw.astype(np.float64) * 2**SENSCR_SHIFT * math.log(LOGBASE)


def ciphones(mdef: Path, n: int) -> list[str]:
    """The ``n`` CI phones of a binary mdef, in order (their codebooks in a PTM model): the
    table of phone names, the first one being the noise phone +NSN+."""
    raw = mdef.read_bytes()
    at = raw.index(b"+NSN+\0")
    return [name.decode() for name in raw[at:].split(b"\0")[:n]]


# --- features -------------------------------------------------------------------------------


class LiveCmn:
    """pocketsphinx's live cepstral mean (cmn_live.c), fed a block at a time as the decoder is."""

    def __init__(self, init: str = TABLE_CMN_INIT) -> None:
        self.mean = np.array([float(v) for v in init.split(",")])
        self.sum = self.mean * CMN_WIN
        self.nframe = CMN_WIN

    def _block(self, cep: np.ndarray) -> np.ndarray:
        out = cep.copy()
        for i, frame in enumerate(cep):
            if frame[0] < 0:  # zero-energy frames are left alone
                continue
            self.sum += frame
            out[i] = frame - self.mean
            self.nframe += 1
        if self.nframe > CMN_WIN_HWM:
            self._shift()
        return out

    def _shift(self) -> None:
        self.mean = self.sum / self.nframe
        if self.nframe >= CMN_WIN_HWM:
            self.sum *= CMN_WIN / self.nframe
            self.nframe = CMN_WIN

    def utterance(self, cep: np.ndarray) -> np.ndarray:
        out = np.concatenate([self._block(cep[i : i + BLOCK]) for i in range(0, len(cep), BLOCK)])
        self.mean = self.sum / self.nframe  # cmn_live_update at end_utt
        if self.nframe > CMN_WIN_HWM:
            self.sum *= CMN_WIN / self.nframe
            self.nframe = CMN_WIN
        return out


def streams(cep: np.ndarray) -> list[np.ndarray]:
    """1s_c_d_dd: cepstra, deltas c[t+2]-c[t-2], double deltas, the utterance's first and
    last frame repeated past its ends (feat.c), as the model's three streams."""
    pad = np.concatenate([np.repeat(cep[:1], 3, 0), cep, np.repeat(cep[-1:], 3, 0)])
    t = np.arange(len(cep)) + 3
    return [cep, pad[t + 2] - pad[t - 2], (pad[t + 3] - pad[t - 1]) - (pad[t + 1] - pad[t - 3])]


def read_mfc(path: Path) -> np.ndarray:
    return np.frombuffer(path.read_bytes()[4:], ">f4").astype(np.float64).reshape(-1, 13)


# --- the data -------------------------------------------------------------------------------


def random_room(rng: np.random.Generator, k: int, rt60s: tuple[float, float] = (0.2, 1.0)) -> Room:
    """A shoebox room with a table, RT60 0.2-1.0 s (``rt60s``), the talker 0.6-1.8 m from
    the microphone."""
    while True:
        size = (rng.uniform(3.0, 7.0), rng.uniform(2.6, 6.0), rng.uniform(2.3, 3.2))
        rt60 = round(float(rng.uniform(*rt60s)), 2)
        volume, surface = (
            size[0] * size[1] * size[2],
            2 * (size[0] * size[1] + size[1] * size[2] + size[0] * size[2]),
        )
        if 0.161 * volume / (surface * rt60) < 0.95:  # Sabine: absorption must stay below 1
            break
    table = (rng.uniform(1.2, size[0] - 1.2), rng.uniform(1.2, size[1] - 1.2))
    seats = tuple(
        (round(float(rng.uniform(0.6, 1.8)), 2), round(float(rng.uniform(0, 360)), 1)) for _ in range(4)
    )
    rounded = (round(size[0], 2), round(size[1], 2), round(size[2], 2))
    return Room(f"train{k}", rounded, rt60, (round(table[0], 2), round(table[1], 2)), seats, held_out=False)


@dataclass
class Utterance:
    text: str
    wet: bytes  # what the microphone hears
    dry: bytes  # the same words in the same frames, no room (for the alignment)


def session(room: Room, seat: int, voice: str, texts: list[str], seed: int) -> Iterator[Utterance]:
    """``texts`` said one after another from ``seat``: each an utterance with the floor
    before it and the room's tail after it."""
    rir = rooms.impulse_response(room, room.seat_position(seat))
    delay = int(np.argmax(np.abs(rir) > 0.5 * np.abs(rir).max()))
    lead, tail = round(LEAD_S * SAMPLE_RATE), round(TAIL_S * SAMPLE_RATE)
    for j, text in enumerate(texts):
        dry = as_int16(rooms.voice_audio(text, voice)).astype(np.float64)
        level = rooms.active_rms(dry)
        dry *= 32768 * 10 ** (rooms.SPEECH_DBFS / 20) / max(level, 1e-9)
        n = lead + dry.size + tail
        wet = np.zeros(n)
        conv = fftconvolve(dry, rir)[: n - lead]
        wet[lead : lead + conv.size] = conv
        twin = np.zeros(n)
        twin[lead + delay : lead + delay + dry.size] = dry[: n - lead - delay]
        twin *= 1 / rooms.direct_distance(room, seat)
        floor = rooms.room_floor(n, seed * 1000 + j)
        yield Utterance(text, _pcm(wet + floor), _pcm(twin + floor))


def _pcm(x: np.ndarray) -> bytes:
    return np.clip(np.rint(x), -32768, 32767).astype("<i2").tobytes()


# --- the estimate ---------------------------------------------------------------------------


class Accumulator:
    """Per stream and Gaussian: occupancy and occupancy-weighted sum of the observations."""

    def __init__(self, model: Model, with_silence: bool) -> None:
        self.model = model
        self.with_silence = with_silence
        shape = model.means[0].shape
        self.occ = [np.zeros(shape[:2]) for _ in model.means]
        self.first = [np.zeros(shape) for _ in model.means]
        self.frames = 0
        self.skipped = 0  # utterances the alignment failed on

    def add(self, feats: list[np.ndarray], senones: np.ndarray, phones: list[str]) -> None:
        keep = np.array([self.with_silence or p not in SILENCE for p in phones])
        if not keep.any():
            return
        codebooks = np.array([self.model.phones[p] for p in phones])[keep]
        senones = senones[keep]
        self.frames += int(keep.sum())
        for f, o in enumerate(feats):
            o = o[keep]
            log_post = self.model.log_gauss(o, f, codebooks) + self.model.mixw[f][:, senones].T
            post = np.exp(log_post - log_post.max(axis=1, keepdims=True))
            post /= post.sum(axis=1, keepdims=True)
            np.add.at(self.occ[f], codebooks, post)
            np.add.at(self.first[f], codebooks, post[:, :, None] * o[:, None, :])

    def save(self, path: Path) -> None:
        np.savez_compressed(path, frames=self.frames, **{f"occ{f}": o for f, o in enumerate(self.occ)},
                            **{f"first{f}": x for f, x in enumerate(self.first)})  # fmt: skip

    def load(self, path: Path) -> None:
        data = np.load(path)
        self.frames = int(data["frames"])
        self.occ = [data[f"occ{f}"] for f in range(len(self.occ))]
        self.first = [data[f"first{f}"] for f in range(len(self.first))]

    def map_means(self, transform: list[tuple[np.ndarray, np.ndarray]], tau: float) -> list[np.ndarray]:
        """MAP means per stream: each Gaussian's transformed mean moved towards what it
        heard, (tau mu' + sum gamma o) / (tau + sum gamma)."""
        out = []
        for f, mu in enumerate(self.model.means):
            a, b = transform[f]
            prior = mu @ a.T + b
            occ = self.occ[f][..., None]
            out.append((tau * prior + self.first[f]) / (tau + occ))
        return out

    def estimate(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(A, b) per stream: the closed-form MLLR mean transform, diagonal covariances."""
        out = []
        for f, mu in enumerate(self.model.means):
            mu = mu.reshape(-1, mu.shape[-1])
            var = self.model.variances[f].reshape(mu.shape)
            occ = self.occ[f].reshape(-1)
            first = self.first[f].reshape(mu.shape)
            xi = np.concatenate([np.ones((mu.shape[0], 1)), mu], axis=1)
            rows = []
            for i in range(mu.shape[1]):
                g = (xi * (occ / var[:, i])[:, None]).T @ xi
                k = xi.T @ (first[:, i] / var[:, i])
                rows.append(np.linalg.solve(g, k))
            w = np.array(rows)
            out.append((w[:, 1:], w[:, 0]))
        return out


def utterance_data(decoder: Any, utt: Utterance, logdir: Path) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The wet audio's cepstra (the decoder's front end) and the dry twin's state alignment."""
    d: Any = decoder
    d.set_align_text(utt.text)
    before = set(logdir.iterdir())
    d.start_utt()
    d.process_raw(utt.wet, True, False)  # no search: the front end (and its log) only
    d.end_utt()
    (made,) = set(logdir.iterdir()) - before
    cep = read_mfc(made)
    for words_then_states in (True, False):
        d.start_utt()
        d.process_raw(utt.dry, False, True)
        d.end_utt()
        if words_then_states:
            try:
                d.set_alignment()
            except RuntimeError:  # the words did not fit the audio: left out
                for log in logdir.iterdir():
                    log.unlink()
                return cep, np.zeros(0, dtype=int), []
    senones, phones = [], []
    for phone in d.get_alignment().phones():
        for state in phone:
            senones += [int(state.name)] * state.duration
            phones += [phone.name] * state.duration
    for log in logdir.iterdir():
        log.unlink()
    n = min(len(cep), len(senones))
    return cep, np.array(senones[:n]), phones[:n]


def make_decoder(model: SpeechModel, logdir: Path) -> Any:
    import pocketsphinx  # lazy: the native library

    config = decoder_config(model, SAMPLE_RATE)
    config["mfclogdir"] = str(logdir)
    return pocketsphinx.Decoder(config)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=60)
    parser.add_argument("--sessions", type=int, default=2, help="seats (sessions) a room")
    parser.add_argument("--words", type=int, default=8, help="utterances a session")
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--with-silence", action="store_true")
    parser.add_argument(
        "--settle", action="store_true", help="the live mean hears a session once before it counts"
    )
    parser.add_argument("--talk", type=float, default=0.0, help="share of utterances that are table talk")
    parser.add_argument("--stats", type=Path, help="save the statistics here (or, with --reuse, read them)")
    parser.add_argument("--reuse", action="store_true", help="estimate from --stats, hear nothing")
    parser.add_argument("--means-out", type=Path, help="also write MAP-adapted means here")
    parser.add_argument("--tau", type=float, default=100.0, help="MAP prior weight, in frames")
    parser.add_argument(
        "--voices",
        default=",".join(VOICES),
        help="comma-separated voices each session draws from (tests/bench/rooms.py voice_setting)",
    )
    parser.add_argument(
        "--rt60", type=float, nargs=2, default=(0.2, 1.0), metavar=("LOW", "HIGH"), help="the rooms' RT60s, s"
    )
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parents[2] / "host/speech/room_mllr"
    )
    args = parser.parse_args()
    if args.reuse and args.stats is None:
        parser.error("--reuse needs --stats")
    speech = load_model(None, lang="en", engine="pocketsphinx")
    model = Model.load(Path(speech.path))
    logdir = Path(tempfile.mkdtemp(prefix="gamehost-mllr-"))
    decoder = make_decoder(speech, logdir)
    rng = np.random.default_rng(args.seed)
    voices = [v for v in args.voices.split(",") if v]
    for voice in voices:
        rooms.voice_setting(voice)  # an unknown voice stops here, before any room is heard
    texts = phrases()
    acc = Accumulator(model, args.with_silence)
    if args.reuse:
        acc.load(args.stats)
    for k in range(0 if args.reuse else args.rooms):
        room = random_room(rng, k, tuple(args.rt60))
        for s in range(args.sessions):
            voice = voices[int(rng.integers(len(voices)))]
            said = [
                # no draw without --talk: the defaults still make the shipped transform
                TALK[int(rng.integers(len(TALK)))]
                if args.talk and rng.random() < args.talk
                else texts[int(i)]
                for i in rng.integers(len(texts), size=args.words)
            ]
            said_there = [
                utterance_data(decoder, utt, logdir)
                for utt in session(room, s, voice, said, args.seed * 100000 + k * 10 + s)
            ]
            cmn = LiveCmn()
            for cep, _senones, _phones in said_there if args.settle else ():
                cmn.utterance(cep)  # a game's mean has heard the room for a while
            for cep, senones, phones in said_there:
                feats = streams(cmn.utterance(cep))  # the live mean moves on either way
                if phones:
                    acc.add([f[: len(phones)] for f in feats], senones, phones)
                else:
                    acc.skipped += 1
        print(
            f"room {k + 1}/{args.rooms} (RT60 {room.rt60} s): {acc.frames} frames, {acc.skipped} skipped",
            flush=True,
        )
    if args.stats and not args.reuse:
        acc.save(args.stats)
    transform = acc.estimate()
    write_transform(args.out, transform)
    if args.means_out:
        write_gauden(Path(speech.path) / "means", args.means_out, acc.map_means(transform, args.tau))
        print(f"wrote {args.means_out} (tau {args.tau})")
    for f, (a, b) in enumerate(transform):
        print(f"stream {f}: |A - I| {np.abs(a - np.eye(len(b))).max():.3f}, |b| max {np.abs(b).max():.3f}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

"""A real room: the referee hears the players through a phone lying in the middle of the table.

Run: python tests/bench/bench_room.py [--rooms tuning|held-out|all|fresh:COUNT:SEED|den,living,...]
     [--voices piper,piper-fast,...|KIND:SETTING] [--noise quiet,babble10,white20,fan20] [--lang en,ko]
     [--quick] [--no-talk] [--moves N] [--games ...] [--seed N] [--corpus FILE.yaml] [--dump FILE.jsonl]
     [--show N] [--dry] [--chain today,room,room-near,room-tail]
     [--dereverb RT60|room|measured|wpe] [--talk-weight W] [--screen N] [--front K=V]
     [--decoder K=V] [--ringing-weight W] [--ringing-lenient W] [--tail-db DB] [--early-end S]
     [--vad-hold P]
     [--ringing-confused ruled|asked] [--weak-word P]
     [--mllr PATH] (a chain named CHAIN-mllr hears without any MLLR transform: room-mllr,room;
    CHAIN-ringmllr with PATH's only once the room meter finds the room ringing, as room does
    with the shipped one, sphinx.RINGING_MLLR) [--ring-means PATH|none] (the adapted means
    once the room rings, sphinx.RINGING_MEANS; none: the transform alone)

The games of tests/bench/bench_table_talk.py (every kind, a move, then a sentence of table
talk and someone's "yes"), said from the players' seats in rooms simulated by
tests/bench/rooms.py (pyroomacoustics, a test dependency): the move from the mover's seat,
the talk and the "yes" from two other seats, every voice's reverberant tail running on
into the pause after it, over the room's own noise floor. ``--noise``: ``quiet`` (the
room alone), ``babble10`` (three other players talking among themselves at other seats,
10 dB below the speaker), ``white20`` / ``fan20`` / ``white10`` / ``fan10`` (the noise
mixes of the table talk bench, at that SNR against the speech). ``--dry`` runs the same
voices and noise with no room, the control.

``--chain``: ``today`` hears as the host did before issue 40 (no room rules), ``room`` as
it does now (the room measured from what is said; in a room that rings the noisy room's
read-back rules and the lenient talk prior), ``room-near`` as ``room`` with near talk kept
in a ringing room for any phrase (``sphinx.RINGING_NEAR_WORDS`` 1, ``--near-words`` and
``--near-posterior`` set the room's own), ``room-tail`` as ``room``
with a word's reverberant tail not speech to the end-pointer (``endpointer.RINGING_TAIL_DB``,
a candidate); today and room in one run by default. ``--screen N``: a candidate screened
fast, without the referee (:func:`screen`); ``--front``, ``--decoder``, ``--ringing-weight``,
``--ringing-lenient``, ``--tail-db``, ``--vad-hold``, ``--ringing-confused``, ``--weak-word``: the
candidates of docs/speech.md "Hearing in a room". ``--quick``: every 8th sentence of the
talk corpus, 10 moves a game (a few minutes a room on 2 idle cores). ``--dereverb``,
``--talk-weight``: candidates measured by hand (docs/speech.md, "Hearing in a room").

Rooms and voices named "held out" in rooms.py are never used for a choice: ``--rooms
held-out`` with the held-out voices gives the figures reported apart. ``--rooms
fresh:COUNT:SEED`` draws rooms no one has seen (``rooms.fresh_rooms``), ``--seed`` other
games and players, ``--corpus tests/bench/table_talk/en_heldout.yaml`` other talk: a sweep
for what the independent check would find.

Figures per room, voice and noise: moves ruled right first try, asked, ruled wrong,
dropped; talk that changed the game and talk asked; end of speech to ruling p50 / p99
(the end of the dry speech: the room's tail counts); CPU per second of audio (process
time of the whole hearing chain, listener and referee).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from functools import cache
from itertools import product, zip_longest
from pathlib import Path
from typing import Any

import numpy as np
from scipy.signal import fftconvolve

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from games.base import find_game
from host import confirm
from host.listening import doubts as listening
from host.listening.listener import Listener
from host.speech import dereverb, endpointer, foreground, mllr, sphinx
from host.speech.audio import SAMPLE_RATE, as_int16
from host.speech.endpointer import Endpointer
from host.speech.engines import recognizer_for
from host.speech.hearing import Hearing
from host.speech.model import SpeechModel, load_model
from tests.bench import rooms
from tests.bench.bench_table_talk import (
    END_S,
    GAP_S,
    Game,
    Microphone,
    Scene,
    Tally,
    dump,
    latency_at,
    noisy,
    pct,
    play_games,
    print_examples,
    talk_sentences,
)
from tests.bench.rooms import (
    HELD_OUT,
    HELD_OUT_VOICES,
    ROOMS,
    TUNING,
    VOICES,
    Room,
    active_rms,
    at_seat,
    fresh_rooms,
    mix,
)

LEAD_S = 0.6
BABBLE_S = 40.0  # seconds of babble made per room, cut at a random place for each stream
BABBLE_VOICES = {"en": ("espeak-f", "piper-slow", "espeak-m"), "ko": ("ko-f", "ko", "ko-m")}


class RoomScene(Scene):
    """The table in ``room``: each part said from its seat, with the room's tail, floor,
    and the noise ``level``."""

    def __init__(self, room: Room, level: str, lang: str) -> None:
        super().__init__(level)
        self.room = room
        self.lang = lang

    def stream(
        self, parts: Sequence[tuple[str, str, int]], lang: str, seed: int
    ) -> tuple[bytes, list[float]]:
        placed, spans, ends = [], [], []
        at = round(LEAD_S * SAMPLE_RATE)
        gaps = [GAP_S] * (len(parts) - 1) + [END_S]
        for (text, voice, seat), gap in zip(parts, gaps, strict=True):
            dry = rooms.voice_audio(text, voice)
            n = len(dry) // 2
            placed.append((at, at_seat(dry, self.room, seat)))
            spans.append((at, at + n))
            ends.append((at + n) / SAMPLE_RATE)
            at += n + round(gap * SAMPLE_RATE)
        x = mix(placed, at) + rooms.room_floor(at, seed)
        level = self.level
        if level.startswith("babble"):
            speech = np.concatenate([x[a:b] for a, b in spans])
            babble = babble_track(self.room, lang)
            start = np.random.default_rng(seed).integers(0, babble.size - at)
            cut = babble[start : start + at]
            snr = float(level.removeprefix("babble"))
            x = x + cut * (active_rms(speech) / max(active_rms(cut), 1e-9)) * 10 ** (-snr / 20)
            level = "quiet"
        pcm = np.clip(np.rint(x), -32768, 32767).astype("<i2").tobytes()
        if level != "quiet":
            pcm = noisy(pcm, spans, level, seed)
        return pcm, ends


class DryScene(Scene):
    """The same voices close to the microphone, no room (the control)."""

    def stream(
        self, parts: Sequence[tuple[str, str, int]], lang: str, seed: int
    ) -> tuple[bytes, list[float]]:
        out, spans, ends, at = [bytes(2 * round(LEAD_S * SAMPLE_RATE))], [], [], round(LEAD_S * SAMPLE_RATE)
        gaps = [GAP_S] * (len(parts) - 1) + [END_S]
        for (text, voice, _seat), gap in zip(parts, gaps, strict=True):
            pcm = rooms.voice_audio(text, voice)
            n = len(pcm) // 2
            spans.append((at, at + n))
            ends.append((at + n) / SAMPLE_RATE)
            out += [pcm, bytes(2 * round(gap * SAMPLE_RATE))]
            at += n + round(gap * SAMPLE_RATE)
        level = self.level
        if level.startswith("babble"):
            level = "quiet"  # babble needs seats: a room's
        pcm = b"".join(out)
        return (pcm if level == "quiet" else noisy(pcm, spans, level, seed)), ends


@cache
def babble_track(room: Room, lang: str) -> np.ndarray:
    """:data:`BABBLE_S` of three other players talking among themselves at the room's babble
    seats (sentences of the talk corpus, said back to front so that they are not the ones
    the bench says), unscaled."""
    sentences = talk_sentences(lang, None, None, False)[::-1]
    n = round(BABBLE_S * SAMPLE_RATE)
    parts = []
    for k, (voice, seat) in enumerate(zip(BABBLE_VOICES[lang], room.babble_seats, strict=True)):
        at, i = round(0.7 * k * SAMPLE_RATE), k
        while at < n:
            dry = rooms.voice_audio(sentences[i % len(sentences)], voice)
            wet = fftconvolve(
                as_int16(dry).astype(np.float64), rooms.impulse_response(room, room._position(*seat))
            )
            parts.append((at, wet))
            at += len(dry) // 2 + round(0.25 * SAMPLE_RATE)
            i += 3
    return rooms.mix(parts, n)


class OnlineWpe(dereverb.Dereverberator):
    """The candidate the issue names: online weighted prediction error (nara-wpe, one
    channel), in the dereverberator's short-time spectra."""

    def __init__(self, taps: int = 10, delay: int = 3, alpha: float = 0.9999) -> None:
        super().__init__(1.0)
        from nara_wpe.wpe import OnlineWPE  # lazy: a candidate's test dependency

        bins = dereverb.FRAME // 2 + 1
        self._wpe = OnlineWPE(
            taps, delay, alpha, power_estimate=np.full(bins, 1e4), channel=1, frequency_bins=bins
        )

    def _hop(self, samples: np.ndarray) -> np.ndarray:
        self._input = np.concatenate([self._input[dereverb.HOP :], samples])
        spectrum = np.fft.rfft(self._input * self._window)
        spectrum = self._wpe.step_frame(spectrum[:, None])[:, 0]
        frame = np.fft.irfft(spectrum, dereverb.FRAME) * self._window / self._scale
        self._output += frame
        done = self._output[: dereverb.HOP].copy()
        self._output = np.concatenate([self._output[dereverb.HOP :], np.zeros(dereverb.HOP)])
        return done


def candidates(args: argparse.Namespace, room: Room | None) -> Callable[[Listener], None] | None:
    """What the bench's flags set on each fresh listener (a candidate measured by hand)."""
    if args.dereverb is None:
        return None
    # One for the whole game, as the microphone's: its state carries over from step to step.
    one: dereverb.Dereverberator
    if args.dereverb == "wpe":
        one = OnlineWpe()
    else:
        # "measured": the room's RT60 as the listener measures it (Listener._tune).
        if args.dereverb == "room":
            rt60 = room.rt60 if room is not None else 0.0
        else:
            rt60 = 0.0 if args.dereverb == "measured" else float(args.dereverb)
        one = dereverb.Dereverberator(rt60, floor_db=dereverb.FLOOR_DB, strength=dereverb.STRENGTH)

    def tune(listener: Listener) -> None:
        listener.dereverberator = one

    return tune


TODAY = {"RINGS_RT60": listening.RINGS_RT60}
NEAR: dict[str, float] = {"words": sphinx.RINGING_NEAR_WORDS, "posterior": sphinx.RINGING_NEAR_POSTERIOR}
MLLR = sphinx.TABLE_MLLR
RING_MLLR = sphinx.RINGING_MLLR
RING_MEANS = sphinx.RINGING_MEANS
TAIL: dict[str, Any] = {"db": endpointer.RINGING_TAIL_DB, "guard": endpointer.RINGING_TAIL_GUARD}
TAIL_CANDIDATE_DB = 15.0
CHAINS = ("today", "room", "room-near", "room-tail", "room-guard")


def use_chain(chain: str) -> None:
    """Hear as ``chain`` says: "today" is the hearing before issue 40 (no room rules),
    "room-near" the room rules with near talk kept in a ringing room for any phrase (the
    candidate as first measured; "room" keeps it for a long phrase heard surely),
    "room-tail" the room rules with a word's tail not speech to the end-pointer (a
    candidate, ``endpointer.RINGING_TAIL_DB``), "room-guard" as room-tail but for a word a
    longer one begins (``endpointer.RINGING_TAIL_GUARD``)."""
    if chain not in CHAINS:
        raise SystemExit(f"unknown chain {chain!r}")
    listening.RINGS_RT60 = math.inf if chain == "today" else TODAY["RINGS_RT60"]
    near_any = chain == "room-near"  # near talk for any phrase, as first measured
    sphinx.RINGING_NEAR_WORDS = 1 if near_any else int(NEAR["words"])
    sphinx.RINGING_NEAR_POSTERIOR = 0.0 if near_any else NEAR["posterior"]
    tail = chain in ("room-tail", "room-guard")
    endpointer.RINGING_TAIL_DB = TAIL_CANDIDATE_DB if tail else TAIL["db"]
    endpointer.RINGING_TAIL_GUARD = chain == "room-guard" or TAIL["guard"]


def set_ring_means(args: argparse.Namespace, without: bool = False) -> None:
    """The adapted means a ringing room's decoders take: the shipped ones, ``--ring-means``
    (``none``: the transform alone, sphinx.RINGING_MLLR), or none at all (CHAIN-mllr)."""
    if without or args.ring_means == "none":
        sphinx.RINGING_MEANS = None
    else:
        sphinx.RINGING_MEANS = RING_MEANS if args.ring_means is None else Path(args.ring_means)


def set_candidates(args: argparse.Namespace) -> None:
    """The hearing candidates of docs/speech.md "Hearing in a room" the flags name."""
    if args.near_words is not None:
        NEAR["words"] = args.near_words  # use_chain sets it for each chain
    if args.near_posterior is not None:
        NEAR["posterior"] = args.near_posterior
    if args.ringing_weight is not None:
        sphinx.RINGING_TALK_WEIGHT = args.ringing_weight
    if args.ringing_lenient is not None:
        sphinx.RINGING_LENIENT_WEIGHT = args.ringing_lenient
    if args.ringing_doubt is not None:
        sphinx.RINGING_DOUBT_WEIGHT = args.ringing_doubt or None
    if args.doubt_words is not None:
        sphinx.RINGING_DOUBT_WORDS = args.doubt_words
    if args.noisy_ringing_weight is not None:
        sphinx.NOISY_RINGING_TALK_WEIGHT = args.noisy_ringing_weight or None
    if args.early_end is not None:
        endpointer.RINGING_EARLY_END_S = args.early_end
    if args.vad_hold is not None:
        endpointer.RINGING_VAD_HOLD = args.vad_hold or None
    if args.max_hmms is not None:
        sphinx.RINGING_MAX_HMMS = args.max_hmms or None
    if args.tail_db is not None:
        TAIL["db"] = endpointer.RINGING_TAIL_DB = args.tail_db or None
    if args.foreground is not None:
        foreground.BELOW_DB = args.foreground or None

    if args.tail_guard:
        TAIL["guard"] = endpointer.RINGING_TAIL_GUARD = True
    if args.ringing_confused is not None:
        confirm.RINGING_CONFUSED_RULED = args.ringing_confused == "ruled"
    if args.weak_word is not None:
        confirm.RINGING_WEAK_WORD = args.weak_word
    if args.confused_word is not None:
        confirm.RINGING_CONFUSED_WORD = args.confused_word
    if args.speech_after_words is not None:
        confirm.SPEECH_AFTER_WORDS_S = args.speech_after_words or None
    if args.costly_word is not None:
        confirm.RINGING_COSTLY_WORD = args.costly_word or None
    if args.drop_word is not None:
        confirm.RINGING_DROP_WORD = args.drop_word or None
    if args.inner_drop_word is not None:
        confirm.RINGING_INNER_DROP_WORD = args.inner_drop_word or None
    if args.echoing_name is not None:
        confirm.ECHOING_NAME_READ_BACK = args.echoing_name == "on"
    if args.ringing_name is not None:
        confirm.RINGING_NAME_RIVAL = args.ringing_name == "on"
    if args.speech_before_words is not None:
        confirm.SPEECH_BEFORE_WORDS_S = args.speech_before_words or None
    if args.word_after_speech is not None:
        confirm.WORD_AFTER_SPEECH_S = args.word_after_speech or None
    if args.inner_word is not None:
        confirm.INNER_WORD_S = args.inner_word or None
    if args.inner_drop is not None:
        confirm.INNER_WORD_DROP_S = args.inner_drop or None
    if args.ringing_inner_drop is not None:
        confirm.RINGING_INNER_DROP_S = args.ringing_inner_drop or None
    if args.crowded_lone is not None:
        confirm.CROWDED_LONE_WORD_DROP = args.crowded_lone == "on"
    if args.doubted_drop is not None:
        confirm.RINGING_DOUBTED_DROP = args.doubted_drop == "on"
    for edit in args.front:
        key, _, value = edit.partition("=")
        sphinx.FRONT_END[key] = value
    if args.decoder:
        settings = {k: _number_or_text(v) for k, _, v in (d.partition("=") for d in args.decoder)}
        config = sphinx.decoder_config

        def tuned(model: SpeechModel, sample_rate: int, *, phone: bool = False) -> Any:
            made = config(model, sample_rate, phone=phone)
            for key, value in settings.items():
                made[key] = value
            return made

        sphinx.decoder_config = tuned


def _number_or_text(value: str) -> float | str:
    """A ``--decoder`` value: a number, or a path (``var=FILE``)."""
    try:
        return float(value)
    except ValueError:
        return value


def opening_listener(model: SpeechModel) -> Listener:
    """A listener to Up-or-Down's first move: its phrases and talk words are what a stream
    of numbers is heard against (:func:`screen`, tests/bench/bench_confusions.py)."""
    referee, session, _, _ = next(Game("up-or-down", "en", random.Random(7)).steps(1))
    return Listener(referee, session, model, report_missing=False)


def stream_endpointer(model: SpeechModel, listener: Listener, rings: bool) -> Endpointer:
    """One end-pointer and recogniser for a whole stream, hearing as ``listener`` does,
    told the room rings (or not)."""
    endpointer = Endpointer(
        recognizer_for(model, SAMPLE_RATE, listener.phrases(), talk=listener.talk()),
        phrase_silence_s=listener.grammar.phrase_silence_s,
        settles=listener.endpointer.settles,
    )
    endpointer.room_rings(rings)
    return endpointer


def said_from_seats(
    texts: Sequence[str], voice: str, room: Room | None, gap_s: float
) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """``texts`` said by ``voice`` one after another, ``gap_s`` apart, from the room's seats
    in turn (close to the microphone with no room), over the room's floor: the samples
    (float, pcm16 scale) and each text's (start, end) in seconds."""
    at, placed, spans = round(LEAD_S * SAMPLE_RATE), [], []
    for k, text in enumerate(texts):
        dry = rooms.voice_audio(text, voice)
        placed.append((at, as_int16(dry).astype(np.float64) if room is None else at_seat(dry, room, k % 4)))
        spans.append((at / SAMPLE_RATE, (at + len(dry) // 2) / SAMPLE_RATE))
        at += len(dry) // 2 + round(gap_s * SAMPLE_RATE)
    return mix(placed, at) + rooms.room_floor(at, 5), spans


def pcm16(x: np.ndarray) -> bytes:
    """Float samples (pcm16 scale) as pcm16, clipped."""
    pcm: bytes = np.clip(np.rint(x), -32768, 32767).astype("<i2").tobytes()
    return pcm


def hear_stream(endpointer: Endpointer, pcm: bytes) -> list[Hearing]:
    """Every hearing of ``pcm``, fed in 0.1 s chunks."""
    return list(endpointer.hearings(pcm[i : i + 3200] for i in range(0, len(pcm), 3200)))


def heard_during(hearings: Sequence[Hearing], start: float, end: float) -> list[Hearing]:
    """The hearings of what was said from ``start`` to ``end`` (s): overlapping it, the
    room's tail and the end-pointer's lead-in allowed for."""
    return [h for h in hearings if h.start < end + 0.3 and h.speech_end > start - 0.1]


def screen(args: argparse.Namespace) -> None:
    """A candidate screened fast: Up-or-Down's numbers said from the seats of each room in
    turn with sentences of table talk between them, one end-pointer and recogniser for the
    whole stream (told the room rings), no referee. Per room: the phrase heard right and
    kept, kept only as near talk, or dropped as talk; heard wrong (likewise); sentences
    heard as talk, as a phrase, or kept as near talk; end of the dry speech to the end
    decided (p50); CPU per second of audio."""
    sphinx.TABLE_MLLR = args.mllr  # a table's decoders, with the room's transform or none
    set_ring_means(args)
    model = load_model(None, lang="en", engine="auto")
    listener = opening_listener(model)
    rng = random.Random(11)
    words = [p for p in listener.phrases() if all(w.isalpha() for w in p.split())]
    said = [("move", rng.choice(words)) for _ in range(args.screen)]
    sentences = [("talk", t) for t in talk_sentences("en", None, None, True)[::2][: args.screen // 2]]
    items = [x for pair in zip_longest(said, sentences) for x in pair if x is not None]
    for room in [None] if args.dry else pick_rooms(args.rooms):
        endpointer = stream_endpointer(model, listener, room is not None)
        x, spans = said_from_seats([text for _, text in items], args.voices.split(",")[0], room, GAP_S)
        level = args.noise.split(",")[0]
        if level.startswith("babble") and room is not None:
            speech = np.concatenate([x[round(a * SAMPLE_RATE) : round(b * SAMPLE_RATE)] for a, b in spans])
            cut = np.resize(babble_track(room, "en"), x.size)
            below = 10 ** (-float(level.removeprefix("babble")) / 20)
            x = x + cut * (active_rms(speech) / active_rms(cut)) * below
        pcm = pcm16(x)
        started = time.process_time()
        hearings = hear_stream(endpointer, pcm)
        cpu = (time.process_time() - started) / (len(pcm) / 2 / SAMPLE_RATE)
        counts: dict[str, int] = {}
        late = []
        for (start, end), (kind, text) in zip(spans, items, strict=True):
            mine = heard_during(hearings, start, end)
            if kind == "talk":
                kept = [h for h in mine if not h.talk]
                what = (
                    "talk ok"
                    if not kept
                    else "talk near"
                    if all(h.near_talk for h in kept)
                    else "talk as phrase"
                )
            elif not mine:
                what = "move none"
            else:
                h = mine[0]
                right = " ".join(h.text.split()) == text
                what = ("right" if right else "wrong") + (
                    " talk" if h.talk else " near" if h.near_talk else ""
                )
                if right and not h.talk:
                    late.append(h.emitted_at - end)
            counts[what] = counts.get(what, 0) + 1
            if args.show and (what not in ("right", "talk ok") or args.show >= 100):
                print(f"  {what}: {text!r} -> {[(h.text, h.talk, h.near_talk) for h in mine]}")
        p50 = sorted(late)[len(late) // 2] if late else float("nan")
        name = room.name if room is not None else "dry"
        print(
            f"SCREEN {name}: "
            + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
            + f"; p50 {p50:.2f} s; CPU {cpu:.2f}"
        )


def pick_rooms(spec: str) -> list[Room]:
    if spec == "tuning":
        return list(TUNING)
    if spec == "held-out":
        return list(HELD_OUT)
    if spec == "all":
        return [*TUNING, *HELD_OUT]
    if spec.startswith("fresh:"):
        count, _, seed = spec.removeprefix("fresh:").partition(":")
        return fresh_rooms(int(count), int(seed or 1))
    return [ROOMS[name] for name in spec.split(",")]


def yes_voice_for(voice: str, lang: str) -> str:
    if lang == "ko":
        return "ko-m" if voice != "ko-m" else "ko-f"
    return "espeak-f" if voice.startswith("piper") else "piper"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", default="tuning")
    parser.add_argument("--voices", default="piper,espeak-m")
    parser.add_argument("--ko-voices", default="ko")
    parser.add_argument("--noise", default="quiet")
    parser.add_argument("--lang", default="en")
    parser.add_argument("--games", default="up-or-down,inversion,blofa,upside-out")
    parser.add_argument("--quick", action="store_true", help="every 8th sentence, 10 moves a game")
    parser.add_argument("--seed", type=int, default=7, help="the games' seed: other moves, other players")
    parser.add_argument("--no-talk", action="store_true", help="moves only (screening a candidate)")
    parser.add_argument("--moves", type=int, help="at least this many moves a game")
    parser.add_argument("--corpus", type=Path, help="talk sentences (default table_talk/LANG.yaml)")
    parser.add_argument("--dry", action="store_true", help="no room: the same voices close to the microphone")
    parser.add_argument("--show", type=int, default=4)
    parser.add_argument("--dump", type=Path)
    parser.add_argument(
        "--chain",
        default="today,room",
        help="today (the hearing before issue 40), room (as the host hears now), room-near "
        "(the room with near talk kept in a ringing room, a candidate), room-tail (the room "
        "with a word's tail not speech to the end-pointer, a candidate), room-guard (room-tail "
        "but for a word a longer one begins, a candidate)",
    )
    parser.add_argument("--talk-weight", type=float, help="sphinx.TALK_WEIGHT")
    parser.add_argument(
        "--ringing-confused", choices=("ruled", "asked"), help="confirm.RINGING_CONFUSED_RULED"
    )
    parser.add_argument("--weak-word", type=float, help="confirm.RINGING_WEAK_WORD (0: off)")
    parser.add_argument("--confused-word", type=float, help="confirm.RINGING_CONFUSED_WORD (0: off)")
    parser.add_argument("--speech-after-words", type=float, help="confirm.SPEECH_AFTER_WORDS_S (0: off)")
    parser.add_argument("--costly-word", type=float, help="confirm.RINGING_COSTLY_WORD (0: off)")
    parser.add_argument("--drop-word", type=float, help="confirm.RINGING_DROP_WORD (0: off)")
    parser.add_argument("--inner-drop-word", type=float, help="confirm.RINGING_INNER_DROP_WORD (0: off)")
    parser.add_argument("--echoing-name", choices=("on", "off"), help="confirm.ECHOING_NAME_READ_BACK")
    parser.add_argument("--ringing-name", choices=("on", "off"), help="confirm.RINGING_NAME_RIVAL")
    parser.add_argument("--speech-before-words", type=float, help="confirm.SPEECH_BEFORE_WORDS_S (0: off)")
    parser.add_argument("--word-after-speech", type=float, help="confirm.WORD_AFTER_SPEECH_S (0: off)")
    parser.add_argument("--inner-word", type=float, help="confirm.INNER_WORD_S (0: off)")
    parser.add_argument("--inner-drop", type=float, help="confirm.INNER_WORD_DROP_S (0: off)")
    parser.add_argument("--ringing-inner-drop", type=float, help="confirm.RINGING_INNER_DROP_S (0: off)")
    parser.add_argument("--crowded-lone", choices=("on", "off"), help="confirm.CROWDED_LONE_WORD_DROP")
    parser.add_argument("--doubted-drop", choices=("on", "off"), help="confirm.RINGING_DOUBTED_DROP")
    parser.add_argument("--dereverb", help="RT60 in s for the dereverberator, or 'room' (the room's own)")
    parser.add_argument("--dr-floor", type=float, help="dereverb.FLOOR_DB")
    parser.add_argument("--dr-strength", type=float, help="dereverb.STRENGTH")
    parser.add_argument(
        "--ring-means", help="adapted means once the room rings (sphinx.RINGING_MEANS; 'none': the transform)"
    )
    parser.add_argument(
        "--mllr",
        type=Path,
        help="an MLLR transform (sphinx.TABLE_MLLR, e.g. host/speech/room_mllr); CHAIN-mllr: none",
    )
    parser.add_argument("--near-words", type=int, help="sphinx.RINGING_NEAR_WORDS")
    parser.add_argument("--near-posterior", type=float, help="sphinx.RINGING_NEAR_POSTERIOR")
    parser.add_argument("--ringing-weight", type=float, help="sphinx.RINGING_TALK_WEIGHT")
    parser.add_argument("--ringing-lenient", type=float, help="sphinx.RINGING_LENIENT_WEIGHT")
    parser.add_argument("--ringing-doubt", type=float, help="sphinx.RINGING_DOUBT_WEIGHT (0: off)")
    parser.add_argument("--doubt-words", type=int, help="sphinx.RINGING_DOUBT_WORDS")
    parser.add_argument(
        "--noisy-ringing-weight", type=float, help="sphinx.NOISY_RINGING_TALK_WEIGHT (0: off)"
    )
    parser.add_argument("--tail-db", type=float, help="endpointer.RINGING_TAIL_DB (0: off)")
    parser.add_argument("--early-end", type=float, help="endpointer.RINGING_EARLY_END_S (s)")
    parser.add_argument("--vad-hold", type=float, help="endpointer.RINGING_VAD_HOLD (0: off)")
    parser.add_argument("--max-hmms", type=int, help="sphinx.RINGING_MAX_HMMS (0: off)")
    parser.add_argument("--foreground", type=float, help="foreground.BELOW_DB (0: off)")
    parser.add_argument("--tail-guard", action="store_true", help="endpointer.RINGING_TAIL_GUARD on")
    parser.add_argument(
        "--front", action="append", default=[], help="KEY=VALUE over feat.params, e.g. remove_noise=no"
    )
    parser.add_argument("--decoder", action="append", default=[], help="KEY=VALUE on every decoder's config")
    parser.add_argument(
        "--screen",
        type=int,
        metavar="N",
        help="screen a candidate: N numbers and N/2 sentences, one stream a room",
    )
    args = parser.parse_args()
    set_candidates(args)
    if args.screen:
        screen(args)
        return
    if args.dr_floor is not None:
        dereverb.FLOOR_DB = args.dr_floor
    if args.dr_strength is not None:
        dereverb.STRENGTH = args.dr_strength
    if args.talk_weight is not None:
        sphinx.TALK_WEIGHT = args.talk_weight
    load = os.getloadavg()[0]
    print(f"load average at start: {load:.1f}")
    for lang in args.lang.split(","):
        sentences = [] if args.no_talk else talk_sentences(lang, args.corpus, None, args.quick)
        if args.quick:
            sentences = sentences[::4]  # a few minutes a room on 2 shared cores
        model = load_model(None, lang=lang, engine="auto")
        voices = (args.voices if lang == "en" else args.ko_voices).split(",")
        games = [g for g in args.games.split(",") if lang == "en" or "ko" in find_game(g).languages]
        places: list[Room | None] = [None] if args.dry else list(pick_rooms(args.rooms))
        for room, voice, level, chain in product(
            places, voices, args.noise.split(","), args.chain.split(",")
        ):
            # CHAIN-ringmllr: the room's transform only once the meter finds the room ringing.
            ringing = chain.endswith("-ringmllr")
            without = chain.endswith("-mllr")
            ring = RING_MLLR if not without else None
            sphinx.RINGING_MLLR = (args.mllr or mllr.ROOM_TRANSFORM) if ringing else ring
            sphinx.TABLE_MLLR = None if without or ringing else (args.mllr or MLLR)
            set_ring_means(args, without)
            use_chain(chain.removesuffix("-ringmllr").removesuffix("-mllr"))
            tally = Tally()
            started = time.perf_counter()
            scene = DryScene(level) if room is None else RoomScene(room, level, lang)
            tune = candidates(args, room) if chain != "today" else None
            Microphone.tune = staticmethod(tune) if tune is not None else None
            play_games(model, lang, voice, yes_voice_for(voice, lang), sentences, games, args.quick,
                               tally, scene=scene, moves=args.moves, seed=args.seed)  # fmt: skip
            where = "dry" if room is None else f"{room.name} (RT60 {room.rt60} s)"
            unseen = voice in HELD_OUT_VOICES or voice not in VOICES
            held = " [held out]" if (room and room.held_out) or unseen else ""
            report(
                lang,
                f"{where} {voice} {level}{held} [{chain}]",
                tally,
                time.perf_counter() - started,
                args.show,
            )
            if args.dump is not None:
                dump(args.dump, tally, lang=lang, room=where, voice=voice, noise=level, chain=chain)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


def report(lang: str, label: str, t: Tally, seconds: float, show: int) -> None:
    talk_n, move_n = sum(t.talk.values()), sum(t.moves.values())

    def p(q: float) -> float:
        return latency_at(t, q)

    dropped = t.moves["missed"] + t.moves["answered"]
    cpu = t.cpu_s / t.audio_s if t.audio_s else float("nan")
    print(f"\n== {lang} {label} ({seconds:.0f} s, load {os.getloadavg()[0]:.1f}) ==")
    print(
        f"moves: right first try {pct(t.moves['right'], move_n)}, asked {pct(t.moves['asked'], move_n)}, "
        f"dropped {pct(dropped, move_n)}, wrong {pct(t.moves['wrong'], move_n)}"
    )
    if talk_n:
        changed, asked = pct(t.talk["changed"], talk_n), pct(t.talk["asked"], talk_n)
        print(f"talk: changed the game {changed}, asked {asked}, answered {pct(t.talk['answered'], talk_n)}")
    print(f"end of speech to ruling p50 {p(0.5):.2f} s, p99 {p(0.99):.2f} s; CPU per audio second {cpu:.3f}")
    print(
        "ROW | " + " | ".join([
            lang, label, f"{t.moves['right']}/{move_n}", str(t.moves["asked"]), str(dropped),
            str(t.moves["wrong"]), f"{t.talk['changed']}/{talk_n}", str(t.talk["asked"]),
            f"{p(0.5):.2f} / {p(0.99):.2f}", f"{cpu:.2f}",
        ])
    )  # fmt: skip
    print_examples(t, show)


if __name__ == "__main__":
    main()

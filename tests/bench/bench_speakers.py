"""Who spoke: moves attributed to the players' enrolled voices (issue 44), dry and in rooms.

Run: PYTHONPATH=. python tests/bench/bench_speakers.py [--rooms] [--sweep] [--held-out]

Voices (:data:`VOICES`): Piper's joe, joe pitched up and down (sox ``pitch``, the same
words in a higher or lower voice), espeak-ng male and female variants and a pitched-down
copy. Each player says moves at three speaking rates (Piper's length scale, espeak-ng's
words a minute), so one voice is heard fast and slow as a person would be. Held-out voices
(:data:`HELD_OUT`) are never used for a choice: ``--held-out`` measures them alone.

Each voice is enrolled from its player's name said once (as the opening name round hears
it), then, at every table of four voices, each player on turn says each move
(:data:`MOVES`) and every other player says it out of turn; each is identified with the
player on turn presumed (``Voices.identify(embedding, presumed=...)``). Two figures: *name
only* (every move against the voices as enrolled from the names) and *in game* (each move
named for the player on turn refines their voice, as the host does, in the order played;
a voice whose name was too poor to enrol enrols from its first move ruled).

For a move said by the player on turn: "attributed" (the voice names them), "unsure" (no
one named: the host rules as today), "refused" (another player named: a right move
refused as out of turn). For a move said by another player: "caught" (that player
named), "unsure", "on turn" (the player on turn named: ruled for them), "misnamed" (a
third player named). "unsure" on turn is ruled as today, for the player on turn.
Targets (issue 44): attributed >= 98 % dry, >= 95 % in rooms; caught >= 95 % dry, >= 85 %
in rooms; refused <= 1 %. *Strangers*: the held-out voices, enrolled nowhere, saying the
moves at the same tables: how often one is taken for a player.

``--rooms`` plays the same in this bench's own simulated rooms (pyroomacoustics, when it is
installed), each player at a seat round a phone lying on the table, 0.8 to 1.6 m away; the
name and the moves are heard from that seat. (The room bench's rooms, issue 40, are not on
main yet.) ``--sweep`` prints the figures for a grid of thresholds
(the "unsure" band: :data:`~host.speech.voiceprint.MIN_SCORE` and ``MIN_MARGIN``).
Speed: the encoder's size, load time, CPU per second of audio and latency.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import math
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from host.speech import voiceprint
from host.speech.audio import SAMPLE_RATE, as_int16
from host.speech.tts import espeak_synthesize, piper_synthesize
from host.speech.voiceprint import Identity, Voiceprint, Voices

CACHE = Path(tempfile.gettempdir()) / "gamehost-bench-speakers"
Float = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Voice:
    name: str  # the player's name, said once to enrol
    kind: str  # "piper" or "espeak"
    setting: str = ""  # espeak-ng voice
    cents: int = 0  # sox pitch shift


VOICES = {
    "joe": Voice("Ann", "piper"),
    "joe-up": Voice("Bob", "piper", cents=300),
    "joe-down": Voice("Cy", "piper", cents=-300),
    "espeak-m": Voice("Dana", "espeak", "en-us+m3"),
    "espeak-f": Voice("Eve", "espeak", "en-us+f2"),
    "espeak-f-up": Voice("Fay", "espeak", "en-us+f4", cents=300),
}
HELD_OUT = {
    "joe-up2": Voice("Gus", "piper", cents=500),
    "espeak-m7": Voice("Hal", "espeak", "en-us+m7"),
    "espeak-klatt": Voice("Ivy", "espeak", "en-us+klatt"),
    "espeak-f3-up": Voice("Jo", "espeak", "en-us+f3", cents=200),
    "joe-down2": Voice("Kim", "piper", cents=-600),
}
#: Voices the encoder hears as one (espeak-ng's formant voices at one pitch): at a table
#: with espeak-m they should come out unsure, not wrong.
TWINS = {
    "espeak-f-down": Voice("Lou", "espeak", "en-us+f4", cents=-400),
    "espeak-gb": Voice("Max", "espeak", "en-gb"),
}
MOVES = (
    "fifty three", "forty", "seventy one", "twelve", "eighty eight", "a hundred", "nine",
    "sixty four", "thirty seven", "twenty", "ninety nine", "eleven", "seven of hearts",
    "queen of spades", "pass", "I'm out", "undo", "three", "forty two", "eighty five",
)  # fmt: skip
#: Speaking rates: Piper's length scale and espeak-ng's words a minute, slow to fast.
PIPER_RATES = (1.25, 1.0, 0.8)
ESPEAK_RATES = (140, 175, 220)
LEAD_S, TAIL_S = 0.2, 0.3  # what an endpointer keeps round the speech


# --- audio ----------------------------------------------------------------------------------


def _trim(pcm: bytes) -> bytes:
    samples = as_int16(pcm)
    loud = np.nonzero(np.abs(samples) > 50)[0]
    return samples[loud[0] : loud[-1] + 1].tobytes() if loud.size else pcm


def _pitch(pcm: bytes, cents: int) -> bytes:
    raw = ["-t", "raw", "-r", str(SAMPLE_RATE), "-e", "signed", "-b", "16", "-c", "1"]
    done = subprocess.run(["sox", *raw, "-", *raw, "-", "pitch", str(cents)], input=pcm, capture_output=True)
    done.check_returncode()
    return done.stdout


def say(voice: Voice, text: str, rate: int = 1) -> bytes:
    """``text`` said dry by ``voice`` at speaking rate 0 (slow), 1 or 2 (fast); cached on disk."""
    key = hashlib.sha1(repr((voice.kind, voice.setting, voice.cents, rate, text)).encode()).hexdigest()
    path = CACHE / f"{key}.pcm"
    if path.exists():
        return path.read_bytes()
    if voice.kind == "piper":
        from piper import SynthesisConfig  # lazy: onnxruntime

        config = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0, length_scale=PIPER_RATES[rate])
        pcm = piper_synthesize(text, SAMPLE_RATE, syn_config=config)
    else:
        pcm = espeak_synthesize(text, voice.setting, SAMPLE_RATE, words_per_minute=ESPEAK_RATES[rate])
    pcm = _trim(pcm)
    if voice.cents:
        pcm = _pitch(pcm, voice.cents)
    CACHE.mkdir(exist_ok=True)
    path.with_suffix(".tmp").write_bytes(pcm)
    path.with_suffix(".tmp").replace(path)
    return pcm


def _framed(speech: Float, floor: Float | None) -> bytes:
    """The utterance as an endpointer cuts it: a little before and after the speech."""
    lead, tail = round(LEAD_S * SAMPLE_RATE), round(TAIL_S * SAMPLE_RATE)
    out = np.zeros(lead + speech.size + tail)
    out[lead : lead + speech.size] = speech
    if floor is not None:
        out += floor[: out.size]
    return np.clip(np.round(out), -32768, 32767).astype("<i2").tobytes()


# --- rooms (pyroomacoustics) ----------------------------------------------------------------

MIC_HEIGHT, MOUTH_HEIGHT = 0.76, 1.15  # a phone on the table, a seated player
SPEECH_DBFS = -30.0  # speech at 1 m (direct path) at the microphone
FLOOR_DBFS = -62.0  # the room's own noise (pink): a quiet living room


@dataclass(frozen=True)
class Room:
    name: str
    size: tuple[float, float, float]
    rt60: float
    table: tuple[float, float]
    seats: tuple[tuple[float, float], ...]  # (distance m, bearing degrees) from the microphone

    def seat(self, index: int) -> tuple[float, float, float]:
        distance, bearing = self.seats[index % len(self.seats)]
        flat = math.sqrt(max(distance**2 - (MOUTH_HEIGHT - MIC_HEIGHT) ** 2, 0.01))
        x = self.table[0] + flat * math.cos(math.radians(bearing))
        y = self.table[1] + flat * math.sin(math.radians(bearing))
        return (min(max(x, 0.3), self.size[0] - 0.3), min(max(y, 0.3), self.size[1] - 0.3), MOUTH_HEIGHT)


ROOMS = (
    Room("den", (4.0, 3.5, 2.5), 0.3, (2.0, 1.7), ((0.8, 90), (1.0, 270), (1.3, 0), (1.6, 180))),
    Room("living", (5.5, 4.5, 2.6), 0.6, (2.6, 2.1), ((0.9, 20), (1.0, 110), (1.3, 200), (1.6, 290))),
    Room("kitchen", (4.2, 3.2, 2.7), 0.9, (2.0, 1.5), ((0.8, 90), (1.0, 270), (1.3, 0), (1.6, 180))),
)


def rooms_available() -> bool:
    try:
        import pyroomacoustics  # noqa: F401  (lazy: a test dependency, only for --rooms)
    except ImportError:
        return False
    return True


@cache
def impulse_response(room: Room, seat: int) -> Float:
    """From ``seat`` to the microphone, direct path at 1 m of gain 1 (cached on disk)."""
    source = room.seat(seat)
    key = hashlib.sha1(repr((room.size, room.rt60, room.table, source, SAMPLE_RATE)).encode()).hexdigest()
    path = CACHE / f"rir-{key}.npy"
    if path.exists():
        return np.asarray(np.load(path), dtype=np.float64)
    import pyroomacoustics as pra  # lazy: a test dependency, only for --rooms

    absorption, order = pra.inverse_sabine(room.rt60, list(room.size))
    box = pra.ShoeBox(
        list(room.size),
        fs=SAMPLE_RATE,
        materials=pra.Material(absorption),
        max_order=order,
        air_absorption=True,
        use_rand_ism=True,
        max_rand_disp=0.05,
    )
    box.add_source(list(source))
    box.add_microphone([room.table[0], room.table[1], MIC_HEIGHT])
    box.compute_rir()
    rir = np.asarray(box.rir[0][0], dtype=np.float64) * 4 * math.pi
    CACHE.mkdir(exist_ok=True)
    np.save(path, rir)
    return rir


def _pink(n: int, seed: int) -> Float:
    spectrum = np.fft.rfft(np.random.default_rng(seed).normal(0, 1, n + 1))
    spectrum[1:] /= np.sqrt(np.arange(1, spectrum.size))
    spectrum[0] = 0
    noise = np.fft.irfft(spectrum, n + 1)[:n]
    return noise / max(float(np.sqrt(np.mean(noise**2))), 1e-12) * 32768 * 10 ** (FLOOR_DBFS / 20)


def _convolve(x: Float, h: Float) -> Float:
    n = x.size + h.size - 1
    size = 1 << (n - 1).bit_length()
    return np.fft.irfft(np.fft.rfft(x, size) * np.fft.rfft(h, size), size)[:n]


def heard(pcm: bytes, room: Room | None, seat: int, seed: int) -> bytes:
    """``pcm`` (dry) as the microphone hears it from ``seat`` (dry when ``room`` is None)."""
    speech = as_int16(pcm).astype(np.float64)
    if room is None:
        return _framed(speech, None)
    frames = speech[: speech.size - speech.size % 160].reshape(-1, 160)
    levels = np.sqrt(np.mean(frames**2, axis=1))
    loud = levels[levels > 0.1 * levels.max()]
    speech *= 32768 * 10 ** (SPEECH_DBFS / 20) / float(np.sqrt(np.mean(loud**2)))
    wet = _convolve(speech, impulse_response(room, seat))
    return _framed(wet, _pink(wet.size + SAMPLE_RATE, seed))


# --- the game -------------------------------------------------------------------------------


@dataclass
class Player:
    voice: str
    seat: int
    name: Voiceprint
    moves: list[Voiceprint]  # MOVES in order, at rotating speaking rates


def players(voices: dict[str, Voice], room: Room | None) -> dict[str, Player]:
    out = {}
    for seat, (key, voice) in enumerate(voices.items()):
        seed = int(hashlib.sha1(key.encode()).hexdigest()[:8], 16)
        name = voiceprint.voiceprint(heard(say(voice, voice.name), room, seat, seed))
        moves = [
            voiceprint.voiceprint(heard(say(voice, move, i % 3), room, seat, seed + 1 + i))
            for i, move in enumerate(MOVES)
        ]
        out[key] = Player(key, seat, name, moves)
    return out


OUTCOMES_ON = ("attributed", "unsure", "refused")
OUTCOMES_OFF = ("caught", "unsure", "on turn", "misnamed")


@dataclass
class Tally:
    on: Counter[str]
    off: Counter[str]

    def rate(self, side: str, outcome: str) -> float:
        counts = self.on if side == "on" else self.off
        return counts[outcome] / max(1, sum(counts.values()))


def _tally() -> Tally:
    return Tally(Counter(), Counter())


def _on_outcome(said: str | None, speaker: str) -> str:
    return "unsure" if said is None else "attributed" if said == speaker else "refused"


def _off_outcome(said: str | None, speaker: str, on_turn: str) -> str:
    if said is None:
        return "unsure"
    return "caught" if said == speaker else "on turn" if said == on_turn else "misnamed"


def _identify(voices: Voices, move: Voiceprint, on_turn: str) -> Identity:
    return voices.identify(move.vector, presumed=on_turn)


def play(
    table: Sequence[Player], *, refine: bool, thresholds: dict[str, float], strangers: Sequence[Player] = ()
) -> tuple[dict[str, Tally], Tally]:
    """One table: enrol every name, then each move in turn by the player on turn and out of
    turn by every other player (and by each stranger). Tallies per speaking voice, and the
    strangers' (as out of turn: "caught" never happens, "on turn" and "misnamed" are wrong)."""
    voices = Voices(**thresholds)
    for player in table:
        if player.name.vector is not None:
            voices.enrol(player.voice, player.name.vector)
    tallies = {p.voice: _tally() for p in table}
    stranger = _tally()
    for move in range(len(MOVES)):
        for on_turn in table:
            for speaker in (*table, *strangers):
                said = _identify(voices, speaker.moves[move], on_turn.voice).player
                if speaker is on_turn:
                    tallies[speaker.voice].on[_on_outcome(said, speaker.voice)] += 1
                elif speaker in strangers:
                    stranger.off[_off_outcome(said, speaker.voice, on_turn.voice)] += 1
                else:
                    tallies[speaker.voice].off[_off_outcome(said, speaker.voice, on_turn.voice)] += 1
            if refine:
                voices.ruled(on_turn.voice, on_turn.moves[move].vector)  # as the host does
    return tallies, stranger


def bench(
    pool: dict[str, Player],
    *,
    refine: bool,
    thresholds: dict[str, float],
    seats: int = 4,
    strangers: Sequence[Player] = (),
) -> tuple[dict[str, Tally], Tally]:
    """Every table of ``seats`` voices from ``pool``; tallies per voice over all tables."""
    total = {key: _tally() for key in pool}
    stranger = _tally()
    for table in itertools.combinations(pool.values(), min(seats, len(pool))):
        tallies, heard_strangers = play(table, refine=refine, thresholds=thresholds, strangers=strangers)
        for key, tally in tallies.items():
            total[key].on.update(tally.on)
            total[key].off.update(tally.off)
        stranger.off.update(heard_strangers.off)
    return total, stranger


def _overall(tallies: dict[str, Tally]) -> Tally:
    return Tally(
        sum((t.on for t in tallies.values()), Counter()), sum((t.off for t in tallies.values()), Counter())
    )


def _pct(tally: Tally, side: str, outcome: str) -> str:
    return f"{100 * tally.rate(side, outcome):.1f}"


def report(title: str, tallies: dict[str, Tally], stranger: Tally, *, room: bool) -> None:
    print(f"\n== {title} ==")
    heads_on = ("attributed", "unsure", "refused")
    heads_off = ("caught", "unsure", "on-turn", "misnamed")
    print(f"{'voice':>14} | {' '.join(heads_on)} | {' '.join(heads_off)}")
    rows = [*tallies.items(), ("overall", _overall(tallies))]
    for key, tally in rows:
        on = " ".join(f"{_pct(tally, 'on', o):>{len(h)}}" for o, h in zip(OUTCOMES_ON, heads_on, strict=True))
        off = " ".join(
            f"{_pct(tally, 'off', o):>{len(h)}}" for o, h in zip(OUTCOMES_OFF, heads_off, strict=True)
        )
        print(f"{key:>14} | {on} | {off}")
    overall = rows[-1][1]
    print(f"   ({sum(overall.on.values())} moves on turn, {sum(overall.off.values())} out of turn; %)")
    want_on, want_off = (95.0, 85.0) if room else (98.0, 95.0)
    checks = (
        (f"attributed >= {want_on:g} %", 100 * overall.rate("on", "attributed") >= want_on),
        (f"caught >= {want_off:g} %", 100 * overall.rate("off", "caught") >= want_off),
        ("refused <= 1 %", 100 * overall.rate("on", "refused") <= 1.0),
    )
    print("   targets: " + ", ".join(f"{label} {'met' if ok else 'MISSED'}" for label, ok in checks))
    if sum(stranger.off.values()):
        wrong = stranger.rate("off", "on turn") + stranger.rate("off", "misnamed")
        print(
            f"   strangers: taken for the player on turn {_pct(stranger, 'off', 'on turn')} %, "
            f"for another player {_pct(stranger, 'off', 'misnamed')} %, "
            f"unsure {_pct(stranger, 'off', 'unsure')} % "
            f"(a player at all: {100 * wrong:.1f} %)"
        )


def sweep(pool: dict[str, Player], refine: bool, strangers: Sequence[Player]) -> None:
    print(
        f"\n== sweep ({'in game' if refine else 'name only'}): "
        "attributed/refused | caught/wrong | stranger taken =="
    )
    margins = (0.0, 0.02, 0.03, 0.05, 0.07, 0.1)
    print("score\\margin " + " ".join(f"{m:>24.2f}" for m in margins))
    for score in (0.0, 0.4, 0.5, 0.6, 0.65, 0.7):
        cells = []
        for margin in margins:
            tallies, stranger = bench(
                pool,
                refine=refine,
                thresholds={"min_score": score, "min_margin": margin},
                strangers=strangers,
            )
            t = _overall(tallies)
            wrong = t.rate("off", "on turn") + t.rate("off", "misnamed")
            taken = stranger.rate("off", "on turn") + stranger.rate("off", "misnamed")
            cells.append(
                f"{100 * t.rate('on', 'attributed'):4.1f}/{100 * t.rate('on', 'refused'):3.1f}"
                f"|{100 * t.rate('off', 'caught'):4.1f}/{100 * wrong:3.1f}|{100 * taken:3.0f}"
            )
        print(f"{score:>12.2f} " + " ".join(f"{c:>24}" for c in cells))


def speed() -> None:
    size = voiceprint.WEIGHTS.stat().st_size
    start = time.perf_counter()
    import onnxruntime  # noqa: F401  (lazy: timed, as the host's first load would be)

    imported = time.perf_counter() - start
    start = time.perf_counter()
    voiceprint.load()
    loaded = time.perf_counter() - start
    print(
        f"install: {size / 1e6:.1f} MB of weights (encoder.onnx); "
        "onnxruntime comes with piper-tts: nothing new"
    )
    print(
        f"load: {1000 * imported:.0f} ms to import onnxruntime (shared with Piper), "
        f"{1000 * loaded:.0f} ms the session"
    )
    pcm = say(VOICES["joe"], "fifty three")
    one_s = (pcm + bytes(2 * SAMPLE_RATE))[: 2 * SAMPLE_RATE]
    four_s = b"".join(say(VOICES["joe"], m) for m in MOVES[:6])[: 8 * SAMPLE_RATE]
    for label, audio in (("a 1 s move", one_s), ("4 s of speech", four_s)):
        voiceprint.embed(audio)
        runs = 20
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(runs):
            voiceprint.embed(audio)
        cpu = (time.process_time() - cpu) / runs
        wall = (time.perf_counter() - wall) / runs
        seconds = len(audio) / 2 / SAMPLE_RATE
        print(
            f"embed {label}: latency {1000 * wall:.1f} ms, {1000 * cpu:.1f} ms CPU, "
            f"{1000 * cpu / seconds:.1f} ms CPU per second of audio"
        )


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", action="store_true", help="also in simulated rooms (pyroomacoustics)")
    parser.add_argument("--sweep", action="store_true", help="figures for a grid of thresholds")
    parser.add_argument("--held-out", action="store_true", help="the held-out voices instead")
    args = parser.parse_args(list(argv) if argv is not None else None)
    speed()
    voices, others = (HELD_OUT, VOICES) if args.held_out else (VOICES, HELD_OUT)
    thresholds: dict[str, float] = {}
    conditions: list[tuple[str, Room | None]] = [("dry", None)]
    if args.rooms:
        if rooms_available():
            conditions += [(f"room {room.name} (RT60 {room.rt60} s)", room) for room in ROOMS]
        else:
            print("\n(rooms: pyroomacoustics is not installed)")
    else:
        print("(no rooms: --rooms plays this bench's own; the room bench of issue 40 is not on main yet)")
    for label, room in conditions:
        pool = players(voices, room)
        strangers = list(players(others, room).values())
        short = [p.voice for p in pool.values() if p.name.vector is None]
        if short:
            print(f"\n({label}: names too poor to enrol: {', '.join(short)})")
        for refine in (False, True):
            tallies, stranger = bench(pool, refine=refine, thresholds=thresholds, strangers=strangers)
            report(
                f"{label}, {'in game' if refine else 'name only'}", tallies, stranger, room=room is not None
            )
            if args.sweep:
                sweep(pool, refine, strangers)
    defaults = Voices()
    print(
        f"\nthresholds: min_score {defaults.min_score}, min_margin {defaults.min_margin}, "
        f"min_speech_s {voiceprint.MIN_SPEECH_S}, min_snr_db {voiceprint.MIN_SNR_DB}"
    )


if __name__ == "__main__":
    main(sys.argv[1:])

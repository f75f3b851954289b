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

``--rooms`` plays the same in the room bench's rooms (tests/bench/rooms.py: pyroomacoustics,
when it is installed), each player at a seat round a phone lying on the table, 0.8 to 1.6 m
away; the name and the moves are heard from that seat, so the voices are enrolled in the
room as the name round hears them. The tuning rooms come first; the held-out rooms are
reported apart and never used for a choice. Whether the room rings (the table then reads
another voice back rather than refusing a move) is what the table's room meter measures
from the names and first moves (host/speech/room.py). ``--sweep`` prints the figures for a grid of thresholds
(the "unsure" band: :data:`~host.speech.voiceprint.MIN_SCORE` and ``MIN_MARGIN``).
Speed: the encoder's size, load time, CPU per second of audio and latency.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from host.listening import speakers
from host.listening.listener import RINGS_RT60
from host.listening.speakers import AS_PRESUMED, MAYBE, SURELY, ruling
from host.speech import voiceprint
from host.speech.audio import SAMPLE_RATE, as_int16
from host.speech.room import RoomMeter
from host.speech.tts import espeak_synthesize, piper_synthesize
from host.speech.voiceprint import Identity, Voiceprint, Voices
from tests.bench import rooms
from tests.bench.rooms import Room, pitch_shift

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
        pcm = pitch_shift(pcm, voice.cents)
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


# --- rooms (tests/bench/rooms.py: the room bench's) ----------------------------------------


def rooms_available() -> bool:
    try:
        import pyroomacoustics  # noqa: F401  (lazy: a test dependency, only for --rooms)
    except ImportError:
        return False
    return True


def heard(pcm: bytes, room: Room | None, seat: int, seed: int) -> bytes:
    """``pcm`` (dry) as the microphone hears it from ``seat`` of ``room`` (the room bench's
    seats, level and noise floor; dry when ``room`` is None)."""
    if room is None:
        return _framed(as_int16(pcm).astype(np.float64), None)
    wet = rooms.at_seat(pcm, room, seat)
    return _framed(wet, rooms.room_floor(wet.size + SAMPLE_RATE, seed))


def meter_rt60(room: Room, voices: dict[str, Voice]) -> float | None:
    """The room's RT60 as the table's room meter (host/speech/room.py) measures it from the
    players' names and first moves, said one after another from their seats."""
    meter = RoomMeter()
    gap = np.zeros(round(0.8 * SAMPLE_RATE))
    at = 0.0
    for seat, voice in enumerate(voices.values()):
        for i, text in enumerate((voice.name, *MOVES[:2])):
            dry = say(voice, text, i % 3)
            clip = heard(dry, room, seat, seat * 100 + i)
            meter.feed(clip + gap.astype("<i2").tobytes())
            start = at + LEAD_S
            meter.later(start, start + len(dry) / 2 / SAMPLE_RATE, meter.time)
            at = meter.time
    meter.feed(np.zeros(SAMPLE_RATE, dtype="<i2").tobytes())
    return meter.rt60


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
    #: What the table does (host/listening/speakers.py ``ruling``): on turn "ruled", "read
    #: back" or "refused"; out of turn "caught", "read back", "ruled" (for the player on
    #: turn) or "misnamed" (answered as out of turn for a third player).
    table_on: Counter[str] = field(default_factory=Counter)
    table_off: Counter[str] = field(default_factory=Counter)

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


TABLE_ON = {AS_PRESUMED: "ruled", MAYBE: "read back", SURELY: "refused"}


def _table_off(said: str, identity: Identity, speaker: str) -> str:
    if said == SURELY:
        return "caught" if identity.player == speaker else "misnamed"
    return "read back" if said == MAYBE else "ruled"


def play(
    table: Sequence[Player],
    *,
    refine: bool,
    thresholds: dict[str, float],
    strangers: Sequence[Player] = (),
    rings: bool = False,
) -> tuple[dict[str, Tally], Tally]:
    """One table: enrol every name, then each move in turn by the player on turn and out of
    turn by every other player (and by each stranger). Tallies per speaking voice, and the
    strangers' (as out of turn: "caught" never happens, "on turn" and "misnamed" are wrong).
    ``rings``: the room meter finds the room ringing (the table reads another voice back)."""
    voices = Voices(**thresholds)
    for player in table:
        if player.name.vector is not None:
            voices.enrol(player.voice, player.name.vector)
    tallies = {p.voice: _tally() for p in table}
    stranger = _tally()
    for move in range(len(MOVES)):
        for on_turn in table:
            for speaker in (*table, *strangers):
                said = speaker.moves[move]
                identity = _identify(voices, said, on_turn.voice)
                table_said = ruling(identity, on_turn.voice, voices, said.speech_s, rings=rings)
                if speaker is on_turn:
                    tallies[speaker.voice].on[_on_outcome(identity.player, speaker.voice)] += 1
                    tallies[speaker.voice].table_on[TABLE_ON[table_said]] += 1
                    continue
                tally = stranger if speaker in strangers else tallies[speaker.voice]
                tally.off[_off_outcome(identity.player, speaker.voice, on_turn.voice)] += 1
                tally.table_off[_table_off(table_said, identity, speaker.voice)] += 1
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
    rings: bool = False,
) -> tuple[dict[str, Tally], Tally]:
    """Every table of ``seats`` voices from ``pool``; tallies per voice over all tables."""
    total = {key: _tally() for key in pool}
    stranger = _tally()
    for table in itertools.combinations(pool.values(), min(seats, len(pool))):
        tallies, heard_strangers = play(
            table, refine=refine, thresholds=thresholds, strangers=strangers, rings=rings
        )
        for key, tally in tallies.items():
            total[key].on.update(tally.on)
            total[key].off.update(tally.off)
            total[key].table_on.update(tally.table_on)
            total[key].table_off.update(tally.table_off)
        stranger.off.update(heard_strangers.off)
        stranger.table_off.update(heard_strangers.table_off)
    return total, stranger


def _overall(tallies: dict[str, Tally]) -> Tally:
    return Tally(
        sum((t.on for t in tallies.values()), Counter()),
        sum((t.off for t in tallies.values()), Counter()),
        sum((t.table_on for t in tallies.values()), Counter()),
        sum((t.table_off for t in tallies.values()), Counter()),
    )


def _share(counts: Counter[str], outcome: str) -> str:
    return f"{100 * counts[outcome] / max(1, sum(counts.values())):.1f} %"


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
    t_on, t_off = overall.table_on, overall.table_off
    print(
        f"   the table (sure band {speakers.SURE_SCORE}/{speakers.SURE_MARGIN}): "
        f"on turn ruled {_share(t_on, 'ruled')}, read back {_share(t_on, 'read back')}, "
        f"refused {_share(t_on, 'refused')}; out of turn caught "
        f"{_share(t_off, 'caught')}, read back {_share(t_off, 'read back')}, ruled for the player on turn "
        f"{_share(t_off, 'ruled')}, answered for a third player {_share(t_off, 'misnamed')}"
    )
    if sum(stranger.table_off.values()):
        s_off = stranger.table_off
        print(
            f"   the table, strangers: read back {_share(s_off, 'read back')}, ruled for the player on "
            f"turn {_share(s_off, 'ruled')}, answered as a player's {_share(s_off, 'misnamed')}"
        )
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


def sure_sweep(pool: dict[str, Player], strangers: Sequence[Player], rings: bool) -> None:
    """The table's bands (``speakers.SURE_SCORE``, ``SURE_MARGIN``, ``TWINS``), in game:
    right moves refused / read back | moves out of turn caught / ruled for the player on turn."""
    print("\n== the table's bands (in game): on turn refused/read back | out of turn caught/ruled on turn ==")
    twins = (0.7, 0.75, 0.8, 0.85, 1.01)
    print("score/margin \\ twins " + " ".join(f"{t:>22.2f}" for t in twins))
    saved = speakers.SURE_SCORE, speakers.SURE_MARGIN, speakers.TWINS
    try:
        for score, margin in ((0.6, 0.05), (0.7, 0.1), (0.7, 0.15), (0.75, 0.15)):
            cells = []
            for twin in twins:
                speakers.SURE_SCORE, speakers.SURE_MARGIN, speakers.TWINS = score, margin, twin
                t = _overall(bench(pool, refine=True, thresholds={}, strangers=strangers, rings=rings)[0])
                on, off = t.table_on, t.table_off
                cells.append(
                    f"{_share(on, 'refused')[:-2]}/{_share(on, 'read back')[:-2]}"
                    f"|{_share(off, 'caught')[:-2]}/{_share(off, 'ruled')[:-2]}"
                )
            print(f"{score:>12.2f}/{margin:.2f}      " + " ".join(f"{c:>22}" for c in cells))
    finally:
        speakers.SURE_SCORE, speakers.SURE_MARGIN, speakers.TWINS = saved


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
    parser.add_argument(
        "--rooms", action="store_true", help="also in the room bench's rooms (pyroomacoustics)"
    )
    parser.add_argument("--sweep", action="store_true", help="figures for a grid of thresholds")
    parser.add_argument("--sure", action="store_true", help="figures for a grid of the table's sure band")
    parser.add_argument("--held-out", action="store_true", help="the held-out voices instead")
    parser.add_argument("--room", action="append", default=[], help="only this room (by name; repeatable)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    speed()
    voices, others = (HELD_OUT, VOICES) if args.held_out else (VOICES, HELD_OUT)
    thresholds: dict[str, float] = {}
    conditions: list[tuple[str, Room | None]] = [("dry", None)]
    if args.rooms or args.room:
        if rooms_available():
            chosen = [rooms.ROOMS[name] for name in args.room] or [*rooms.TUNING, *rooms.HELD_OUT]
            conditions += [(room.name, room) for room in chosen]
        else:
            print("\n(rooms: pyroomacoustics is not installed)")
    for label, room in conditions:
        rings = False
        if room is not None:
            rt60 = meter_rt60(room, voices)
            rings = rt60 is not None and rt60 >= RINGS_RT60
            measured = "not measured" if rt60 is None else f"{rt60:.2f} s"
            kind = "held-out room" if room.held_out else "tuning room"
            label = (
                f"{kind} {room.name} (RT60 {room.rt60} s, the meter's {measured}{', rings' if rings else ''})"
            )
        pool = players(voices, room)
        strangers = list(players(others, room).values())
        short = [p.voice for p in pool.values() if p.name.vector is None]
        if short:
            print(f"\n({label}: names too poor to enrol: {', '.join(short)})")
        for refine in (False, True):
            tallies, stranger = bench(
                pool, refine=refine, thresholds=thresholds, strangers=strangers, rings=rings
            )
            report(
                f"{label}, {'in game' if refine else 'name only'}", tallies, stranger, room=room is not None
            )
            if args.sweep:
                sweep(pool, refine, strangers)
        if args.sure:
            sure_sweep(pool, strangers, rings)
    defaults = Voices()
    print(
        f"\nthresholds: min_score {defaults.min_score}, min_margin {defaults.min_margin}, "
        f"min_speech_s {voiceprint.MIN_SPEECH_S}, min_snr_db {voiceprint.MIN_SNR_DB}"
    )


if __name__ == "__main__":
    main(sys.argv[1:])

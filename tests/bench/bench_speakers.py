"""Who spoke: moves attributed to the players' enrolled voices (issue 44), dry and in rooms.

Run: PYTHONPATH=. python tests/bench/bench_speakers.py [--rooms | --room NAME ...] [--sweep]
     [--sure] [--held-out] [--seats N] [--latency paced|fast]

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

"The table" lines are what the host does (host/listening/speakers.py ``verdict``, by
``Voices.contrast`` and the sure margins at the room meter's RT60): a right move ruled,
read back or refused; a move out of turn caught, read back, ruled for the player on turn
or answered for a third player. "Short words" (:data:`WORDS`: "six", "draw", "yes"...)
are said by every player on turn and out of turn after the third move and after the last.

``--rooms`` plays the same in the room bench's rooms (tests/bench/rooms.py: pyroomacoustics,
when it is installed), each player at a seat round a phone lying on the table, 0.8 to 1.6 m
away; the name and the moves are heard from that seat, so the voices are enrolled in the
room as the name round hears them. The tuning rooms come first; the held-out rooms are
reported apart and never used for a choice. The room's RT60 is what the table's room meter
measures from the names and first moves (host/speech/room.py; dry speech with no noise
floor between words may leave it unmeasured: the table then takes the most ringing room's
margin). ``--sweep`` prints the figures for a grid of thresholds (the "unsure" band:
:data:`~host.speech.voiceprint.MIN_SCORE` and ``MIN_MARGIN``); ``--sure`` for a grid of the
table's sure margins (:data:`SURE_GRID`). ``--seats``: players at each table (4).
Speed: the encoder's size, load time, CPU per second of audio and latency;
``--latency`` only end of speech to ruling with voices and without (:func:`latency`).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import math
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from host.listening import speakers
from host.listening.speakers import AS_PRESUMED, MAYBE, SURELY, verdict
from host.speech import voiceprint
from host.speech.audio import SAMPLE_RATE, as_int16
from host.speech.room import RoomMeter
from host.speech.tts import espeak_synthesize, piper_synthesize
from host.speech.voiceprint import Identity, Voiceprint, Voices
from tests.bench import rooms
from tests.bench.rooms import Room, pitch_shift, trim

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
#: Short words (a syllable or two: moves, answers), said by each player on turn and out of
#: turn after the third move and after the last, against the voices refined so far.
WORDS = ("two", "six", "eight", "ten", "four", "draw", "yes", "no", "ace", "one")
#: Moves after which the short words are said (0-based).
WORDS_AFTER = (2, len(MOVES) - 1)
#: Speaking rates: Piper's length scale and espeak-ng's words a minute, slow to fast.
PIPER_RATES = (1.25, 1.0, 0.8)
ESPEAK_RATES = (140, 175, 220)
LEAD_S, TAIL_S = 0.2, 0.3  # what an endpointer keeps round the speech


# --- audio ----------------------------------------------------------------------------------


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
    pcm = trim(pcm)
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


def meter_rt60(room: Room | None, voices: dict[str, Voice]) -> float | None:
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
    words: list[Voiceprint]  # WORDS in order, at rotating speaking rates


def players(voices: dict[str, Voice], room: Room | None) -> dict[str, Player]:
    out = {}
    for seat, (key, voice) in enumerate(voices.items()):
        seed = int(hashlib.sha1(key.encode()).hexdigest()[:8], 16)
        name = voiceprint.voiceprint(heard(say(voice, voice.name), room, seat, seed))
        moves = [
            voiceprint.voiceprint(heard(say(voice, move, i % 3), room, seat, seed + 1 + i))
            for i, move in enumerate(MOVES)
        ]
        words = [
            voiceprint.voiceprint(heard(say(voice, word, i % 3), room, seat, seed + 100 + i))
            for i, word in enumerate(WORDS)
        ]
        out[key] = Player(key, seat, name, moves, words)
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
    #: The same for the short words (:data:`WORDS`).
    words_on: Counter[str] = field(default_factory=Counter)
    words_off: Counter[str] = field(default_factory=Counter)

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


def _table_off(said: str, other: str | None, speaker: str) -> str:
    if said == SURELY:
        return "caught" if other == speaker else "misnamed"
    return "read back" if said == MAYBE else "ruled"


def play(
    table: Sequence[Player],
    *,
    refine: bool,
    thresholds: dict[str, float],
    strangers: Sequence[Player] = (),
    rt60: float | None = None,
) -> tuple[dict[str, Tally], Tally]:
    """One table: enrol every name, then each move in turn by the player on turn and out of
    turn by every other player (and by each stranger). Tallies per speaking voice, and the
    strangers' (as out of turn: "caught" never happens, "on turn" and "misnamed" are wrong).
    ``rt60``: the room's as the table's room meter measures it."""
    voices = Voices(**thresholds)
    for player in table:
        if player.name.vector is not None:
            voices.enrol(player.voice, player.name.vector)
    tallies = {p.voice: _tally() for p in table}
    stranger = _tally()

    def judged(said: Voiceprint, on_turn: Player) -> tuple[str, str | None]:
        return verdict(said.vector, on_turn.voice, voices, said.speech_s, rt60)

    for move in range(len(MOVES)):
        for on_turn in table:
            for speaker in (*table, *strangers):
                said = speaker.moves[move]
                identity = _identify(voices, said, on_turn.voice)
                table_said, other = judged(said, on_turn)
                if speaker is on_turn:
                    tallies[speaker.voice].on[_on_outcome(identity.player, speaker.voice)] += 1
                    tallies[speaker.voice].table_on[TABLE_ON[table_said]] += 1
                    continue
                tally = stranger if speaker in strangers else tallies[speaker.voice]
                tally.off[_off_outcome(identity.player, speaker.voice, on_turn.voice)] += 1
                tally.table_off[_table_off(table_said, other, speaker.voice)] += 1
            if refine:
                voices.ruled(on_turn.voice, on_turn.moves[move].vector)  # as the host does
        if refine and move in WORDS_AFTER:
            for on_turn, speaker in itertools.product(table, table):
                for word in speaker.words:
                    table_said, other = judged(word, on_turn)
                    if speaker is on_turn:
                        tallies[speaker.voice].words_on[TABLE_ON[table_said]] += 1
                    else:
                        tallies[speaker.voice].words_off[_table_off(table_said, other, speaker.voice)] += 1
    return tallies, stranger


def bench(
    pool: dict[str, Player],
    *,
    refine: bool,
    thresholds: dict[str, float],
    seats: int = 4,
    strangers: Sequence[Player] = (),
    rt60: float | None = None,
) -> tuple[dict[str, Tally], Tally]:
    """Every table of ``seats`` voices from ``pool``; tallies per voice over all tables."""
    total = {key: _tally() for key in pool}
    stranger = _tally()
    for table in itertools.combinations(pool.values(), min(seats, len(pool))):
        tallies, heard_strangers = play(
            table, refine=refine, thresholds=thresholds, strangers=strangers, rt60=rt60
        )
        for key, tally in tallies.items():
            _add(total[key], tally)
        _add(stranger, heard_strangers)
    return total, stranger


def _add(total: Tally, tally: Tally) -> None:
    for name in ("on", "off", "table_on", "table_off", "words_on", "words_off"):
        getattr(total, name).update(getattr(tally, name))


def _overall(tallies: dict[str, Tally]) -> Tally:
    total = _tally()
    for tally in tallies.values():
        _add(total, tally)
    return total


def _share(counts: Counter[str], outcome: str) -> str:
    return f"{100 * counts[outcome] / max(1, sum(counts.values())):.1f} %"


def _pct(tally: Tally, side: str, outcome: str) -> str:
    return f"{100 * tally.rate(side, outcome):.1f}"


def _bands() -> str:
    bands = ", ".join(f"{margin:g} below {below:g} s" for below, margin in speakers.SURE_MARGINS)
    return f"{bands}; +{speakers.SHORT_EXTRA:g} under {speakers.SHORT_S:g} s of speech"


def _table_line(t_on: Counter[str], t_off: Counter[str]) -> str:
    return (
        f"on turn ruled {_share(t_on, 'ruled')}, read back {_share(t_on, 'read back')}, "
        f"refused {_share(t_on, 'refused')}; out of turn caught "
        f"{_share(t_off, 'caught')}, read back {_share(t_off, 'read back')}, ruled for the player on turn "
        f"{_share(t_off, 'ruled')}, answered for a third player {_share(t_off, 'misnamed')}"
    )


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
    print(f"   the table (sure margins {_bands()}): {_table_line(overall.table_on, overall.table_off)}")
    if sum(overall.words_on.values()):
        print(f"   the table, short words: {_table_line(overall.words_on, overall.words_off)}")
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


#: Candidate sure margins for ``--sure`` (below RT60 0.3 s, below 0.5 s, above), with the
#: extra margin for short speech.
SURE_GRID = (
    ((0.1, 0.25, 0.35), 0.1),
    ((0.1, 0.2, 0.3), 0.1),
    ((0.15, 0.3, 0.4), 0.1),
    ((0.1, 0.25, 0.35), 0.0),
    ((0.1, 0.25, 0.35), 0.15),
)


def sure_sweep(pool: dict[str, Player], strangers: Sequence[Player], rt60: float | None) -> None:
    """The table's sure margins (``speakers.SURE_MARGINS``, ``SHORT_EXTRA``), in game:
    right moves refused / read back | out of turn caught / ruled for the player on turn,
    moves and short words."""
    print("\n== the table's sure margins (in game): on turn refused/read back | out of turn caught/ruled ==")
    saved = speakers.SURE_MARGINS, speakers.SHORT_EXTRA
    try:
        for margins, extra in SURE_GRID:
            speakers.SURE_MARGINS = tuple(zip((0.3, 0.5, math.inf), margins, strict=True))
            speakers.SHORT_EXTRA = extra
            t = _overall(bench(pool, refine=True, thresholds={}, strangers=strangers, rt60=rt60)[0])
            cells = []
            for on, off in ((t.table_on, t.table_off), (t.words_on, t.words_off)):
                cells.append(
                    f"{_share(on, 'refused')[:-2]}/{_share(on, 'read back')[:-2]}"
                    f"|{_share(off, 'caught')[:-2]}/{_share(off, 'ruled')[:-2]}"
                )
            print(f"   {margins} +{extra}: moves {cells[0]:>22}   words {cells[1]:>22}")
    finally:
        speakers.SURE_MARGINS, speakers.SHORT_EXTRA = saved


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


def latency(paced: bool, games: Sequence[str] = ("up-or-down", "inversion")) -> None:
    """End of speech to ruling with voices and without, in one run: bench_table_talk's
    games and measure (the moves said by Piper, ten a game, no talk), each listener given a
    :class:`~host.listening.speakers.WhoSpoke` whose players all enrolled from a name
    (one voice for all: twins, so nothing is ruled otherwise, but every move is embedded
    and waited for). ``paced``: the audio is fed no faster than real time, as a microphone
    gives it, so the embedding runs in the endpointer's silence; else as fast as the
    decoder takes it (bench_table_talk's own measure: the embedding's wall time adds)."""
    from host.listening.speakers import WhoSpoke
    from host.speech.model import load_model
    from tests.bench import bench_table_talk as talk

    model = load_model(None, lang="en", engine="auto")
    name = voiceprint.voiceprint(say(VOICES["joe"], "Ann"))

    def tune(listener: Any) -> None:
        if voiced:
            who = listener.who_spoke = WhoSpoke(Voices())
            for player in listener.referee.table(listener.session_id).names:
                who.enrol(player, name)
        if paced:
            feed, began = listener.feed, time.perf_counter() - listener.time

            def paced_feed(pcm: bytes) -> Any:
                heard = feed(pcm)  # the ruling's time is taken inside; the wait comes after
                time.sleep(max(0.0, listener.time - (time.perf_counter() - began)))
                return heard

            listener.feed = paced_feed

    talk.Microphone.tune = staticmethod(tune)
    try:
        figures: dict[bool, list[float]] = {}
        for voiced in (False, True, False, True):  # twice each, interleaved: the load changes
            tally = talk.Tally()
            cpu = time.process_time()
            talk.play_games(
                model, "en", "piper", "espeak", [], games, True, tally, scene=talk.Scene("clean"), moves=10
            )
            lat = sorted(tally.latency)
            figures.setdefault(voiced, []).extend(lat)
            print(
                f"   {'with voices' if voiced else 'without'}: p50 {lat[len(lat) // 2]:.3f} s over "
                f"{len(lat)} moves, {time.process_time() - cpu:.1f} s CPU, load {os.getloadavg()[0]:.1f}"
            )
    finally:
        talk.Microphone.tune = None
    for voiced, lat in figures.items():
        lat.sort()
        print(
            f"latency ({'paced' if paced else 'as fast as decoded'}), "
            f"{'with' if voiced else 'without'} voices: "
            f"p50 {lat[len(lat) // 2]:.3f} s, p90 {lat[int(0.9 * len(lat))]:.3f} s"
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
    parser.add_argument("--seats", type=int, default=4, help="players at each table (2 to 4)")
    parser.add_argument(
        "--latency",
        choices=["paced", "fast"],
        help="only end of speech to ruling with and without voices (paced: real time, as a microphone)",
    )
    args = parser.parse_args(list(argv) if argv is not None else None)
    speed()
    if args.latency:
        latency(args.latency == "paced")
        return
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
        rt60 = meter_rt60(room, voices)
        measured = "not measured" if rt60 is None else f"{rt60:.2f} s"
        if room is not None:
            kind = "held-out room" if room.held_out else "tuning room"
            label = f"{kind} {room.name} (RT60 {room.rt60} s)"
        label += f", the meter's RT60 {measured}"
        pool = players(voices, room)
        strangers = list(players(others, room).values())
        short = [p.voice for p in pool.values() if p.name.vector is None]
        if short:
            print(f"\n({label}: names too poor to enrol: {', '.join(short)})")
        for refine in (False, True):
            tallies, stranger = bench(
                pool, refine=refine, thresholds=thresholds, seats=args.seats, strangers=strangers, rt60=rt60
            )
            report(
                f"{label}, {'in game' if refine else 'name only'}", tallies, stranger, room=room is not None
            )
            if args.sweep:
                sweep(pool, refine, strangers)
        if args.sure:
            sure_sweep(pool, strangers, rt60)
    defaults = Voices()
    print(
        f"\nthresholds: min_score {defaults.min_score}, min_margin {defaults.min_margin}, "
        f"min_speech_s {voiceprint.MIN_SPEECH_S}, min_snr_db {voiceprint.MIN_SNR_DB}"
    )


if __name__ == "__main__":
    main(sys.argv[1:])

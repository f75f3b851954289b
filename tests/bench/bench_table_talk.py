"""Table talk never moves the game: what the host does with talk and with moves, spoken.

Run: python tests/bench/bench_table_talk.py [--quick] [--lang en,ko] [--voices piper,espeak]
     [--noise clean,white20,white10,fan20] [--games up-or-down,inversion,blofa,upside-out]
     [--half even|odd] [--corpus FILE.yaml] [--dump FILE.jsonl] [--talk-weight W] [--gate-wip P]
     [--lenient-weight W] [--cold]

A seeded honest game of each kind is played out loud through the real path of a table
(``Listener`` -> ``Referee``, the table's shared microphone, nothing spoken back, so no
input is dropped while the host would speak: the hardest case). The microphone's decoder
state that a real table's one listener keeps (pocketsphinx's cepstral mean) carries over
from step to step, and so does the room the players' names measured before the first move
(``Microphone.name_round``, as ``gamehost table`` asks for them); ``--cold`` starts every
step from the initial mean and an unmeasured room. Each step says:

1. the current player's move (a legal move of the game, in the words of a phrase the
   recogniser listens for, ``Talk.listen_for``), the control: ruled right at once, asked,
   ruled wrong, or missed;
2. a sentence of table talk from ``table_talk/<lang>.yaml`` (greetings, food, jokes,
   comments on play, numbers and command words in ordinary speech, names, half
   sentences, laughter), then someone else's "yes" / "that's right" a moment later.

What the talk did is read from the session's log: a change of the game (a move ruled, a
player out, a penalty, undo, leave, finish, a new game), a question asked (a read-back),
an answer given (whose turn, the score...), or nothing. Each sentence is said in a fresh
copy of the game at that step (the same inputs replayed), so one sentence's effect never
leaks into the next. A move the host did not rule right is then ruled from its text, so
the game goes on as planned.

Speech in noise is the same audio mixed with white noise or fan noise at a signal to noise
ratio (dB) against the speech. Moves are also timed: end of speech to ruling (stream time
waited plus the compute of the chunk that produced it, up to the reply).

Figures printed per language, voice and noise: talk that changed the game (target 0),
talk that made the host ask (target <= 3 %), moves ruled right first try (English targets
>= 95 % Piper, >= 80 % espeak-ng, clean), moves ruled wrong (target 0), and latency p50/p99.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from games.base import Moves, find_game
from grammars.reader import number_phrases
from host.listening.listener import Listener
from host.referee import Referee
from host.session import SessionConfig
from host.speech import sphinx
from host.speech.audio import SAMPLE_RATE, as_int16, pcm_chunks
from host.speech.endpointer import Endpointer
from host.speech.engines import recognizer_for
from host.speech.foreground import Foreground
from host.speech.model import SpeechModel, load_model
from host.speech.room import RoomMeter
from host.speech.tts import espeak_synthesize, piper_synthesize
from host.store import Store
from tests.clock import Clock

HERE = Path(__file__).parent
CACHE = Path(tempfile.gettempdir()) / "gamehost-bench-talk"
PLAYERS = {"up-or-down": ("Ann", "Bob", "Cy"), "inversion": ("Ann", "Bob"),
           "blofa": ("Ann", "Bob", "Cy", "Dana"), "upside-out": ("Ann", "Bob", "Cy")}  # fmt: skip
SETUP = {  # said at the table before the game, as `gamehost table --say` would
    "inversion": ["hearts spades clubs",
                  "nine of hearts one of clubs two of clubs three of clubs four of clubs five of clubs "
                  "six of clubs seven of clubs eight of clubs ten of clubs", "Ann"],
    "upside-out": ["Ann"],
}  # fmt: skip
YES = {"en": ("yes", "that's right", "yeah"), "ko": ("네", "맞아요", "응")}
CHUNK_MS = 20
GAP_S = 1.0  # between a sentence and the "yes" after it
END_S = 1.5  # after the "yes"


# --- audio ---------------------------------------------------------------------------------


def trim(pcm: bytes) -> bytes:
    samples = as_int16(pcm)
    loud = np.nonzero(np.abs(samples) > 50)[0]
    return samples[loud[0] : loud[-1] + 1].tobytes() if loud.size else pcm


def silence(seconds: float) -> bytes:
    return bytes(2 * round(SAMPLE_RATE * seconds))


_steady: Any = None


def say(text: str, voice: str, lang: str) -> bytes:
    """``text`` spoken by ``voice`` (cached on disk: synthesis is the slow part)."""
    global _steady
    key = hashlib.sha1(f"{voice}|{lang}|{text}".encode()).hexdigest()
    path = CACHE / f"{key}.pcm"
    if path.exists():
        return path.read_bytes()
    if voice == "piper":
        from piper import SynthesisConfig

        _steady = _steady or SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)
        pcm = trim(piper_synthesize(text, SAMPLE_RATE, syn_config=_steady))
    else:
        pcm = trim(espeak_synthesize(text, "ko" if lang == "ko" else "en-us", SAMPLE_RATE))
    CACHE.mkdir(exist_ok=True)
    path.write_bytes(pcm)
    return pcm


def noisy(pcm: bytes, speech: Sequence[tuple[int, int]], level: str, seed: int) -> bytes:
    """``pcm`` with the noise ``level`` ("clean", "white20", "fan10"...) at that SNR
    against the power of the speech spans (sample ranges)."""
    if level == "clean":
        return pcm
    kind, snr = level.rstrip("0123456789"), float(level[len(level.rstrip("0123456789")) :])
    x = as_int16(pcm).astype(np.float64)
    rng = np.random.default_rng(seed)
    noise = rng.normal(0, 1, x.size)
    if kind == "fan":
        hum = np.sin(2 * np.pi * 120 * np.arange(x.size) / SAMPLE_RATE)
        noise = np.convolve(noise, np.ones(40) / 40, mode="same") * 6 + 0.3 * hum
    voiced = np.concatenate([x[a:b] for a, b in speech]) if speech else x
    p_speech = float(np.mean(voiced**2))
    noise *= np.sqrt(p_speech / float(np.mean(noise**2)) / 10 ** (snr / 10))
    return np.clip(x + noise, -32768, 32767).astype("<i2").tobytes()


def stream(parts: Sequence[bytes], level: str, seed: int) -> tuple[bytes, list[float]]:
    """Lead-in, then each part and its gap; the stream and where each part's speech ends."""
    out, spans, ends, at = [silence(0.6)], [], [], round(0.6 * SAMPLE_RATE)
    gaps = [GAP_S] * (len(parts) - 1) + [END_S]
    for pcm, gap in zip(parts, gaps, strict=True):
        n = len(pcm) // 2
        spans.append((at, at + n))
        ends.append((at + n) / SAMPLE_RATE)
        out += [pcm, silence(gap)]
        at += n + round(gap * SAMPLE_RATE)
    return noisy(b"".join(out), spans, level, seed), ends


class Scene:
    """How the table's microphone hears what is said: here dry, close to the microphone, with
    the noise ``level`` mixed in (tests/bench/bench_room.py puts the table in a room).
    ``parts`` are (text, voice, seat) in the order said; the stream and where each part's
    speech ends (stream seconds)."""

    def __init__(self, level: str) -> None:
        self.level = level

    def stream(
        self, parts: Sequence[tuple[str, str, int]], lang: str, seed: int
    ) -> tuple[bytes, list[float]]:
        return stream([say(text, voice, lang) for text, voice, _seat in parts], self.level, seed)


# --- the games -----------------------------------------------------------------------------


def legal_phrases(referee: Referee, session: str) -> list[tuple[str, Any, bool]]:
    """(words, move, hearable) for every honest move the table's shared microphone may make
    now: the rules take it and players usually make it (``GameSpec.likely``: a wrong number in
    Up-or-Down is ruled, but it is a mistake). Where a phrase fits several players (two owe
    a step at once) the player's name goes first; such words may not be a phrase the
    recogniser knows (``hearable`` false): the bench then rules that step from its text."""
    table = referee.table(session)
    talk, rules = table.spec.talk, table.spec.rules
    heard = talk.listen_for(table.state, table.names, table.lang, False).moves
    out: dict[Any, tuple[str, bool]] = {}
    for phrase in heard:
        proposal = talk.read(phrase, table.state, table.names, None, None, table.lang)
        if not isinstance(proposal, Moves):
            continue
        for move in proposal.candidates:
            words = phrase
            if len(proposal.candidates) > 1:
                words = f"{rules.owner(move)} {phrase}".lower()
                named = talk.read(words, table.state, table.names, None, None, table.lang)
                if not isinstance(named, Moves) or named.candidates != (move,):
                    continue
            honest = rules.refusal(table.state, move) is None and table.spec.likely(table.state, move)
            if honest and (move not in out or (not out[move][1] and words in heard)):
                out[move] = (words, words in heard)  # what the grammar expects people to say
    return [(words, move, hearable) for move, (words, hearable) in out.items()]


@dataclass
class Game:
    """A seeded honest game: the inputs so far, replayable into a fresh session."""

    name: str
    lang: str
    rng: random.Random
    inputs: list[str] = field(default_factory=list)

    def fresh(self) -> tuple[Referee, str]:
        referee = Referee(Store(":memory:"), Clock(1_000_000.0))
        config = SessionConfig(game=self.name, lang=self.lang)
        session = referee.create(config, PLAYERS[self.name])
        for line in SETUP.get(self.name, []) if self.lang == "en" else []:
            referee.handle(session, line)
        for line in self.inputs:
            referee.handle(session, line)
        return referee, session

    def steps(self, most: int) -> Iterator[tuple[Referee, str, str, Any]]:
        """A fresh session at each step and the next move's words and move, while it runs.
        A step no phrase can say for the shared microphone is ruled from its text."""
        said = 0
        while said < most:
            referee, session = self.fresh()
            options = legal_phrases(referee, session) if referee.table(session).running else []
            if not options:
                return
            hearable = [o for o in options if o[2]]
            if not hearable:
                self.inputs.append(self.rng.choice(options)[0])
                continue
            words, move, _ = self.rng.choice(hearable)
            said += 1
            yield referee, session, words, move


# --- outcomes ------------------------------------------------------------------------------


CHANGES = {"play", "undo", "begin", "seat", "unseat", "timeout"}


def log_kinds(referee: Referee, session: str, after: int) -> list[str]:
    return [str(s.body.get("kind")) for s in referee.store.inputs(session, after=after)]


@dataclass
class Tally:
    talk: Counter[str] = field(default_factory=Counter)
    moves: Counter[str] = field(default_factory=Counter)
    latency: list[float] = field(default_factory=list)
    examples: dict[str, list[str]] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)  # every utterance, for --dump
    cpu_s: float = 0.0  # process CPU time spent hearing (the whole chain: listener and referee)
    audio_s: float = 0.0  # seconds of audio heard

    def record(
        self,
        kind: str,
        said: str,
        outcome: str,
        heard: Sequence[Any],
        latency: float | None = None,
        listener: Listener | None = None,
    ) -> None:
        # The room as the listener measured it when it had heard them all.
        rt60 = listener.room.rt60 if listener is not None else None
        noisy = listener is not None and listener._noisy()
        for h in heard:
            r = h.reading
            self.records.append({
                "kind": kind, "said": said, "outcome": outcome, "heard": h.hearing.text,
                "talk": h.hearing.talk,
                "alternatives": h.hearing.alternatives[:4],
                "words": [(w.word, w.confidence) for w in h.hearing.words],
                # How much of the utterance the words cover: its audio (lead-in included),
                # from its first word to the last speech the voice activity detector heard,
                # the speech before the first word, each word's span (stream seconds).
                "audio_s": round(len(h.hearing.audio) / (2 * SAMPLE_RATE), 2),
                "speech_s": round(h.hearing.speech_end - h.hearing.start, 2),
                "lead_s": round(h.hearing.speech_before_words, 2),
                "word_spans": [(round(w.start, 2), round(w.end, 2)) for w in h.hearing.words],
                "near_talk": h.hearing.near_talk, "snr_db": round(h.hearing.snr_db, 1),
                "crowded": h.hearing.crowded,
                "meaning": str(r.meaning) if r is not None else None,
                "share": r.share if r is not None else None,
                "confidence": r.confidence if r is not None else None,
                "top": r.top if r is not None else None,
                "rival": r.rival if r is not None else None,
                "confused": r.confused if r is not None else None,
                "asked": h.reply.confirm if h.reply is not None else None,
                "ignored": h.ignored, "lines": list(h.reply.lines) if h.reply is not None else [],
                "latency": latency if h.reply is not None else None,
                "rt60": round(rt60, 2) if rt60 is not None else None, "noisy": noisy,
            })  # fmt: skip

    def note(self, what: str, example: str) -> None:
        self.examples.setdefault(what, []).append(example)


def talk_outcome(kinds: list[str], asked: bool, answered: bool) -> str:
    if any(k in CHANGES for k in kinds):
        return "changed"
    if asked:
        return "asked"
    return "answered" if answered else "ignored"


def hear(listener: Listener, audio: bytes, tally: Tally | None = None) -> list[tuple[Any, float]]:
    """Every Heard of the stream, with the compute time of the chunk that produced it up to
    its ruling (``on_reply``: the announcement is made then; the listener's switch to the
    next phrase list after it is not part of the wait)."""
    out: list[tuple[Any, float]] = []
    ruled: list[float] = []
    listener.on_reply = lambda _reply: ruled.append(time.perf_counter())
    cpu = time.process_time()
    for chunk in pcm_chunks(audio, SAMPLE_RATE, CHUNK_MS):
        started = time.perf_counter()
        ruled.clear()
        heard = listener.feed(chunk)
        spent = (ruled[0] if ruled else time.perf_counter()) - started
        out += [(h, spent) for h in heard]
    out += [(h, 0.0) for h in listener.flush()]
    if tally is not None:
        tally.cpu_s += time.process_time() - cpu
        tally.audio_s += len(audio) / (2 * SAMPLE_RATE)
    return out


class Microphone:
    """The table's microphone across the steps of a game: each step is heard by a fresh
    Listener (a fresh copy of the session), but at a real table one listener has heard the
    game so far, so its decoder's cepstral mean carries over (``cold``: every step starts
    from the initial mean, as the first words said at a table do)."""

    #: Set on a fresh listener before it hears anything (a bench trying a candidate).
    tune: Callable[[Listener], None] | None = None

    def __init__(self, cold: bool) -> None:
        self.cold = cold
        self.mean: str | None = None
        self.room: RoomMeter | None = None  # the room as the listeners so far measured it
        self.foreground: Foreground | None = None

    def listener(self, referee: Referee, session: str, model: SpeechModel, denoise: bool | None) -> Listener:
        listener = Listener(referee, session, model, report_missing=False, denoise=denoise)
        if self.tune is not None:
            self.tune(listener)
        recognizer = listener.endpointer.recognizer
        if not self.cold and self.mean is not None and isinstance(recognizer, sphinx.SphinxRecognizer):
            recognizer.cepstral_mean = self.mean
        if not self.cold and self.room is not None:
            listener.hear_room_with(self.room)
        if not self.cold and self.foreground is not None:
            listener.endpointer.foreground = self.foreground  # who has been talking around the table
        return listener

    def name_round(
        self, referee: Referee, session: str, model: SpeechModel, scene: Scene, voice: str
    ) -> None:
        """The players say their names from their seats before the game, as ``gamehost
        table`` asks them to: the room is measured from them (host/speech/room.py), so the
        first move is heard in a room already known, as at a real table."""
        names = referee.table(session).names
        lang = referee.table(session).config.lang
        audio, _ = scene.stream([(name, voice, k) for k, name in enumerate(names)], lang, 4242)
        meter = RoomMeter()
        endpointer = Endpointer(recognizer_for(model, SAMPLE_RATE, number_phrases(range(1, 100), lang)))
        for chunk in [*pcm_chunks(audio), bytes(2 * SAMPLE_RATE)]:
            meter.feed(chunk)
            hearing = endpointer.feed(chunk)
            if hearing is not None:
                meter.later(hearing.start, hearing.speech_end, endpointer.time)
                with endpointer.muting():  # the host asks the next name (its detector starts afresh)
                    pass
        self.room = meter

    def heard(self, listener: Listener) -> None:
        self.room = listener.room
        self.foreground = listener.endpointer.foreground
        recognizer = listener.endpointer.recognizer
        if isinstance(recognizer, sphinx.SphinxRecognizer):
            self.mean = recognizer.cepstral_mean


def run(
    model: SpeechModel,
    name: str,
    lang: str,
    voice: str,
    level: str,
    sentences: Sequence[str],
    steps: int,
    seed: int,
    tally: Tally,
    yes_voice: str,
    denoise: bool | None = None,
    cold: bool = False,
    scene: Scene | None = None,
) -> None:
    """One game of ``steps`` moves, each followed by a sentence of talk and a "yes" (see the
    module notes); ``scene`` (default: dry, with the noise ``level``) makes the audio."""
    game = Game(name, lang, random.Random(seed))
    mic = Microphone(cold)
    scene = scene or Scene(level)
    for i, (referee, session, words, move) in enumerate(game.steps(steps)):
        if i == 0 and not cold:
            mic.name_round(referee, session, model, scene, voice)
        # 1. the move, heard as the host would hear it, from the mover's seat
        listener = mic.listener(referee, session, model, denoise)
        before = referee.store.last_seq(session)
        seat = seat_of(referee, session, move)
        audio, ends = scene.stream([(words, voice, seat)], lang, seed + i)
        timed = hear(listener, audio, tally)
        mic.heard(listener)
        heard = [h for h, _ in timed]
        acted = [h for h in heard if h.reply is not None]
        outcome = move_outcome(referee, session, before, move, acted)
        tally.moves[outcome] += 1
        latency = None
        if outcome == "right":
            first, spent = next((h, c) for h, c in timed if h.reply is not None)
            latency = first.hearing.emitted_at - ends[0] + spent
            tally.latency.append(latency)
        tally.record("move", words, outcome, heard, latency, listener)
        if outcome != "right":
            tally.note(f"move {outcome}", f"{words!r} -> {[h.hearing.text for h in heard]}")
        game.inputs.append(words)  # the next step rules it from its text, as planned
        # 2. table talk and someone's "yes", in a fresh copy of the game at this step
        sentence = sentences[i % len(sentences)] if sentences else None
        if sentence is None:
            continue
        copy, copied = game.fresh()
        listener = mic.listener(copy, copied, model, denoise)
        before = copy.store.last_seq(copied)
        yes = YES[lang][i % len(YES[lang])]
        said = [(sentence, voice, seat + 1 + i % 2), (yes, yes_voice, seat + 2 + i % 2)]
        audio, _ = scene.stream(said, lang, seed + 1000 + i)
        heard = [h for h, _ in hear(listener, audio, tally)]
        mic.heard(listener)
        replies = [h.reply for h in heard if h.reply is not None]
        asked = any(r.confirm for r in replies)
        outcome = talk_outcome(log_kinds(copy, copied, before), asked, bool(replies))
        tally.talk[outcome] += 1
        tally.record("talk", f"{sentence} / {yes}", outcome, heard, listener=listener)
        if outcome != "ignored":
            tally.note(
                f"talk {outcome}",
                f"{sentence!r} -> {[h.hearing.text for h in heard]} "
                f"{[ln for r in replies for ln in r.lines][:2]}",
            )


def seat_of(referee: Referee, session: str, move: Any) -> int:
    """The mover's place at the table (their order among the players; 0 if nobody owns it)."""
    table = referee.table(session)
    owner = table.spec.rules.owner(move)
    return table.names.index(owner) if owner in table.names else 0


def move_outcome(referee: Referee, session: str, before: int, move: Any, acted: list[Any]) -> str:
    table = referee.table(session)
    spec = table.spec
    played = [s for s in referee.store.inputs(session, after=before) if s.body.get("kind") == "play"]
    if played:
        said = spec.decode_move(played[0].body["move"])
        return "right" if said == move else "wrong"
    if any(h.reply.confirm for h in acted):
        return "asked"
    return "answered" if acted else "missed"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="every other sentence, fewer steps")
    parser.add_argument("--lang", default="en,ko")
    parser.add_argument("--voices", default="piper,espeak")
    parser.add_argument("--noise", default="clean,white20,fan20")
    parser.add_argument("--games", default="up-or-down,inversion,blofa,upside-out")
    parser.add_argument("--half", choices=["even", "odd"], help="only every other sentence (tuning split)")
    parser.add_argument("--corpus", type=Path, help="talk sentences (default table_talk/LANG.yaml)")
    parser.add_argument("--show", type=int, default=6, help="examples printed per outcome")
    parser.add_argument("--dump", type=Path, help="write every utterance and what came of it (JSON lines)")
    parser.add_argument("--talk-weight", type=float, help="the gate's talk prior (host/speech/sphinx.py)")
    parser.add_argument("--gate-wip", type=float, help="the gate's word penalty (sphinx.py)")
    parser.add_argument("--lenient-weight", type=float, help="lenient gate's talk prior (0: none)")
    parser.add_argument("--no-denoise", action="store_true", help="audio as is (host/speech/denoise.py)")
    parser.add_argument("--cold", action="store_true", help="no step inherits the microphone's cepstral mean")
    args = parser.parse_args()
    if args.talk_weight is not None:
        sphinx.TALK_WEIGHT = args.talk_weight
    if args.gate_wip is not None:
        sphinx.GATE_WIP = args.gate_wip
    if args.lenient_weight is not None:
        sphinx.LENIENT_TALK_WEIGHT = args.lenient_weight or None
    for lang in args.lang.split(","):
        sentences = talk_sentences(lang, args.corpus, args.half, args.quick)
        model = load_model(None, lang=lang, engine="auto")
        voices = [v for v in args.voices.split(",") if lang == "en" or v == "espeak"]
        games = [g for g in args.games.split(",") if lang == "en" or "ko" in find_game(g).languages]
        for voice in voices:
            yes_voice = "espeak" if voice == "piper" else ("piper" if lang == "en" else "espeak")
            for level in args.noise.split(","):
                tally = Tally()
                started = time.perf_counter()
                # None: the listener's own choice (host.speech.denoise.wanted), as a table's.
                denoise = False if args.no_denoise else None
                play_games(model, lang, voice, yes_voice, sentences, games, args.quick, tally,
                           denoise=denoise, cold=args.cold, scene=Scene(level))  # fmt: skip
                report(lang, voice, level, tally, time.perf_counter() - started, args.show)
                if args.dump is not None:
                    dump(args.dump, tally, lang=lang, voice=voice, noise=level)


def talk_sentences(lang: str, corpus: Path | None, half: str | None, quick: bool) -> list[str]:
    """The talk sentences of ``corpus`` (default table_talk/LANG.yaml): every other one with
    ``half`` (even or odd: a tuning split) and again with ``quick``."""
    source = corpus or HERE / "table_talk" / f"{lang}.yaml"
    loaded = yaml.safe_load(source.read_text(encoding="utf-8"))
    sentences = [s for kind in loaded.values() for s in kind]
    if half:
        sentences = sentences[half == "odd" :: 2]
    return sentences[::2] if quick else sentences


def play_games(
    model: SpeechModel,
    lang: str,
    voice: str,
    yes_voice: str,
    sentences: Sequence[str],
    games: Sequence[str],
    quick: bool,
    tally: Tally,
    *,
    denoise: bool | None = None,
    cold: bool = False,
    scene: Scene,
    moves: int | None = None,
    seed: int = 7,
) -> None:
    """A game of each kind in ``games``, each with its share of the ``sentences`` said after
    its moves (``moves``: at least that many moves a game; default 10 quick, else 25;
    ``seed``: the first game's, other games and moves follow from it)."""
    for k, name in enumerate(games):
        share = sentences[k :: len(games)]
        steps = max(len(share), moves if moves is not None else 10 if quick else 25)
        run(model, name, lang, voice, scene.level, share, steps, seed + 97 * k, tally, yes_voice,
            denoise, cold, scene)  # fmt: skip


def dump(path: Path, tally: Tally, **labels: str) -> None:
    """Append every utterance of ``tally`` and what came of it to ``path`` (JSON lines)."""
    with path.open("a", encoding="utf-8") as out:
        for record in tally.records:
            out.write(json.dumps({**labels, **record}, ensure_ascii=False) + "\n")


def pct(n: int, d: int) -> str:
    """``n`` of ``d`` and its percentage ("3/82 (3.7 %)"), or "-" of none."""
    return f"{n}/{d} ({100 * n / d:.1f} %)" if d else "-"


def latency_at(t: Tally, q: float) -> float:
    """The ``q`` quantile of a tally's end-of-speech-to-ruling latencies (NaN for none)."""
    lat = sorted(t.latency)
    return lat[min(len(lat) - 1, int(q * len(lat)))] if lat else float("nan")


def print_examples(t: Tally, show: int) -> None:
    """Up to ``show`` examples of each outcome."""
    for what, examples in sorted(t.examples.items()):
        for example in examples[:show]:
            print(f"  {what}: {example}")


def report(lang: str, voice: str, level: str, t: Tally, seconds: float, show: int) -> None:
    talk_n, move_n = sum(t.talk.values()), sum(t.moves.values())

    def p(q: float) -> float:
        return latency_at(t, q)

    print(f"\n== {lang} {voice} {level} ({seconds:.0f} s) ==")
    print(
        f"talk: changed the game {pct(t.talk['changed'], talk_n)}, asked {pct(t.talk['asked'], talk_n)}, "
        f"answered {pct(t.talk['answered'], talk_n)}, ignored {pct(t.talk['ignored'], talk_n)}"
    )
    print(
        f"moves: right first try {pct(t.moves['right'], move_n)}, asked {pct(t.moves['asked'], move_n)}, "
        f"wrong {pct(t.moves['wrong'], move_n)}, "
        f"missed {pct(t.moves['missed'] + t.moves['answered'], move_n)}"
    )
    print(f"end of speech to ruling: p50 {p(0.5):.2f} s, p99 {p(0.99):.2f} s")
    if t.audio_s:
        print(f"CPU per second of audio: {t.cpu_s / t.audio_s:.3f} s ({t.audio_s:.0f} s of audio)")
    print_examples(t, show)


if __name__ == "__main__":
    main()

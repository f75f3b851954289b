"""Audio in, refereed moves out: the speech front end of one session.

A :class:`Listener` owns an :class:`~host.speech.recognizer.Endpointer` whose phrase list
follows the session: while a game runs, every number a player might say (the range, a
little beyond it, zero; wrong numbers too, or a mistake could not be heard as one),
the commands, the player names and the grammar's *decoys*; while a "Did you say ...?"
question waits, yes/no and the numbers; with no game running, the commands only.

Each utterance is read again from its N-best list (:func:`read`), because a Vosk phrase
list is a loose word model, not a grammar: alternatives are parsed with
``host.language.parse``, alternatives that mean the same thing pool their share, and a
prior that players mostly say valid numbers is applied. The result goes to
``Referee.handle`` with a :class:`host.referee.Hearing` whose confidence is calibrated
(:func:`calibrate`), so the referee's confirmation policy decides whether a would-be
mistake is ruled or asked about.

Table chatter is not a move and gets no answer: an utterance that decodes to nothing,
to decoys or ``[unk]``, or to words that parse to no number and no command gives
``Heard.reply is None``. At a table people talk all the time; answering "I didn't catch
that" to every remark would drown the game. Only a reading that *is* a move or a command
reaches the referee.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from games import up_or_down as ud
from grammars import load
from host import referee as ref
from host.language import (
    Ambiguous,
    CommandSaid,
    Intent,
    NotUnderstood,
    NumberSaid,
    number_phrases,
    parse,
)
from host.referee import Referee, Reply
from host.speech import recognizer
from host.speech.audio import SAMPLE_RATE
from host.speech.model import UNK, SpeechModel
from host.speech.recognizer import Endpointer, GrammarRecognizer

log = logging.getLogger(__name__)

#: Numbers beyond the range a player might still say (and must be ruled out for).
BEYOND = 5
#: Above this many numbers the phrase list holds number words, not whole numbers.
MAX_NUMBER_PHRASES = 200
#: Commands that mean something only as the answer to a question.
ANSWERS = ("yes", "no")
#: Commands heard while no game runs.
IDLE_COMMANDS = ("new_game", "whose_turn", "repeat", "rules", "status", "help", "leave", "finish")

# Prior weight of a number the rules forbid now, relative to an allowed one: players
# mostly say allowed numbers, so a close call between "오십 삼" (allowed) and "오십 사"
# (a mistake) goes to the allowed one. Measured in tests/bench/bench_speech.py.
INVALID_PRIOR = 0.25
# Readings weaker than this fraction of the best are not passed on as alternatives (the
# referee asks when any alternative is an allowed number; a 1 % path should not count).
KEEP_ALTERNATIVE = 0.1
# Logistic calibration of the best reading's pooled share (see calibrate()), fitted on
# espeak-ng Korean over 1..100 in clean and noisy conditions (tests/bench/bench_speech.py).
CALIBRATION = (0.0, 1.0)


@dataclass(frozen=True)
class Reading:
    """What an utterance means, after re-parsing its alternatives."""

    intent: Intent
    text: str  # the alternative that says it
    alternatives: tuple[str, ...]  # for the referee: ``text`` first, then other readings
    share: float  # pooled share of the reading after the prior (0..1)
    confidence: float  # calibrated probability that the reading is what was said
    ignored: str | None = None  # why this is not passed on: "nothing", "chatter", ...


@dataclass(frozen=True)
class Heard:
    hearing: recognizer.Hearing
    reply: Reply | None  # None: ignored (silence, chatter, nothing a player could mean)
    reading: Reading | None = None

    @property
    def ignored(self) -> str | None:
        if self.reply is not None:
            return None
        return self.reading.ignored if self.reading is not None else "nothing"


# --- phrase lists --------------------------------------------------------------------------


def number_range(low: int, high: int) -> list[int]:
    """Numbers a player might say for a ``low..high`` game, wrong ones included."""
    numbers = {*range(low - BEYOND if low > 1 else low, high + BEYOND + 1)}
    if low >= 0:
        numbers.add(0)
        numbers = {n for n in numbers if n >= 0}
    return sorted(numbers)


def _number_words(lang: str) -> list[str]:
    n = load(lang).numbers
    return [*n.units, *n.teens, *n.tens, *n.small_multipliers, *n.large_multipliers, *n.minus]


def phrase_list(
    lang: str,
    low: int,
    high: int,
    *,
    state: str,
    names: Sequence[str] = (),
    decoys: bool = True,
) -> list[str]:
    """The phrase list for a session ``state``: "playing", "confirming" or "idle"."""
    g = load(lang)
    phrases: list[str] = []
    if state in ("playing", "confirming"):
        numbers = number_range(low, high)
        phrases += (
            number_phrases(numbers, lang) if len(numbers) <= MAX_NUMBER_PHRASES else _number_words(lang)
        )
    if state == "playing":
        wanted = [c for c in g.commands if c not in ANSWERS]
    elif state == "confirming":
        wanted = list(ANSWERS)
    else:
        wanted = [c for c in IDLE_COMMANDS if c in g.commands]
    phrases += [p for c in wanted for p in g.commands[c]]
    if state == "playing":
        phrases += [n.casefold() for n in names]
    if decoys:
        phrases += g.decoys
    return list(dict.fromkeys(" ".join(p.split()) for p in phrases if p.strip()))


# --- reading an utterance ------------------------------------------------------------------


def _key(intent: Intent) -> tuple[object, ...]:
    if isinstance(intent, NumberSaid):
        return ("number", intent.value)
    if isinstance(intent, CommandSaid):
        return ("command", intent.name)
    if isinstance(intent, Ambiguous):
        return ("ambiguous", intent.numbers)
    return ("none",)


def calibrate(share: float) -> float:
    """Probability that a reading with this pooled share is right (logistic in log-odds)."""
    share = min(max(share, 1e-6), 1 - 1e-6)
    a, b = CALIBRATION
    z = a + b * math.log(share / (1 - share))
    return 1 / (1 + math.exp(-z))


def read(
    hearing: recognizer.Hearing,
    lang: str,
    *,
    game: ud.State | None = None,
    decoys: Sequence[str] = (),
    invalid_prior: float = INVALID_PRIOR,
) -> Reading:
    """Read an utterance from its N-best list.

    Each alternative is parsed; alternatives with the same meaning pool their share; an
    alternative made mostly of decoys or ``[unk]`` means nothing. With ``game`` (a game in
    progress, no question pending) numbers the rules forbid now are weighted by
    ``invalid_prior``.
    """
    chatter = {*decoys, UNK}
    mass: dict[tuple[object, ...], float] = {}
    first: dict[tuple[object, ...], tuple[str, Intent]] = {}
    for text, share in hearing.alternatives:
        tokens = text.split()
        noise = sum(t in chatter for t in tokens)
        intent: Intent = parse(text, lang).intent()
        if not tokens or 2 * noise > len(tokens):
            intent = NotUnderstood()
        key = _key(intent)
        weight = share
        if game is not None and isinstance(intent, NumberSaid):
            if not ud.is_valid(game.last, intent.value, game.options):
                weight *= invalid_prior
        mass[key] = mass.get(key, 0.0) + weight
        first.setdefault(key, (text, intent))
    total = sum(mass.values())
    ranked = sorted(mass, key=lambda k: -mass[k])
    if not ranked or total <= 0 or hearing.unknown:
        return Reading(NotUnderstood(), hearing.text, (), 0.0, 0.0, "nothing")
    best = ranked[0]
    text, intent = first[best]
    share = mass[best] / total
    others = tuple(first[k][0] for k in ranked[1:] if mass[k] >= KEEP_ALTERNATIVE * mass[best])
    ignored = None
    if isinstance(intent, NotUnderstood):
        ignored = "chatter"
    return Reading(intent, text, (text, *others), share, calibrate(share), ignored)


# --- the listener --------------------------------------------------------------------------


class Listener:
    """Audio in, refereed moves out, for one session."""

    # Stream seconds between checks of the session for changes made elsewhere (a timeout,
    # another channel), which may change the phrase list.
    REFRESH_S = 0.25

    def __init__(
        self,
        referee: Referee,
        session_id: str,
        model: SpeechModel,
        *,
        sample_rate: int = SAMPLE_RATE,
        speaker: str | None = None,
    ) -> None:
        self.referee = referee
        self.session_id = session_id
        self.model = model
        self.speaker = speaker
        table = referee.table(session_id)
        self.config = table.config
        self.lang = table.config.lang
        self.grammar = load(self.lang)
        self._names = table.names
        every = [
            p
            for state in ("playing", "confirming", "idle")
            for p in phrase_list(self.lang, self.config.low, self.config.high, state=state, names=self._names)
        ]
        #: Words of the phrase lists the model lacks; their phrases are left out.
        self.missing_words: tuple[str, ...] = tuple(model.missing_words(dict.fromkeys(every)))
        if self.missing_words:
            log.warning(
                "the speech model %s lacks %d words; phrases with them cannot be heard: %s",
                model.path,
                len(self.missing_words),
                ", ".join(self.missing_words),
            )
        self._missing = frozenset(self.missing_words)
        self._state = self._session_state()
        self.endpointer = Endpointer(GrammarRecognizer(model, sample_rate, self.phrases()))
        self._checked_at = 0.0

    # --- state and phrases ---

    def _session_state(self) -> str:
        table = self.referee.table(self.session_id)
        if not table.running:
            return "idle"
        row = self.referee.store.session(self.session_id)
        pending = row.pending if row is not None else None
        if pending is not None and (self.speaker is None or self.speaker == pending.get("player")):
            return "confirming"
        return "playing"

    def phrases(self) -> list[str]:
        """The phrase list for the current state (phrases the model can hear)."""
        phrases = phrase_list(
            self.lang, self.config.low, self.config.high, state=self._state, names=self._names
        )
        return [p for p in phrases if not self._missing.intersection(p.split())]

    def refresh(self) -> None:
        """Follow the session now (call after changing it other than through this listener)."""
        table = self.referee.table(self.session_id)
        self._names = table.names
        state = self._session_state()
        if state != self._state:
            self._state = state
            log.debug("listening for %s", state)
            self.endpointer.set_phrases(self.phrases())
        self._checked_at = self.endpointer.time

    # --- audio ---

    @property
    def time(self) -> float:
        """Stream time: seconds of audio fed so far, muted audio included."""
        return self.endpointer.time

    @property
    def muted(self) -> bool:
        return self.endpointer.muted

    @muted.setter
    def muted(self, value: bool) -> None:
        self.endpointer.muted = value

    def muting(self) -> contextlib.AbstractContextManager[None]:
        """Ignore input inside the block (the host is speaking); nests."""
        return self.endpointer.muting()

    def feed(self, pcm: bytes) -> list[Heard]:
        """Take pcm16 mono at ``sample_rate`` (any chunk size); return what was refereed."""
        if self.endpointer.time - self._checked_at >= self.REFRESH_S and not self.endpointer.in_utterance:
            self.refresh()
        out: list[Heard] = []
        hearing = self.endpointer.feed(pcm)
        while hearing is not None:
            out.append(self._heard(hearing))
            hearing = self.endpointer.feed(b"")
        return out

    def flush(self) -> list[Heard]:
        """End of the stream: referee the utterance in progress, if any."""
        out: list[Heard] = []
        hearing = self.endpointer.flush()
        while hearing is not None:
            out.append(self._heard(hearing))
            hearing = self.endpointer.feed(b"") or self.endpointer.flush()
        return out

    def hear(self, chunks: Sequence[bytes] | Iterator[bytes]) -> Iterator[Heard]:
        """Feed a whole source and yield every Heard, flushing at the end."""
        for chunk in chunks:
            yield from self.feed(chunk)
        yield from self.flush()

    # --- refereeing ---

    def read(self, hearing: recognizer.Hearing) -> Reading:
        """Read a hearing in the session's current state (no side effects)."""
        table = self.referee.table(self.session_id)
        game = table.game if table.running and self._state == "playing" else None
        reading = read(hearing, self.lang, game=game, decoys=self.grammar.decoys)
        if reading.ignored is None and self._state == "idle" and not isinstance(reading.intent, CommandSaid):
            # With no game running only commands mean anything; a "number" is chatter.
            return Reading(reading.intent, reading.text, (), reading.share, reading.confidence, "chatter")
        return reading

    def _heard(self, hearing: recognizer.Hearing) -> Heard:
        self.refresh()
        reading = self.read(hearing)
        if reading.ignored is not None:
            log.info("ignored %r (%s)", hearing.text, reading.ignored)
            return Heard(hearing, None, reading)
        reply = self.referee.handle(
            self.session_id,
            reading.text,
            self.speaker,
            hearing=ref.Hearing(alternatives=reading.alternatives, confidence=reading.confidence),
        )
        self.refresh()
        return Heard(hearing, reply, reading)

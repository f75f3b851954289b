"""Audio in, refereed moves out: the speech front end of one session.

A :class:`Listener` owns an :class:`~host.speech.recognizer.Endpointer` whose phrase list
follows the session: while a game runs, every number a player might say (the range, five
beyond it, zero: wrong numbers too, or a mistake could not be heard as one), the commands,
the player names and the grammar's *decoys* (``grammars/<lang>/speech.yaml``); while a
"Did you say ...?" question waits, yes/no and the numbers; with no game running, the
commands only. Words the model lacks are reported once, when the listener is made.

Each utterance is read again from its N-best list (:func:`read`), because a Vosk phrase
list is a loose word model, not a grammar: every alternative is parsed with
``grammars.reader.parse``, alternatives that mean the same thing pool their share, and a
prior that players mostly say allowed numbers is applied. The reading goes to
``Referee.handle`` with a :class:`host.referee.Hearing` whose confidence is calibrated on
recordings (:func:`calibrate`), so the referee's confirmation policy decides whether a
would-be mistake is ruled or asked about. Vosk's own scores are path scores, not
probabilities, and on the synthetic corpus even a reading with all the share is right
well under half the time, so the calibrated confidence stays low and every would-be
mistake is asked about (tests/bench/bench_speech.py measures what that costs and saves).

Table chatter is not a move and gets no answer (``Heard.reply is None``): an utterance
that decodes to nothing (the empty path), to decoys, ``[unk]`` or names for half its
words or more, or to several numbers at once, unless a clear reading (one number or one
command) carries at least half as much weight. At a table people talk all the time;
answering "I didn't catch that" to every remark would drown the game, and a player who
was not understood just says the number again. Two more things are ignored rather than
passed on: a command that changes the game (undo, finish, leave, new game) unless it is
the decoder's best path with half the share, so chatter cannot end a game; and, while a
question waits, an unsure number other than the one asked about, which the referee would
otherwise rule at once as a correction.
"""

from __future__ import annotations

import contextlib
import logging
import math
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from games import up_or_down as ud
from grammars import Grammar, load
from grammars.reader import (
    CommandSaid,
    Intent,
    NotUnderstood,
    NumberSaid,
    Utterance,
    number_phrases,
    parse,
    recognizer_phrase,
)
from host import referee as ref
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
#: Commands heard while no game runs, and not heard while one does.
IDLE_COMMANDS = ("new_game", "whose_turn", "repeat", "rules", "status", "help", "leave")
#: Commands that change the game: chatter must not trigger them, so they must be what the
#: decoder's best path says, with at least DESTRUCTIVE_SHARE of the share.
DESTRUCTIVE = ("undo", "finish", "leave", "new_game")
DESTRUCTIVE_SHARE = 0.5

# Prior weight of a number the rules forbid now, relative to an allowed one: players
# mostly say allowed numbers, so a close call between "오십 삼" (allowed) and "오십 사"
# (a mistake) goes to the allowed one. Measured in tests/bench/bench_speech.py.
INVALID_PRIOR = 0.25
# Readings weaker than this fraction of the best are not passed on as alternatives (the
# referee asks when any alternative is an allowed number; a 1 % path should not count).
KEEP_ALTERNATIVE = 0.1
# The best clear reading must weigh at least this fraction of the unclear ones (chatter,
# several numbers at once) for the utterance to count as a move.
MIN_CLEAR = 0.5
UNCLEAR: tuple[object, ...] = ("unclear",)
# Weight of a reading past a stray unit word next to it (see _stray_reading()).
STRAY = 0.5
# Logistic calibration (intercept, log-odds of the pooled share, reading is the best path)
# of calibrate(), fitted by tests/bench/bench_speech.py --fit on espeak-ng Korean saying
# 1..100 in five voices, clean and noisy.
CALIBRATION = (-1.601, 0.044, 0.845)


@dataclass(frozen=True)
class Reading:
    """What an utterance means, after re-parsing its alternatives."""

    intent: Intent
    text: str  # the alternative that says it
    alternatives: tuple[str, ...]  # for the referee: ``text`` first, then other readings
    share: float  # pooled share of the reading after the prior (0..1)
    confidence: float  # calibrated probability that the reading is what was said
    ignored: str | None = None  # why this is not passed on: "nothing", "chatter", ...
    top: bool = False  # the decoder's best path says this as it stands


class Interpretation(Protocol):
    """What a listener made of an utterance (:class:`Reading`, or a card listener's own)."""

    @property
    def ignored(self) -> str | None: ...

    @property
    def text(self) -> str: ...

    @property
    def alternatives(self) -> tuple[str, ...]: ...

    @property
    def confidence(self) -> float: ...


@dataclass(frozen=True)
class Heard:
    hearing: recognizer.Hearing
    reply: Reply | None  # None: ignored (silence, chatter, nothing a player could mean)
    reading: Interpretation | None = None

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
        wanted = [c for c in g.commands if c not in ANSWERS and c != "new_game"]
    elif state == "confirming":
        wanted = list(ANSWERS)
    else:
        wanted = [c for c in IDLE_COMMANDS if c in g.commands]
    heard = g.speech_commands or g.commands
    phrases += [p for c in wanted for p in heard.get(c, g.commands[c])]
    if state == "playing":
        phrases += [n.casefold() for n in names]
    if decoys:
        phrases += [d for d in g.decoys if state != "confirming" or d not in g.answer_lookalikes]
    return list(dict.fromkeys(" ".join(p.split()) for p in phrases if p.strip()))


# --- reading an utterance ------------------------------------------------------------------


def _key(intent: Intent) -> tuple[object, ...]:
    if isinstance(intent, NumberSaid):
        return ("number", intent.value)
    if isinstance(intent, CommandSaid):
        return ("command", intent.name)
    return UNCLEAR


def _reading(utterance: Utterance) -> tuple[Intent, float]:
    """What one alternative says, and how much to trust that relative to its share.

    The decoder's loose word model puts short words next to what was said (a breath, the
    hiss of an "s"): a lone unit beside a longer number ("사 삼십 이"), or beside a command
    other than yes/no ("게임 끝 이"), is taken for such a word and the rest is read, less
    surely (``STRAY``). "아니 오십 사" is a correction: the number.
    """
    intent = utterance.intent()
    numbers = utterance.distinct_numbers
    commands = tuple(dict.fromkeys(utterance.commands))
    if len(numbers) == 1 and commands == ("no",):
        return NumberSaid(numbers[0]), 1.0
    if len(numbers) == 2 and not commands and min(numbers) < 10 <= max(numbers):
        return NumberSaid(max(numbers)), STRAY
    if len(numbers) == 1 and 0 <= numbers[0] < 10 and len(commands) == 1 and commands[0] not in ANSWERS:
        return CommandSaid(commands[0]), STRAY
    return intent, 1.0


def _text(intent: Intent, said: str, lang: str) -> str:
    """Words for the referee that parse to ``intent``: what was said, if it does."""
    if parse(said, lang).intent() == intent:
        return said
    if isinstance(intent, NumberSaid):
        return recognizer_phrase(intent.value, lang)
    if isinstance(intent, CommandSaid):
        return load(lang).commands[intent.name][0]
    return said


def calibrate(share: float, top: bool) -> float:
    """Probability that a reading is right, from its pooled share and whether it is what
    the decoder's best path says as it stands (logistic regression, see CALIBRATION)."""
    share = min(max(share, 1e-6), 1 - 1e-6)
    a, b, c = CALIBRATION
    z = a + b * math.log(share / (1 - share)) + c * top
    return 1 / (1 + math.exp(-z))


def read(
    hearing: recognizer.Hearing,
    lang: str,
    *,
    game: ud.State | None = None,
    decoys: Sequence[str] = (),
    names: Sequence[str] = (),
    invalid_prior: float = INVALID_PRIOR,
    min_clear: float = MIN_CLEAR,
) -> Reading:
    """Read an utterance from its N-best list.

    Each alternative is parsed. One that says a single number or a single command is a
    *clear* reading; alternatives with the same reading pool their share. Everything else
    is *unclear*: nothing (the empty path, the real "nothing" signal of a model whose
    ``[unk]`` never wins), decoys or ``[unk]`` for at least half its words, or more than
    one number ("사 삼십 이": a number with a stray syllable, or chatter). With ``game`` (a
    game in progress, no question pending) a number the rules forbid now has its share
    weighted by ``invalid_prior``. The best clear reading wins unless the unclear ones
    outweigh it by ``1 / min_clear``: then the utterance is ignored.
    """
    chatter = {*decoys, *(n.casefold() for n in names), UNK}
    mass: dict[tuple[object, ...], float] = {}
    first: dict[tuple[object, ...], tuple[str, Intent]] = {}
    for text, share in hearing.alternatives:
        tokens = text.split()
        intent, trust = _reading(parse(text, lang))
        weight = share * trust
        if not tokens or 2 * sum(t in chatter for t in tokens) >= len(tokens):
            intent = NotUnderstood()
        key = _key(intent)
        if (
            game is not None
            and isinstance(intent, NumberSaid)
            and not ud.is_valid(game.last, intent.value, game.options)
        ):
            weight *= invalid_prior
        mass[key] = mass.get(key, 0.0) + weight
        first.setdefault(key, (text, intent))
    total = sum(mass.values())
    unclear = mass.pop(UNCLEAR, 0.0)
    ranked = sorted(mass, key=lambda k: -mass[k])
    if total <= 0:
        return Reading(NotUnderstood(), hearing.text, (), 0.0, 0.0, "nothing")
    if not ranked or mass[ranked[0]] < min_clear * unclear:
        return Reading(NotUnderstood(), hearing.text, (), unclear / total, 0.0, "unclear")
    best = ranked[0]
    intent = first[best][1]
    text = _text(intent, first[best][0], lang)
    others = tuple(
        _text(first[k][1], first[k][0], lang) for k in ranked[1:] if mass[k] >= KEEP_ALTERNATIVE * mass[best]
    )
    share = mass[best] / total
    top = parse(hearing.text, lang).intent() == intent
    return Reading(intent, text, (text, *others), share, calibrate(share, top), top=top)


# --- the listener --------------------------------------------------------------------------


class StreamListener(ABC):
    """The audio side every listener shares: an :class:`Endpointer` whose phrase list
    follows a session, fed pcm16 and muted while the host speaks. A subclass says what to
    listen for (:meth:`phrases`, :meth:`refresh`) and referees each utterance (:meth:`handle`);
    :class:`~host.speech.table.TableRunner` drives any of them."""

    # Stream seconds between checks of the session for changes made elsewhere (a timeout,
    # another channel), which may change the phrase list.
    REFRESH_S = 0.25

    endpointer: Endpointer
    model: SpeechModel
    referee: ref.Referee
    session_id: str
    speaker: str | None
    config: ref.SessionConfig
    lang: str
    grammar: Grammar
    #: Words of the phrase lists the model lacks; their phrases are left out.
    missing_words: tuple[str, ...] = ()
    _missing: frozenset[str] = frozenset()
    _checked_at = 0.0

    def _attach(self, referee: ref.Referee, session_id: str, speaker: str | None) -> ref.Table:
        """Follow ``session_id`` for ``speaker`` (None: a shared microphone); its table now."""
        self.referee = referee
        self.session_id = session_id
        self.speaker = speaker
        table = referee.table(session_id)
        self.config = table.config
        self.lang = table.config.lang
        self.grammar = load(self.lang)
        return table

    def _listen(
        self, model: SpeechModel, sample_rate: int, every: Iterable[str], *, report_missing: bool
    ) -> None:
        """Check ``every`` phrase the listener may ever use against the model (reported once,
        here, unless the caller reports :attr:`missing_words` itself), then start listening
        for :meth:`phrases`."""
        self.model = model
        self.missing_words = tuple(model.missing_words(dict.fromkeys(every)))
        if self.missing_words and report_missing:
            log.warning(
                "the speech model %s lacks %d words; phrases with them cannot be heard: %s",
                model.path,
                len(self.missing_words),
                ", ".join(self.missing_words),
            )
        self._missing = frozenset(self.missing_words)
        self.endpointer = Endpointer(GrammarRecognizer(model, sample_rate, self.phrases()))
        self._checked_at = 0.0

    def _hearable(self, phrases: Iterable[str]) -> list[str]:
        """``phrases`` without those that have a word the model lacks."""
        return [p for p in phrases if not self._missing.intersection(p.split())]

    @abstractmethod
    def phrases(self) -> list[str]:
        """The phrase list for the session's current state (phrases the model can hear)."""

    @abstractmethod
    def refresh(self) -> None:
        """Follow the session now (call after changing it other than through this listener)."""

    @abstractmethod
    def read(self, hearing: recognizer.Hearing) -> Interpretation:
        """Read a hearing in the session's current state (no side effects)."""

    def handle(self, hearing: recognizer.Hearing) -> Heard:
        """Referee one Hearing (from :meth:`feed`, or decoded elsewhere)."""
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
            out.append(self.handle(hearing))
            hearing = self.endpointer.feed(b"")
        return out

    def flush(self) -> list[Heard]:
        """End of the stream: referee the utterance in progress, if any."""
        out: list[Heard] = []
        hearing = self.endpointer.flush()
        while hearing is not None:
            out.append(self.handle(hearing))
            hearing = self.endpointer.feed(b"") or self.endpointer.flush()
        return out

    def hear(self, chunks: Sequence[bytes] | Iterator[bytes]) -> Iterator[Heard]:
        """Feed a whole source and yield every Heard, flushing at the end."""
        for chunk in chunks:
            yield from self.feed(chunk)
        yield from self.flush()


class Listener(StreamListener):
    """Audio in, refereed moves out, for one Up-or-Down session."""

    def __init__(
        self,
        referee: Referee,
        session_id: str,
        model: SpeechModel,
        *,
        sample_rate: int = SAMPLE_RATE,
        speaker: str | None = None,
        report_missing: bool = True,
    ) -> None:
        """``report_missing`` false: the caller tells the user about :attr:`missing_words`
        (the table command prints them) instead of a logged warning."""
        table = self._attach(referee, session_id, speaker)
        self._names = table.names
        every = [
            p
            for state in ("playing", "confirming", "idle")
            for p in phrase_list(self.lang, self.config.low, self.config.high, state=state, names=self._names)
        ]
        self.invalid_prior = INVALID_PRIOR
        self._state = self._session_state(table)
        self._listen(model, sample_rate, every, report_missing=report_missing)

    # --- state and phrases ---

    def _session_state(self, table: ref.Table) -> str:
        if not table.running:
            return "idle"
        row = self.referee.store.session(self.session_id)
        pending = row.pending if row is not None else None
        if pending is not None and (self.speaker is None or self.speaker == pending.get("player")):
            return "confirming"
        return "playing"

    def phrases(self) -> list[str]:
        """The phrase list for the current state (phrases the model can hear)."""
        return self._hearable(
            phrase_list(self.lang, self.config.low, self.config.high, state=self._state, names=self._names)
        )

    def refresh(self) -> None:
        """Follow the session now (call after changing it other than through this listener)."""
        table = self.referee.table(self.session_id)
        self._names = table.names
        state = self._session_state(table)
        if state != self._state:
            self._state = state
            log.debug("listening for %s", state)
            self.endpointer.set_phrases(self.phrases())
        self._checked_at = self.endpointer.time

    # --- refereeing ---

    def read(self, hearing: recognizer.Hearing) -> Reading:
        """Read a hearing in the session's current state (no side effects)."""
        table = self.referee.table(self.session_id)
        game = table.game if table.running and self._state == "playing" else None
        reading = read(
            hearing,
            self.lang,
            game=game,
            decoys=self.grammar.decoys,
            names=self._names,
            invalid_prior=self.invalid_prior,
        )
        if reading.ignored is not None:
            return reading
        if self._state == "idle" and not isinstance(reading.intent, CommandSaid):
            # With no game running only commands mean anything; a "number" is chatter.
            return replace(reading, ignored="chatter")
        if (
            isinstance(reading.intent, CommandSaid)
            and reading.intent.name in DESTRUCTIVE
            and not (reading.top and reading.share >= DESTRUCTIVE_SHARE)
        ):
            return replace(reading, ignored="unsure command")
        if self._state == "confirming" and isinstance(reading.intent, NumberSaid):
            row = self.referee.store.session(self.session_id)
            pending = row.pending if row is not None else None
            if (
                pending is not None
                and reading.intent.value != pending.get("number")
                and reading.confidence < self.config.confirm_below
            ):
                # The referee takes a number said after "Did you say ...?" as a correction
                # and rules it at once; an unsure one is more likely a misheard "응".
                return replace(reading, ignored="unsure correction")
        return reading

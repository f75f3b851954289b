"""Audio in, refereed moves out: the speech front end of one session, for any game.

A :class:`Listener` owns an :class:`~host.speech.endpointer.Endpointer` whose phrase list
follows the session (:mod:`host.listening.phrases`). Words the model lacks are reported
once, when the listener is made. Each utterance is read from its N-best list
(:func:`host.listening.reading.read`) and what it means goes to
``Referee.handle_heard`` as a :class:`host.heard.HeardMeaning`, with a confidence
calibrated when the game has a calibration, so the referee's confirmation policy
(``host/confirm.py``) decides whether a costly move is ruled or read back.

Table chatter is not a move and gets no answer (``Heard.reply is None``): an utterance
that decodes to nothing (the empty path), to decoys, ``[unk]`` or names for half its
words or more, or to nothing clear, unless a clear reading (one move or one command)
carries at least half as much weight. At a table people talk all the time; answering "I
didn't catch that" to every remark would drown the game, and a player who was not
understood just says it again. Two more things are ignored rather than passed on: a
command that changes the game (undo, finish, leave, new game) unless it is the decoder's
best path with half the share, so chatter cannot end a game (in a room that rings or is
noisy, any other command below three quarters of it); and, while a question waits, an
unsure move other than the one asked about, which the referee would otherwise rule at
once as a correction.
"""

from __future__ import annotations

import contextlib
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from games.base import Command
from grammars import Grammar, load
from grammars.reader import normalise
from host import confirm
from host.confirm import ANSWER_SHARE, CONFIRM_LAPSE
from host.heard import HeardMeaning
from host.listening.doubts import BEFORE_QUESTION, REPLY_TO_TALK, Doubts
from host.listening.phrases import (
    CONFIRMING,
    IDLE,
    ListenForCache,
    command_phrases,
    every_phrase,
    listening,
    phrase_list,
    phrase_settles,
    talk_list,
)
from host.listening.reading import INVALID_PRIOR, Reading, read
from host.listening.speakers import Voiced, WhoSpoke
from host.referee import Referee
from host.reply import Reply
from host.session import Asked, SessionConfig, Table
from host.speech.audio import SAMPLE_RATE
from host.speech.denoise import Denoiser, wanted
from host.speech.dereverb import Dereverberator
from host.speech.endpointer import Endpointer
from host.speech.engines import recognizer_for
from host.speech.hearing import Hearing
from host.speech.model import SpeechModel
from host.speech.room import RoomMeter

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Heard:
    hearing: Hearing
    reply: Reply | None  # None: ignored (silence, chatter, nothing a player could mean)
    reading: Reading | None = None
    voiced: Voiced | None = None  # whose voice (None: voices off, or ignored and not enrolling)

    @property
    def ignored(self) -> str | None:
        if self.reply is not None:
            return None
        return self.reading.ignored if self.reading is not None else "nothing"


# --- the listener --------------------------------------------------------------------------


class StreamListener(Doubts, ABC):
    """The audio side every listener shares: an :class:`Endpointer` whose phrase list
    follows a session, fed pcm16 and muted while the host speaks. A subclass says what to
    listen for (:meth:`phrases`, :meth:`refresh`) and referees each utterance (:meth:`handle`);
    :class:`~host.channels.table.runner.TableRunner` drives any of them."""

    # Stream seconds between checks of the session for changes made elsewhere (a timeout,
    # another channel), which may change the phrase list.
    REFRESH_S = 0.25

    endpointer: Endpointer
    model: SpeechModel
    referee: Referee
    confirm_lapse: float | None = CONFIRM_LAPSE  # see Listener
    session_id: str
    speaker: str | None
    config: SessionConfig
    lang: str
    grammar: Grammar
    #: Words of the phrase lists the model lacks; their phrases are left out.
    missing_words: tuple[str, ...] = ()
    #: Told every reply inside the transaction that ruled it, so a channel queues the news
    #: for the others (outbox rows) with the move: both are committed, or neither.
    on_reply: Callable[[Reply], None] | None = None
    _missing: frozenset[str] = frozenset()
    _checked_at = 0.0
    _tuned_noisy = False  # the room was noisy when the hearing was last set up for it
    #: Noise suppression in front of the recogniser (None: the audio as it comes).
    denoiser: Denoiser | None = None
    #: Late reverberation taken out after it (None: none).
    dereverberator: Dereverberator | None = None
    #: The room as heard through this microphone (:mod:`host.speech.room`): fed the audio
    #: as it comes, each utterance measured once its tail has been heard. A table's one
    #: microphone keeps one meter across listeners (:meth:`hear_room_with`).
    room: RoomMeter
    #: The players' voices at a shared microphone (None: voices off; host/listening/speakers.py).
    who_spoke: WhoSpoke | None = None

    def _attach(self, referee: Referee, session_id: str, speaker: str | None) -> Table:
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
        self,
        model: SpeechModel,
        sample_rate: int,
        every: Iterable[str],
        *,
        report_missing: bool,
        phone: bool = False,
        denoise: bool = False,
    ) -> None:
        """Check ``every`` phrase the listener may ever use against the model (reported once,
        here, unless the caller reports :attr:`missing_words` itself), then start listening
        for :meth:`phrases`; ``denoise``: through a :class:`Denoiser` (16 kHz audio)."""
        self.model = model
        self.phone = phone
        self.missing_words = tuple(model.missing_words(dict.fromkeys(every)))
        if self.missing_words and report_missing:
            log.warning(
                "the speech model %s lacks %d words; phrases with them cannot be heard: %s",
                model.path,
                len(self.missing_words),
                ", ".join(self.missing_words),
            )
        self._missing = frozenset(self.missing_words)
        self.endpointer = Endpointer(
            recognizer_for(model, sample_rate, self.phrases(), phone=phone, talk=self.talk()),
            phrase_silence_s=self.grammar.phrase_silence_s,
            settles=phrase_settles(self.grammar),
            patient=command_phrases(self.grammar, confirm.DESTRUCTIVE),
        )
        self._checked_at = 0.0
        self.denoiser = Denoiser(sample_rate) if denoise else None
        self.room = RoomMeter(sample_rate)

    def hear_room_with(self, meter: RoomMeter) -> None:
        """Measure the room with ``meter`` (what an earlier listener on the same
        microphone, or the table's name round, has measured so far)."""
        self.room = meter
        self._tune()

    def _tune(self) -> None:
        """Set the hearing up for the room as measured so far."""
        rt60 = self.room.rt60
        if self.dereverberator is not None and rt60 is not None:
            self.dereverberator.rt60 = rt60
        self._tuned_noisy = self._noisy()
        self.endpointer.room_rings(self._rings(), self._tuned_noisy, self._echoing())

    def _hearable(self, phrases: Iterable[str]) -> list[str]:
        """``phrases`` without those that have a word the model lacks."""
        return [p for p in phrases if not self._missing.intersection(p.split())]

    @abstractmethod
    def talk(self) -> list[str]:
        """Words table talk may decode as in the session's current state."""

    @abstractmethod
    def refresh(self) -> None:
        """Follow the session now (call after changing it other than through this listener)."""

    @abstractmethod
    def read(self, hearing: Hearing) -> Reading:
        """Read a hearing in the session's current state (no side effects)."""

    def _who(self, hearing: Hearing) -> str | None:
        """Whose voice ``hearing`` is, for each seat's level: the speaker, or a player saying their name."""
        return self.speaker

    def handle(self, hearing: Hearing) -> Heard:
        """Referee one Hearing (from :meth:`feed`, or decoded elsewhere)."""
        self.refresh()
        self.room.later(hearing.start, hearing.speech_end, self.time, self._who(hearing))
        reading = self.read(hearing)
        weakest = self._weakest_word(hearing, reading)  # what marks it ignored below keeps it
        if reading.ignored is None and self._partial(hearing, reading):
            reading = replace(reading, ignored="not a whole phrase")
        if reading.ignored is None:
            table, said = not self.phone and self.listening != CONFIRMING, reading.meaning
            posteriors = self.endpointer.recognizer.word_posteriors  # words to weigh
            why = confirm.too_doubtful(self._rings(), posteriors, hearing, table, isinstance(said, Command))
            reading = replace(reading, ignored=why)
        if reading.ignored is None and self._reply_to_talk(hearing, reading):
            reading = replace(reading, ignored=REPLY_TO_TALK)
        if reading.ignored is None and self._before_question(hearing):
            reading = replace(reading, ignored=BEFORE_QUESTION)
        if reading.ignored is not None:
            log.info("ignored %r (%s)", hearing.text, reading.ignored)
            if reading.ignored != REPLY_TO_TALK:
                self._talk_end = max(hearing.end, hearing.speech_end)  # a dropped reply holds none off
            return Heard(hearing, None, reading, self._voice_unanswered(hearing))
        voiced = self._voice(hearing, reading)
        cut_short = self._noisy() and self._goes_on(reading.text)  # a noisy room's tail swallows words
        speaker = voiced.speaker if voiced is not None and self.speaker is None else self.speaker
        heard = HeardMeaning(
            reading.meaning,
            reading.confidence,
            reading.others,
            reading.text,
            open_mic=True,
            lapse=self.confirm_lapse,
            doubtful=self._doubtful(hearing, reading, weakest) or (voiced is not None and voiced.doubtful),
            unsure=confirm.weak_for_costly(
                self._rings(), weakest, self._echoing(), cut_short, hearing.longest_pause
            ),
        )
        with self.referee.store.transaction():
            reply = self.referee.handle_heard(self.session_id, heard, speaker)
            if self.on_reply is not None:
                self.on_reply(reply)
        if voiced is not None and self.who_spoke is not None:
            self.who_spoke.ruled(voiced, reply)
        if reply.confirm:
            self._asked_end = hearing.end
            self._asked_at = hearing.emitted_at
        self.refresh()
        return Heard(hearing, reply, reading, voiced)

    # --- voices (host/listening/speakers.py) ---

    def _voice(self, hearing: Hearing, reading: Reading) -> Voiced | None:
        """Whose voice an utterance to be refereed is, at a shared microphone with voices on."""
        if self.who_spoke is None or self.speaker is not None:
            return None
        table, confirming = self.referee.table(self.session_id), self.listening == CONFIRMING
        return self.who_spoke.judge(
            hearing, table, reading.meaning, confirming=confirming, rt60=self.room.rt60
        )

    def _voice_unanswered(self, hearing: Hearing) -> Voiced | None:
        """The voice of an utterance nobody answers, when the name round wants it."""
        if self.who_spoke is None:
            return None
        if not self.who_spoke.enrolling:
            self.who_spoke.skip()
            return None
        return Voiced(self.who_spoke.voiceprint(hearing))

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
        if self.room.feed(pcm) or self._noisy() != self._tuned_noisy:
            self._tune()  # the room measured anew, or the noise came or went
        if self.who_spoke is not None:
            self.who_spoke.hear(pcm, self.endpointer.time)
        if self.denoiser is not None:
            pcm = self.denoiser(pcm)
        if self.dereverberator is not None:
            pcm = self.dereverberator(pcm)
        hearing = self.endpointer.feed(pcm)
        while hearing is not None:
            out.append(self.handle(hearing))
            hearing = self.endpointer.feed(b"")
        if self.who_spoke is not None:
            self.who_spoke.watch(self.endpointer.speech, self.endpointer.time)
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
    """Audio in, refereed moves out, for one session of any game."""

    def __init__(
        self,
        referee: Referee,
        session_id: str,
        model: SpeechModel,
        *,
        sample_rate: int = SAMPLE_RATE,
        speaker: str | None = None,
        report_missing: bool = True,
        phone: bool = False,
        on_reply: Callable[[Reply], None] | None = None,
        confirm_lapse: float | None = CONFIRM_LAPSE,
        denoise: bool | None = None,
    ) -> None:
        """``denoise``: noise suppression in front of the recogniser (:mod:`host.speech.denoise`;
        None: where it measured better, :func:`host.speech.denoise.wanted`).
        ``confirm_lapse``: seconds a read-back waits for its answer before it lapses and
        changes nothing (None: it waits). ``report_missing`` false: the caller tells the
        user about :attr:`missing_words` (the table command prints them) instead of a
        logged warning. ``phone``: the audio is a phone call's (8 kHz mu-law upsampled to
        ``sample_rate``). ``on_reply``: see :attr:`StreamListener.on_reply`."""
        self.on_reply = on_reply
        self.confirm_lapse = confirm_lapse
        table = self._attach(referee, session_id, speaker)
        self.invalid_prior = INVALID_PRIOR
        self._listen_for = ListenForCache()
        self._table = table
        self._key = self._state_key()
        if denoise is None:
            denoise = wanted(model.engine, sample_rate, phone=phone)
        every = every_phrase(table)
        self._listen(model, sample_rate, every, report_missing=report_missing, phone=phone, denoise=denoise)
        self._phrases = (self.phrases(), self.talk())

    # --- state and phrases ---

    def _state_key(self) -> tuple[str, int, tuple[str, ...]]:
        table = self._table
        turn = table.state.turn if table.state is not None else -1
        return listening(table, self.speaker, self.referee.clock()), turn, table.names

    @property
    def listening(self) -> str:
        """What the listener listens for now: "idle", "confirming" or "playing"."""
        return self._key[0]

    @property
    def asked(self) -> Asked | None:
        return self._table.asked if self.listening == CONFIRMING else None

    def phrases(self) -> list[str]:
        """The phrase list for the current state (phrases the model can hear)."""
        return self._hearable(phrase_list(self._table, self.listening, listen=self._listen_for))

    def talk(self) -> list[str]:
        return talk_list(self._table, self.listening, listen=self._listen_for)

    def _chatter_words(self) -> list[str]:
        """Talk words that mean nothing now: not a word of a phrase listened for ("yes" is
        talk while playing, the answer while a question waits)."""
        phrases, talk = self._phrases
        said = {w for p in phrases for w in p.split()}
        return [w for w in talk if w not in said]

    def refresh(self) -> None:
        """Follow the session now (call after changing it other than through this listener)."""
        self._table = self.referee.table(self.session_id)
        key = self._state_key()
        if key != self._key:
            self._key = key
            phrases = (self.phrases(), self.talk())
            if phrases != self._phrases:  # a new recogniser grammar costs: only when it changed
                log.debug("listening for %s (turn %d)", key[0], key[1])
                self._phrases = phrases
                self.endpointer.set_phrases(*phrases)
        self._checked_at = self.endpointer.time

    def _who(self, hearing: Hearing) -> str | None:
        said = {" ".join(hearing.text.split()), " ".join(hearing.talk.split())}
        named = [n for n in self._table.names if normalise(n) in said]
        return self.speaker or (named[0] if named else None)

    # --- refereeing ---

    def read(self, hearing: Hearing) -> Reading:
        """Read a hearing in the session's current state (no side effects)."""
        mode = self.listening
        reading = read(
            hearing,
            self._table,
            mode,
            decoys=self._chatter_words(),
            invalid_prior=self.invalid_prior,
            listen=self._listen_for,
            shares_are_confidences=self.endpointer.recognizer.shares_are_confidences,
        )
        said = reading.meaning
        if reading.ignored is not None:
            return reading
        if mode == IDLE and not isinstance(said, Command):
            # With no game running only commands mean anything; anything else is chatter.
            return replace(reading, ignored="chatter")
        doubting, confirming = self._rings() or self._noisy(), mode == CONFIRMING
        if isinstance(said, Command) and confirm.unsure_command(
            said.name, reading.top, reading.share, doubting=doubting, confirming=confirming
        ):
            return replace(reading, ignored="unsure command")
        if mode == CONFIRMING and not (reading.top and reading.share >= ANSWER_SHARE):
            # Only a clear answer answers "Bob, 11?": a shaky yes may be anyone's remark.
            return replace(reading, ignored="unsure answer")
        asked = self.asked
        if (
            asked is not None
            and asked.command is None
            and not isinstance(said, Command)
            and said != asked.move
            and confirm.unsure(reading.confidence, self.config.confirm_below)
        ):
            # The referee takes a move said after "Did you say ...?" as a correction and
            # rules it at once; an unsure one is more likely a misheard "yes".
            return replace(reading, ignored="unsure correction")
        return reading

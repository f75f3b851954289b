"""When a table holds a hearing back: what a listener knows of the room and the moment
(ringing, echoing, noisy, loud, others talking, just after talk or a read-back) and the
rules that turn a move into a read-back or drop it. Kept apart from the audio and the
session (:mod:`host.listening.listener`), which mix it in, so each stays one job.
"""

from __future__ import annotations

from abc import abstractmethod

from games.base import Command
from grammars import Grammar
from host import confirm
from host.confirm import LOUD_SNR_DB
from host.listening.phrases import CONFIRMING, PLAYING
from host.listening.reading import Reading, is_move
from host.speech.denoise import ENGAGE_FLOOR, Denoiser
from host.speech.endpointer import Endpointer
from host.speech.hearing import Hearing
from host.speech.phrase_index import ending
from host.speech.room import RoomMeter

#: A doubtful hearing (below) this soon (s) after talk was ignored is dropped, not asked
#: about: at a table it is far more often someone's reply to the talk than a move. A lone
#: syllable the grammar reads back (``read_back_alone``): espeak-ng's "네" after a sentence,
#: heard as 이, was asked "Ann, 2?" after 4 of 75 Korean talk sentences. A phrase only the
#: lenient gate kept (``near_talk``): Piper's "yes" after talk in fan noise was kept as
#: Blófa's "pass" and ruled. Anything heard in a loud room (:data:`LOUD_SNR_DB`): espeak-ng's
#: "맞아요" in white noise 10 dB below came out as "사십 육" and was ruled. A player whose move
#: got no answer says it again. Also anything in a noisy room (:meth:`Doubts._noisy`), and,
#: while a question waits and talk went on after it, any answer but "no"
#: (:meth:`Doubts._reply_to_talk`).
REPLY_TO_TALK_S = 2.0
REPLY_TO_TALK = "a reply to talk"  # why such a hearing is ignored

#: At a table's microphone an utterance begun less than this (s) after a read-back was decided
#: is no answer to it: nobody could have heard the question yet. The shortest read-back takes
#: 0.7 s to say ("Ann, 8?" in Piper's voice; "Bob, 21?" 1.2 s, "Cy: one blue card, six?"
#: 2.1 s), and an answer comes at least 0.2 s after a question ends; printed, nobody reads and
#: answers it sooner. The table's runner drops what the microphone hears while the host
#: speaks; a listener fed without it (a bench, a table with no loudspeaker) heard the
#: piper-up2 voice's "oh my god, stop it" in a fresh room of RT60 0.86 s as "nine", read back
#: as "Cy, 9?", and "stop it", begun before the question could be, as "yeah": 9 ruled on talk
#: (tests/bench/bench_room.py --rooms fresh:3:59 --seed 59). At 0.5 s, espeak-ng's en-us+m2 (a
#: voice no bench was tuned on) saying "hi everyone" in a fresh room of RT60 0.73 s was heard
#: as "twenty one", read back as "Bob, 21?", and the other player's "yes" to the greeting,
#: begun 0.7 s after, put Bob out (--rooms fresh:3:131 --seed 131 --voices espeak:en-us+m2).
BEFORE_QUESTION_S = 0.9
BEFORE_QUESTION = "said before the question"  # why such a hearing is ignored

#: A room whose RT60 is measured at this or more rings (:meth:`Doubts._rings`): dry
#: speech measures 0.13 s (Piper) to 0.23 s (espeak-ng's slow fade), a den of 0.3 s
#: 0.35-0.42 s (host/speech/room.py, docs/speech.md "Hearing in a room").
RINGS_RT60 = 0.3


class Doubts:
    """The hold-back rules of a listener (mixed into
    :class:`~host.listening.listener.StreamListener`, which sets these attributes)."""

    room: RoomMeter
    phone: bool = False  # the audio is a phone call's
    denoiser: Denoiser | None = None
    endpointer: Endpointer
    grammar: Grammar
    _talk_end: float | None = None  # stream time the last ignored utterance's sound ended
    _asked_end: float | None = None  # stream time the last utterance read back ended
    _asked_at: float | None = None  # stream time the last read-back was decided

    @abstractmethod
    def phrases(self) -> list[str]:
        """The phrase list for the session's current state (phrases the model can hear)."""

    @property
    @abstractmethod
    def listening(self) -> str:
        """What the listener listens for now: "idle", "confirming" or "playing"."""

    def _doubtful(self, hearing: Hearing, reading: Reading, weakest: float | None) -> bool:
        """Whether a move read from ``hearing`` is read back though it costs nothing (``confirm.doubtful``);
        a lone syllable, a loud room and others talking count only at a table's microphone."""
        return confirm.doubtful(
            reading.share,
            reading.rival,
            noisy=self._noisy(),
            rings=self._rings(),
            lone=not self.phone and self._lone(hearing),
            near_talk=bool(hearing.near_talk or hearing.doubted),
            loud=self._loud(hearing),
            confused=reading.confused or (reading.caught_all and self._rings()),
            confused_rival=reading.confused_rival,
            won_by_prior=reading.won_by_prior,
            echoing=self._echoing(),
            adapted=hearing.room_adapted,
            goes_on=self._echoing() and self._goes_on(reading.text),
            crowded=not self.phone and hearing.crowded,
            weakest_word=weakest,
            loose=confirm.loose_fit(hearing),
            by_name=reading.by_name,
            echoed=reading.echoed,
            rung=reading.rung,
            one_word=len(reading.text.split()) == 1,
        )

    def _weakest_word(self, hearing: Hearing, reading: Reading) -> float | None:
        """The lowest posterior of the words ``reading`` was heard as, where the recogniser's
        word confidences are posteriors (None: they are not, or the reading is not the best
        path's, whose words the hearing carries)."""
        posteriors = self.endpointer.recognizer.word_posteriors
        return hearing.weakest_word if posteriors and reading.top else None

    def _goes_on(self, text: str) -> bool:
        """A longer phrase listened for goes on from ``text``'s words (the end-pointer's index)."""
        return ending(" ".join(text.split()), self.endpointer.recognizer.phrases) == "phrase"

    def _lone(self, hearing: Hearing) -> bool:
        """A lone syllable the grammar reads back when alone (``read_back_alone``)."""
        return " ".join(hearing.text.split()) in self.grammar.read_back_alone

    def _noisy(self) -> bool:
        """The room is noisy now: the noise floor of the audio as it comes is
        :data:`~host.speech.denoise.ENGAGE_FLOOR` (-50 dBFS) or more, as the denoiser
        measures it where there is one (it works on the audio then), else the endpointer
        (Vosk hears the audio as it comes: Korean "네" after talk in white noise 20 dB
        below was read back as a card given). Not on a phone: not measured there."""
        if self.denoiser is not None:
            return self.denoiser.engaged
        return not self.phone and self.endpointer.floor >= ENGAGE_FLOOR

    def _rings(self) -> bool:
        """The room rings (its RT60 as measured, :data:`RINGS_RT60` or more, not on a
        phone): a word's tail smears the next, and moves are misheard for each other the way
        they are in noise (Piper's "fifty three" at 1.3 m in a den of RT60 0.3 s was heard
        as "thirty three", with no rival, and ruled), so the noisy room's rules hold."""
        rt60 = self.room.rt60
        return not self.phone and rt60 is not None and rt60 >= RINGS_RT60

    def _echoing(self) -> bool:
        """The room rings so that every move is read back (:data:`host.confirm.ECHOING_RT60`)."""
        return self._rings() and (self.room.rt60 or 0.0) >= confirm.ECHOING_RT60

    def _loud(self, hearing: Hearing) -> bool:
        """Heard barely above the noise at a table's microphone (:data:`LOUD_SNR_DB`)."""
        return not self.phone and hearing.snr_db < LOUD_SNR_DB

    def _partial(self, hearing: Hearing, reading: Reading) -> bool:
        """A move or command while playing that no phrase says as heard: Vosk joined or cut
        phrases ("이 오십" for 칠십, a card's name alone for someone's "네" in noise, "규칙
        되돌려" for espeak-ng's "반칙 아니야", answered with the rules). Dropped: asked about
        or answered, it would mostly be an answer to talk."""
        if reading.meaning is None or self.listening != PLAYING:
            return False
        return " ".join(hearing.text.split()) not in self.phrases()

    def _reply_to_talk(self, hearing: Hearing, reading: Reading) -> bool:
        """Something heard right after talk (or speech decoded as nothing) at a table's
        microphone (:data:`REPLY_TO_TALK_S`) that is more likely a reply to it. While playing:
        a doubtful move (a lone syllable the grammar reads back when alone, a phrase only the
        lenient gate kept), or anything at all in a loud or noisy room. While a question waits
        and talk went on after it: any answer but "no" (the bench's "hey hey, come on in":
        "hey hey" read back as 88, "come on in" talk, then someone's "yeah" ruled it)."""
        talk_end = max(self._talk_end or 0.0, self.endpointer.unheard_end or 0.0) or None
        if talk_end is None or hearing.start - talk_end > REPLY_TO_TALK_S or self.phone:
            return False
        if self.listening == CONFIRMING:
            talk_after_question = self._asked_end is not None and talk_end > self._asked_end
            return talk_after_question and reading.meaning != Command("no")
        if self.listening != PLAYING:
            return False
        if self._loud(hearing) or self._noisy() or self._rings():
            return reading.meaning is not None
        return is_move(reading.meaning) and (self._lone(hearing) or bool(hearing.near_talk))

    def _before_question(self, hearing: Hearing) -> bool:
        """An answer at a table's microphone begun before the read-back waiting could have
        been asked (:data:`BEFORE_QUESTION_S` after it was decided): more of what was said."""
        asked_at = self._asked_at
        if self.listening != CONFIRMING or asked_at is None or self.phone:
            return False
        return asked_at <= hearing.start < asked_at + BEFORE_QUESTION_S

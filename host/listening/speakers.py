"""Who spoke at a shared microphone: the listener's hook to the players' voices (issue 44).

A :class:`WhoSpoke` is fed the table's audio as it comes (before noise suppression), keeps
its last seconds, and embeds each utterance's voice (:mod:`host.speech.voiceprint`) on a
worker thread as soon as its speech pauses, while the decoder still waits out the silence
that ends the utterance: the ruling seldom waits for the voice. Once every player has a
voice (their name said in the name round, host/channels/table/names.py, or their first
moves ruled), :meth:`WhoSpoke.judge` tells the listener whom to take the speaker to be:

* an answer to a read-back (too short to tell), the presumed speaker's voice, no
  voice close enough, two voices too close to tell apart, or a voice too like the
  presumed speaker's (:data:`TWINS`): nobody is named to the referee, which presumes as
  it did before voices;
* surely another player's (a score of :data:`SURE_SCORE` and :data:`SURE_MARGIN` over the
  presumed speaker's): that player, so a move is answered as out of turn and a command
  applies to whoever said it;
* named another player's, not surely: the move is read back ("Ann, 12?"), never ruled at
  once for the player on turn.

The sure band is stricter than :class:`~host.speech.voiceprint.Voices`' own: in a
reverberant room voices draw together, and the looser band would refuse one right move in
six to ten as out of turn (docs/speech.md, "Who spoke"; tests/bench/bench_speakers.py).

Privacy: the voiceprints stay in memory (a :class:`Voiced`'s repr leaves them out); only
who was named and the score reach a reply's events.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from games.base import Command
from host.reply import Reply
from host.session import Table
from host.speech.audio import SAMPLE_RATE, SAMPLE_WIDTH
from host.speech.hearing import Hearing
from host.speech.voiceprint import Identity, Voiceprint, Voices, voiceprint

#: Audio kept: more than the longest utterance the endpointer lets run.
KEEP_S = 20.0
#: Audio embedded before the first speech (the noise floor the voice is measured against)
#: and after the last.
LEAD_S = 0.3
TAIL_S = 0.1
#: Speech paused this long: the utterance is embedded now, before the endpointer ends it
#: (a complete phrase ends after 0.2 s of silence).
PAUSE_S = 0.05
#: Another player's voice is taken as surely theirs at this score, and this far above the
#: presumed speaker's (tests/bench/bench_speakers.py, docs/speech.md "Who spoke").
SURE_SCORE = 0.7
SURE_MARGIN = 0.1
#: Two enrolled voices this alike are one as far as rulings go: a voice's means of three
#: moves score 0.87-0.96 with each other, two voices' 0.56-0.96 (median 0.66) dry.
TWINS = 0.85
#: A table whose voices score this much with each other on average is blurred (a room
#: draws voices together: two voices' means of three moves score 0.66 dry, 0.76-0.80 in the
#: bench's rooms), and another voice is sure only by :data:`BLURRED_MARGIN`.
BLURRED = 0.72
BLURRED_MARGIN = 0.15
#: A voice enrolled from moves (no name heard) is used from this many utterances on: one
#: move's voice is too rough to tell one voice said by every player (tests, a recording)
#: from several (the same voice's single moves score 0.67-0.94 with each other, its means
#: of three 0.87-0.96: twins).
FROM_MOVES = 3
#: Speech shorter than this (s) is not judged another player's: a syllable ("yes", "네",
#: "draw") is as close to another voice as to its own (docs/speech.md, "Who spoke").
SURE_SPEECH_S = 0.25


@functools.cache
def _worker() -> ThreadPoolExecutor:
    """One thread for every table's embeddings (onnxruntime lets go of the GIL)."""
    return ThreadPoolExecutor(1, thread_name_prefix="voiceprint")


@dataclass(frozen=True)
class Voiced:
    """What the voice said about one utterance: its voiceprint (kept out of repr), whose
    voice it is (None: voices not in use yet), who the referee was told spoke (None: as
    without voices) and whether a move must be read back (another player's voice, not
    surely)."""

    voiceprint: Voiceprint | None = field(repr=False)
    identity: Identity | None = None
    speaker: str | None = None
    doubtful: bool = False
    #: Whose voice a ruling on it refines: the speaker named, else the presumed speaker.
    owner: str | None = None

    @property
    def heard(self) -> str | None:
        """Whose voice it heard (None: unsure, or voices not in use yet)."""
        return self.identity.player if self.identity is not None else None

    @property
    def score(self) -> float | None:
        """The cosine of the closest voice (None: not compared)."""
        if self.identity is None or self.identity.nearest is None:
            return None
        return round(self.identity.score, 3)

    def fields(self) -> dict[str, Any]:
        """The ``speaker`` and ``speaker_score`` of the events it brought about."""
        return {"speaker": self.heard, "speaker_score": self.score}


def presumed(table: Table, meaning: Any, confirming: bool) -> str | None:
    """Who the referee takes the speaker of ``meaning`` to be without voices: the player
    asked, for an answer; the one player to act, for a move; nobody for a command (it
    applies to the player on turn only because nobody else is known)."""
    if confirming and table.asked is not None:
        return table.asked.player or None
    if isinstance(meaning, Command):
        return None
    return table.current_player


AS_PRESUMED, SURELY, MAYBE = "as presumed", "surely another", "maybe another"


def verdict(identity: Identity, expected: str | None, voices: Voices, speech_s: float) -> str:
    """What a voice's ``identity`` says of the presumed speaker ``expected``: theirs or
    unsure (:data:`AS_PRESUMED`), surely another player's (:data:`SURELY`: named to the
    referee), or named another player's but not surely (:data:`MAYBE`: a move is read
    back). Two players whose voices sound alike here (:data:`TWINS`: one voice, or a room
    that blurs them) are not told apart, nor anyone by less than :data:`SURE_SPEECH_S` of
    speech."""
    other = identity.player
    if other is None or other == expected or speech_s < SURE_SPEECH_S:
        return AS_PRESUMED
    if expected is not None and expected in voices and voices.between(other, expected) >= TWINS:
        return AS_PRESUMED
    margin = BLURRED_MARGIN if blur(voices) >= BLURRED else SURE_MARGIN
    if identity.score >= SURE_SCORE and identity.margin >= margin:
        return SURELY
    return MAYBE


def ruling(identity: Identity, expected: str | None, voices: Voices, speech_s: float, *, rings: bool) -> str:
    """What the table does with a voice's ``identity`` (:func:`verdict`): in a room that
    rings another voice is never sure enough to refuse a move, only to read it back."""
    said = verdict(identity, expected, voices, speech_s)
    return MAYBE if said == SURELY and rings else said


def blur(voices: Voices) -> float:
    """How alike the enrolled voices sound here: the mean cosine between two of them."""
    pairs = list(itertools.combinations(voices.players, 2))
    return sum(voices.between(a, b) for a, b in pairs) / len(pairs) if pairs else 0.0


class WhoSpoke:
    """The players' voices at one microphone: audio in, :class:`Voiced` per utterance."""

    def __init__(self, voices: Voices, rate: int = SAMPLE_RATE) -> None:
        self.voices = voices
        self.rate = rate
        #: Embed utterances nobody answers too (the name round's names).
        self.enrolling = False
        #: Players whose voice was enrolled from their name (usable at once).
        self.named: set[str] = set()
        self._audio = bytearray()
        self._start = 0  # stream sample of _audio[0]
        self._pending: tuple[tuple[float, float], Future[Voiceprint]] | None = None

    # --- audio ---

    def hear(self, pcm: bytes, at: float) -> None:
        """Audio as it comes, from stream second ``at`` on."""
        if not self._audio:
            self._start = round(at * self.rate)
        self._audio += pcm
        extra = len(self._audio) // SAMPLE_WIDTH - round(KEEP_S * self.rate)
        if extra > 0:
            del self._audio[: extra * SAMPLE_WIDTH]
            self._start += extra

    def _clip(self, start: float, end: float) -> bytes:
        first = max(0, round((start - LEAD_S) * self.rate) - self._start)
        last = max(first, round((end + TAIL_S) * self.rate) - self._start)
        return bytes(self._audio[first * SAMPLE_WIDTH : last * SAMPLE_WIDTH])

    def watch(self, speech: tuple[float, float] | None, now: float) -> None:
        """After each chunk, the endpointer's utterance in progress (``speech``: its first
        and last speech): embedded at once when its speech has paused."""
        if speech is None or now - speech[1] < PAUSE_S:
            return
        if self._pending is not None:
            if self._pending[0] == speech:
                return
            self._pending[1].cancel()
        self._pending = (speech, _worker().submit(voiceprint, self._clip(*speech), self.rate))

    def voiceprint(self, hearing: Hearing) -> Voiceprint:
        """The voiceprint of ``hearing`` (embedded already, or now)."""
        pending, self._pending = self._pending, None
        if pending is not None and pending[0][1] == hearing.speech_end:
            return pending[1].result()
        if pending is not None:
            pending[1].cancel()
        return voiceprint(self._clip(hearing.start, hearing.speech_end), self.rate)

    def skip(self) -> None:
        """The utterance is not refereed: its embedding is not wanted."""
        if self._pending is not None:
            self._pending[1].cancel()
            self._pending = None

    # --- judging ---

    def enrol(self, player: str, voice: Voiceprint) -> None:
        """``player``'s name was heard in ``voice``: their voice from now on."""
        if voice.vector is not None:
            self.voices.enrol(player, voice.vector)
            self.named.add(player)

    def ready(self, players: Iterable[str]) -> bool:
        """Whether every one of ``players`` has a usable voice: their name, or
        :data:`FROM_MOVES` utterances."""
        counts = self.voices.counts()
        return all(p in self.named or counts.get(p, 0) >= FROM_MOVES for p in players)

    def judge(
        self, hearing: Hearing, table: Table, meaning: Any, *, confirming: bool, rings: bool = False
    ) -> Voiced:
        """Who said ``hearing`` (read as ``meaning``), as the referee should take it.
        ``rings``: the room rings (the room meter's RT60, host/speech/room.py), and another
        voice is never sure enough to refuse a move, only to read it back."""
        voice = self.voiceprint(hearing)
        expected = presumed(table, meaning, confirming)
        if not self.ready(table.names):
            return Voiced(voice, owner=expected)
        identity = self.voices.identify(voice.vector, presumed=expected)
        if confirming:
            return Voiced(voice, identity, owner=expected)  # "yes" is too short to tell voices by
        said = ruling(identity, expected, self.voices, voice.speech_s, rings=rings)
        if said == SURELY:
            return Voiced(voice, identity, speaker=identity.player, owner=identity.player)
        is_move = expected is not None and not isinstance(meaning, Command)
        return Voiced(voice, identity, doubtful=said == MAYBE and is_move, owner=expected)

    def ruled(self, voiced: Voiced, reply: Reply) -> None:
        """After the referee answered: what it ruled refines its owner's voice (or enrols
        it, when their name was not heard); the reply's events say whose voice it heard."""
        for event in reply.events:
            event.update(voiced.fields())
        vector = voiced.voiceprint.vector if voiced.voiceprint is not None else None
        if reply.accepted and voiced.owner is not None and vector is not None:
            self.voices.ruled(voiced.owner, vector)
        if reply.game_over:
            self.voices.clear()  # kept for one game only
            self.named.clear()

"""Who spoke at a shared microphone: the listener's hook to the players' voices (issue 44).

A :class:`WhoSpoke` is fed the table's audio as it comes (before noise suppression), keeps
its last seconds, and embeds each utterance's voice (:mod:`host.speech.voiceprint`) on a
worker thread as soon as its speech pauses, while the decoder still waits out the silence
that ends the utterance: the ruling seldom waits for the voice. Once every player has a
voice (their name said in the name round, host/channels/table/names.py, or their first
moves ruled), :meth:`WhoSpoke.judge` tells the listener whom to take the speaker to be:

* an answer to a read-back (too short to tell), the presumed speaker's voice, no
  voice close enough, or a voice too like the presumed speaker's (:data:`TWINS`): nobody
  is named to the referee, which presumes as it did before voices;
* surely another player's (their voice closer than the presumed speaker's by a margin
  that grows with the room's RT60 and for a short word: :func:`sure_margin`): that
  player, so a move is answered as out of turn and a command applies to whoever said it;
* named another player's, not surely: the move is read back ("Ann, 12?"), never ruled at
  once for the player on turn.

Voices are compared as the table's voices differ from each other
(:meth:`~host.speech.voiceprint.Voices.contrast`): a room draws every voice towards its own
colour, and a plain cosine would refuse right moves in a ringing room
(docs/speech.md, "Who spoke"; tests/bench/bench_speakers.py).

Privacy: the voiceprints stay in memory (a :class:`Voiced`'s repr leaves them out); only
who was named and the score reach a reply's events.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from games.base import Command
from host.reply import Reply
from host.session import Table
from host.speech.audio import SAMPLE_RATE, SAMPLE_WIDTH
from host.speech.hearing import Hearing
from host.speech.voiceprint import Identity, Vector, Voiceprint, Voices, voiceprint

#: Audio kept: more than the longest utterance the endpointer lets run.
KEEP_S = 20.0
#: Audio embedded before the first speech (the noise floor the voice is measured against)
#: and after the last.
LEAD_S = 0.3
TAIL_S = 0.1
#: Speech paused this long: the utterance is embedded now, before the endpointer ends it
#: (a complete phrase ends after 0.2 s of silence).
PAUSE_S = 0.05
#: Another player's voice is taken as surely theirs when it is this much closer than the
#: presumed speaker's, as the table's voices differ (``Voices.contrast``), by the room's RT60
#: as the room meter measures it (host/speech/room.py): (RT60 below, margin). A room draws
#: voices together and a right move's voice strays further from its own; an RT60 not
#: measured yet is taken as the most ringing room's (tests/bench/bench_speakers.py,
#: docs/speech.md "Who spoke").
SURE_MARGINS: tuple[tuple[float, float], ...] = ((0.3, 0.1), (0.5, 0.25), (math.inf, 0.35))
#: Speech shorter than this (s) must be :data:`SHORT_EXTRA` further: a word's voice ("six",
#: "draw") strays further from its own than a phrase's.
SHORT_S = 0.35
SHORT_EXTRA = 0.1
#: Named another player's by this share of the sure margin, not surely: the move is read back.
MAYBE_SHARE = 0.5
#: Two enrolled voices this alike are one as far as rulings go: a voice's means of three
#: moves score 0.87-0.96 with each other, two voices' 0.56-0.96 (median 0.66) dry.
TWINS = 0.85
#: A voice enrolled from moves (no name heard) is used from this many utterances on: one
#: move's voice is too rough to tell one voice said by every player (tests, a recording)
#: from several (the same voice's single moves score 0.67-0.94 with each other, its means
#: of three 0.87-0.96: twins).
FROM_MOVES = 3


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
        """Whose voice it heard (None: unsure, or voices not in use yet): the speaker named
        to the referee, else the closest voice when it is sure of it."""
        if self.speaker is not None:
            return self.speaker
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


def sure_margin(rt60: float | None, speech_s: float) -> float:
    """How much closer another player's voice must be to be surely theirs
    (:data:`SURE_MARGINS`, :data:`SHORT_EXTRA`)."""
    bands = [margin for below, margin in SURE_MARGINS if rt60 is not None and rt60 < below]
    margin = bands[0] if bands else SURE_MARGINS[-1][1]
    return margin + (SHORT_EXTRA if speech_s < SHORT_S else 0.0)


def verdict(
    voice: Vector | None, expected: str | None, voices: Voices, speech_s: float, rt60: float | None
) -> tuple[str, str | None]:
    """What ``voice`` says of the presumed speaker ``expected``, and who else said it:
    theirs or unsure (:data:`AS_PRESUMED`), surely another player's (:data:`SURELY`: named
    to the referee), or maybe another's (:data:`MAYBE`: a move is read back). Another
    player is named when their voice is :func:`sure_margin` closer than the presumed
    speaker's (``Voices.contrast``) and scores at least the voices' own floor (a stranger's
    voice, like nobody's, is nobody's); never the presumed speaker's twin (:data:`TWINS`:
    one voice, or a room that blurs two)."""
    if voice is None:
        return AS_PRESUMED, None
    other, margin = voices.contrast(voice, expected)
    if other is None or voices.scores(voice)[other] < voices.min_score:
        return AS_PRESUMED, None
    if expected is not None and expected in voices and voices.between(other, expected) >= TWINS:
        return AS_PRESUMED, None
    need = sure_margin(rt60, speech_s)
    if margin >= need:
        return SURELY, other
    return (MAYBE, other) if margin >= MAYBE_SHARE * need else (AS_PRESUMED, None)


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
        self, hearing: Hearing, table: Table, meaning: Any, *, confirming: bool, rt60: float | None = None
    ) -> Voiced:
        """Who said ``hearing`` (read as ``meaning``), as the referee should take it, in a
        room of ``rt60`` as the room meter measures it (host/speech/room.py; None: not yet)."""
        voice = self.voiceprint(hearing)
        expected = presumed(table, meaning, confirming)
        if not self.ready(table.names):
            return Voiced(voice, owner=expected)
        identity = self.voices.identify(voice.vector, presumed=expected)
        if confirming:
            return Voiced(voice, identity, owner=expected)  # "yes" is too short to tell voices by
        said, other = verdict(voice.vector, expected, self.voices, voice.speech_s, rt60)
        if said == SURELY:
            return Voiced(voice, identity, speaker=other, owner=other)
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

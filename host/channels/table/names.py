"""The name round: at a table's start the host asks each player to say their name ("Ann, say
your name."), as a voice call's room does, and each name said enrols that player's voice
(host/listening/speakers.py). It never holds the game up: the first thing the listener
referees (a move, a command) ends the round, and the voices not heard yet enrol from their
players' first moves ruled. A name is what the listener heard and ignored after the
question (a name alone is chatter to it): no longer than :data:`NAME_MAX_S` of speech, and
the name asked when the speech model can hear it, never another player's.
"""

from __future__ import annotations

from collections.abc import Sequence

from grammars import load
from grammars.reader import normalise
from host.listening.listener import Heard
from host.listening.speakers import WhoSpoke
from host.reply import Reply

#: Longer speech is talk, not a name.
NAME_MAX_S = 1.0


class NameRound:
    """Asks ``players`` their names in turn and enrols each voice from the answer.

    ``spoken_over``: the questions take no input away (a WAV file stands for a room that
    did not hear the host); otherwise what is heard while the host asks is dropped, as for
    any announcement."""

    def __init__(
        self, who: WhoSpoke, session_id: str, players: Sequence[str], lang: str, *, spoken_over: bool = False
    ) -> None:
        self.who = who
        self.session_id = session_id
        self.players = [p for p in players if p not in who.voices]
        self.lang = lang
        self.spoken_over = spoken_over
        self.asked: str | None = None
        #: Words the speech model cannot hear: a name with one is taken unheard.
        self.unheard: frozenset[str] = frozenset()

    @property
    def open(self) -> bool:
        return self.asked is not None

    def start(self) -> Reply | None:
        """The first question (None: every voice is known already)."""
        return self._ask()

    def _ask(self) -> Reply | None:
        if not self.players:
            self._end()
            return None
        self.asked = self.players.pop(0)
        self.who.enrolling = True
        reply = Reply(self.session_id, news=[load(self.lang).phrase("say_your_name", player=self.asked)])
        reply.events.append({"type": "say_your_name", "player": self.asked})
        return reply

    def _end(self) -> None:
        self.asked = None
        self.players.clear()
        self.who.enrolling = False

    def heard(self, heard: Heard) -> Reply | None:
        """After each utterance: a name enrols the player asked and the next is asked;
        anything refereed ends the round."""
        if self.asked is None:
            return None
        if heard.reply is not None:
            self._end()  # the game is on: the rest enrol from their moves
            return None
        voice = heard.voiced.voiceprint if heard.voiced is not None else None
        if voice is None or voice.vector is None or voice.speech_s > NAME_MAX_S or not self._names(heard):
            return None  # too short, noisy or long, or another name: still waiting
        self.who.enrol(self.asked, voice)
        return self._ask()

    def _names(self, heard: Heard) -> bool:
        """Whether ``heard`` may be the name asked: it says that name where the listener
        can hear it (its words are in the phrase list), and no other player's."""
        said = set(normalise(heard.hearing.text).split())
        others = (p for p in [*self.players, *self.who.voices.players] if p != self.asked)
        if any(said & set(normalise(p).split()) for p in others):
            return False
        asked = set(normalise(self.asked or "").split())
        return bool(said & asked) or bool(asked & self.unheard)

"""Audio in, refereed moves out: the speech front end of one session, for any game.

A :class:`Listener` owns an :class:`~host.speech.endpointer.Endpointer` whose phrase list
follows the session: while a game runs, the phrases that make a move now (the game's
``Talk.listen_for``: for Up-or-Down every number a player might say, wrong ones too; for
a card game the cards the current player could put down), the commands, the player names
and the grammar's *decoys* (``grammars/<lang>/speech.yaml``); while a "Did you say ...?"
question waits, yes/no (and what the game lets a correction say); with no game running,
the commands only. Words the model lacks are reported once, when the listener is made.

Each utterance is read again from its N-best list (:func:`read`), because a phrase list
is a loose word model, not a grammar: every alternative is read by the game
(``Talk.hear``), alternatives that mean the same thing pool their share, and a prior that
players mostly make the moves they usually make (``Talk.likely``) is applied. The reading
goes to ``Referee.handle`` with a :class:`host.reply.Hearing` whose confidence is
calibrated when the game has a calibration (:func:`calibrate`), so the referee's
confirmation policy decides whether a costly move is ruled or read back.

Table chatter is not a move and gets no answer (``Heard.reply is None``): an utterance
that decodes to nothing (the empty path), to decoys, ``[unk]`` or names for half its
words or more, or to nothing clear, unless a clear reading (one move or one command)
carries at least half as much weight. At a table people talk all the time; answering "I
didn't catch that" to every remark would drown the game, and a player who was not
understood just says it again. Two more things are ignored rather than passed on: a
command that changes the game (undo, finish, leave, new game) unless it is the decoder's
best path with half the share, so chatter cannot end a game; and, while a question
waits, an unsure move other than the one asked about, which the referee would otherwise
rule at once as a correction.
"""

from __future__ import annotations

import contextlib
import logging
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from games.base import Command, Listening, Meaning, Moves
from grammars import Grammar, load
from grammars.reader import NumberSaid, normalise, parse
from host.referee import Referee
from host.reply import Hearing as RefereeHearing
from host.reply import Reply
from host.session import Asked, SessionConfig, Table
from host.speech import recognizer
from host.speech.audio import SAMPLE_RATE
from host.speech.denoise import ENGAGE_FLOOR, Denoiser, wanted
from host.speech.endpointer import Endpointer
from host.speech.engines import recognizer_for
from host.speech.model import UNK, SpeechModel
from host.speech.phrase_index import next_words

log = logging.getLogger(__name__)

#: Commands that mean something only as the answer to a question.
ANSWERS = ("yes", "no")
#: Commands heard while no game runs, and not heard while one does.
IDLE_COMMANDS = ("new_game", "whose_turn", "repeat", "rules", "status", "help", "leave")
#: Commands that change the game: chatter must not trigger them, so they must be what the
#: decoder's best path says, with at least DESTRUCTIVE_SHARE of the share.
DESTRUCTIVE = ("undo", "finish", "leave", "new_game")
DESTRUCTIVE_SHARE = 0.5
#: While a question waits, what is heard must be the decoder's best path with this share to
#: count as the answer (yes, no, or the move said again).
ANSWER_SHARE = 0.5
#: A move read from less than this share of the hearing is read back, even when it would
#: cost nothing: espeak-ng's "sixty six" heard as 62 (share 0.46) would have been ruled at
#: once; moves heard right held 0.81 or more (tests/bench/bench_table_talk.py --dump).
MOVE_SHARE = 0.75
#: A move is read back, even when it would cost nothing, while another reading at least this
#: fraction as strong is a different move players would usually make now: one of the two
#: is a wrong number in the chain, and a read-back costs less. Ruled wrong at once before:
#: espeak-ng's "ten" in white noise as "two" (rival "ten" at 0.27 of its weight), Piper's
#: "fifty three" in fan noise 10 dB as "thirty three" (0.18); moves heard right had rivals
#: of 0.13 or less in the English benches' dumps (tests/bench/bench_table_talk.py --dump).
RIVAL_SHARE = 0.15
#: :data:`RIVAL_SHARE` in a noisy room (:meth:`StreamListener._noisy`): there a
#: weak second reading is the word said often enough. espeak-ng's "ten" in fan noise 20 and
#: 10 dB below was ruled as "two" with "ten" at 0.05 and 0.07 of its weight, "thirteen" in
#: fan noise 10 dB as "thirty five" with "thirty four" at 0.04; of the moves heard right in
#: the English noise benches, 2-6 of 82 per run had a rival this strong and are read back.
NOISY_RIVAL_SHARE = 0.03
#: A move read from less than this share is dropped, not asked about: in white noise a "네"
#: said after talk came out as 칠 (share 0.33) or 이십 일 (0.35); espeak's "클로버 오" in a
#: noisy spot (0.46, tests/table/test_inversion_table.py) is still asked about.
DROP_SHARE = 0.4
#: A doubtful hearing (below) this soon (s) after talk was ignored is dropped, not asked
#: about: at a table it is far more often someone's reply to the talk than a move. A lone
#: syllable the grammar reads back (``read_back_alone``): espeak-ng's "네" after a sentence,
#: heard as 이, was asked "Ann, 2?" after 4 of 75 Korean talk sentences. A phrase only the
#: lenient gate kept (``near_talk``): Piper's "yes" after talk in fan noise was kept as
#: Blófa's "pass" and ruled. Anything heard in a loud room (:data:`LOUD_SNR_DB`): espeak-ng's
#: "맞아요" in white noise 10 dB below came out as "사십 육" and was ruled. A player whose move
#: got no answer says it again. Also anything in a noisy room (:meth:`StreamListener._noisy`), and,
#: while a question waits and talk went on after it, any answer but "no"
#: (:meth:`Listener._reply_to_talk`).
REPLY_TO_TALK_S = 2.0
REPLY_TO_TALK = "a reply to talk"  # why such a hearing is ignored
#: An utterance whose speech stood less than this far above the noise floor (dB, see
#: ``Hearing.snr_db``) was heard in a loud room: a move read from it is read back, and
#: anything heard right after talk is dropped as a reply to it. White or fan noise 20 dB
#: below a voice measures 23-29 dB, 10 dB below 13-19 dB. With Vosk (Korean) in white noise
#: 10 dB below, 0 of 75 moves were heard right, 2 of 75 talk sentences' replies were ruled as
#: moves and a card was given on "카운터" heard as "했어". English is heard through the
#: denoiser (host/speech/denoise.py), whose output stands far above its floor.
LOUD_SNR_DB = 20.0
#: Seconds a read-back at the table waits for its answer (GAMEHOST_CONFIRM_LAPSE): long
#: enough to hear the question and answer, short enough that later talk is not taken for one.
CONFIRM_LAPSE = 8.0
#: The confidence of a reading when the game has no calibration and the recogniser's shares
#: are not probabilities (``GrammarRecognizer.shares_are_confidences``): below the default
#: GAMEHOST_CONFIRM_BELOW (0.75), so a costly move is read back. Vosk's Korean model gave
#: one reading, at 1.0 with every word at 1.0, for espeak-ng's "비밀 공개 묻기", and it was
#: the wrong card ("가보"): a secret revealed on a mishearing. A table that trusts its
#: recogniser sets GAMEHOST_CONFIRM_BELOW below this.
UNCALIBRATED_CONFIDENCE = 0.5

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

@dataclass(frozen=True)
class Reading:
    """What an utterance means, after re-parsing its alternatives."""

    meaning: Meaning  # a move, a Command, or None: nothing a player could mean
    text: str  # words for the referee that say it
    alternatives: tuple[str, ...]  # for the referee: ``text`` first, then other readings
    share: float  # pooled share of the reading after the prior (0..1)
    confidence: float  # calibrated probability that the reading is what was said
    ignored: str | None = None  # why this is not passed on: "nothing", "chatter", ...
    top: bool = False  # the decoder's best path says this as it stands
    #: The strongest other reading that is a move players would usually make now, as a
    #: fraction of this reading's weight (0: none).
    rival: float = 0.0
    #: A move players would usually make now is one the recogniser often hears as this
    #: one (``Talk.confusable``: thirteen and thirty five): read back in a noisy room.
    confused: bool = False


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

IDLE, CONFIRMING, PLAYING = "idle", "confirming", "playing"


def command_phrases(grammar: Grammar, names: Iterable[str]) -> list[str]:
    """The recogniser's phrases for the commands ``names`` (speech.yaml may have fewer)."""
    heard = grammar.speech_commands or grammar.commands
    return [p for c in names if c in grammar.commands for p in heard.get(c, grammar.commands[c])]


def listening(table: Table, speaker: str | None, now: float | None = None) -> str:
    """What a listener for ``speaker`` (None: everyone) listens for now (at ``now``: a
    question that has lapsed is no longer listened for)."""
    asked = table.asked
    if not table.running and (asked is None or asked.command is None):
        return IDLE
    if (
        asked is not None
        and (speaker is None or not asked.player or speaker == asked.player)
        and not (now is not None and asked.lapsed(now))
    ):
        return CONFIRMING
    return PLAYING if table.running else IDLE


ListenFor = Callable[[Table, bool], Listening]


def listen_for(table: Table, confirming: bool) -> Listening:
    """``Talk.listen_for`` of the table's state."""
    return table.spec.talk.listen_for(table.state, table.names, table.lang, confirming)


class ListenForCache:
    """``Talk.listen_for`` remembered per game state: the referee hands out the same state
    object until something happens, and a listener asks on every utterance and every check
    of the session (1-2 ms for Up-or-Down's 100 numbers in Korean)."""

    def __init__(self) -> None:
        self._state: Any = None
        self._answers: dict[tuple[tuple[str, ...], str, bool], Listening] = {}

    def __call__(self, table: Table, confirming: bool) -> Listening:
        if table.state is not self._state:
            self._state, self._answers = table.state, {}
        key = (table.names, table.lang, confirming)
        found = self._answers.get(key)
        if found is None:
            found = self._answers[key] = listen_for(table, confirming)
        return found


def phrase_list(table: Table, mode: str, *, listen: ListenFor = listen_for) -> list[str]:
    """The phrase list for a session: the game's move phrases now (``Talk.listen_for``,
    through ``listen``), the commands that fit ``mode``, and the names."""
    g = load(table.lang)
    phrases: list[str] = []
    if mode == IDLE:
        phrases += command_phrases(g, IDLE_COMMANDS)
    else:
        phrases += listen(table, mode == CONFIRMING).moves
        if mode == CONFIRMING:
            phrases += command_phrases(g, ANSWERS)
            if table.asked is not None and table.asked.command is not None:
                phrases += command_phrases(g, [table.asked.command])  # said again, it counts
        else:
            phrases += command_phrases(g, [c for c in g.commands if c not in ANSWERS and c != "new_game"])
            phrases += [normalise(n) for n in table.names]
    return list(dict.fromkeys(" ".join(p.split()) for p in phrases if p.strip()))


def talk_list(table: Table, mode: str, *, listen: ListenFor = listen_for) -> list[str]:
    """Words table talk may decode as in ``mode``: the grammar's decoys and everyday talk
    words, less those the game leaves out now (``Listening.left_out``: they sound like a
    suit, or like yes or no while a question waits)."""
    g = load(table.lang)
    left_out: tuple[str, ...] = ()
    if mode != IDLE:
        left_out = listen(table, mode == CONFIRMING).left_out
        if mode == CONFIRMING:
            left_out = (*left_out, *g.answer_lookalikes)
    # No question waits: a yes or no is talk ("응" was heard as 이, two, when it was not).
    answers = () if mode == CONFIRMING else tuple(w for p in command_phrases(g, ANSWERS) for w in p.split())
    return [w for w in dict.fromkeys((*g.decoys, *g.talk, *answers)) if w not in left_out]


def every_phrase(table: Table) -> list[str]:
    """Every phrase a listener for this session may ever use (for the vocabulary check)."""
    g = load(table.lang)
    phrases = [
        *table.spec.talk.vocabulary(table.names, table.options, table.lang),
        *(normalise(n) for n in table.names),
        *command_phrases(g, g.commands),
        *g.decoys,
        *g.talk,
    ]
    return list(dict.fromkeys(" ".join(p.split()) for p in phrases if p.strip()))


def phrase_settles(grammar: Grammar) -> Callable[[str, tuple[str, ...] | None], bool] | None:
    """Which texts the grammar's ``phrase_silence_s`` may end (None: any text)."""
    return None if grammar.phrase_settles == "any" else waits_for_no_rank(grammar.lang)


def waits_for_no_rank(lang: str) -> Callable[[str, tuple[str, ...] | None], bool]:
    """Whether a text may end after the phrase silence: it ends with a number ("오십", or a
    misheard "사 오십"), or no longer phrase goes on from it with a number ("낸다 공중제비"
    before "거꾸로"), unlike a card's suit said first, which waits for its rank ("스페이드 ... 이")."""

    @lru_cache(maxsize=1024)
    def number(word: str) -> bool:
        return isinstance(parse(word, lang).intent(), NumberSaid)

    def settles(text: str, phrases: tuple[str, ...] | None) -> bool:
        words = text.split()
        if not words:
            return False
        return number(words[-1]) or not any(number(w) for w in next_words(text, phrases))

    return settles


# --- reading an utterance ------------------------------------------------------------------


def calibrate(
    share: float,
    top: bool,
    calibration: tuple[float, float, float] | None,
    *,
    shares_are_confidences: bool = True,
) -> float:
    """Probability that a reading is right, from its pooled share and whether it is what
    the decoder's best path says as it stands (the game's logistic calibration); with no
    calibration the share itself, or, from a recogniser whose shares are no probabilities,
    at most :data:`UNCALIBRATED_CONFIDENCE`."""
    if calibration is None:
        return share if shares_are_confidences else min(share, UNCALIBRATED_CONFIDENCE)
    share = min(max(share, 1e-6), 1 - 1e-6)
    a, b, c = calibration
    z = a + b * math.log(share / (1 - share)) + c * top
    return 1 / (1 + math.exp(-z))


def is_move(meaning: Meaning) -> bool:
    """Whether a reading means a move (not a command, not nothing)."""
    return meaning is not None and not isinstance(meaning, Command)


def _key(meaning: Meaning) -> Meaning:
    return meaning if meaning is not None else UNCLEAR


def read(
    hearing: recognizer.Hearing,
    table: Table,
    mode: str,
    *,
    decoys: Sequence[str] = (),
    invalid_prior: float = INVALID_PRIOR,
    min_clear: float = MIN_CLEAR,
    listen: ListenFor = listen_for,
    shares_are_confidences: bool = True,
) -> Reading:
    """Read an utterance from its N-best list, for any game.

    Each alternative is read by the game (``Talk.hear``): a move, a command, or nothing
    clear; one made of decoys, ``[unk]`` or (unless a name makes a move) names for at
    least half its words means nothing. Alternatives with the same meaning pool their
    share; while playing, a move players would not usually make now (``Talk.likely``)
    weighs ``invalid_prior`` as much. The best meaning wins unless the unclear ones
    outweigh it by ``1 / min_clear``: then the utterance is ignored.
    """
    if hearing.talk:
        # The talk loop explained the sound better than any whole phrase: talk, not a move.
        return Reading(None, hearing.talk, (), 0.0, 0.0, "talk")
    talk, lang, state, names = table.spec.talk, table.lang, table.state, table.names
    confirming = mode == CONFIRMING
    spoken_names = {normalise(n) for n in names}
    if mode == PLAYING and spoken_names & set(listen(table, False).moves):
        spoken_names = set()  # names make a move now (who starts): not chatter
    chatter = {*decoys, UNK}
    game = state if mode != IDLE else None
    mass: dict[Meaning, float] = {}
    first: dict[Meaning, str] = {}
    allowed: set[Meaning] = set()  # moves players would usually make now
    for text, share in hearing.alternatives:
        tokens = text.split()
        meaning: Meaning = None
        trust = 1.0
        # A move is the whole utterance: one talk word or [unk] in it ("가 오십 오", Vosk's
        # reading of "팔십 오") and it is talk. Names weigh less: half the words.
        if tokens and not chatter & set(tokens) and 2 * sum(t in spoken_names for t in tokens) < len(tokens):
            meaning, trust = talk.hear(text, game, names, confirming, lang)
        weight = share * trust
        key = _key(meaning)
        if mode == PLAYING and is_move(meaning):
            if talk.likely(state, meaning):
                allowed.add(key)
            else:
                weight *= invalid_prior
        mass[key] = mass.get(key, 0.0) + weight
        first.setdefault(key, text)
    total = sum(mass.values())
    unclear = mass.pop(UNCLEAR, 0.0)
    ranked = sorted(mass, key=lambda k: -mass[k])
    if total <= 0:
        return Reading(None, hearing.text, (), 0.0, 0.0, "nothing")
    if not ranked or mass[ranked[0]] < min_clear * unclear:
        return Reading(None, hearing.text, (), unclear / total, 0.0, "unclear")

    def says(text: str, meaning: Meaning) -> bool:
        """Whether ``text`` as it stands (no stray words dropped) is read as ``meaning``."""
        if isinstance(meaning, Command) and meaning.name in ANSWERS:
            # An answer means something only while its question waits: its exact words.
            return " ".join(text.split()) in command_phrases(load(lang), [meaning.name])
        proposal = talk.read(text, game, names, None, None, lang)
        if isinstance(meaning, Command):
            return proposal == meaning
        return isinstance(proposal, Moves) and proposal.candidates == (meaning,)

    def text_of(meaning: Meaning) -> str:
        return first[meaning] if says(first[meaning], meaning) else talk.words(meaning, lang)

    best = ranked[0]
    text = text_of(best)
    others = tuple(text_of(k) for k in ranked[1:] if mass[k] >= KEEP_ALTERNATIVE * mass[best])
    share = mass[best] / total
    strongest_rival = max((mass[k] for k in ranked[1:] if k in allowed), default=0.0)
    rival = strongest_rival / mass[best] if mass[best] > 0 else 0.0
    if mode == PLAYING and is_move(best) and share < DROP_SHARE:
        # Too shaky even to ask about: a question about it would be a question about noise.
        return Reading(None, hearing.text, (), share, 0.0, "doubtful")
    top = says(hearing.text, best)
    confidence = calibrate(share, top, talk.calibration, shares_are_confidences=shares_are_confidences)
    if hearing.near_talk:
        # Only a lenient talk prior kept the phrase: a move said in a voice the model fits
        # poorly, or talk. Nothing but a move is taken from it, and that move is doubtful:
        # read back, or dropped right after talk (Listener._doubtful, _reply_to_talk).
        if not (mode == PLAYING and is_move(best)):
            return Reading(None, hearing.near_talk, (), 0.0, 0.0, "talk")
        confidence = 0.0
    confused = mode == PLAYING and is_move(best)
    confused = confused and any(talk.likely(state, m) for m in talk.confusable(best, lang))
    return Reading(best, text, (text, *others), share, confidence, top=top, rival=rival, confused=confused)


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
    referee: Referee
    confirm_lapse: float | None = CONFIRM_LAPSE  # see Listener
    phone: bool = False  # the audio is a phone call's
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
    _talk_end: float | None = None  # stream time the last ignored utterance ended
    _asked_end: float | None = None  # stream time the last utterance read back ended
    #: Noise suppression in front of the recogniser (None: the audio as it comes).
    denoiser: Denoiser | None = None

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
        )
        self._checked_at = 0.0
        self.denoiser = Denoiser(sample_rate) if denoise else None

    def _hearable(self, phrases: Iterable[str]) -> list[str]:
        """``phrases`` without those that have a word the model lacks."""
        return [p for p in phrases if not self._missing.intersection(p.split())]

    @abstractmethod
    def phrases(self) -> list[str]:
        """The phrase list for the session's current state (phrases the model can hear)."""

    @abstractmethod
    def talk(self) -> list[str]:
        """Words table talk may decode as in the session's current state."""

    @property
    @abstractmethod
    def listening(self) -> str:
        """What the listener listens for now: "idle", "confirming" or "playing"."""

    @abstractmethod
    def refresh(self) -> None:
        """Follow the session now (call after changing it other than through this listener)."""

    @abstractmethod
    def read(self, hearing: recognizer.Hearing) -> Reading:
        """Read a hearing in the session's current state (no side effects)."""

    def _doubtful(self, hearing: recognizer.Hearing, reading: Reading) -> bool:
        """Whether a move read from ``hearing`` is read back even when it would cost nothing:
        other readings hold much of the sound, another move players would make now is a
        close second (:data:`RIVAL_SHARE`; any second at all in a noisy room,
        :data:`NOISY_RIVAL_SHARE`), only the lenient gate kept it (``near_talk``),
        or, at a table's microphone, it was heard in a loud room (:data:`LOUD_SNR_DB`) or is
        a lone syllable the grammar names (on a phone, held to a player's mouth, it is a
        move). In a noisy room also a move that a likely move is often heard as
        (``Reading.confused``): espeak-ng's "thirteen" in white noise 20 dB below was heard
        as "thirty five" with no rival at all, and ruled."""
        lone = not self.phone and self._lone(hearing)
        unsure = bool(hearing.near_talk) or self._loud(hearing)
        noisy = self._noisy()
        rival = NOISY_RIVAL_SHARE if noisy else RIVAL_SHARE
        confused = noisy and reading.confused
        return reading.share < MOVE_SHARE or reading.rival >= rival or lone or unsure or confused

    def _lone(self, hearing: recognizer.Hearing) -> bool:
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

    def _loud(self, hearing: recognizer.Hearing) -> bool:
        """Heard barely above the noise at a table's microphone (:data:`LOUD_SNR_DB`)."""
        return not self.phone and hearing.snr_db < LOUD_SNR_DB

    def _partial(self, hearing: recognizer.Hearing, reading: Reading) -> bool:
        """A move or command while playing that no phrase says as heard: Vosk joined or cut
        phrases ("이 오십" for 칠십, a card's name alone for someone's "네" in noise, "규칙
        되돌려" for espeak-ng's "반칙 아니야", answered with the rules). Dropped: asked about
        or answered, it would mostly be an answer to talk."""
        if reading.meaning is None or self.listening != PLAYING:
            return False
        return " ".join(hearing.text.split()) not in self.phrases()

    def _reply_to_talk(self, hearing: recognizer.Hearing, reading: Reading) -> bool:
        """Something heard right after talk at a table's microphone (:data:`REPLY_TO_TALK_S`)
        that is more likely a reply to it. While playing: a doubtful move (a lone syllable
        the grammar reads back when alone, a phrase only the lenient gate kept), or anything
        at all in a loud or noisy room. While a question waits and talk went on after it:
        any answer but "no" (the bench's "hey hey, come on in": "hey hey" read back as 88,
        "come on in" talk, then someone's "yeah" ruled it)."""
        talk_end = self._talk_end
        if talk_end is None or hearing.start - talk_end > REPLY_TO_TALK_S or self.phone:
            return False
        if self.listening == CONFIRMING:
            talk_after_question = self._asked_end is not None and talk_end > self._asked_end
            return talk_after_question and reading.meaning != Command("no")
        if self.listening != PLAYING:
            return False
        if self._loud(hearing) or self._noisy():
            return reading.meaning is not None
        return is_move(reading.meaning) and (self._lone(hearing) or bool(hearing.near_talk))

    def handle(self, hearing: recognizer.Hearing) -> Heard:
        """Referee one Hearing (from :meth:`feed`, or decoded elsewhere)."""
        self.refresh()
        reading = self.read(hearing)
        if reading.ignored is None and self._partial(hearing, reading):
            reading = replace(reading, ignored="not a whole phrase")
        if reading.ignored is None and self._reply_to_talk(hearing, reading):
            reading = replace(reading, ignored=REPLY_TO_TALK)
        if reading.ignored is not None:
            log.info("ignored %r (%s)", hearing.text, reading.ignored)
            if reading.ignored != REPLY_TO_TALK:
                self._talk_end = hearing.end  # a reply dropped does not hold the next one off
            return Heard(hearing, None, reading)
        with self.referee.store.transaction():
            reply = self.referee.handle(
                self.session_id,
                reading.text,
                self.speaker,
                hearing=RefereeHearing(
                    alternatives=reading.alternatives, confidence=reading.confidence, open_mic=True,
                    lapse=self.confirm_lapse, doubtful=self._doubtful(hearing, reading),
                ),
            )
            if self.on_reply is not None:
                self.on_reply(reply)
        if reply.confirm:
            self._asked_end = hearing.end
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
        if self.denoiser is not None:
            pcm = self.denoiser(pcm)
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
        logged warning. ``phone``: the audio
        is a phone call's (8 kHz mu-law upsampled to ``sample_rate``). ``on_reply``: see
        :attr:`StreamListener.on_reply`."""
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

    # --- refereeing ---

    def read(self, hearing: recognizer.Hearing) -> Reading:
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
        if isinstance(said, Command) and said.name in DESTRUCTIVE and not (
            reading.top and reading.share >= DESTRUCTIVE_SHARE
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
            and reading.confidence < self.config.confirm_below
        ):
            # The referee takes a move said after "Did you say ...?" as a correction and
            # rules it at once; an unsure one is more likely a misheard "yes".
            return replace(reading, ignored="unsure correction")
        return reading

"""Reading an utterance: from a recogniser's N-best list to one meaning, for any game.

A phrase list is a loose word model, not a grammar, so every alternative is read by the
game (``Talk.hear``): alternatives that mean the same thing pool their share, and a prior
that players mostly make the moves they usually make (``GameSpec.likely``) is applied. The
result (:class:`Reading`) says what the utterance means, how sure that is (calibrated when
the game has a calibration, :func:`calibrate`), what else it might mean, and why it is
ignored if it is. Pure: nothing here asks the referee or changes a session.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from games.base import ANSWERS, Command, Meaning, Moves, Talk
from grammars import load
from grammars.reader import normalise
from host.listening.phrases import CONFIRMING, IDLE, PLAYING, ListenFor, command_phrases, listen_for
from host.session import Table
from host.speech.hearing import Hearing
from host.speech.model import UNK

#: A move read from less than this share is dropped, not asked about: in white noise a "네"
#: said after talk came out as 칠 (share 0.33) or 이십 일 (0.35); espeak's "클로버 오" in a
#: noisy spot (0.46, tests/table/test_inversion_table.py) is still asked about.
DROP_SHARE = 0.4
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
    """What an utterance means, after reading its alternatives."""

    meaning: Meaning  # a move, a Command, or None: nothing a player could mean
    text: str  # the words heard that mean it (or why nothing: the talk, the best path)
    others: tuple[Meaning, ...]  # other meanings of the sound worth a thought, strongest first
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
    #: It was heard with a word the recogniser hears for others in a room that rings
    #: (``Ear.catch_alls``): there it is as often misheard as a ``confused`` one.
    caught_all: bool = False
    #: The strongest other reading that is such a move (``confused``), as a fraction of this
    #: reading's weight (0: none among the readings).
    confused_rival: float = 0.0
    #: Another reading that is a move players would not usually make now weighed at least as
    #: much as this one before that was counted against it (``invalid_prior``): this one won a
    #: toss-up of the sound (the search and the lattice tied, "seventy" heard as "seventeen"
    #: and "seven") only because the other is a mistake now.
    won_by_prior: bool = False
    #: The move is known by a name of its own (``Talk.by_name``: a card's name from the deck).
    by_name: bool = False
    #: A move players would usually make now may be what a room that echoes heard as this
    #: one however surely (``Ear.echo_confusable``: "sixty" as "sixty eight").
    echoed: bool = False
    #: Such a move may be what a room that only rings heard as this one however surely
    #: (``Ear.echo_confusable`` not echoing: "forty five" as "forty nine"; or its words with
    #: one of ``Ear.room_mixups``': "plays gift" as "plays u turn").
    rung: bool = False


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
    hearing: Hearing,
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
    share; while playing, a move players would not usually make now (``GameSpec.likely``)
    weighs ``invalid_prior`` as much. The best meaning wins unless the unclear ones
    outweigh it by ``1 / min_clear``: then the utterance is ignored.
    """
    if hearing.talk:
        # The talk loop explained the sound better than any whole phrase: talk, not a move.
        return Reading(None, hearing.talk, (), 0.0, 0.0, "talk")
    spec, lang, state, names = table.spec, table.lang, table.state, table.names
    talk = spec.talk
    confirming = mode == CONFIRMING
    spoken_names = {normalise(n) for n in names}
    if mode == PLAYING and spoken_names & set(listen(table, False).moves):
        spoken_names = set()  # names make a move now (who starts): not chatter
    chatter = {*decoys, UNK}
    game = state if mode != IDLE else None
    mass: dict[Meaning, float] = {}
    first: dict[Meaning, str] = {}
    said_as: dict[str, Meaning] = {}  # each reading's meaning
    allowed: set[Meaning] = set()  # moves players would usually make now
    heard_as: dict[Meaning, float] = {}  # each meaning's weight before invalid_prior
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
        heard_as[key] = heard_as.get(key, 0.0) + weight
        if mode == PLAYING and is_move(meaning):
            if spec.likely(state, meaning):
                allowed.add(key)
            else:
                weight *= invalid_prior
        mass[key] = mass.get(key, 0.0) + weight
        first.setdefault(key, text)
        said_as[" ".join(tokens)] = key
    for shorter, key in _merge_swallowed(mass, said_as, talk.swallowed_endings(lang)):
        heard_as[key] = heard_as.get(key, 0.0) + heard_as.pop(shorter, 0.0)
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

    best = ranked[0]
    playing = mode == PLAYING and is_move(best)
    others = tuple(k for k in ranked[1:] if mass[k] >= KEEP_ALTERNATIVE * mass[best])
    share = mass[best] / total

    def against_best(keys: Iterable[Meaning]) -> float:
        """The strongest of ``keys``' weights as a fraction of the best reading's (0: none)."""
        strongest = max((mass.get(k, 0.0) for k in keys), default=0.0)
        return strongest / mass[best] if mass[best] > 0 else 0.0

    rival = against_best(k for k in ranked[1:] if k in allowed)
    if playing and share < DROP_SHARE:
        # Too shaky even to ask about: a question about it would be a question about noise.
        return Reading(None, hearing.text, (), share, 0.0, "doubtful")
    top = says(hearing.text, best)
    confidence = calibrate(share, top, talk.calibration, shares_are_confidences=shares_are_confidences)
    if hearing.near_talk:
        # Only a lenient talk prior kept the phrase: a move said in a voice the model fits
        # poorly, or talk. Nothing but a move is taken from it, and that move is doubtful:
        # read back, or dropped right after talk (host.confirm.doubtful, _reply_to_talk).
        if not playing:
            return Reading(None, hearing.near_talk, (), 0.0, 0.0, "talk")
        confidence = 0.0
    won_by_prior = playing and any(
        heard_as[k] >= heard_as.get(best, 0.0)
        for k in heard_as
        if is_move(k) and k != best and k not in allowed
    )
    mixed_up = [m for m in talk.confusable(best, lang) if spec.likely(state, m)] if playing else []
    caught_all = playing and not set(talk.catch_alls(lang)).isdisjoint(first[best].split())
    confused_rival = against_best(mixed_up)
    return Reading(
        best,
        first[best],
        others,
        share,
        confidence,
        top=top,
        rival=rival,
        confused=bool(mixed_up),
        caught_all=caught_all,
        confused_rival=confused_rival,
        won_by_prior=won_by_prior,
        by_name=playing and talk.by_name(best),
        echoed=playing and any(spec.likely(state, m) for m in talk.echo_confusable(best, lang)),
        rung=playing
        and (
            any(spec.likely(state, m) for m in talk.echo_confusable(best, lang, echoing=False))
            or any(spec.likely(state, m) for m in _mixed_up(first[best], talk, game, names, lang))
        ),
    )


def _mixed_up(
    text: str, talk: Talk[Any, Any, Any], game: Any, names: tuple[str, ...], lang: str
) -> list[Meaning]:
    """The moves ``text`` says with its last words, which a room that rings hears for others
    (:meth:`~games.base.Ear.room_mixups`), put back: "plays u turn" may be "plays gift"."""
    out = []
    for heard, said in talk.room_mixups(lang):
        if f" {text}".endswith(f" {heard}"):
            meaning, _ = talk.hear(f"{text.removesuffix(heard)}{said}", game, names, False, lang)
            if is_move(meaning):
                out.append(meaning)
    return out


def _merge_swallowed(
    mass: dict[Meaning, float], said_as: dict[str, Meaning], endings: tuple[str, ...]
) -> list[tuple[Meaning, Meaning]]:
    """A move said with an ending a room swallows but does not invent ("plays X turned",
    :meth:`~games.base.Ear.swallowed_endings`) is also heard as its words without it ("plays
    X"): when the move weighs at least as much as that reading, the reading's weight is the
    move's. (Weighing less, it stays a rival: the reading without the ending is read back,
    never ruled as the move with it.) Returns the (reading, move) pairs merged."""
    merged: list[tuple[Meaning, Meaning]] = []
    for text, key in said_as.items():
        for ending in endings:
            if not text.endswith(f" {ending}"):
                continue
            shorter = said_as.get(text.removesuffix(f" {ending}"))
            if shorter is None or shorter == key or not (is_move(key) and is_move(shorter)):
                continue
            if key in mass and mass[key] >= mass.get(shorter, math.inf):
                mass[key] += mass.pop(shorter)
                merged.append((shorter, key))
    return merged

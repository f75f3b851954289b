"""Audio in, refereed card moves out: the speech front end of a !nversion session.

A :class:`CardListener` is the card-game sibling of :class:`~host.speech.listener.Listener`
and shares its audio side (:class:`~host.speech.listener.StreamListener`: an
:class:`~host.speech.recognizer.Endpointer` fed pcm16, muted while the host speaks). Its
phrase list follows the game's phase, built from the same grammar the text parser reads
(``host/card_language.py``), so what the recogniser can say is what the parser understands:

* suits: every suit word (:func:`~host.card_language.suit_phrases`);
* lane: the cards of the chosen suits nobody has seen yet;
* who starts: the player names;
* auction: the bids the rules allow now, and the passes (:func:`~host.card_language.bid_phrases`);
* play: the cards the current player could put down (``inv.playable``);

plus, during a game, the commands (not yes/no) and the player names; while a "Did you say
...?" question waits, yes/no only; with no game running, the commands only. Every list
but the yes/no one has the grammar's decoys (``grammars/<lang>/speech.yaml``), less the
``card_lookalikes`` while cards or suits are heard: chatter decodes as decoys, and an
utterance made mostly of them is ignored. Words the model lacks are reported once.

Each utterance is read again from its N-best list (:func:`read`), as the number listener
does: every alternative is parsed with :func:`~host.card_language.parse_cards` and given a
:class:`Meaning` for the phase (one card; some lane cards; suits; one player; one bid or a
pass; one command), a card only if it was heard as one of its phrases (:func:`said_whole`).
Alternatives that mean the same pool their share; a move the rules refuse now weighs
``INVALID_PRIOR`` as much (the phrase list is a loose word model: "하트 구" and "스페이드 이"
let the decoder say "하트 이"); and the utterance is chatter, with no answer, unless its
best clear meaning outweighs the unclear alternatives (decoys, names, several cards where
one was wanted, a card and a stray number). The referee gets the best meaning's words and
the pooled share as the confidence (not calibrated: the referee reads back any move heard
with less than ``confirm_below``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from games import inversion as inv
from games.cards import Card, Suit, deck
from grammars import load
from grammars.reader import normalise
from host import referee as ref
from host.card_language import CardTalk, bid_phrases, card_phrases, parse_cards, suit_phrases, suit_words
from host.inversion_talk import has_content
from host.referee import Referee
from host.speech import recognizer
from host.speech.audio import SAMPLE_RATE
from host.speech.listener import (
    ANSWERS,
    DESTRUCTIVE,
    DESTRUCTIVE_SHARE,
    IDLE_COMMANDS,
    INVALID_PRIOR,
    KEEP_ALTERNATIVE,
    MIN_CLEAR,
    StreamListener,
)
from host.speech.model import UNK, SpeechModel

log = logging.getLogger(__name__)

#: What a card session listens for besides the game's phases (``inv.Phase`` values).
IDLE = "idle"
CONFIRMING = "confirming"
# Phases in which suit words are heard: the grammar's card_lookalikes are left out then.
_SUIT_PHASES = (inv.Phase.SUITS.value, inv.Phase.LANE.value, inv.Phase.PLAYING.value)


@dataclass(frozen=True)
class Meaning:
    """What an utterance says at a card table: ``kind`` is "card" (a Card), "lane" (a tuple
    of cards), "suits" (a tuple of suits), "first" (a player), "bid" (a number, None for a
    pass) or "command" (its name)."""

    kind: str
    value: object


@dataclass(frozen=True)
class CardReading:
    """What an utterance means, after re-parsing its alternatives."""

    meaning: Meaning | None  # None: nothing a player could mean
    text: str  # words for the referee that say it
    alternatives: tuple[str, ...]  # ``text`` first, then other readings
    share: float  # pooled share of the reading after the prior (0..1)
    confidence: float  # passed to the referee (the share)
    ignored: str | None = None  # why this is not passed on: "nothing", "unclear", ...
    top: bool = False  # the decoder's best path says this as it stands


# --- phrase lists --------------------------------------------------------------------------


def mode(game: inv.State | None, confirming: bool = False) -> str:
    """What the listener listens for: IDLE, CONFIRMING or the game's phase."""
    if game is None or game.is_over:
        return IDLE
    return CONFIRMING if confirming else game.phase.value


def allowed_bids(game: inv.State) -> list[int]:
    """Declarations the current player may make now."""
    player = game.current_player
    if player is None:
        return []
    return [n for n in range(inv.TRICKS + 1) if inv.refusal(game, inv.Declare(player, n)) is None]


def move_phrases(lang: str, game: inv.State, names: Sequence[str] = ()) -> list[str]:
    """The phrases that make a move in the game's phase."""
    phase = game.phase
    if phase is inv.Phase.SUITS:
        return suit_phrases(lang)
    if phase is inv.Phase.LANE:
        return card_phrases(sorted(game.unseen), lang)
    if phase is inv.Phase.FIRST:
        return [normalise(n) for n in names]
    if phase is inv.Phase.BIDDING:
        return bid_phrases(allowed_bids(game), lang)
    if phase is inv.Phase.PLAYING:
        return card_phrases(inv.playable(game), lang)
    return []


def command_phrases(lang: str, names: Iterable[str]) -> list[str]:
    """The recogniser's phrases for the commands ``names``."""
    g = load(lang)
    heard = g.speech_commands or g.commands
    return [p for c in names if c in g.commands for p in heard.get(c, g.commands[c])]


def phrase_list(
    lang: str,
    game: inv.State | None,
    *,
    confirming: bool = False,
    names: Sequence[str] = (),
    decoys: bool = True,
) -> list[str]:
    """The phrase list for a card session: ``game`` None or over is idle (commands only);
    ``confirming`` a "Did you say ...?" question waits (yes/no only)."""
    g = load(lang)
    listening = mode(game, confirming)
    phrases: list[str] = []
    if listening == IDLE:
        phrases += command_phrases(lang, IDLE_COMMANDS)
    elif listening == CONFIRMING:
        phrases += command_phrases(lang, ANSWERS)
    else:
        assert game is not None
        phrases += move_phrases(lang, game, names)
        phrases += command_phrases(lang, [c for c in g.commands if c not in ANSWERS and c != "new_game"])
        phrases += [normalise(n) for n in names]
    if decoys:
        left_out: tuple[str, ...] = ()
        if listening == CONFIRMING:
            left_out = g.answer_lookalikes
        elif listening in _SUIT_PHASES:
            left_out = g.card_lookalikes
        phrases += [d for d in g.decoys if d not in left_out]
    return list(dict.fromkeys(" ".join(p.split()) for p in phrases if p.strip()))


def every_phrase(lang: str, names: Sequence[str] = ()) -> list[str]:
    """Every phrase a card session's listener may ever use (for the vocabulary check)."""
    g = load(lang)
    phrases = [
        *suit_phrases(lang),
        *card_phrases(sorted(deck(tuple(Suit))), lang),
        *bid_phrases(range(inv.TRICKS + 1), lang),
        *(normalise(n) for n in names),
        *command_phrases(lang, g.commands),
        *g.decoys,
    ]
    return list(dict.fromkeys(" ".join(p.split()) for p in phrases if p.strip()))


# --- reading an utterance ------------------------------------------------------------------


def meaning(talk: CardTalk, phase: str | None, confirming: bool = False) -> Meaning | None:
    """The one thing ``talk`` says in ``phase`` (None: no game), or None if it says nothing
    clear: several things, or a move with stray words of another kind."""
    commands = tuple(dict.fromkeys(talk.commands))
    if commands:
        if len(commands) > 1 or has_content(talk):
            return None
        if commands[0] in ANSWERS and not confirming:
            return None  # "네" with nothing asked is table talk
        return Meaning("command", commands[0])
    cards = tuple(dict.fromkeys(talk.cards))
    stray = bool(talk.suits or talk.numbers or talk.bids or talk.passed)
    if phase == inv.Phase.PLAYING.value and len(cards) == 1 and not stray:
        return Meaning("card", cards[0])
    if phase == inv.Phase.LANE.value and talk.cards and not stray:
        return Meaning("lane", talk.cards)
    if phase == inv.Phase.SUITS.value and talk.suits and not (talk.cards or talk.numbers or talk.bids):
        return Meaning("suits", talk.suits)
    if phase == inv.Phase.FIRST.value and len(set(talk.players)) == 1 and not (cards or stray):
        return Meaning("first", talk.players[0])
    if phase == inv.Phase.BIDDING.value and not (cards or talk.suits):
        amounts = tuple(dict.fromkeys(talk.bids or talk.numbers))
        if talk.passed and not amounts:
            return Meaning("bid", None)
        if len(amounts) == 1 and not talk.passed:
            return Meaning("bid", amounts[0])
    return None


def move(said: Meaning, game: inv.State) -> inv.Move | None:
    """The move a meaning makes in ``game`` (None for a command)."""
    player = game.current_player or ""
    if said.kind == "card" and isinstance(said.value, Card):
        return inv.PlayCard(player, said.value)
    if said.kind == "lane" and isinstance(said.value, tuple):
        return inv.LayLane(said.value)
    if said.kind == "suits" and isinstance(said.value, tuple):
        return inv.ChooseSuits(said.value)
    if said.kind == "first" and isinstance(said.value, str):
        return inv.ChooseFirst(said.value)
    if said.kind == "bid" and (said.value is None or isinstance(said.value, int)):
        return inv.Declare(player, said.value)
    return None


def words_for(said: Meaning, lang: str) -> str:
    """Words the card parser reads as ``said``."""
    v = said.value
    if said.kind == "card" and isinstance(v, Card):
        return card_phrases([v], lang)[0]
    if said.kind == "lane" and isinstance(v, tuple):
        return " ".join(card_phrases([c], lang)[0] for c in v)
    if said.kind == "suits" and isinstance(v, tuple):
        return " ".join(suit_words(s, lang) for s in v)
    if said.kind == "bid":
        return bid_phrases([v] if isinstance(v, int) else [], lang)[0]
    if said.kind == "command":
        return load(lang).commands[str(v)][0]
    return str(v)


def said_whole(text: str, said: Meaning, lang: str) -> bool:
    """Whether every card of ``said`` is in ``text`` as one of its phrases, word for word.

    The decoder's word model lets phrases mix: with "다이아 이" and "클로버 오" listened
    for it can write "이 다이아" or "다이아 오" out of chatter. The parser reads "이 다이아"
    as a card too (rank first, the English order); a card the recogniser heard must have
    been heard as a phrase it listened for.
    """
    if said.kind not in ("card", "lane"):
        return True
    padded = f" {text} "
    value = said.value
    heard = value if isinstance(value, tuple) else (value,)
    return all(
        isinstance(c, Card) and any(f" {p} " in padded for p in card_phrases([c], lang)) for c in heard
    )


def read(
    hearing: recognizer.Hearing,
    lang: str,
    *,
    game: inv.State | None,
    confirming: bool = False,
    decoys: Sequence[str] = (),
    names: Sequence[str] = (),
    invalid_prior: float = INVALID_PRIOR,
    min_clear: float = MIN_CLEAR,
) -> CardReading:
    """Read an utterance at a card table from its N-best list.

    Each alternative is parsed and given its :func:`meaning` in the game's phase; one made
    of decoys, ``[unk]`` or (but while choosing who starts) names for at least half its
    words means nothing. Alternatives with the same meaning pool their share; a move the
    rules refuse now (not while ``confirming``) has its share weighted by ``invalid_prior``.
    The best meaning wins unless the unclear alternatives outweigh it by ``1 / min_clear``:
    then the utterance is ignored.
    """
    phase = game.phase.value if game is not None and not game.is_over else None
    chatter = {*decoys, UNK, *(() if phase == inv.Phase.FIRST.value else (normalise(n) for n in names))}
    mass: dict[Meaning | None, float] = {}
    first: dict[Meaning | None, str] = {}
    for text, share in hearing.alternatives:
        tokens = text.split()
        said: Meaning | None = None
        if tokens and 2 * sum(t in chatter for t in tokens) < len(tokens):
            said = meaning(parse_cards(text, lang, players=names), phase, confirming)
            if said is not None and not said_whole(text, said, lang):
                said = None
        weight = share
        if said is not None and game is not None and phase is not None and not confirming:
            made = move(said, game)
            if made is not None and inv.refusal(game, made) is not None:
                weight *= invalid_prior
        mass[said] = mass.get(said, 0.0) + weight
        first.setdefault(said, text)
    total = sum(mass.values())
    unclear = mass.pop(None, 0.0)
    ranked = sorted((k for k in mass if k is not None), key=lambda k: -mass[k])
    if total <= 0:
        return CardReading(None, hearing.text, (), 0.0, 0.0, "nothing")
    if not ranked or mass[ranked[0]] < min_clear * unclear:
        return CardReading(None, hearing.text, (), unclear / total, 0.0, "unclear")

    def text_of(said: Meaning) -> str:
        as_said = first[said]
        if meaning(parse_cards(as_said, lang, players=names), phase, confirming) == said:
            return as_said
        return words_for(said, lang)

    best = ranked[0]
    text = text_of(best)
    others = tuple(text_of(k) for k in ranked[1:] if mass[k] >= KEEP_ALTERNATIVE * mass[best])
    share = mass[best] / total
    top = meaning(parse_cards(hearing.text, lang, players=names), phase, confirming) == best
    return CardReading(best, text, (text, *others), share, share, top=top)


# --- the listener --------------------------------------------------------------------------


class CardListener(StreamListener):
    """Audio in, refereed card moves out, for one !nversion session."""

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
        if table.config.game != "inversion":
            raise ValueError(f"session {session_id} is not a card game")
        self.invalid_prior = INVALID_PRIOR
        self._table = table
        self._confirming = self._pending(table) is not None
        self._key = self._state_key()
        self._listen(model, sample_rate, every_phrase(self.lang, table.names), report_missing=report_missing)

    # --- state and phrases ---

    def _pending(self, table: ref.Table) -> dict[str, object] | None:
        """The question waiting for this listener's speaker, if any."""
        if not table.running:
            return None
        row = self.referee.store.session(self.session_id)
        pending = row.pending if row is not None else None
        if pending is not None and (
            self.speaker is None or not pending.get("player") or self.speaker == pending.get("player")
        ):
            return pending
        return None

    def _state_key(self) -> tuple[str, int, tuple[str, ...]]:
        game = self._table.cards
        return mode(game, self._confirming), game.turn if game is not None else -1, self._table.names

    @property
    def listening(self) -> str:
        """What the listener listens for now: "idle", "confirming" or the game's phase."""
        return self._key[0]

    def phrases(self) -> list[str]:
        """The phrase list for the current state (phrases the model can hear)."""
        return self._hearable(
            phrase_list(self.lang, self._table.cards, confirming=self._confirming, names=self._table.names)
        )

    def refresh(self) -> None:
        """Follow the session now (call after changing it other than through this listener)."""
        self._table = self.referee.table(self.session_id)
        self._confirming = self._pending(self._table) is not None
        key = self._state_key()
        if key != self._key:
            self._key = key
            log.debug("listening for %s (turn %d)", key[0], key[1])
            self.endpointer.set_phrases(self.phrases())
        self._checked_at = self.endpointer.time

    # --- refereeing ---

    def read(self, hearing: recognizer.Hearing) -> CardReading:
        """Read a hearing in the session's current state (no side effects)."""
        game = self._table.cards
        reading = read(
            hearing,
            self.lang,
            game=game if self._table.running else None,
            confirming=self._confirming,
            decoys=self.grammar.decoys,
            names=self._table.names,
            invalid_prior=self.invalid_prior,
        )
        said = reading.meaning
        if said is None:
            return reading
        if (
            said.kind == "command"
            and said.value in DESTRUCTIVE
            and not (reading.top and reading.share >= DESTRUCTIVE_SHARE)
        ):
            return replace(reading, ignored="unsure command")
        if self._confirming and said.kind != "command" and reading.confidence < self.config.confirm_below:
            # The referee takes a move said after "Did you say ...?" as a correction and
            # rules it at once; an unsure one is more likely a misheard "네".
            return replace(reading, ignored="unsure correction")
        return reading

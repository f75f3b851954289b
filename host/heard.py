"""What was heard, as the referee takes it.

Speech reaches the referee in one of two forms. A phone call's speech, recognised by the
phone company, arrives as text with a confidence (:class:`SpeechText`, Twilio's
``SpeechResult``): the referee reads it as it reads typed words (``Talk.read``). The host's
own listener (``host/listening/``) has read the sound already, so it hands over what the
sound means (:class:`HeardMeaning`): the referee rules that meaning as it is
(:func:`heard_proposal`), and nothing is turned back into words to be read again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.base import ANSWERS, Answer, Command, Moves, Proposal, Unclear
from grammars import load
from host.session import Table


@dataclass(frozen=True)
class SpeechText:
    """Words a recogniser heard, as text: alternatives best first and a confidence in
    0..1 (None: not given, counted as low). Typed words come with none."""

    alternatives: tuple[str, ...]
    confidence: float | None = None


@dataclass(frozen=True)
class HeardMeaning:
    """What a listener heard: a meaning read from the sound, with its weight."""

    #: A move of the game (the current player's, or the speaker's), a
    #: :class:`~games.base.Command`, or a game's own :class:`~games.base.Answer`.
    meaning: Any
    #: Calibrated probability that ``meaning`` is what was said.
    confidence: float
    #: Other meanings of the same sound still worth a thought, strongest first.
    others: tuple[Any, ...] = ()
    #: The words heard for ``meaning``, for the log (``Play.text``); never read again.
    text: str = ""
    #: Heard by an open microphone at a table (not a phone's answer to a prompt): anyone's
    #: remark may sound like a command, so what ends something is read back, and only the
    #: command said again confirms it.
    open_mic: bool = False
    #: Seconds a question asked on this hearing waits for its answer before it lapses and
    #: changes nothing (None: it waits). An open microphone's table talks on.
    lapse: float | None = None
    #: The hearing itself is doubtful (other readings of the sound hold much of it): a move
    #: is read back even when it would cost nothing, for a read-back costs less than a wrong
    #: number in the chain (``host.confirm.doubtful``).
    doubtful: bool = False
    #: Heard less surely than a move that costs its mover needs, though sure enough for
    #: any other (``host.confirm.weak_for_costly``): such a move is read back, and so is any
    #: move while a command that takes something back is among the other readings
    #: (``host.confirm.needs_confirmation``, as for a hearing below the confidence bar).
    unsure: bool = False


def yes_or_no(meaning: Any) -> bool | None:
    """True for a yes (a game's ``Answer`` or the command), False for a no, else None."""
    if isinstance(meaning, Answer):
        return meaning.yes
    if isinstance(meaning, Command) and meaning.name in ANSWERS:
        return meaning.name == ANSWERS[0]
    return None


def answer_words(meaning: Any) -> frozenset[str]:
    """The commands a meaning says, for a read-back of a command ("Did you say undo?"):
    yes, no, or the command said again; a move says none."""
    yes = yes_or_no(meaning)
    if yes is not None:
        return frozenset({ANSWERS[0] if yes else ANSWERS[1]})
    if isinstance(meaning, Command):
        return frozenset({meaning.name})
    return frozenset()


def heard_proposal(table: Table, meaning: Any, asked: Any | None) -> Proposal:
    """What a meaning a listener heard proposes, as ``Talk.read`` takes the same words:
    while a read-back of ``asked`` waits, yes and no answer it, "undo" means "not that",
    the asked move said again is a yes and another move a correction (said twice now);
    otherwise the move or the command itself."""
    yes = yes_or_no(meaning)
    if yes is not None:
        if asked is not None:
            return Answer(yes)
        # The question went stale as it was answered: nothing to say yes or no to.
        g = load(table.lang)
        event = {"type": "not_understood", "text": ANSWERS[0] if yes else ANSWERS[1]}
        if table.running:
            return Unclear(g.phrase("not_understood"), event, about_move=False, then_prompt=True)
        return Unclear(g.phrase("game_finished" if table.state is not None else "no_game"), event, False)
    if isinstance(meaning, Command):
        return Answer(False) if asked is not None and meaning.name == "undo" else meaning
    if isinstance(meaning, Unclear):
        return meaning  # words the game hears as no move ("queen of hearts"): its answer
    if asked is not None and meaning == asked:
        return Answer(True)
    return Moves((meaning,))


def other_readings(table: Table, hearing: SpeechText | HeardMeaning) -> list[Proposal]:
    """What the other alternatives of a hearing propose, said by nobody in particular with
    nothing asked (for :func:`host.confirm.needs_confirmation`)."""
    if isinstance(hearing, HeardMeaning):
        return [m if isinstance(m, Command | Answer) else Moves((m,)) for m in hearing.others]
    talk = table.spec.talk
    return [talk.read(a, table.state, table.names, None, None, table.lang) for a in hearing.alternatives[1:]]

"""What a listener listens for: the phrase list that follows a session, for any game.

While a game runs, the phrases that make a move now (the game's ``Talk.listen_for``: for
Up-or-Down every number a player might say, wrong ones too; for a card game the cards the
current player could put down), the commands, the player names and the grammar's *decoys*
(``grammars/<lang>/speech.yaml``); while a "Did you say ...?" question waits, yes/no (and
what the game lets a correction say); with no game running, the commands only. Also the
words table talk may decode as (:func:`talk_list`), every phrase ever used (for the
model's vocabulary check) and which phrases the end-pointer may end early.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from games.base import ANSWERS, Listening
from grammars import Grammar, load
from grammars.reader import NumberSaid, normalise, parse
from host.session import Table
from host.speech.phrase_index import next_words

#: Commands heard while no game runs, and not heard while one does.
IDLE_COMMANDS = ("new_game", "whose_turn", "repeat", "rules", "status", "help", "leave")

#: What a listener listens for: no game (commands), a question waiting, a game running.
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

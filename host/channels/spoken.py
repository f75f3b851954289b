"""A ruling as a phone caller hears it, on either phone channel (the voice channel's
``<Say>`` and the media stream's synthesiser): numbers become words, and the turn prompt
is left to the call, which ends with the spoken one (``Talk.spoken_prompt``)."""

from __future__ import annotations

from grammars import load, voice_phrase
from grammars.reader import spoken
from host.reply import Reply
from host.session import Table


def reply_lines(reply: Reply, table: Table) -> list[str]:
    """What a ruling says, for the ear. While the game runs the written turn prompt is not
    said (the call says the spoken one after): not ``reply.prompt``, and not in an answer
    the reply's events show is the prompt or carries it (:func:`_answer`). After the game,
    ``reply.prompt`` is its result and is said."""
    lang = table.config.lang
    if any(e.get("type") == "not_confirmed" for e in reply.events):
        return [voice_phrase(lang, "say_again")]
    said = [*reply.news, *_answer(reply, lang)] if table.running else reply.lines
    return [spoken(line, lang) for line in said if line]


def _answer(reply: Reply, lang: str) -> list[str]:
    """The private answer without the written turn prompt, by what the events say it was:
    whose turn (the prompt itself), repeat (what happened, then the prompt), not understood
    (the grammar's ``not_understood`` phrase, worded here without its ``{turn}``)."""
    commands = {e.get("command") for e in reply.events if e.get("type") == "command"}
    if "whose_turn" in commands:
        return []
    if "repeat" in commands:
        return reply.private[:-1]
    if any(e.get("type") == "not_understood" for e in reply.events):
        return [load(lang).phrase("not_understood", turn="").strip()]
    return reply.private


def status_lines(table: Table) -> list[str]:
    """Where a game stands, for someone calling back in."""
    if table.state is None:
        return []
    return [spoken(table.spec.talk.status(table.state, table.lang), table.lang)]

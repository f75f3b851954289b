"""A ruling as a phone caller hears it, on either phone channel (the voice channel's
``<Say>`` and the media stream's synthesiser): numbers become words, and the turn prompt
is left to the call, which ends with the spoken one (``Talk.spoken_prompt``)."""

from __future__ import annotations

from grammars import voice_phrase
from grammars.reader import spoken
from host.reply import Reply
from host.session import Table


def reply_lines(reply: Reply, table: Table) -> list[str]:
    """What a ruling says, for the ear. While the game runs the written turn prompts are
    not said (the call says the spoken one after): neither ``reply.prompt`` nor the
    ``answer_prompt`` that closes an answer ("I didn't catch that.", a refusal, a repeat;
    alone, the whole answer to "whose turn"). After the game, ``reply.prompt`` is its
    result and is said."""
    lang = table.config.lang
    if any(e.get("type") == "not_confirmed" for e in reply.events):
        return [voice_phrase(lang, "say_again")]
    said = [*reply.news, *reply.answer] if table.running else reply.lines
    return [spoken(line, lang) for line in said if line]


def status_lines(table: Table) -> list[str]:
    """Where a game stands, for someone calling back in."""
    if table.state is None:
        return []
    return [spoken(table.spec.talk.status(table.state, table.lang), table.lang)]

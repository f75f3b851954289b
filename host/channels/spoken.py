"""A ruling as a phone caller hears it, on either phone channel (the voice channel's
``<Say>`` and the media stream's synthesiser): numbers become words, and the turn prompt
is left to the call, which ends with the spoken one."""

from __future__ import annotations

from grammars import voice_phrase
from grammars.reader import spoken
from host.reply import Reply
from host.session import Table


def reply_lines(reply: Reply, table: Table) -> list[str]:
    """What a ruling says, for the ear: the referee's written prompt is left out (the call
    ends with the spoken one from ``turn_prompt``), numbers become words."""
    lang = table.config.lang
    if any(e.get("type") == "not_confirmed" for e in reply.events):
        return [voice_phrase(lang, "say_again")]
    out: list[str] = []
    # The written prompt is left out: a call ends with the spoken one. Private lines may
    # end with it too ("I didn't catch that. Bob: ...").
    prompt = table.spec.talk.prompt(table.state, lang) if table.running else None
    said = [*reply.news, *([reply.prompt] if reply.prompt and not table.running else []), *reply.private]
    for line in said:
        if prompt is not None and line.endswith(prompt):
            line = line[: -len(prompt)].rstrip()
        if line:
            out.append(spoken(line, lang))
    return out


def status_lines(table: Table) -> list[str]:
    """Where a game stands, for someone calling back in."""
    if table.state is None:
        return []
    return [spoken(table.spec.talk.status(table.state, table.lang), table.lang)]

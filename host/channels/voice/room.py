"""Before the first move: one phone for everyone in the room (how many play, then each
one's name; the game begins with the last), and the creator's lobby of a game of several
phones (hear the code again, or start)."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response
from twilio.twiml.voice_response import VoiceResponse

import host.channels.voice.prompts as vp
from grammars import load
from grammars.reader import spoken
from host.channels.spoken import reply_lines
from host.channels.voice.calls import Call
from host.channels.voice.menu import in_game
from host.channels.voice.requests import answer, field, query_int, signed
from host.channels.voice.service import Where, creator_of
from host.channels.voice.steps import (
    MAX_ROOM,
    MIN_ROOM,
    ask_count,
    ask_menu,
    ask_name,
    lobby_step,
    next_step,
)
from host.session import Table


async def room(request: Request) -> Response:
    """How many play on this one phone."""
    form, v = await signed(request)
    mode = request.query_params.get("mode", "tournament")
    n, quiet = query_int(request, "n", 0), query_int(request, "quiet", 0)

    def build(call: Call) -> VoiceResponse:
        lang = v.lang(call)
        count = vp.count_heard(field(form, "Digits"), field(form, "SpeechResult"), lang)
        if count is None or not MIN_ROOM <= count <= MAX_ROOM:
            again = [] if quiet and count is None else [vp.say(lang, "menu_again")]
            return ask_count(v, call, mode, again, n + (0 if quiet else 1))
        setup = {**(call.setup or {}), "count": count, "names": [], "mode": mode}
        call = v.calls.update(call.sid, setup=setup)
        return ask_name(v, call, "/room-name", i=1)

    return await v.workers.run(answer, v, request, form, build)


async def room_name(request: Request) -> Response:
    """Each player's name in turn; after the last, the game begins."""
    form, v = await signed(request)
    i = query_int(request, "i", 1)

    def build(call: Call) -> VoiceResponse:
        if call.shared and call.session_id is not None:  # a retried last name: already begun
            return next_step(v, call, Where(call.session_id, None, call.address), [])
        setup = call.setup
        if setup is None or "count" not in setup:
            return ask_menu(v, call, [])
        names: list[str] = list(setup["names"])
        if len(names) == i - 1:  # not a retry of a name already taken down
            said = vp.name_heard(field(form, "SpeechResult"), v.lang(call))
            names.append(vp.unique_name(said or vp.say(v.lang(call), "default_name", number=i), names))
            call = v.calls.update(call.sid, setup={**setup, "names": names})
        if len(names) < setup["count"]:
            return ask_name(v, call, "/room-name", i=len(names) + 1)
        config = v.config(setup["mode"], shared=True, lang=v.lang(call))
        session_id = v.referee.create(config, names, begin=True)
        call = v.calls.update(call.sid, session_id=session_id, shared=1, setup={"lang": config.lang})
        v.calls.set_room(call.address, session_id)
        begun = load(config.lang).phrase("new_game", players=", ".join(names))
        return next_step(v, call, Where(session_id, None, call.address), [spoken(begun, config.lang)])

    return await v.workers.run(answer, v, request, form, build)


async def lobby(request: Request) -> Response:
    """The creator's lobby: hear the code again, or start the game."""
    form, v = await signed(request)
    quiet = query_int(request, "quiet", 0)

    def build(call: Call, where: Where, table: Table) -> VoiceResponse:
        lang = table.config.lang
        if table.state is not None:
            return next_step(v, call, where, [], table=table)
        if quiet:
            waiting = vp.say(lang, "lobby_still", players=", ".join(table.names))
            return lobby_step(v, call, where, table, [waiting])
        digits, speech = field(form, "Digits"), field(form, "SpeechResult")
        picked = {"1": "repeat", "2": "start"}.get(digits) if digits else None
        if picked is None and speech:
            picked = vp.choice(speech, lang, {"start": "words_start", "repeat": "words_repeat"})
        if picked == "repeat":
            return lobby_step(v, call, where, table, [], code=True)
        if picked != "start":
            return lobby_step(v, call, where, table, [vp.say(lang, "menu_again")])
        if len(table.players) < table.spec.min_players:
            return lobby_step(v, call, where, table, [vp.say(lang, "nobody_joined")], code=True)
        if creator_of(table) != where.address:
            return next_step(v, call, where, [], table=table)
        reply = v.referee.begin(where.session_id)
        v.fan_out(reply, call.address)
        return next_step(v, call, where, reply_lines(reply, v.referee.table(where.session_id)))

    return await v.workers.run(in_game, v, request, form, build)

"""The game on a call: moves from ``<Gather input="speech dtmf">``, silence, and the
waiting loop.

The ``<Gather>``'s action URL carries a turn token, ``session.turn.counter``, which is also
the referee's idempotency key: Twilio retrying a request gets the first ruling back. Keypad
numbers are exact; speech goes to the referee as a ``SpeechText`` so a doubtful mistake is
confirmed ("Did you say fifteen?") first. The ``<Redirect>`` after each ``<Gather>`` lands
on ``/silence``, which asks twice more and then applies the session's turn-timeout rule
(``Referee.timeout``).
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response
from starlette.datastructures import FormData
from twilio.twiml.voice_response import VoiceResponse

import host.channels.voice.prompts as vp
from grammars import load
from grammars.reader import spoken
from host.answers import describe_events
from host.channels.spoken import reply_lines
from host.channels.voice.calls import Call
from host.channels.voice.menu import in_game
from host.channels.voice.requests import confidence, field, query_int, signed
from host.channels.voice.service import Token, Where, for_this_turn, turn_of
from host.channels.voice.steps import after_game, ask_move, confirm_line, goodbye, next_step
from host.heard import SpeechText
from host.session import Table

REPROMPTS = 2  # silent turns asked again before the turn-timeout rule applies
# Digits in SMS's MAX_NUMBER: more keyed is a slip, not a move (thousands would not parse).
MAX_KEYED_DIGITS = 8


def _heard(form: FormData, lang: str, confirm: str | None, end: int) -> tuple[str | None, SpeechText | None]:
    """What was said, as text for the referee. Keys are exact (no hearing to doubt); speech
    comes with its confidence, and a missing confidence counts as low."""
    digits, speech = field(form, "Digits"), field(form, "SpeechResult")
    commands = load(lang).commands
    if digits:
        if confirm is not None:
            return {"1": commands["yes"][0], "2": commands["no"][0]}.get(digits), None
        if end:
            return {"1": commands["new_game"][0]}.get(digits), None
        if digits.strip("#") == "*":
            return commands["whose_turn"][0], None
        digits = digits.strip("#*")
        return (digits, None) if digits.isdigit() and len(digits) <= MAX_KEYED_DIGITS else (None, None)
    if speech:
        speech = speech[:500]
        return speech, SpeechText((speech,), confidence(field(form, "Confidence")))
    return None, None


async def move(request: Request) -> Response:
    """A move, a command, or the answer to "Did you say ...?"."""
    form, v = await signed(request)
    t, c, end = request.query_params.get("t", ""), request.query_params.get("c"), query_int(request, "end", 0)

    def build(call: Call, where: Where, table: Table) -> VoiceResponse:
        lang = table.config.lang
        key = f"voice:{call.sid}:{t}"
        retry = v.referee.store.reply(key) is not None
        token = Token.parse(t)
        if not retry and not for_this_turn(token, where, table):
            # Spoken for a turn that has passed (or a game that ended): not this turn's move.
            late = [vp.say(lang, "too_late")] if table.running else []
            return next_step(v, call, where, late, table=table)
        text, hearing = _heard(form, lang, c, end)
        if text is None:
            lines = [vp.say(lang, "not_understood")]
            if c is not None and table.running and table.asked is not None:
                lines.append(spoken(confirm_line(table), lang))
                return ask_move(v, call, where, table, lines, confirm=c)
            return next_step(v, call, where, lines, table=table)
        reply = v.referee.handle(where.session_id, text, where.speaker, key=key, hearing=hearing)
        if reply.accepted and not retry:
            v.fan_out(reply, call.address)
        if where.speaker is not None and v.lobby.left(call.address, reply):
            # Leaving by phone means leaving the game, not only the round: hang up after.
            return goodbye(lang, [vp.say(lang, "you_left")])
        table = v.referee.table(where.session_id)
        lines = reply_lines(reply, table)
        if reply.confirm is not None and table.running and table.state.turn == reply.turn:
            return ask_move(v, call, where, table, lines, confirm=reply.confirm)
        return next_step(v, call, where, lines, table=table)

    return await v.workers.run(in_game, v, request, form, build)


async def silence(request: Request) -> Response:
    """A ``<Gather>`` heard nothing: ask again twice, then the turn-timeout rule applies."""
    form, v = await signed(request)
    t, c = request.query_params.get("t", ""), request.query_params.get("c")
    n, _end = query_int(request, "n", 0), query_int(request, "end", 0)  # end: checked as before, not needed

    def build(call: Call, where: Where, table: Table) -> VoiceResponse:
        lang = table.config.lang
        state = table.state
        token = Token.parse(t)
        if not for_this_turn(token, where, table) or state is None:
            return next_step(v, call, where, [], table=table)
        if not table.running:
            if n >= REPROMPTS:
                return goodbye(lang, [])
            return after_game(v, call, where, table, [], tries=n + 1)
        current = table.current_player
        if where.speaker is not None and current != where.speaker:
            return next_step(v, call, where, [], table=table)
        if n < REPROMPTS:
            lines = [vp.say(lang, "still_there", player=current)]
            asking = c is not None and table.asked is not None
            if asking:
                lines.append(spoken(confirm_line(table), lang))
            return ask_move(v, call, where, table, lines, tries=n + 1, confirm=c if asking else None)
        reply = v.referee.timeout(where.session_id, state.turn)
        v.fan_out(reply, call.address)
        table = v.referee.table(where.session_id)
        lines = reply_lines(reply, table) if reply is not None else []
        return next_step(v, call, where, lines, table=table)

    return await v.workers.run(in_game, v, request, form, build)


async def wait(request: Request) -> Response:
    """The waiting loop comes round: catch up on anything missed, then carry on."""
    form, v = await signed(request)
    t, g = request.query_params.get("t", ""), query_int(request, "g", 0)

    def build(call: Call, where: Where, table: Table) -> VoiceResponse:
        lang = table.config.lang
        token = Token.parse(t)
        lines: list[str] = []
        if token is not None and token.turn != turn_of(table) and table.state is not None:
            if not table.moves:
                lines = [spoken(load(lang).phrase("new_game", players=", ".join(table.names)), lang)]
            else:
                lines = [spoken(s, lang) for s in describe_events(table, table.last_events)]
        return next_step(v, call, where, lines, table=table, stream=not g)

    return await v.workers.run(in_game, v, request, form, build)

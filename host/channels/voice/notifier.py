"""Hang-ups and live updates.

Hanging up (``/status``, the call-status callback) takes the player out by the rules
(tournament: out; training: leaves) and tells the others. The membership stays while that
game runs so calling back rejoins it (to listen: the rules do not let a player back in);
when the game ends, a caller who is not on the line leaves the table. An SMS player who
called in just goes back to being told by SMS.

Everyone else in a game hears each move as it happens: the "voice" notifier redirects
their live call (REST ``calls(sid).update(twiml=...)``) to the news followed by their turn
or the waiting loop (a short line, a pause, a redirect to ``/wait``, which also catches up
anyone whose update went to the local outbox instead).
"""

from __future__ import annotations

import logging

from fastapi import Request
from fastapi.responses import Response
from twilio.twiml.voice_response import VoiceResponse

from host.channels.spoken import reply_lines
from host.channels.twiml import render
from host.channels.voice.requests import field, signed, xml
from host.channels.voice.service import CHANNEL, VoiceChannel, Where
from host.channels.voice.steps import next_step
from host.lobby import Member
from host.reply import Reply

log = logging.getLogger(__name__)

ENDED = frozenset({"completed", "busy", "failed", "no-answer", "canceled"})


async def status(request: Request) -> Response:
    """Call status callback: a call that ended takes its player out by the rules."""
    form, v = await signed(request)
    if field(form, "CallStatus") in ENDED:
        await v.workers.run(_ended, v, field(form, "CallSid"))
    return xml(VoiceResponse())


def _ended(v: VoiceChannel, sid: str) -> None:
    try:
        with v.referee.store.transaction():
            _hung_up(v, sid)
    except Exception:  # Twilio only logs our answer; the others must not be left hanging
        log.exception("handling the end of call %s failed", sid)


def _hung_up(v: VoiceChannel, sid: str) -> None:
    call = v.calls.end(sid)
    if call is None:
        return
    if call.shared:
        if call.session_id is not None and not v.referee.table(call.session_id).running:
            # The one-phone game is over: the next call from this phone starts afresh.
            v.calls.drop_room(call.address)
            v.referee.store.set_status(call.session_id, "closed")
        return
    member = v.lobby.member(call.address)
    if member is None or member.call_sid != call.sid:
        return
    if call.prev_channel not in (None, CHANNEL):
        v.lobby.set_call(call.address, None, call.prev_channel)  # an SMS player: back to texts
        return
    table = v.referee.table(member.session_id)
    if table.running:
        reply: Reply | None = v.referee.leave(member.session_id, member.name)
        v.lobby.set_call(call.address, None)
        if reply is not None and reply.game_over:
            v.lobby.leave(call.address)
    else:
        reply = v.lobby.leave(call.address)
    v.fan_out(reply, call.address)


def tell_caller(v: VoiceChannel, member: Member, reply: Reply) -> None:
    """The ``voice`` notifier (``setup`` binds it to the channel's service): tell a caller
    what just happened by redirecting their live call."""
    table = v.referee.table(reply.session_id)
    if member.call_sid is None:
        if table.state is not None and not table.running:
            # Hung up during a game that has now ended: off the table before the next one.
            v.lobby.leave(member.address)
        return
    call = v.calls.get(member.call_sid)
    if call is None or call.ended:
        return
    where = Where(member.session_id, member.name, member.address)
    lines = reply_lines(reply, table)
    vr = next_step(v, call, where, lines, table=table)
    v.outbound.update_call(member.call_sid, render(vr), summary=" ".join(lines))

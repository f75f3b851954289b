"""Games by text message: ``POST /twilio/sms`` (Twilio's Messaging webhook).

Every game that suits texting (``GameSpec.channels``): ``NEW`` starts the default game,
``NEW <game>`` another (a card game's table plays real cards and texts each move). The
channel only routes texts: every move goes through ``Referee.handle``.

A player is their phone number. The sender of a text is answered in the TwiML reply;
everyone else in the game hears about it through the REST API (the app's notifiers ->
``SmsChannel.notify`` -> ``Outbound.send_sms``, or the local outbox without credentials),
from the number they texted. Each message starts with the turn number ("#12 ") because
texts can arrive out of order, and is cut to fit one GSM-7 segment (``text.py``).

Keywords (first word, case and punctuation ignored; ``keywords.py``): NEW [game] [option
words] [name], JOIN code [name], START, STATUS, RULES, LEAVE, HELP/INFO; anything else from
a player goes to the referee (numbers as digits or words, cards like "9H", "I bid 3",
"whose turn", "leave the game", ...). The carriers' opt-out words are never game commands:
the number leaves its game and gets nothing more until START, YES or UNSTOP. START is also
the creator's "begin": an opted-out number sending it is opted in, a creator in a lobby
sending it begins the game.

Twilio retries a webhook with the same ``MessageSid`` (and ``I-Twilio-Idempotency-Token``):
the whole answer is stored under that key in the same transaction as its effects, so a
retried NEW makes one game and a retried move is ruled once (``channel.py``).
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request, Response
from twilio.twiml.messaging_response import MessagingResponse

from grammars import load
from host.channels.sms.channel import SmsChannel
from host.channels.sms.keywords import CHANNEL
from host.channels.sms.text import fit
from host.channels.twiml import render
from host.twilio_security import signed_form

log = logging.getLogger(__name__)

PATH = "/twilio/sms"


def setup(app: FastAPI) -> None:
    """Called by ``create_app``: the channel's service, its notifier and its webhook."""
    state = app.state
    sms = SmsChannel(state.settings, state.referee, state.lobby, state.outbound, state.notifiers)
    state.sms = sms
    state.notifiers.register(CHANNEL, sms.notify)
    # On the app itself: a route in an included router is matched twice per request.
    app.add_route(PATH, sms_webhook, methods=["POST"])


def _twiml(messages: list[str]) -> Response:
    response = MessagingResponse()
    for body in messages:
        response.message(body)
    return Response(content=render(response), media_type="application/xml")


def apology(lang: str) -> Response:
    """The answer to a text the server could not take (the app's handler for a badly typed
    query value under ``/twilio/``, other than a call's)."""
    mr = MessagingResponse()
    mr.message(load(lang).phrase("sms_error"))
    return Response(str(mr), media_type="application/xml")


async def sms_webhook(request: Request) -> Response:
    """Answer one text, once ``signed_form`` has checked the signature (403 otherwise).

    A plain Starlette route: FastAPI's dependency solving cost more than parsing the form."""
    form = await signed_form(request, request.app.state.settings)
    channel: SmsChannel = request.app.state.sms
    address = str(form.get("From") or "").strip()
    if not address:
        return _twiml([])  # not a person's text: nobody to answer
    body = form.get("Body")
    text = body if isinstance(body, str) else ""
    host = str(form.get("To") or "") or None
    # The signed MessageSid is the key (required when signatures are checked); Twilio's
    # unsigned idempotency header can only make a request count as a repeat, never new.
    key = str(form.get("MessageSid") or "") or None
    token = request.headers.get("I-Twilio-Idempotency-Token")
    try:
        # On a worker thread (the app's own pool, host/workers.py): run on the event loop
        # instead, a loaded machine answered fewer (0.32-0.40x bare against 0.60-0.94x).
        workers = request.app.state.workers
        answer = await workers.run(channel.receive, address, host, text, key or token, token)
    except Exception:  # a person's text must never get a 5xx; nothing was committed
        log.exception("SMS from %s failed", address)
        return _twiml(fit([channel.g.phrase("sms_error")]))
    return _twiml(answer.messages)

"""Reading a webhook request of the voice channel and answering it whatever happens.

The webhooks are plain Starlette routes, as the SMS webhook: FastAPI's dependency solving
(the signed form, the service, typed query values) cost more than the rest of a request's
framework work, so they do the same by hand here.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import TypeAdapter, ValidationError
from starlette.datastructures import FormData
from twilio.twiml.voice_response import VoiceResponse

import host.channels.voice.prompts as vp
from host.channels.twiml import render
from host.channels.voice.calls import Call
from host.channels.voice.service import VoiceChannel
from host.config import Settings
from host.twilio_security import signed_form

log = logging.getLogger(__name__)

_INT = TypeAdapter(int)

# What Twilio puts in From when the caller withholds their number.
_WITHHELD = frozenset(
    {
        "",
        "anonymous",
        "restricted",
        "unknown",
        "unavailable",
        "blocked",
        "+266696687",
        "+7378742833",
        "+2562533",
        "+8656696",
    }
)


# Twilio's StirVerstat for a caller ID whose carrier vouches that the caller may use that
# number (full attestation). B ("the caller is our customer, the number we cannot vouch
# for") and C say nothing about the number, so they count as no attestation.
_ATTESTED = frozenset({"TN-Validation-Passed-A"})


async def signed(request: Request) -> tuple[FormData, VoiceChannel]:
    """The posted form once ``signed_form`` has checked its signature (403 otherwise), and
    the voice services."""
    form = await signed_form(request, request.app.state.settings)
    voice: VoiceChannel = request.app.state.voice
    return form, voice


def query_int(request: Request, name: str, default: int) -> int:
    """A whole-number query value read as FastAPI read it; a badly typed one goes to the
    app's ``RequestValidationError`` handler (a spoken apology), as it did."""
    value = request.query_params.get(name)
    if value is None:
        return default
    try:
        return _INT.validate_python(value)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from None


def field(form: FormData, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def confidence(text: str) -> float | None:
    """Twilio's Confidence, when it sends a usable one (missing is taken as low)."""
    try:
        value = float(text)
    except ValueError:
        return None
    return min(max(value, 0.0), 1.0) if math.isfinite(value) else None


def caller_address(from_: str, sid: str, verstat: str, settings: Settings) -> str:
    """Who a call is: its phone number when Twilio's STIR/SHAKEN check attests it fully
    (``StirVerstat`` TN-Validation-Passed-A; docs/voice.md "Who a caller is"), else a guest
    (``guest:<sid>:<number>``) until it keys in the PIN texted to that number when it took
    its seat (``menu.py``); a withheld number is only this call (no calling back).
    ``GAMEHOST_VOICE_CALLER_ID=trust`` takes any caller ID as the number (a lab's setting)."""
    number = from_.strip()
    if number.lower() in _WITHHELD:
        return f"call:{sid}"
    if settings.voice_caller_id != "trust" and verstat not in _ATTESTED:
        return f"guest:{sid}:{number}"
    return number


def claimed_number(call: Call) -> str | None:
    """The number a guest's caller ID claims."""
    return call.address.split(":", 2)[2] if call.address.startswith("guest:") else None


def base_url(request: Request, settings: Settings) -> str:
    return (settings.public_url or str(request.base_url)).rstrip("/")


def xml(vr: VoiceResponse) -> Response:
    return Response(render(vr), media_type="application/xml")


def apology(request: Request, settings: Settings) -> Response:
    """The trouble line, then back in through the front door, which finds the caller's
    game again (the app's handler for a badly typed query value on a call's webhook)."""
    lang = settings.lang
    vr = VoiceResponse()
    vr.say(vp.say(lang, "trouble"), voice=vp.say_voice(lang), language=vp.language_tag(lang))
    vr.redirect(f"{base_url(request, settings)}/twilio/voice?again=1", method="POST")
    return Response(str(vr), media_type="application/xml")


def answer(
    v: VoiceChannel, request: Request, form: FormData, build: Callable[[Call], VoiceResponse]
) -> Response:
    """Run a handler (on a worker thread); whatever goes wrong, the caller hears something
    and carries on."""
    sid, address = field(form, "CallSid"), field(form, "From")
    lang = v.settings.lang_for(field(form, "To"))
    try:
        if not sid:
            vr = VoiceResponse()
            vr.hangup()
            return xml(vr)
        # One transaction per request: a move and the outbox rows telling the others of it
        # are committed together (or, on an error, neither).
        with v.referee.store.transaction():
            call = v.calls.get(sid) or v.calls.open(
                sid,
                caller_address(address, sid, field(form, "StirVerstat"), v.settings),
                base_url(request, v.settings),
                lang,
            )
            return xml(build(call))
    except Exception:
        log.exception("voice request to %s failed", request.url.path)
        vr = VoiceResponse()
        tag, voice = vp.language_tag(lang), vp.say_voice(lang)
        if request.query_params.get("again"):
            vr.say(f"{vp.say(lang, 'trouble')} {vp.say(lang, 'goodbye')}", voice=voice, language=tag)
            vr.hangup()
        else:
            vr.say(vp.say(lang, "trouble"), voice=voice, language=tag)
            vr.redirect(f"{base_url(request, v.settings)}/twilio/voice?again=1", method="POST")
        return xml(vr)

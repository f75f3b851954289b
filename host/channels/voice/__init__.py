"""Games by phone call: Twilio Voice webhooks, speech and keypad, one phone or many.

The games offered are those that suit a call (``GameSpec.channels`` has "voice"); a
number in a game that does not is told it is played by text or at the table.

A number's voice URL points at ``POST /twilio/voice`` and its call-status callback at
``POST /twilio/voice/status`` (docs/voice.md). Every endpoint checks the Twilio signature
and answers TwiML built with the SDK's ``VoiceResponse``; nothing a caller does gets a 5xx.

* ``menu.py``: the way in. A number already in a game goes straight back into it (its
  lobby membership, or the one-phone game last played on it), if the caller ID is attested
  or the caller keys in that seat's PIN (``/pin``); anyone else gets a menu:
  1 new game, 2 join by code, 3 this phone for everyone in the room (the referee's
  ``speaker=None``: moves are the current player's; ``room.py``, with the creator's lobby).
* ``moves.py``: moves from ``<Gather input="speech dtmf">``, silence, the waiting loop.
* ``steps.py``: each step of a call as TwiML, and what comes next for a caller.
* ``notifier.py``: hang-ups, and the "voice" notifier that tells everyone else in the game
  each move by redirecting their live call.
* ``service.py`` (the channel's service), ``requests.py`` (reading a webhook, answering
  whatever happens), ``calls.py`` (the channel's tables), ``prompts.py`` (its wording).
"""

from __future__ import annotations

from functools import partial

from fastapi import FastAPI

from host.channels.voice.calls import Calls
from host.channels.voice.menu import code, incoming, menu, name, pin
from host.channels.voice.moves import move, silence, wait
from host.channels.voice.notifier import status, tell_caller
from host.channels.voice.requests import apology as apology
from host.channels.voice.room import lobby, room, room_name
from host.channels.voice.service import CHANNEL, VoiceChannel

PATH = "/twilio/voice"

# The webhooks, below /twilio/voice (``setup`` adds them).
ROUTES = (
    ("", incoming),
    ("/menu", menu),
    ("/name", name),
    ("/code", code),
    ("/pin", pin),
    ("/room", room),
    ("/room-name", room_name),
    ("/lobby", lobby),
    ("/move", move),
    ("/silence", silence),
    ("/wait", wait),
    ("/status", status),
)


def setup(app: FastAPI) -> None:
    """Called by ``create_app``: the channel's service, its notifier and its webhooks."""
    state = app.state
    voice = VoiceChannel(
        state.settings,
        state.referee,
        state.lobby,
        state.outbound,
        state.notifiers,
        Calls(state.store),
        state.workers,
    )
    state.voice = voice
    state.notifiers.register(CHANNEL, partial(tell_caller, voice))
    # On the app itself, not a router: a route in an included router is matched twice per
    # request (the router, then its route), 3% of a voice action.
    for path, endpoint in ROUTES:
        app.add_route(f"{PATH}{path}", endpoint, methods=["POST"])

"""Phone calls refereed by our own recogniser: Twilio Media Streams at ``/twilio/media``.

The voice channel hands a running game's call over with ``<Connect><Stream>`` and a
single-use token bound to the call (``handover.py``). The websocket (``endpoint.py``)
checks Twilio's signature of the handshake and passes each message to the call's
:class:`~host.channels.media.session.StreamSession`, which feeds the caller's audio to the
listener and speaks the rulings back, paced, with barge-in (``playout.py``). The service
(``service.py``) keeps the live streams, switches a caller to the ``media`` channel while
their stream is live and speaks the others' moves into it. See docs/media-streams.md.
"""

from __future__ import annotations

from fastapi import FastAPI

from host.channels.media.endpoint import media_stream
from host.channels.media.handover import STREAM_PATH
from host.channels.media.service import CHANNEL, MediaChannel, Models


def setup(app: FastAPI) -> None:
    """Called by ``create_app``: the channel's service, its notifier and its websocket."""
    state = app.state
    media = MediaChannel(state.settings, state.referee, state.lobby, state.notifiers, Models(state.settings))
    state.media = media
    state.notifiers.register(CHANNEL, media.notify)
    app.add_api_websocket_route(STREAM_PATH, media_stream)

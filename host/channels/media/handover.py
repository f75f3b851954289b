"""How a call is handed to our own recogniser: the TwiML that opens a Media Stream to
``/twilio/media``, and the single-use token it carries.

A call opts in with TwiML from :func:`stream_twiml`: ``<Connect><Stream>`` to the
websocket, with the game, the player and the language as ``<Parameter>``s (Twilio drops the
query string of a stream URL; the parameters come back in the ``start`` message), and a
token bound to the call (see :func:`mint_token`): who plays is taken from the token's
stored row, never from the parameters. When the socket closes, Twilio carries on with the
TwiML after ``<Connect>`` (``after_url``: a ``<Redirect>``).
"""

from __future__ import annotations

import hmac
import secrets
import time
from dataclasses import dataclass
from typing import Any

from twilio.twiml.voice_response import Connect, VoiceResponse

from host.store import Store

STREAM_PATH = "/twilio/media"


def ws_base(public_base_url: str) -> str:
    """``https://host`` -> ``wss://host`` (``http`` -> ``ws`` for a local test server)."""
    base = public_base_url.rstrip("/")
    for http, ws in (("https://", "wss://"), ("http://", "ws://")):
        if base.startswith(http):
            return ws + base[len(http) :]
    return base


def stream_url(public_base_url: str) -> str:
    return ws_base(public_base_url) + STREAM_PATH


def stream_response(
    public_base_url: str,
    session_id: str,
    player: str | None,
    lang: str,
    *,
    address: str | None = None,
    after_url: str | None = None,
    response: VoiceResponse | None = None,
    token: str | None = None,
) -> VoiceResponse:
    """TwiML that hands a call to our recogniser for game ``session_id``.

    ``player`` None means one phone for the whole table (moves are the current player's).
    ``address`` (the caller's number) lets the others' moves reach this caller through the
    stream. ``after_url`` is where the call goes when the stream ends (we close it when we
    cannot listen, or the caller's game moves on elsewhere). ``response`` is TwiML to
    append to (something to say first).
    """
    vr = response if response is not None else VoiceResponse()
    connect = Connect()
    stream = connect.stream(url=stream_url(public_base_url))
    # With ``token`` (see mint_token) the server trusts only the token; the other
    # parameters are informational.
    params = {"token": token, "session": session_id, "player": player, "lang": lang, "address": address}
    for name, value in params.items():
        if value:
            stream.parameter(name=name, value=value)
    vr.append(connect)
    if after_url:
        vr.redirect(after_url, method="POST")
    return vr


def stream_twiml(*args: Any, **kwargs: Any) -> str:
    """:func:`stream_response` as a TwiML document."""
    return str(stream_response(*args, **kwargs))


# -- stream tokens ---------------------------------------------------------------------------

# The handshake signature covers a fixed URL, so it proves nothing about who is calling,
# and the start message's customParameters are the client's word. A stream is bound to
# the call whose TwiML opened it: a random single-use token, stored with that call's SID
# and the game, player and number it may play as, short-lived.
TOKEN_TTL_S = 300.0  # from the TwiML to the stream's start (spoken lines come first)


@dataclass(frozen=True)
class StreamGrant:
    call_sid: str
    session_id: str
    player: str | None
    address: str | None
    lang: str


def mint_token(
    store: Store,
    call_sid: str,
    session_id: str,
    player: str | None,
    address: str | None,
    lang: str,
    *,
    ttl: float = TOKEN_TTL_S,
    now: float | None = None,
) -> str:
    """A token for one stream of call ``call_sid`` (put it in the ``<Stream>``'s parameters).
    The table is made by the migrations (not here: that would commit the caller's
    transaction)."""
    token = secrets.token_urlsafe(24)
    at = time.time() if now is None else now
    with store.transaction() as db:
        db.execute("DELETE FROM stream_tokens WHERE expires < ?", (at - 3600,))  # old rows
        db.execute(
            "INSERT INTO stream_tokens (token, call_sid, session_id, player, address, lang, expires)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (token, call_sid, session_id, player, address, lang, at + ttl),
        )
    return token


def redeem_token(store: Store, token: str, call_sid: str, now: float | None = None) -> StreamGrant | str:
    """The grant for ``token`` used by call ``call_sid`` (consumed), or why it is refused."""
    at = time.time() if now is None else now
    with store.transaction() as db:
        rows = db.execute("SELECT * FROM stream_tokens WHERE token = ?" + db.for_update(), (token,))
        if not rows:
            return "unknown stream token"
        row = rows[0]
        if row["used"] is not None:
            return "stream token already used"
        if row["expires"] < at:
            return "stream token expired"
        if not hmac.compare_digest(str(row["call_sid"]), call_sid):
            return "stream token of another call"
        db.execute("UPDATE stream_tokens SET used = ? WHERE token = ?", (at, token))
    return StreamGrant(row["call_sid"], row["session_id"], row["player"], row["address"], row["lang"])

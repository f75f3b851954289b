"""Games by phone call: Twilio Voice webhooks, speech and keypad, one phone or many.

The games offered are those that suit a call (``GameSpec.channels`` has "voice"); a
number in a game that does not is told it is played by text or at the table.

A number's voice URL points at ``POST /twilio/voice`` and its call-status callback at
``POST /twilio/voice/status`` (docs/voice.md). Every endpoint checks the Twilio signature
and answers TwiML built with the SDK's ``VoiceResponse``; nothing a caller does gets a 5xx.

* A number already in a game goes straight back into it (its lobby membership, or the
  one-phone game last played on it); anyone else gets a menu: 1 new game, 2 join by code,
  3 this phone for everyone in the room (the referee's ``speaker=None``: moves are the
  current player's).
* Moves come from ``<Gather input="speech dtmf">``. Its action URL carries a turn token,
  ``session.turn.counter``, which is also the referee's idempotency key: Twilio retrying a
  request gets the first ruling back. Keypad numbers are exact; speech goes to the referee
  as a ``SpeechText`` so a doubtful mistake is confirmed ("Did you say fifteen?") first.
* Silence: the ``<Redirect>`` after each ``<Gather>`` lands on ``/silence``, which asks
  twice more and then applies the session's turn-timeout rule (``referee.timeout``).
* Everyone else in the game hears each move as it happens: the "voice" notifier redirects
  their live call (REST ``calls(sid).update(twiml=...)``) to the news followed by their
  turn or the waiting loop (a short line, a pause, a redirect to ``/wait``, which also
  catches up anyone whose update went to the local outbox instead).
* Hanging up (``/status``) takes the player out by the rules (tournament: out; training:
  leaves) and tells the others. The membership stays while that game runs so calling back
  rejoins it (to listen: the rules do not let a player back in); when the game ends, a
  caller who is not on the line leaves the table. An SMS player who called in just goes
  back to being told by SMS.
"""

from __future__ import annotations

import logging
import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import TypeAdapter, ValidationError
from starlette.datastructures import FormData
from twilio.twiml.voice_response import Gather, VoiceResponse

from games.base import GameSpec, all_games, find_game
from games.core import Leave
from grammars import load
from grammars.reader import CommandSaid, parse, spoken, to_words
from host import notify, timeouts
from host import voice_prompts as vp
from host.channels.voice_calls import Call, Calls
from host.config import Settings
from host.confirm import asked_words
from host.heard import SpeechText
from host.lobby import CODE_DIGITS, Joined, Lobby
from host.lobby import Member as LobbyMember
from host.outbound import Outbound
from host.referee import Referee, describe_events
from host.reply import Reply
from host.session import SessionConfig, Table
from host.twilio_security import signed_form
from host.twiml import render
from host.workers import Workers

log = logging.getLogger(__name__)

# Empty: ``setup`` puts the webhooks (``ROUTES``) on the app itself. A route in an included
# router is matched twice per request (the router, then its route), 3% of a voice action.
router = APIRouter()
CHANNEL = "voice"

GATHER_TIMEOUT = 6  # seconds of silence after the prompt before the <Redirect> runs
SPEECH_TIMEOUT = 2  # seconds of quiet that end a spoken answer (answers are short)
NAME_TIMEOUT = 4
CODE_TIMEOUT = 8
REPROMPTS = 2  # silent turns asked again before the turn-timeout rule applies
MENU_TRIES = 3
MIN_ROOM, MAX_ROOM = 2, 8  # players sharing one phone
# Digits in SMS's MAX_NUMBER: more keyed is a slip, not a move (thousands would not parse).
MAX_KEYED_DIGITS = 8
ENDED = frozenset({"completed", "busy", "failed", "no-answer", "canceled"})


# -- services --------------------------------------------------------------------------------


@dataclass
class Voice:
    settings: Settings
    referee: Referee
    lobby: Lobby
    outbound: Outbound
    calls: Calls
    workers: Workers  # the app's threads for the store work (host/workers.py)
    # Set by the media channel when calls may be streamed to our recogniser: lang -> ready.
    streams: Callable[[str], bool] | None = None

    @property
    def lang(self) -> str:
        return self.settings.lang

    def config(self, mode: str, shared: bool) -> SessionConfig:
        """A one-phone game has no turn clock: hanging up pauses it until the phone calls
        back. Games of several phones get the backstop turn timeout."""
        spec = voice_game()
        return SessionConfig(
            game=spec.name,
            options=dict(spec.option_words.get(mode, {})),
            lang=self.settings.lang,
            confirm_below=self.settings.confirm_below,
            undo_grace=self.settings.table_undo_grace,
            turn_timeout=None if shared or not spec.timed else self.settings.voice_turn_timeout,
        )


def voice_game() -> GameSpec[Any, Any, Any]:
    """The game a call's menu starts: the default game if it suits a call, else the first that does."""
    suits = [s for s in all_games() if CHANNEL in s.channels]
    return next((s for s in suits if s.default), suits[0])


# The notifier is called with the Outbound of the app whose game moved; this finds the rest.
_voices: weakref.WeakKeyDictionary[Outbound, Voice] = weakref.WeakKeyDictionary()


def setup(app: FastAPI) -> None:
    state = app.state
    voice = Voice(
        state.settings, state.referee, state.lobby, state.outbound, Calls(state.store), state.workers
    )
    state.voice = voice
    _voices[state.outbound] = voice
    notify.register(CHANNEL, _notify)
    timeouts.install(app)  # the backstop turn clock (shared with SMS; installed once)
    for path, endpoint in ROUTES:  # on the app, not the router (see ``router``)
        app.add_route(f"/twilio/voice{path}", endpoint, methods=["POST"])


# -- requests: plain Starlette routes, as the SMS webhook ---------------------------------------
#
# FastAPI's dependency solving (the signed form, the service, typed query values) cost more
# than the rest of a request's framework work; these routes do the same by hand.


async def _signed(request: Request) -> tuple[FormData, Voice]:
    """The posted form once ``signed_form`` has checked its signature (403 otherwise), and
    the voice services."""
    form = await signed_form(request, request.app.state.settings)
    voice: Voice = request.app.state.voice
    return form, voice


_INT = TypeAdapter(int)


def _int(request: Request, name: str, default: int) -> int:
    """A whole-number query value read as FastAPI read it; a badly typed one goes to the
    app's ``RequestValidationError`` handler (a spoken apology), as it did."""
    value = request.query_params.get(name)
    if value is None:
        return default
    try:
        return _INT.validate_python(value)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from None


@dataclass(frozen=True)
class Where:
    """The game a call plays in, and as whom (``speaker`` None: everyone on one phone)."""

    session_id: str
    speaker: str | None
    address: str


@dataclass(frozen=True)
class Token:
    session_id: str
    turn: int

    @classmethod
    def parse(cls, text: str | None) -> Token | None:
        parts = (text or "").split(".")
        # A turn number of more than 9 digits is no token of ours (a forged query value).
        if len(parts) != 3 or not parts[1].lstrip("-").isdigit() or len(parts[1]) > 10:
            return None
        return cls(parts[0], int(parts[1]))


def _where(v: Voice, call: Call) -> Where | None:
    if call.shared and call.session_id is not None:
        return Where(call.session_id, None, call.address)
    # With the game's members, opt-outs and numbers: telling the others reads nothing more.
    member = v.lobby.game_of(call.address)
    if member is not None and member.call_sid == call.sid:
        return Where(member.session_id, member.name, call.address)
    return None


def _creator(table: Table) -> str | None:
    """``Lobby.creator`` from a table already read."""
    return table.players[0].address if table.players else None


def _turn(table: Table) -> int:
    return table.state.turn if table.state is not None else 0


def _current(token: Token | None, where: Where, table: Table) -> bool:
    """Was this token handed out for the turn the game is at now?"""
    return token is not None and token.session_id == where.session_id and token.turn == _turn(table)


def _field(form: FormData, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def _confidence(text: str) -> float | None:
    """Twilio's Confidence, when it sends a usable one (missing is taken as low)."""
    try:
        value = float(text)
    except ValueError:
        return None
    return min(max(value, 0.0), 1.0) if math.isfinite(value) else None


# What Twilio puts in From when the caller withholds their number.
_WITHHELD = frozenset({"", "anonymous", "restricted", "unknown", "unavailable", "blocked",
                       "+266696687", "+7378742833", "+2562533", "+8656696"})


# Twilio's StirVerstat for a caller ID the carrier vouches for (full or partial attestation).
_ATTESTED = frozenset({"TN-Validation-Passed-A", "TN-Validation-Passed-B"})


def _address(from_: str, sid: str, verstat: str, settings: Settings) -> str:
    """A player is their phone number; a withheld one is only this call (no calling back).
    With ``GAMEHOST_VOICE_CALLER_ID=attested`` an unattested number is a guest
    (``guest:<sid>:<number>``) until it gives the join code of its number's game."""
    number = from_.strip()
    if number.lower() in _WITHHELD:
        return f"call:{sid}"
    if settings.voice_caller_id == "attested" and verstat not in _ATTESTED:
        return f"guest:{sid}:{number}"
    return number


def _claimed(call: Call) -> str | None:
    """The number a guest's caller ID claims."""
    return call.address.split(":", 2)[2] if call.address.startswith("guest:") else None


def _base_url(request: Request, settings: Settings) -> str:
    return (settings.public_url or str(request.base_url)).rstrip("/")


def _xml(vr: VoiceResponse) -> Response:
    return Response(render(vr), media_type="application/xml")


def _answer(v: Voice, request: Request, form: FormData, build: Callable[[Call], VoiceResponse]) -> Response:
    """Run a handler (on a worker thread); whatever goes wrong, the caller hears something
    and carries on."""
    sid, address = _field(form, "CallSid"), _field(form, "From")
    try:
        if not sid:
            vr = VoiceResponse()
            vr.hangup()
            return _xml(vr)
        # One transaction per request: a move and the outbox rows telling the others of it
        # are committed together (or, on an error, neither).
        with v.referee.store.transaction():
            call = v.calls.get(sid) or v.calls.open(
                sid, _address(address, sid, _field(form, "StirVerstat"), v.settings),
                _base_url(request, v.settings),
            )
            return _xml(build(call))
    except Exception:
        log.exception("voice request to %s failed", request.url.path)
        vr = VoiceResponse()
        tag = vp.language_tag(v.lang)
        if request.query_params.get("again"):
            vr.say(f"{vp.say(v.lang, 'trouble')} {vp.say(v.lang, 'goodbye')}", language=tag)
            vr.hangup()
        else:
            vr.say(vp.say(v.lang, "trouble"), language=tag)
            vr.redirect(f"{_base_url(request, v.settings)}/twilio/voice?again=1", method="POST")
        return _xml(vr)


def _in_game(
    v: Voice, request: Request, form: FormData, build: Callable[[Call, Where, Table], VoiceResponse]
) -> Response:
    """``_answer`` for a call that should be in a game; one that is not goes back in."""

    def run(call: Call) -> VoiceResponse:
        where = _where(v, call)
        if where is None:
            return _elsewhere(v, call)
        return build(call, where, v.referee.table(where.session_id))

    return _answer(v, request, form, run)


def _fan_out(v: Voice, reply: Reply | None, exclude: str) -> None:
    """Tell the others: their updates go into the outbox in the request's transaction (see
    ``_answer``), committed with the move; the outbox sender makes the REST calls."""
    if reply is not None and reply.public:
        notify.fan_out(v.lobby, v.outbound, reply, exclude)


# -- TwiML -----------------------------------------------------------------------------------


def _gather(
    vr: VoiceResponse, v: Voice, action: str, hints: str, lang: str, *, model: bool = True, **extra: Any
) -> Gather:
    """A ``<Gather input="speech dtmf">`` with barge-in. A speech model needs a whole-number
    speechTimeout; names go to the default model, which may end on the first pause."""
    speech_model = v.settings.voice_speech_model if model else None
    return vr.gather(
        input="speech dtmf",
        action=action,
        method="POST",
        hints=hints or None,
        barge_in=True,
        language=vp.language_tag(lang),
        speech_model=speech_model or None,
        speech_timeout=SPEECH_TIMEOUT if speech_model else "auto",
        **{"timeout": GATHER_TIMEOUT, **extra},
    )


def _speak(target: VoiceResponse | Gather, lang: str, *parts: str | list[str]) -> None:
    """One ``<Say>`` of lines and phrases; any number left in digits is read as words."""
    out: list[str] = []
    for part in parts:
        out.extend([part] if isinstance(part, str) else part)
    text = " ".join(p for p in out if p)
    target.say(spoken(text, lang), language=vp.language_tag(lang))


def _move(
    v: Voice, call: Call, where: Where, table: Table, lines: list[str], *, tries: int = 0,
    confirm: str | None = None,
) -> VoiceResponse:
    """The current player's turn: news, then the prompt inside a ``<Gather>`` (or the
    "Did you say ...?" question while a hearing waits for yes or no)."""
    state, talk = table.state, table.spec.talk
    lang = table.config.lang
    token = v.calls.token(call.sid, where.session_id, state.turn)
    vr = VoiceResponse()
    if confirm is None:
        hints = vp.move_hints(lang, talk.listen_for(state, table.names, lang, False).moves)
        gather = _gather(vr, v, call.url("/move", t=token), hints, lang, finish_on_key="#")
        _speak(gather, lang, lines, talk.spoken_prompt(state, lang))
    else:
        action = call.url("/move", t=token, c=confirm)
        gather = _gather(vr, v, action, vp.confirm_hints(lang), lang, num_digits=1)
        _speak(gather, lang, lines, vp.say(lang, "confirm_keys"))
    vr.redirect(call.url("/silence", t=token, n=tries, c=confirm), method="POST")
    return vr


def _wait(v: Voice, call: Call, where: Where, table: Table, lines: list[str], waiting: str) -> VoiceResponse:
    """The waiting loop: never more than a few seconds of silence, and it notices when it
    is this caller's turn even if the live update never arrived."""
    token = v.calls.token(call.sid, where.session_id, _turn(table))
    vr = VoiceResponse()
    _speak(vr, table.config.lang, lines, waiting)
    vr.pause(length=v.settings.voice_wait_pause)
    vr.redirect(call.url("/wait", t=token), method="POST")
    return vr


def _lobby(
    v: Voice, call: Call, where: Where, table: Table, lines: list[str], *, code: bool = False
) -> VoiceResponse:
    """Before the first game: the creator hears the code and starts; the others wait."""
    lang = table.config.lang
    if _creator(table) != where.address or where.speaker is None:
        creator = table.players[0].name if table.players else ""
        return _wait(v, call, where, table, lines, vp.say(lang, "wait_start", player=creator))
    row = v.referee.store.session(where.session_id)
    said = [vp.say(lang, "your_code", code=vp.spoken_code(row.code or "", lang))] if code and row else []
    token = v.calls.token(call.sid, where.session_id, 0)
    vr = VoiceResponse()
    gather = _gather(
        vr, v, call.url("/lobby", t=token), vp.word_hints(lang, "words_start", "words_repeat"), lang,
        num_digits=1, timeout=v.settings.voice_wait_pause,
    )
    _speak(gather, lang, lines, said, vp.say(lang, "lobby_keys"))
    vr.redirect(call.url("/lobby", t=token, quiet=1), method="POST")
    return vr


def _after_game(
    v: Voice, call: Call, where: Where, table: Table, lines: list[str], tries: int = 0
) -> VoiceResponse:
    lang = table.config.lang
    token = v.calls.token(call.sid, where.session_id, _turn(table))
    vr = VoiceResponse()
    hints = vp.command_hints(lang, "new_game", "status", "rules", "help")
    gather = _gather(vr, v, call.url("/move", t=token, end=1), hints, lang, num_digits=1)
    # The game's own last line may have said "say new game" already: not twice in a row.
    told = any(vp.say(lang, "play_again_said").lower() in line.lower() for line in lines)
    _speak(gather, lang, lines, vp.say(lang, "after_game_told" if told else "after_game"))
    vr.redirect(call.url("/silence", t=token, n=tries, end=1), method="POST")
    return vr


def _stream(v: Voice, call: Call, where: Where, table: Table, lines: list[str]) -> VoiceResponse:
    """Hand the running game to our own recogniser (GAMEHOST_VOICE_RECOGNIZER=vosk). When
    the stream ends the call comes back here for one <Gather> round, so a stream that keeps
    failing cannot loop the caller."""
    from host.channels import media

    lang = table.config.lang
    vr = VoiceResponse()
    if lines:
        _speak(vr, lang, lines)
    token = v.calls.token(call.sid, where.session_id, _turn(table))
    address = where.address if where.speaker is not None else None
    # The stream is bound to this call: the media route trusts only this token.
    grant = media.mint_token(v.referee.store, call.sid, where.session_id, where.speaker, address, lang)
    return media.stream_response(
        call.base_url,
        where.session_id,
        where.speaker,
        lang,
        address=address,
        after_url=call.url("/wait", t=token, g=1),
        response=vr,
        token=grant,
    )


def _carry_on(
    v: Voice, call: Call, where: Where, lines: list[str], *, table: Table | None = None,
    code: bool = False, stream: bool = True,
) -> VoiceResponse:
    """Whatever comes next for this caller, after ``lines``: their move, the waiting loop,
    the lobby, or the after-game question (or our own recogniser, when it is on). ``table``:
    the game as the caller has just read it (the waiting loop comes round every few seconds)."""
    if table is None:
        table = v.referee.table(where.session_id)
    lang = table.config.lang
    if table.state is None:
        return _lobby(v, call, where, table, lines, code=code)
    if not table.running:
        return _after_game(v, call, where, table, lines)
    if stream and v.streams is not None and v.streams(lang):
        return _stream(v, call, where, table, lines)
    current = table.current_player
    if where.speaker is None or current == where.speaker:
        asked = table.asked
        if asked is not None and asked.turn == table.state.turn and asked.player in ("", current):
            # Still waiting for yes or no (the call was redirected, or called back): ask again.
            question = spoken(_confirm_line(table), lang)
            return _move(v, call, where, table, [*lines, question], confirm=asked_words(table))
        return _move(v, call, where, table, lines)
    return _wait(v, call, where, table, lines, vp.say(lang, "waiting", player=current))


def _goodbye(lang: str, lines: list[str]) -> VoiceResponse:
    vr = VoiceResponse()
    _speak(vr, lang, lines, vp.say(lang, "goodbye"))
    vr.hangup()
    return vr


def _ask(
    v: Voice, call: Call, path: str, query: dict[str, object], tries: int, hints: str,
    lines: list[str], prompt: str, **extra: Any,
) -> VoiceResponse:
    """A question before the game: silence comes back to ``path`` as a quiet try."""
    vr = VoiceResponse()
    gather = _gather(vr, v, call.url(path, **query, n=tries), hints, v.lang, **extra)
    _speak(gather, v.lang, lines, prompt)
    vr.redirect(call.url(path, **query, n=tries + 1, quiet=1), method="POST")
    return vr


def _menu(v: Voice, call: Call, lines: list[str], tries: int = 0) -> VoiceResponse:
    lang = v.lang
    if tries >= MENU_TRIES:
        return _goodbye(lang, lines)
    hints = vp.word_hints(lang, "words_new", "words_join", "words_room", "words_training")
    return _ask(v, call, "/menu", {}, tries, hints, lines, vp.say(lang, "menu"), num_digits=1)


def _ask_name(v: Voice, call: Call, path: str, **query: object) -> VoiceResponse:
    """Names go to the default speech model; silence or a key gives "Player N"."""
    lang = v.lang
    vr = VoiceResponse()
    gather = _gather(
        vr, v, call.url(path, **query), "", lang, model=False, num_digits=1, timeout=NAME_TIMEOUT,
        action_on_empty_result=True,
    )
    seat = query.get("i")
    if seat is not None:
        text = vp.say(lang, "room_name", number=to_words(int(str(seat)), lang))
    else:
        text = vp.say(lang, "your_name")
    _speak(gather, lang, text)
    return vr


def _ask_code(v: Voice, call: Call, name: str, lines: list[str], tries: int) -> VoiceResponse:
    lang = v.lang
    if tries >= MENU_TRIES:
        return _menu(v, call, lines)
    return _ask(
        v, call, "/code", {"name": name}, tries, vp.digit_hints(lang), lines, vp.say(lang, "join_code"),
        finish_on_key="#", timeout=CODE_TIMEOUT,
    )


def _ask_count(v: Voice, call: Call, mode: str, lines: list[str], tries: int) -> VoiceResponse:
    lang = v.lang
    if tries >= MENU_TRIES:
        return _menu(v, call, lines)
    hints = vp.count_hints(lang, MIN_ROOM, MAX_ROOM)
    text = vp.say(lang, "room_count", low=to_words(MIN_ROOM, lang), high=to_words(MAX_ROOM, lang))
    return _ask(v, call, "/room", {"mode": mode}, tries, hints, lines, text, num_digits=1)


def _elsewhere(v: Voice, call: Call) -> VoiceResponse:
    """A request from a call that is not (or no longer) in a game."""
    member = v.lobby.member(call.address)
    if member is not None and member.call_sid not in (None, call.sid):
        other = v.calls.get(member.call_sid)
        if other is not None and not other.ended:
            return _goodbye(v.lang, [vp.say(v.lang, "other_call")])
    return _entry(v, call, [])


# -- the way in ----------------------------------------------------------------------------


def _entry(v: Voice, call: Call, lines: list[str]) -> VoiceResponse:
    """Back into this number's game if it has one, else the menu."""
    claimed = _claimed(call)
    if claimed is not None and v.lobby.member(claimed) is not None:
        # An unattested caller ID of a seated player: the join code first.
        return _ask_code(v, call, "", [*lines, vp.say(v.lang, "prove_code")], 0)
    member = v.lobby.member(call.address)
    if member is not None and _card_game(v, member.session_id):
        # Calls speak Up-or-Down only; the number stays in its card game, told by text.
        return _goodbye(v.lang, [*lines, vp.say(v.lang, "card_game")])
    if member is not None:
        prev = member.channel
        if prev == CHANNEL:
            # Calling back: keep what the number was before its first call (sms or voice).
            before = v.calls.previous(call.address, call.sid)
            prev = before.prev_channel if before is not None and before.prev_channel else CHANNEL
        v.lobby.set_call(call.address, call.sid, CHANNEL)
        call = v.calls.update(call.sid, session_id=member.session_id, shared=0, prev_channel=prev)
        return _rejoin(v, call, Where(member.session_id, member.name, call.address), lines)
    room = v.calls.room(call.address)
    if room is not None:
        row = v.referee.store.session(room)
        if row is not None and row.status != "closed":
            call = v.calls.update(call.sid, session_id=room, shared=1)
            return _rejoin(v, call, Where(room, None, call.address), lines)
        v.calls.drop_room(call.address)
    return _menu(v, call, [*lines, vp.say(v.lang, "welcome")])


def _rejoin(v: Voice, call: Call, where: Where, lines: list[str]) -> VoiceResponse:
    table = v.referee.table(where.session_id)
    lang = table.config.lang
    said = [*lines, vp.say(lang, "welcome_back"), *vp.status_lines(table)]
    out = where.speaker is not None and table.running
    if out and table.spec.rules.refusal(table.state, Leave(str(where.speaker))) is not None:
        said.append(vp.say(lang, "watching"))  # out of this game: listening only
    return _carry_on(v, call, where, said, table=table, code=True)


async def incoming(request: Request) -> Response:
    """A call comes in."""
    form, v = await _signed(request)
    return await v.workers.run(_answer, v, request, form, lambda call: _entry(v, call, []))


async def menu(request: Request) -> Response:
    form, v = await _signed(request)
    n, quiet = _int(request, "n", 0), _int(request, "quiet", 0)

    def build(call: Call) -> VoiceResponse:
        lang = v.lang
        digits, speech = _field(form, "Digits"), _field(form, "SpeechResult")
        picked = {"1": "new", "2": "join", "3": "room"}.get(digits) if digits else None
        if picked is None and speech:
            picked = vp.choice(speech, lang, {"new": "words_new", "join": "words_join", "room": "words_room"})
        if picked is None:
            return _menu(v, call, [] if quiet else [vp.say(lang, "menu_again")], n + (0 if quiet else 1))
        if v.lobby.member(call.address) is not None:
            return _entry(v, call, [])
        training = bool(speech) and vp.choice(speech, lang, {"t": "words_training"}) is not None
        mode = "training" if training else "tournament"
        if picked == "new":
            return _ask_name(v, call, "/name", mode=mode)
        if picked == "join":
            return _ask_name(v, call, "/name", join=1)
        return _ask_count(v, call, mode, [], 0)

    return await v.workers.run(_answer, v, request, form, build)


async def name(request: Request) -> Response:
    """A caller's name, then a new game (its code read out) or the code of one to join."""
    form, v = await _signed(request)
    mode, join = request.query_params.get("mode", "tournament"), _int(request, "join", 0)

    def build(call: Call) -> VoiceResponse:
        said = vp.name_heard(_field(form, "SpeechResult"), v.lang) or ""
        if join:
            return _ask_code(v, call, said, [], 0)
        if v.lobby.member(call.address) is not None:  # a retried request: already made
            return _entry(v, call, [])
        player = said or vp.say(v.lang, "default_name", number=1)
        config = v.config(mode, shared=False)
        joined = v.lobby.create(call.address, player, CHANNEL, config, call_sid=call.sid)
        call = v.calls.update(call.sid, session_id=joined.session_id, shared=0, prev_channel=CHANNEL)
        return _carry_on(v, call, Where(joined.session_id, player, call.address), [], code=True)

    return await v.workers.run(_answer, v, request, form, build)


async def code(request: Request) -> Response:
    """The join code, keyed (ended by #) or spoken digit by digit."""
    form, v = await _signed(request)
    name = request.query_params.get("name", "")
    n, quiet = _int(request, "n", 0), _int(request, "quiet", 0)

    def build(call: Call) -> VoiceResponse:
        lang = v.lang
        digits, speech = _field(form, "Digits"), _field(form, "SpeechResult")
        heard = digits.strip("#*") if digits else vp.code_heard(speech, lang)
        if not heard:
            again = [] if quiet else [vp.say(lang, "menu_again")]
            return _ask_code(v, call, name, again, n + (0 if quiet else 1))
        if len(heard) != CODE_DIGITS or not heard.isdigit():
            wrong = vp.say(lang, "code_length", digits=to_words(CODE_DIGITS, lang))
            return _ask_code(v, call, name, [wrong], n + 1)
        if v.lobby.member(call.address) is not None:
            return _entry(v, call, [])
        claimed = _claimed(call)
        if claimed is not None and (member := v.lobby.member(claimed)) is not None:
            # A guest whose caller ID claims a seated player: the game's code proves it.
            row = v.referee.store.session(member.session_id)
            if v.lobby.out_of_guesses(claimed, v.referee.clock()):
                return _goodbye(lang, [vp.say(lang, "too_many_tries")])
            if row is not None and row.code == heard:
                call = v.calls.update(call.sid, address=claimed)
                return _entry(v, call, [])
            v.lobby.wrong_guess(claimed, v.referee.clock())
            return _ask_code(v, call, name, [vp.say(lang, "no_such_game")], n + 1)
        result = _join(v, call, heard, name)
        if isinstance(result, Joined):
            call = v.calls.update(call.sid, session_id=result.session_id, shared=0, prev_channel=CHANNEL)
            notice = Reply(result.session_id, news=[vp.say(lang, "joined", player=result.name)])
            _fan_out(v, notice, call.address)
            where = Where(result.session_id, result.name, call.address)
            return _carry_on(v, call, where, [vp.say(lang, "you_joined", player=result.name)])
        if result == "too_many_tries":
            return _goodbye(lang, [vp.say(lang, "too_many_tries")])
        if result == "started":
            return _menu(v, call, [vp.say(lang, "started")])
        if result == "already_in_game":
            return _entry(v, call, [])
        if result == "card_game":
            return _menu(v, call, [vp.say(lang, "card_game")])
        if result == "full":
            return _menu(v, call, [vp.say(lang, "full")])
        return _ask_code(v, call, name, [vp.say(lang, "no_such_game")], n + 1)

    return await v.workers.run(_answer, v, request, form, build)


def _card_game(v: Voice, session_id: str) -> bool:
    """Whether the session's game is one a call cannot play."""
    row = v.referee.store.session(session_id)
    return row is not None and CHANNEL not in find_game(row.game).channels


def _join(v: Voice, call: Call, code: str, said: str) -> Joined | str:
    row = v.referee.store.session_by_code(code)
    if row is not None and CHANNEL not in find_game(row.game).channels:
        return "card_game"
    taken = v.referee.table(row.id).names if row is not None else ()
    player = said or vp.say(v.lang, "default_name", number=len(taken) + 1)
    for _ in range(3):  # a name taken between look and join: pick the next free one
        result = v.lobby.join(call.address, code, vp.unique_name(player, taken), CHANNEL, call.sid)
        if result != "name_taken" or row is None:
            return result
        taken = v.referee.table(row.id).names
    return "name_taken"


async def room(request: Request) -> Response:
    """How many play on this one phone."""
    form, v = await _signed(request)
    mode = request.query_params.get("mode", "tournament")
    n, quiet = _int(request, "n", 0), _int(request, "quiet", 0)

    def build(call: Call) -> VoiceResponse:
        lang = v.lang
        count = vp.count_heard(_field(form, "Digits"), _field(form, "SpeechResult"), lang)
        if count is None or not MIN_ROOM <= count <= MAX_ROOM:
            again = [] if quiet and count is None else [vp.say(lang, "menu_again")]
            return _ask_count(v, call, mode, again, n + (0 if quiet else 1))
        call = v.calls.update(call.sid, setup={"count": count, "names": [], "mode": mode})
        return _ask_name(v, call, "/room-name", i=1)

    return await v.workers.run(_answer, v, request, form, build)


async def room_name(request: Request) -> Response:
    """Each player's name in turn; after the last, the game begins."""
    form, v = await _signed(request)
    i = _int(request, "i", 1)

    def build(call: Call) -> VoiceResponse:
        if call.shared and call.session_id is not None:  # a retried last name: already begun
            return _carry_on(v, call, Where(call.session_id, None, call.address), [])
        setup = call.setup
        if setup is None:
            return _menu(v, call, [])
        names: list[str] = list(setup["names"])
        if len(names) == i - 1:  # not a retry of a name already taken down
            said = vp.name_heard(_field(form, "SpeechResult"), v.lang)
            names.append(vp.unique_name(said or vp.say(v.lang, "default_name", number=i), names))
            call = v.calls.update(call.sid, setup={**setup, "names": names})
        if len(names) < setup["count"]:
            return _ask_name(v, call, "/room-name", i=len(names) + 1)
        config = v.config(setup["mode"], shared=True)
        session_id = v.referee.create(config, names, begin=True)
        call = v.calls.update(call.sid, session_id=session_id, shared=1, setup=None)
        v.calls.set_room(call.address, session_id)
        begun = load(config.lang).phrase("new_game", players=", ".join(names))
        return _carry_on(v, call, Where(session_id, None, call.address), [spoken(begun, config.lang)])

    return await v.workers.run(_answer, v, request, form, build)


async def lobby(request: Request) -> Response:
    """The creator's lobby: hear the code again, or start the game."""
    form, v = await _signed(request)
    quiet = _int(request, "quiet", 0)

    def build(call: Call, where: Where, table: Table) -> VoiceResponse:
        lang = table.config.lang
        if table.state is not None:
            return _carry_on(v, call, where, [], table=table)
        if quiet:
            waiting = vp.say(lang, "lobby_still", players=", ".join(table.names))
            return _lobby(v, call, where, table, [waiting])
        digits, speech = _field(form, "Digits"), _field(form, "SpeechResult")
        picked = {"1": "repeat", "2": "start"}.get(digits) if digits else None
        if picked is None and speech:
            picked = vp.choice(speech, lang, {"start": "words_start", "repeat": "words_repeat"})
        if picked == "repeat":
            return _lobby(v, call, where, table, [], code=True)
        if picked != "start":
            return _lobby(v, call, where, table, [vp.say(lang, "menu_again")])
        if len(table.players) < table.spec.min_players:
            return _lobby(v, call, where, table, [vp.say(lang, "nobody_joined")], code=True)
        if _creator(table) != where.address:
            return _carry_on(v, call, where, [], table=table)
        reply = v.referee.begin(where.session_id)
        _fan_out(v, reply, call.address)
        return _carry_on(v, call, where, vp.reply_lines(reply, v.referee.table(where.session_id)))

    return await v.workers.run(_in_game, v, request, form, build)


# -- the game --------------------------------------------------------------------------------


def _heard(form: FormData, lang: str, confirm: str | None, end: int) -> tuple[str | None, SpeechText | None]:
    """What was said, as text for the referee. Keys are exact (no hearing to doubt); speech
    comes with its confidence, and a missing confidence counts as low."""
    digits, speech = _field(form, "Digits"), _field(form, "SpeechResult")
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
        return speech, SpeechText((speech,), _confidence(_field(form, "Confidence")))
    return None, None


async def move(request: Request) -> Response:
    """A move, a command, or the answer to "Did you say ...?"."""
    form, v = await _signed(request)
    t, c, end = request.query_params.get("t", ""), request.query_params.get("c"), _int(request, "end", 0)

    def build(call: Call, where: Where, table: Table) -> VoiceResponse:
        lang = table.config.lang
        key = f"voice:{call.sid}:{t}"
        retry = v.referee.store.reply(key) is not None
        token = Token.parse(t)
        if not retry and not _current(token, where, table):
            # Spoken for a turn that has passed (or a game that ended): not this turn's move.
            late = [vp.say(lang, "too_late")] if table.running else []
            return _carry_on(v, call, where, late, table=table)
        text, hearing = _heard(form, lang, c, end)
        if text is None:
            lines = [vp.say(lang, "not_understood")]
            if c is not None and table.running and table.asked is not None:
                lines.append(spoken(_confirm_line(table), lang))
                return _move(v, call, where, table, lines, confirm=c)
            return _carry_on(v, call, where, lines, table=table)
        if where.speaker is not None and parse(text, lang).intent() == CommandSaid("leave"):
            # Leaving by phone means leaving the game, not only the round: hang up after.
            left = v.lobby.leave(call.address)
            _fan_out(v, left, call.address)
            return _goodbye(lang, [vp.say(lang, "you_left")])
        reply = v.referee.handle(where.session_id, text, where.speaker, key=key, hearing=hearing)
        if reply.accepted and not retry:
            _fan_out(v, reply, call.address)
        table = v.referee.table(where.session_id)
        lines = vp.reply_lines(reply, table)
        if reply.confirm is not None and table.running and table.state.turn == reply.turn:
            return _move(v, call, where, table, lines, confirm=reply.confirm)
        return _carry_on(v, call, where, lines, table=table)

    return await v.workers.run(_in_game, v, request, form, build)


def _confirm_line(table: Table) -> str:
    """The read-back waiting: "Did you say fifteen?"."""
    return load(table.lang).phrase("confirm", what=asked_words(table))


async def silence(request: Request) -> Response:
    """A ``<Gather>`` heard nothing: ask again twice, then the turn-timeout rule applies."""
    form, v = await _signed(request)
    t, c = request.query_params.get("t", ""), request.query_params.get("c")
    n, _end = _int(request, "n", 0), _int(request, "end", 0)  # end: checked as before, not needed

    def build(call: Call, where: Where, table: Table) -> VoiceResponse:
        lang = table.config.lang
        state = table.state
        token = Token.parse(t)
        if not _current(token, where, table) or state is None:
            return _carry_on(v, call, where, [], table=table)
        if not table.running:
            if n >= REPROMPTS:
                return _goodbye(lang, [])
            return _after_game(v, call, where, table, [], tries=n + 1)
        current = table.current_player
        if where.speaker is not None and current != where.speaker:
            return _carry_on(v, call, where, [], table=table)
        if n < REPROMPTS:
            lines = [vp.say(lang, "still_there", player=current)]
            asking = c is not None and table.asked is not None
            if asking:
                lines.append(spoken(_confirm_line(table), lang))
            return _move(v, call, where, table, lines, tries=n + 1, confirm=c if asking else None)
        reply = v.referee.timeout(where.session_id, state.turn)
        _fan_out(v, reply, call.address)
        table = v.referee.table(where.session_id)
        lines = vp.reply_lines(reply, table) if reply is not None else []
        return _carry_on(v, call, where, lines, table=table)

    return await v.workers.run(_in_game, v, request, form, build)


async def wait(request: Request) -> Response:
    """The waiting loop comes round: catch up on anything missed, then carry on."""
    form, v = await _signed(request)
    t, g = request.query_params.get("t", ""), _int(request, "g", 0)

    def build(call: Call, where: Where, table: Table) -> VoiceResponse:
        lang = table.config.lang
        token = Token.parse(t)
        lines: list[str] = []
        if token is not None and token.turn != _turn(table) and table.state is not None:
            if not table.moves:
                lines = [spoken(load(lang).phrase("new_game", players=", ".join(table.names)), lang)]
            else:
                lines = [spoken(s, lang) for s in describe_events(table, table.last_events)]
        return _carry_on(v, call, where, lines, table=table, stream=not g)

    return await v.workers.run(_in_game, v, request, form, build)


# -- hang-ups and live updates ---------------------------------------------------------------


async def status(request: Request) -> Response:
    """Call status callback: a call that ended takes its player out by the rules."""
    form, v = await _signed(request)
    if _field(form, "CallStatus") in ENDED:
        await v.workers.run(_ended, v, _field(form, "CallSid"))
    return _xml(VoiceResponse())


def _ended(v: Voice, sid: str) -> None:
    try:
        with v.referee.store.transaction():
            _hung_up(v, sid)
    except Exception:  # Twilio only logs our answer; the others must not be left hanging
        log.exception("handling the end of call %s failed", sid)


def _hung_up(v: Voice, sid: str) -> None:
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
    _fan_out(v, reply, call.address)


def _notify(outbound: Outbound, member: LobbyMember, reply: Reply) -> None:
    """Tell a caller what just happened by redirecting their live call."""
    v = _voices.get(outbound)
    if v is None:
        log.warning("no voice service for this outbound; %s not told", member.name)
        return
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
    lines = vp.reply_lines(reply, table)
    vr = _carry_on(v, call, where, lines, table=table)
    outbound.update_call(member.call_sid, render(vr), summary=" ".join(lines))


# The webhooks, below /twilio/voice (``setup`` adds them).
ROUTES = (
    ("", incoming), ("/menu", menu), ("/name", name), ("/code", code), ("/room", room),
    ("/room-name", room_name), ("/lobby", lobby), ("/move", move), ("/silence", silence),
    ("/wait", wait), ("/status", status),
)

"""The way into a call: back into the number's game if it has one (its lobby membership,
or the one-phone game last played on that phone), else the menu: 1 new game (a name, then
the join code read out), 2 join by code, 3 this phone for everyone in the room
(``room.py``). A guest (a caller ID not attested, ``requests.caller_address``) that claims
a seated player's number proves it with that seat's PIN first (``/pin``); one that takes a
new seat takes it as its number, and the seat's PIN is texted to that number
(``host/pins.py``): a caller who only borrowed the number never learns it.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import Request
from fastapi.responses import Response
from starlette.datastructures import FormData
from twilio.twiml.voice_response import VoiceResponse

import host.channels.voice.prompts as vp
from games.base import find_game
from games.core import Leave
from grammars import load
from grammars.reader import to_words
from host import pins
from host.channels.spoken import status_lines
from host.channels.voice.calls import Call
from host.channels.voice.requests import answer, claimed_number, field, query_int, signed
from host.channels.voice.service import CHANNEL, VoiceChannel, Where, where_of
from host.channels.voice.steps import ask_code, ask_count, ask_menu, ask_name, ask_pin, goodbye, next_step
from host.lobby import CODE_DIGITS, Joined
from host.reply import Reply
from host.session import Table


def in_game(
    v: VoiceChannel, request: Request, form: FormData, build: Callable[[Call, Where, Table], VoiceResponse]
) -> Response:
    """``answer`` for a call that should be in a game; one that is not goes back in."""

    def run(call: Call) -> VoiceResponse:
        where = where_of(v, call)
        if where is None:
            return _elsewhere(v, call)
        return build(call, where, v.referee.table(where.session_id))

    return answer(v, request, form, run)


def _elsewhere(v: VoiceChannel, call: Call) -> VoiceResponse:
    """A request from a call that is not (or no longer) in a game."""
    member = v.lobby.member(call.address)
    if member is not None and member.call_sid not in (None, call.sid):
        other = v.calls.get(member.call_sid)
        if other is not None and not other.ended:
            return goodbye(v.lang(call), [vp.say(v.lang(call), "other_call")])
    return entry(v, call, [])


def entry(v: VoiceChannel, call: Call, lines: list[str]) -> VoiceResponse:
    """Back into this number's game if it has one, else the menu."""
    claimed = claimed_number(call)
    if claimed is not None and v.lobby.member(claimed) is not None:
        # An unattested caller ID of a seated player: the seat's PIN first.
        return ask_pin(v, call, [*lines, vp.say(v.lang(call), "prove_pin")], 0)
    member = v.lobby.member(call.address)
    if member is not None and _call_cannot_play(v, member.session_id):
        # Calls speak Up-or-Down only; the number stays in its card game, told by text.
        return goodbye(v.lang(call), [*lines, vp.say(v.lang(call), "card_game")])
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
    return ask_menu(v, call, [*lines, vp.say(v.lang(call), "welcome")])


def _rejoin(v: VoiceChannel, call: Call, where: Where, lines: list[str]) -> VoiceResponse:
    table = v.referee.table(where.session_id)
    lang = table.config.lang
    said = [*lines, vp.say(lang, "welcome_back"), *status_lines(table)]
    out = where.speaker is not None and table.running
    if out and table.spec.rules.refusal(table.state, Leave(str(where.speaker))) is not None:
        said.append(vp.say(lang, "watching"))  # out of this game: listening only
    return next_step(v, call, where, said, table=table, code=True)


def _call_cannot_play(v: VoiceChannel, session_id: str) -> bool:
    """Whether the session's game is one a call cannot play."""
    row = v.referee.store.session(session_id)
    return row is not None and CHANNEL not in find_game(row.game).channels


def _seat_as_number(v: VoiceChannel, call: Call) -> Call:
    """A guest taking a new seat takes it as the number it called from, which is in no
    game: its PIN goes to that number (:func:`_text_pin`), so later calls can prove it."""
    claimed = claimed_number(call)
    if claimed is not None and v.lobby.member(claimed) is None:
        return v.calls.update(call.sid, address=claimed)
    return call


def _text_pin(v: VoiceChannel, call: Call, pin: str, form: FormData) -> None:
    """A new seat's PIN, texted to its number (from the number it called), never said."""
    if not pin:
        return
    ours = field(form, "To")
    if ours:
        v.lobby.texted(call.address, ours, v.referee.clock())
    v.outbound.send_sms(
        call.address, load(v.lang(call)).phrase("sms_pin", pin=pin), from_=v.lobby.host_number(call.address)
    )


def _join(v: VoiceChannel, call: Call, code: str, said: str) -> Joined | str:
    row = v.referee.store.session_by_code(code)
    if row is not None and CHANNEL not in find_game(row.game).channels:
        return "call_cannot_play"
    taken = v.referee.table(row.id).names if row is not None else ()
    lang = str(row.config.get("lang") or v.lang(call)) if row is not None else v.lang(call)
    player = said or vp.say(lang, "default_name", number=len(taken) + 1)
    for _ in range(3):  # a name taken between look and join: pick the next free one
        result = v.lobby.join(call.address, code, vp.unique_name(player, taken), CHANNEL, call.sid)
        if result != "name_taken" or row is None:
            return result
        taken = v.referee.table(row.id).names
    return "name_taken"


# -- the webhooks --------------------------------------------------------------------------


async def pin(request: Request) -> Response:
    """A guest's PIN, keyed (ended by #) or spoken digit by digit: right, and the call is
    the seated number's; wrong ones count against that number's budget of wrong codes."""
    form, v = await signed(request)
    n, quiet = query_int(request, "n", 0), query_int(request, "quiet", 0)

    def build(call: Call) -> VoiceResponse:
        lang = v.lang(call)
        claimed = claimed_number(call)
        if claimed is None or v.lobby.member(claimed) is None:
            return entry(v, call, [])  # attested meanwhile, or the seat is gone
        digits, speech = field(form, "Digits"), field(form, "SpeechResult")
        heard = digits.strip("#*") if digits else vp.code_heard(speech, lang)
        if not heard:
            return ask_pin(v, call, [] if quiet else [vp.say(lang, "menu_again")], n + (0 if quiet else 1))
        now = v.referee.clock()
        if v.lobby.out_of_guesses(claimed, now):
            return goodbye(lang, [vp.say(lang, "too_many_tries")])
        if pins.matches(v.referee.store, claimed, heard):
            return entry(v, v.calls.update(call.sid, address=claimed), [])
        v.lobby.wrong_guess(claimed, now)
        return ask_pin(v, call, [vp.say(lang, "wrong_pin")], n + 1)

    return await v.workers.run(answer, v, request, form, build)


async def incoming(request: Request) -> Response:
    """A call comes in."""
    form, v = await signed(request)
    return await v.workers.run(answer, v, request, form, lambda call: entry(v, call, []))


async def menu(request: Request) -> Response:
    form, v = await signed(request)
    n, quiet = query_int(request, "n", 0), query_int(request, "quiet", 0)

    def build(call: Call) -> VoiceResponse:
        lang = v.lang(call)
        digits, speech = field(form, "Digits"), field(form, "SpeechResult")
        picked = {"1": "new", "2": "join", "3": "room"}.get(digits) if digits else None
        switch = vp.language_heard(speech) if picked is None and speech else None
        if switch is not None:
            # "한국어", "English": the menu again in that language, and the call in it after.
            call = v.calls.update(call.sid, setup={**(call.setup or {}), "lang": switch})
            return ask_menu(v, call, [vp.say(switch, "welcome")])
        if picked is None and speech:
            picked = vp.choice(speech, lang, {"new": "words_new", "join": "words_join", "room": "words_room"})
        if picked is None:
            return ask_menu(v, call, [] if quiet else [vp.say(lang, "menu_again")], n + (0 if quiet else 1))
        if v.lobby.member(call.address) is not None:
            return entry(v, call, [])
        training = bool(speech) and vp.choice(speech, lang, {"t": "words_training"}) is not None
        mode = "training" if training else "tournament"
        if picked == "new":
            return ask_name(v, call, "/name", mode=mode)
        if picked == "join":
            return ask_name(v, call, "/name", join=1)
        return ask_count(v, call, mode, [], 0)

    return await v.workers.run(answer, v, request, form, build)


async def name(request: Request) -> Response:
    """A caller's name, then a new game (its code read out) or the code of one to join."""
    form, v = await signed(request)
    mode, join = request.query_params.get("mode", "tournament"), query_int(request, "join", 0)

    def build(call: Call) -> VoiceResponse:
        said = vp.name_heard(field(form, "SpeechResult"), v.lang(call)) or ""
        if join:
            return ask_code(v, call, said, [], 0)
        if v.lobby.member(call.address) is not None:  # a retried request: already made
            return entry(v, call, [])
        player = said or vp.say(v.lang(call), "default_name", number=1)
        config = v.config(mode, shared=False, lang=v.lang(call))
        call = _seat_as_number(v, call)
        joined = v.lobby.create(call.address, player, CHANNEL, config, call_sid=call.sid)
        _text_pin(v, call, pins.issue(v.referee.store, call.address), form)
        call = v.calls.update(call.sid, session_id=joined.session_id, shared=0, prev_channel=CHANNEL)
        return next_step(v, call, Where(joined.session_id, player, call.address), [], code=True)

    return await v.workers.run(answer, v, request, form, build)


async def code(request: Request) -> Response:
    """The join code, keyed (ended by #) or spoken digit by digit."""
    form, v = await signed(request)
    name = request.query_params.get("name", "")
    n, quiet = query_int(request, "n", 0), query_int(request, "quiet", 0)

    def build(call: Call) -> VoiceResponse:
        lang = v.lang(call)
        digits, speech = field(form, "Digits"), field(form, "SpeechResult")
        heard = digits.strip("#*") if digits else vp.code_heard(speech, lang)
        if not heard:
            again = [] if quiet else [vp.say(lang, "menu_again")]
            return ask_code(v, call, name, again, n + (0 if quiet else 1))
        if len(heard) != CODE_DIGITS or not heard.isdigit():
            wrong = vp.say(lang, "code_length", digits=to_words(CODE_DIGITS, lang))
            return ask_code(v, call, name, [wrong], n + 1)
        if v.lobby.member(call.address) is not None:
            return entry(v, call, [])
        claimed = claimed_number(call)
        if claimed is not None and v.lobby.member(claimed) is not None:
            return entry(v, call, [])  # its number's seat: that seat's PIN, not a code
        seated = _seat_as_number(v, call)
        result = _join(v, seated, heard, name)
        if isinstance(result, Joined):
            call = seated
            _text_pin(v, call, pins.issue(v.referee.store, call.address), form)
            call = v.calls.update(call.sid, session_id=result.session_id, shared=0, prev_channel=CHANNEL)
            # From here on the game's language: the one it was made in, whoever joins it.
            table = v.referee.table(result.session_id)
            game_lang = table.config.lang
            notice = Reply(result.session_id, news=[vp.say(game_lang, "joined", player=result.name)])
            v.fan_out(notice, call.address)
            where = Where(result.session_id, result.name, call.address)
            return next_step(
                v, call, where, [vp.say(game_lang, "you_joined", player=result.name)], table=table
            )
        if result == "too_many_tries":
            return goodbye(lang, [vp.say(lang, "too_many_tries")])
        if result == "started":
            return ask_menu(v, call, [vp.say(lang, "started")])
        if result == "already_in_game":
            return entry(v, call, [])
        if result == "call_cannot_play":
            return ask_menu(v, call, [vp.say(lang, "card_game")])
        if result == "full":
            return ask_menu(v, call, [vp.say(lang, "full")])
        return ask_code(v, call, name, [vp.say(lang, "no_such_game")], n + 1)

    return await v.workers.run(answer, v, request, form, build)

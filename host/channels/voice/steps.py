"""Each step of a call as TwiML, built with the SDK's ``VoiceResponse``: the current
player's ``<Gather>`` (or the "Did you say ...?" question), the waiting loop, the creator's
lobby, the after-game question, the questions before a game (menu, name, code, PIN, head count),
and the hand-over to our own recogniser. :func:`next_step` picks what comes next for a
caller in a game.
"""

from __future__ import annotations

from typing import Any

from twilio.twiml.voice_response import Gather, VoiceResponse

import host.channels.voice.prompts as vp
from grammars import load
from grammars.reader import spoken, to_words
from host.channels.media.handover import mint_token, stream_response
from host.channels.voice.calls import Call
from host.channels.voice.service import VoiceChannel, Where, creator_of, turn_of
from host.confirm import asked_words
from host.session import Table

GATHER_TIMEOUT = 6  # seconds of silence after the prompt before the <Redirect> runs
SPEECH_TIMEOUT = 2  # seconds of quiet that end a spoken answer (answers are short)
NAME_TIMEOUT = 4
CODE_TIMEOUT = 8
MENU_TRIES = 3
MIN_ROOM, MAX_ROOM = 2, 8  # players sharing one phone


def _gather(
    vr: VoiceResponse,
    v: VoiceChannel,
    action: str,
    hints: str,
    lang: str,
    *,
    model: bool = True,
    **extra: Any,
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
    """One ``<Say>`` of lines and phrases in the language's own voice; any number left in
    digits is read as words."""
    out: list[str] = []
    for part in parts:
        out.extend([part] if isinstance(part, str) else part)
    text = " ".join(p for p in out if p)
    target.say(spoken(text, lang), voice=vp.say_voice(lang), language=vp.language_tag(lang))


def confirm_line(table: Table) -> str:
    """The read-back waiting: "Did you say fifteen?"."""
    return load(table.lang).phrase("confirm", what=asked_words(table))


# -- in a game ---------------------------------------------------------------------------------


def ask_move(
    v: VoiceChannel,
    call: Call,
    where: Where,
    table: Table,
    lines: list[str],
    *,
    tries: int = 0,
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


def _waiting(
    v: VoiceChannel, call: Call, where: Where, table: Table, lines: list[str], waiting: str
) -> VoiceResponse:
    """The waiting loop: never more than a few seconds of silence, and it notices when it
    is this caller's turn even if the live update never arrived."""
    token = v.calls.token(call.sid, where.session_id, turn_of(table))
    vr = VoiceResponse()
    _speak(vr, table.config.lang, lines, waiting)
    vr.pause(length=v.settings.voice_wait_pause)
    vr.redirect(call.url("/wait", t=token), method="POST")
    return vr


def lobby_step(
    v: VoiceChannel, call: Call, where: Where, table: Table, lines: list[str], *, code: bool = False
) -> VoiceResponse:
    """Before the first game: the creator hears the code and starts; the others wait."""
    lang = table.config.lang
    if creator_of(table) != where.address or where.speaker is None:
        creator = table.players[0].name if table.players else ""
        return _waiting(v, call, where, table, lines, vp.say(lang, "wait_start", player=creator))
    row = v.referee.store.session(where.session_id)
    said = [vp.say(lang, "your_code", code=vp.spoken_code(row.code or "", lang))] if code and row else []
    token = v.calls.token(call.sid, where.session_id, 0)
    vr = VoiceResponse()
    gather = _gather(
        vr,
        v,
        call.url("/lobby", t=token),
        vp.word_hints(lang, "words_start", "words_repeat"),
        lang,
        num_digits=1,
        timeout=v.settings.voice_wait_pause,
    )
    _speak(gather, lang, lines, said, vp.say(lang, "lobby_keys"))
    vr.redirect(call.url("/lobby", t=token, quiet=1), method="POST")
    return vr


def after_game(
    v: VoiceChannel, call: Call, where: Where, table: Table, lines: list[str], tries: int = 0
) -> VoiceResponse:
    lang = table.config.lang
    token = v.calls.token(call.sid, where.session_id, turn_of(table))
    vr = VoiceResponse()
    hints = vp.command_hints(lang, "new_game", "status", "rules", "help")
    gather = _gather(vr, v, call.url("/move", t=token, end=1), hints, lang, num_digits=1)
    # The game's own last line may have said "say new game" already: not twice in a row.
    told = any(vp.say(lang, "play_again_said").lower() in line.lower() for line in lines)
    _speak(gather, lang, lines, vp.say(lang, "after_game_told" if told else "after_game"))
    vr.redirect(call.url("/silence", t=token, n=tries, end=1), method="POST")
    return vr


def _hand_over(v: VoiceChannel, call: Call, where: Where, table: Table, lines: list[str]) -> VoiceResponse:
    """Hand the running game to our own recogniser (GAMEHOST_VOICE_RECOGNIZER=vosk). When
    the stream ends the call comes back here for one <Gather> round, so a stream that keeps
    failing cannot loop the caller."""
    lang = table.config.lang
    vr = VoiceResponse()
    if lines:
        _speak(vr, lang, lines)
    token = v.calls.token(call.sid, where.session_id, turn_of(table))
    address = where.address if where.speaker is not None else None
    # The stream is bound to this call: the media route trusts only this token.
    grant = mint_token(v.referee.store, call.sid, where.session_id, where.speaker, address, lang)
    return stream_response(
        call.base_url,
        where.session_id,
        where.speaker,
        lang,
        address=address,
        after_url=call.url("/wait", t=token, g=1),
        response=vr,
        token=grant,
    )


def next_step(
    v: VoiceChannel,
    call: Call,
    where: Where,
    lines: list[str],
    *,
    table: Table | None = None,
    code: bool = False,
    stream: bool = True,
) -> VoiceResponse:
    """Whatever comes next for this caller, after ``lines``: their move, the waiting loop,
    the lobby, or the after-game question (or our own recogniser, when it is on). ``table``:
    the game as the caller has just read it (the waiting loop comes round every few seconds)."""
    if table is None:
        table = v.referee.table(where.session_id)
    lang = table.config.lang
    if table.state is None:
        return lobby_step(v, call, where, table, lines, code=code)
    if not table.running:
        return after_game(v, call, where, table, lines)
    if stream and v.streams is not None and v.streams(lang):
        return _hand_over(v, call, where, table, lines)
    current = table.current_player
    if where.speaker is None or current == where.speaker:
        asked = table.asked
        if asked is not None and asked.turn == table.state.turn and asked.player in ("", current):
            # Still waiting for yes or no (the call was redirected, or called back): ask again.
            question = spoken(confirm_line(table), lang)
            return ask_move(v, call, where, table, [*lines, question], confirm=asked_words(table))
        return ask_move(v, call, where, table, lines)
    return _waiting(v, call, where, table, lines, vp.say(lang, "waiting", player=current))


def goodbye(lang: str, lines: list[str]) -> VoiceResponse:
    vr = VoiceResponse()
    _speak(vr, lang, lines, vp.say(lang, "goodbye"))
    vr.hangup()
    return vr


# -- before a game -----------------------------------------------------------------------------


def _ask(
    v: VoiceChannel,
    call: Call,
    path: str,
    query: dict[str, object],
    tries: int,
    hints: str,
    lines: list[str],
    prompt: str,
    **extra: Any,
) -> VoiceResponse:
    """A question before the game: silence comes back to ``path`` as a quiet try."""
    vr = VoiceResponse()
    gather = _gather(vr, v, call.url(path, **query, n=tries), hints, v.lang(call), **extra)
    _speak(gather, v.lang(call), lines, prompt)
    vr.redirect(call.url(path, **query, n=tries + 1, quiet=1), method="POST")
    return vr


def ask_menu(v: VoiceChannel, call: Call, lines: list[str], tries: int = 0) -> VoiceResponse:
    lang = v.lang(call)
    if tries >= MENU_TRIES:
        return goodbye(lang, lines)
    hints = vp.word_hints(lang, "words_new", "words_join", "words_room", "words_training", languages=True)
    return _ask(v, call, "/menu", {}, tries, hints, lines, vp.say(lang, "menu"), num_digits=1)


def ask_name(v: VoiceChannel, call: Call, path: str, **query: object) -> VoiceResponse:
    """Names go to the default speech model; silence or a key gives "Player N"."""
    lang = v.lang(call)
    vr = VoiceResponse()
    gather = _gather(
        vr,
        v,
        call.url(path, **query),
        "",
        lang,
        model=False,
        num_digits=1,
        timeout=NAME_TIMEOUT,
        action_on_empty_result=True,
    )
    seat = query.get("i")
    if seat is not None:
        text = vp.say(lang, "room_name", number=to_words(int(str(seat)), lang))
    else:
        text = vp.say(lang, "your_name")
    _speak(gather, lang, text)
    return vr


def ask_code(v: VoiceChannel, call: Call, name: str, lines: list[str], tries: int) -> VoiceResponse:
    lang = v.lang(call)
    if tries >= MENU_TRIES:
        return ask_menu(v, call, lines)
    return _ask(
        v,
        call,
        "/code",
        {"name": name},
        tries,
        vp.digit_hints(lang),
        lines,
        vp.say(lang, "join_code"),
        finish_on_key="#",
        timeout=CODE_TIMEOUT,
    )


def ask_pin(v: VoiceChannel, call: Call, lines: list[str], tries: int) -> VoiceResponse:
    """A guest whose caller ID claims a seated player: that seat's PIN, or goodbye."""
    lang = v.lang(call)
    if tries >= MENU_TRIES:
        return goodbye(lang, lines)
    return _ask(
        v,
        call,
        "/pin",
        {},
        tries,
        vp.digit_hints(lang),
        lines,
        vp.say(lang, "your_pin"),
        finish_on_key="#",
        timeout=CODE_TIMEOUT,
    )


def ask_count(v: VoiceChannel, call: Call, mode: str, lines: list[str], tries: int) -> VoiceResponse:
    lang = v.lang(call)
    if tries >= MENU_TRIES:
        return ask_menu(v, call, lines)
    hints = vp.count_hints(lang, MIN_ROOM, MAX_ROOM)
    text = vp.say(lang, "room_count", low=to_words(MIN_ROOM, lang), high=to_words(MAX_ROOM, lang))
    return _ask(v, call, "/room", {"mode": mode}, tries, hints, lines, text, num_digits=1)

"""Starting a game from the command line (``play`` and ``table``): the session, the setup
talk given as options said first, a script's ``wait``, and how replies are printed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from games.base import GameSpec
from grammars import GrammarError, languages, load
from host.answers import prompt_text, turn_event
from host.cli.console import fail, out
from host.cli.options import flagged, seats_text, setup_flags
from host.config import get_settings
from host.deadline import SkipClock, Watch, waited
from host.referee import Referee
from host.reply import Reply
from host.session import SessionConfig, Table
from host.store import Store

_SPEAKER = re.compile(r"^\s*([^:\d][^:]{0,40}):\s*(.*)$")


def check_lang(lang: str) -> None:
    if lang not in languages():
        raise fail(f"unknown language {lang!r} (have: {', '.join(languages())})")
    try:
        load(lang)
    except GrammarError as exc:
        raise fail(str(exc)) from None


def split_speaker(line: str, players: tuple[str, ...]) -> tuple[str | None, str]:
    """``Name: utterance`` names who speaks; a bare line is the current player's."""
    match = _SPEAKER.match(line)
    if not match:
        return None, line.strip()
    name = match[1].strip()
    for player in players:
        if player.casefold() == name.casefold():
            return player, match[2].strip()
    return name, match[2].strip()


def emit(reply: Reply, as_json: bool) -> None:
    if as_json:
        for event in reply.events:
            out.print(json.dumps(event, ensure_ascii=False))
    else:
        for line in reply.lines:
            out.print(line)


def new_session(
    referee: Referee,
    spec: GameSpec[Any, Any, Any],
    names: list[str],
    options: dict[str, object],
    lang: str,
    *,
    confirm_below: float | None = None,
) -> str:
    if not spec.seats(len(names)):
        raise fail(f"--players: {spec.name} seats {seats_text(spec, ' to ')} players, not {len(names)}")
    settings = get_settings()
    config = SessionConfig(
        game=spec.name,
        options=options,
        lang=lang,
        undo_grace=settings.table_undo_grace,
        confirm_below=settings.confirm_below if confirm_below is None else confirm_below,
    )
    try:
        return referee.create(config, names)
    except ValueError as exc:
        raise fail(flagged(spec, str(exc))) from None


def said_first(referee: Referee, session_id: str, lines: list[tuple[str, str]]) -> list[Reply]:
    """Say the setup talk given as options; a line the game does not take exits 2."""
    steps = setup_flags()
    replies: list[Reply] = []
    for flag, line in lines:
        seconds = waited(line)
        if seconds is not None:
            replies.extend(pass_time(referee, session_id, seconds))
            continue
        table = referee.table(session_id)
        if flag in steps and table.to_act():
            # Past the setup steps (or a game with none) the line would be taken as a move.
            raise fail(
                f"{flag} does not apply to {table.spec.name}: it has no setup step for it"
                f" (it starts: {prompt_text(table)})"
            )
        speaker, text = split_speaker(line, table.names)
        reply = referee.handle(session_id, text, speaker)
        if not reply.accepted:
            given = {f for f, _ in lines}
            earlier = steps[: steps.index(flag)] if flag in steps else ()
            before = [f for f in earlier if f not in given]
            if before:
                # "--lane" alone was heard as a wrong answer to "Which 3 suits?": say what is missing.
                asked = prompt_text(table)
                raise fail(f"{flag} needs {' and '.join(before)} too: the game asks first: {asked}")
            raise fail(f"{flag}: {' '.join(reply.private) or 'not understood'}")
        replies.append(reply)
    if not replies:
        return [opening_reply(referee.table(session_id))]
    for (flag, _), reply in zip(lines[:-1], replies[:-1], strict=False):
        if flag in steps:
            # Only the last step's "what next" is shown: the options answered the others. A
            # --say line is table talk: answered as a typed line is, with its turn.
            reply.prompt = None
            reply.events = [e for e in reply.events if e["type"] != "turn"]
    return replies


def pass_time(referee: Referee, session_id: str, seconds: float) -> list[Reply]:
    """A script's ``wait 30``: the referee's clock moves on, and a step whose time ran out
    is ruled (the game's ``on_timeout``) as if the table had waited."""
    clock = referee.clock
    assert isinstance(clock, SkipClock), "the command line's referees keep a SkipClock"
    clock.skip(seconds)
    reply = Watch(referee, session_id).due()
    return [reply] if reply is not None else []


def check_setup(
    spec: GameSpec[Any, Any, Any],
    names: list[str],
    options: dict[str, object],
    lang: str,
    setup: list[tuple[str, str]],
) -> None:
    """Judge the options and setup talk on a scratch table: a wrong one exits 2 before
    anything is saved (or a speech model loads)."""
    store = Store(":memory:")
    try:
        scratch = Referee(store, SkipClock())
        said_first(scratch, new_session(scratch, spec, names, options, lang), setup)
    finally:
        store.close()


def resume_hint(session_id: str, db: Path | None) -> str:
    """The options that go on with a session (``gamehost play`` needs no game with them):
    its database too when one was given."""
    return f"--resume {session_id}" + (f" --db {db}" if db is not None else "")


def opening_reply(table: Table) -> Reply:
    """What to show when a session starts or resumes: the prompt and the turn."""
    reply = Reply("")
    reply.prompt = prompt_text(table)
    event = turn_event(table)
    if event is not None:
        reply.events.append(event)
    return reply

"""``gamehost play``: a game typed on standard input, one line an utterance."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from grammars import REFERENCE
from host.cli.console import err, fail
from host.cli.database import GameDbOption, open_store
from host.cli.options import (
    MaybeGameArgument,
    OptOption,
    PlayersHelp,
    SayOption,
    find,
    flag_values,
    options_and_setup,
    parse_players,
    takes_game_flags,
)
from host.cli.start import (
    check_lang,
    check_setup,
    emit,
    new_session,
    opening_reply,
    pass_time,
    resume_hint,
    said_first,
    split_speaker,
)
from host.deadline import SkipClock, Watch, timed_lines, waited
from host.referee import Referee


@takes_game_flags
def play(
    ctx: typer.Context,
    game: MaybeGameArgument = None,
    players: Annotated[str | None, typer.Option(metavar="NAMES", help=PlayersHelp)] = None,
    opt: OptOption = None,
    say: SayOption = None,
    lang: Annotated[str | None, typer.Option(help="Language of the words said (default: en).")] = None,
    db: GameDbOption = None,
    resume: Annotated[str | None, typer.Option(help="Go on with a saved session by its ID.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per event, per line.")] = False,
    *,
    game_flags: dict[str, str],
) -> None:
    """Referee a game typed on standard input: one "Name: utterance" per line, or a bare utterance."""
    if game is None and resume is None:
        raise fail("which game? gamehost play GAME --players Ann,Bob (gamehost games lists them)")
    spec = find(game) if game is not None else None
    check_lang(lang or REFERENCE)
    store = open_store(db)
    referee = Referee(store, SkipClock())
    if resume is not None:
        if store.session(resume) is None:
            raise fail(f"no saved session {resume!r} in {store.path}")
        session_id = resume
        table = referee.table(session_id)
        spec = spec or table.spec
        if opt or say or game_flags or ctx.args or players is not None or lang is not None:
            raise fail(
                "--resume goes on with the saved game as it was: give no players, options, setup or --lang"
            )
        if table.spec.name != spec.name:
            raise fail(f"session {resume} is a game of {table.spec.name}, not {spec.name}")
        err.print(f"Resuming session {session_id} ({', '.join(table.names)}).")
        emit(opening_reply(table), as_json)
    else:
        assert spec is not None  # a game is named unless resuming
        names = parse_players(players)
        lang = lang or REFERENCE
        flags = {**game_flags, **flag_values(ctx)}
        options, setup = options_and_setup(spec, opt, say, flags)
        check_setup(spec, names, options, lang, setup)
        session_id = new_session(referee, spec, names, options, lang)
        err.print(f"Session {session_id} (resume with: gamehost play {resume_hint(session_id, db)}).")
        for reply in said_first(referee, session_id, setup):
            emit(reply, as_json)
    watch = Watch(referee, session_id)
    for raw in timed_lines(sys.stdin, watch):
        if raw is None:  # the step awaited ran out while nobody typed (the opening's 30 s)
            due = watch.due()
            if due is not None:
                emit(due, as_json)
            continue
        line = raw.rstrip("\n")
        if not line.strip():
            continue
        if (seconds := waited(line)) is not None:
            for reply in pass_time(referee, session_id, seconds):
                emit(reply, as_json)
            continue
        table = referee.table(session_id)
        speaker, text = split_speaker(line, table.names)
        emit(referee.handle(session_id, text, speaker), as_json)
    store.close()

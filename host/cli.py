"""The ``gamehost`` command line (Typer + Rich)."""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any
from xml.etree import ElementTree

import typer
from rich.console import Console
from typer.core import TyperCommand, TyperGroup

from games.base import GameSpec, OptionError, UnknownGame, all_games, find_game
from grammars import GrammarError, languages, load
from grammars.reader import normalise
from host.config import Settings, get_settings
from host.deadline import SkipClock, Watch, timed_lines, waited
from host.referee import Referee, prompt_text, turn_event
from host.reply import Reply
from host.session import SessionConfig, Table
from host.store import Store, describe


def _plain_flags(params: list[Any]) -> None:
    """A flag takes no value, so help shows none (Typer would show ``--json <bool>``)."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""


class Command(TyperCommand):
    def format_help(self, ctx: Any, formatter: Any) -> None:
        _plain_flags(self.get_params(ctx))
        super().format_help(ctx, formatter)


class Group(TyperGroup):
    def format_help(self, ctx: Any, formatter: Any) -> None:
        _plain_flags(self.get_params(ctx))
        super().format_help(ctx, formatter)


app = typer.Typer(
    cls=Group,
    help="gamehost: a voice and text referee for table games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console(markup=False, highlight=False, soft_wrap=True)
err = Console(stderr=True, markup=False, highlight=False, soft_wrap=True)  # URLs stay whole


def _version(show: bool) -> None:
    if show:
        out.print(f"gamehost {metadata.version('gamehost')}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """gamehost: a voice and text referee for table games."""


_SPEAKER = re.compile(r"^\s*([^:\d][^:]{0,40}):\s*(.*)$")

GameArgument = Annotated[str, typer.Argument(help="The game to referee (gamehost games lists them).")]
MaybeGameArgument = Annotated[
    str | None,
    typer.Argument(help="The game to referee (gamehost games lists them); with --resume, the saved one."),
]
# Options every game's command line takes; a game's own options come as --opt name=value,
# and these older flags stay as aliases for them (--mode, --range, --rounds,
# --revoke-penalty) or for table talk said before the game (--suits, --lane, --first).
OptOption = Annotated[
    list[str] | None,
    typer.Option("--opt", metavar="NAME=VALUE", help="A game option (gamehost games lists them)."),
]
SayOption = Annotated[
    list[str] | None,
    typer.Option("--say", metavar="TEXT", help='Table talk said first, e.g. "hearts clubs" (repeatable).'),
]
ModeOption = Annotated[str | None, typer.Option(help="Option mode (e.g. tournament or training).")]
RangeOption = Annotated[
    str | None, typer.Option("--range", metavar="LOW-HIGH", help="Options low and high, e.g. 1-100.")
]
PlayersHelp = "Seating order, comma separated: Ann,Bob,Cy."
RoundsOption = Annotated[int | None, typer.Option(help="Option rounds.")]
PenaltyOption = Annotated[str | None, typer.Option(help="Option revoke_penalty (announce or trick).")]
SuitsOption = Annotated[str | None, typer.Option(help="Said first: the suits, e.g. heart,spade,club.")]
LaneOption = Annotated[str | None, typer.Option(help="Said first: the lane, e.g. 9H,2C,...")]
FirstOption = Annotated[str | None, typer.Option(help="Said first: who starts.")]
# Where the server's database is, for the commands that open it (serve, migrate, outbox).
DbOption = Annotated[
    Path | None, typer.Option(help="SQLite file (default: GAMEHOST_DB or the user data directory).")
]
DatabaseUrlOption = Annotated[
    str | None, typer.Option(help="sqlite:///path or postgresql://... (default: GAMEHOST_DATABASE_URL).")
]


def fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"gamehost: {message}")
    return typer.Exit(code)


def parse_range(text: str) -> dict[str, object]:
    match = re.fullmatch(r"\s*(-?\d{1,18})\s*(?:-|\.\.|to)\s*(-?\d{1,18})\s*", text)
    if not match:
        raise fail(f"--range must look like 1-100, not {text!r}")
    low, high = int(match[1]), int(match[2])
    if high - low < 2:
        raise fail(f"--range {text}: needs at least three numbers, lowest first")
    return {"low": low, "high": high}


def find(name: str) -> GameSpec[Any, Any, Any]:
    try:
        return find_game(name)
    except UnknownGame as exc:
        raise fail(str(exc)) from None


class Given:
    """Option values with how each was given ("--range 1-100", "--dealer Cy", "--opt low=5"),
    so an error names the flag a person typed, and one option given two ways is an error
    rather than one of them silently winning."""

    def __init__(self) -> None:
        self.values: dict[str, object] = {}
        self.how: dict[str, tuple[str, str]] = {}  # option -> (as typed, the flag alone)

    def put(self, name: str, value: object, how: str, flag: str) -> None:
        if name in self.values and str(self.values[name]) != str(value):
            raise fail(f"{self.how[name][0]} and {how} both set {name}: give it once")
        self.values[name], self.how[name] = value, (how, flag)

    def error(self, exc: OptionError) -> str:
        """``--dry-tricks x: must be a whole number``; the flag alone when the reason already
        says the value (a deck file's own error names the file)."""
        if exc.name not in self.how:
            return str(exc)
        how, flag = self.how[exc.name]
        return f"{flag if str(self.values[exc.name]) in exc.reason else how}: {exc.reason}"


def game_options(spec: GameSpec[Any, Any, Any], opts: list[str] | None, given: Given) -> dict[str, object]:
    """``--opt name=value`` and the alias flags as the game's options, checked."""
    for opt in opts or []:
        name, eq, value = opt.partition("=")
        if not eq or not name.strip():
            raise fail(f"--opt takes name=value, not {opt!r}")
        option = name.strip().replace("-", "_")
        given.put(option, value.strip(), f"--opt {opt.strip()}", f"--opt {name.strip()}")
    try:
        spec.make_options(given.values)
    except OptionError as exc:
        raise fail(given.error(exc)) from None
    except ValueError as exc:
        raise fail(str(exc)) from None
    return given.values


# Flags older releases had that say table talk before the game, when the game has no option
# of that flag (!nversion's setup); a game whose option declares the flag takes it as that.
SETUP_FLAGS = ("--suits", "--lane", "--first")
# Flags that stand for an option of the same name (the game must have it).
OPTION_FLAGS = ("--mode", "--rounds", "--revoke-penalty")
# Typer takes a game's own option flags (``--dealer Cy``) as extra arguments.
EXTRA_ARGS = {"allow_extra_args": True, "ignore_unknown_options": True}


def flag_values(args: list[str]) -> dict[str, str]:
    """``--name value`` and ``--name=value`` pairs from the arguments Typer did not know."""
    found: dict[str, str] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--"):
            raise fail(f"unexpected argument {arg!r}")
        flag, eq, value = arg.partition("=")
        if not eq:
            if i + 1 >= len(args):
                raise fail(f"{flag} needs a value")
            value, i = args[i + 1], i + 1
        found[flag] = value
        i += 1
    return found


def options_and_setup(
    spec: GameSpec[Any, Any, Any],
    opts: list[str] | None,
    say: list[str] | None,
    flags: Mapping[str, object],
    range_: str | None,
) -> tuple[dict[str, object], list[tuple[str, str]]]:
    """The game's options and the table talk to say first, from every way a command line
    gives them: ``--opt``, a game option's own flag, the older flags, ``--range``, ``--say``."""
    by_flag = {flag: o.name for o in spec.option_info() for flag in o.flags}
    known = {o.name for o in spec.option_info()}

    def no_option(flag: str) -> typer.Exit:
        have = ", ".join(sorted([*by_flag, *(["--range"] if {"low", "high"} <= known else [])])) or "none"
        return fail(f"{spec.name} has no option {flag} (its flags: {have}; or --opt name=value)")

    if range_ and not {"low", "high"} <= known:
        raise no_option("--range")
    given = Given()
    for name, value in (parse_range(range_) if range_ else {}).items():
        given.put(name, value, f"--range {range_}", "--range")
    setup: list[tuple[str, str]] = []
    for flag, value in flags.items():
        if value is None:
            continue
        if flag in by_flag:
            given.put(by_flag[flag], value, f"{flag} {value}", flag)
        elif flag in SETUP_FLAGS:
            setup.append((flag, str(value)))
        elif flag in OPTION_FLAGS and flag[2:].replace("-", "_") in known:
            given.put(flag[2:].replace("-", "_"), value, f"{flag} {value}", flag)
        else:
            raise no_option(flag)
    return game_options(spec, opts, given), [*setup, *(("--say", line) for line in say or [])]


def parse_players(text: str | None) -> list[str]:
    if text is None:
        raise fail("a new game needs its players in seating order: --players Ann,Bob")
    names = [n.strip() for n in text.split(",") if n.strip()]
    if len(names) < 2:
        raise fail("a game needs at least 2 players: --players Ann,Bob")
    folded = [n.casefold() for n in names]
    if len(set(folded)) != len(folded):
        raise fail(f"player names must differ: {text}")
    bad = [n for n in names if ":" in n or len(n) > 20]
    if bad:
        raise fail(f"player names must be short and have no colon: {', '.join(bad)}")
    return names


def open_store(db: Path | str | None) -> Store:
    """A SQLite path or database URL (default: GAMEHOST_DATABASE_URL, else GAMEHOST_DB),
    migrated to the newest schema."""
    target = db or get_settings().database
    try:
        return Store(target)
    except Exception as exc:  # a bad path, URL or server is the user's to fix
        raise fail(f"cannot open the database {describe(target)}: {exc}") from None


def db_settings(db: Path | None, database_url: str | None) -> Settings:
    """The settings with a database given on the command line taking precedence."""
    if database_url:
        return Settings(database_url=database_url)
    return get_settings() if db is None else Settings(db=db, database_url=None)


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


def check_lang(lang: str) -> None:
    if lang not in languages():
        raise fail(f"unknown language {lang!r} (have: {', '.join(languages())})")
    try:
        load(lang)
    except GrammarError as exc:
        raise fail(str(exc)) from None


def new_session(
    referee: Referee,
    spec: GameSpec[Any, Any, Any],
    names: list[str],
    options: dict[str, object],
    lang: str,
    *,
    confirm_below: float | None = None,
) -> str:
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
        raise fail(str(exc)) from None


def said_first(referee: Referee, session_id: str, lines: list[tuple[str, str]]) -> list[Reply]:
    """Say the setup talk given as options; a line the game does not take exits 2."""
    replies: list[Reply] = []
    for flag, line in lines:
        seconds = waited(line)
        if seconds is not None:
            replies.extend(pass_time(referee, session_id, seconds))
            continue
        table = referee.table(session_id)
        if flag in SETUP_FLAGS and table.to_act():
            # Past the setup steps (or a game with none) the line would be taken as a move.
            raise fail(f"{flag} does not apply to {table.spec.name}: it has no setup step for it"
                       f" (it starts: {prompt_text(table)})")
        speaker, text = split_speaker(line, table.names)
        reply = referee.handle(session_id, text, speaker)
        if not reply.accepted:
            given = {f for f, _ in lines}
            earlier = SETUP_FLAGS[: SETUP_FLAGS.index(flag)] if flag in SETUP_FLAGS else ()
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
        if flag in SETUP_FLAGS:
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
    spec: GameSpec[Any, Any, Any], names: list[str], options: dict[str, object], lang: str,
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


@app.command(cls=Command)
def games(
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per game, per line.")] = False,
) -> None:
    """List the games this host referees, with their names, seats, channels and options."""
    for spec in all_games():
        seats = seats_text(spec)
        options = [
            {"name": o.name, "default": option_text(o.default) if o.default is not None else None,
             "help": o.help, "flags": list(o.flags)}
            for o in spec.option_info()
        ]
        if as_json:
            row = {
                "name": spec.name, "title": spec.title, "aliases": list(spec.aliases), "seats": seats,
                "channels": sorted(spec.channels), "languages": list(spec.languages), "options": options,
                "summary": spec.summary,
            }
            out.print(json.dumps(row, ensure_ascii=False))
            continue
        out.print(f"{spec.name} ({spec.title}): {spec.summary}")
        out.print(f"  also: {', '.join(spec.aliases) or '-'}; players {seats}; "
                  f"channels {', '.join(sorted(spec.channels))}; languages {', '.join(spec.languages)}")
        for o in options:
            flags = f" ({', '.join(o['flags'])})" if o["flags"] else ""
            # No default is said in the help's own words ("default: the first seat").
            default = f" Default: {o['default']}." if o["default"] is not None else ""
            out.print(f"  --opt {o['name']}=...{flags}: {sentence(str(o['help']))}{default}")


def seats_text(spec: GameSpec[Any, Any, Any]) -> str:
    """"4", "2-4" or "2+"."""
    if spec.max_players is None:
        return f"{spec.min_players}+"
    if spec.max_players == spec.min_players:
        return str(spec.min_players)
    return f"{spec.min_players}-{spec.max_players}"


def option_text(value: object) -> str:
    """An option's value as it is typed: ``true``, not ``True``."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


@app.command(cls=Command, context_settings=EXTRA_ARGS)
def play(
    ctx: typer.Context,
    game: MaybeGameArgument = None,
    players: Annotated[str | None, typer.Option(metavar="NAMES", help=PlayersHelp)] = None,
    opt: OptOption = None,
    say: SayOption = None,
    mode: ModeOption = None,
    range_: RangeOption = None,
    rounds: RoundsOption = None,
    revoke_penalty: PenaltyOption = None,
    suits: SuitsOption = None,
    lane: LaneOption = None,
    first: FirstOption = None,
    lang: Annotated[str | None, typer.Option(help="Language of the words said (default: en).")] = None,
    db: Annotated[Path | None, typer.Option(help="SQLite file (default: the user data directory).")] = None,
    resume: Annotated[str | None, typer.Option(help="Go on with a saved session by its ID.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per event, per line.")] = False,
) -> None:
    """Referee a game typed on standard input: one "Name: utterance" per line, or a bare utterance."""
    if game is None and resume is None:
        raise fail("which game? gamehost play GAME --players Ann,Bob (gamehost games lists them)")
    spec = find(game) if game is not None else None
    check_lang(lang or "en")
    store = open_store(db)
    referee = Referee(store, SkipClock())
    if resume is not None:
        if store.session(resume) is None:
            raise fail(f"no saved session {resume!r} in {store.path}")
        session_id = resume
        table = referee.table(session_id)
        spec = spec or table.spec
        given = (players, mode, range_, rounds, revoke_penalty, suits, lane, first, lang)
        if opt or say or ctx.args or any(v is not None for v in given):
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
        lang = lang or "en"
        named: dict[str, object] = {"--mode": mode, "--rounds": rounds, "--revoke-penalty": revoke_penalty}
        named |= {"--suits": suits, "--lane": lane, "--first": first, **flag_values(ctx.args)}
        options, setup = options_and_setup(spec, opt, say, named, range_)
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


@app.command(cls=Command)
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    db: DbOption = None,
    database_url: DatabaseUrlOption = None,
    workers: Annotated[
        int | None,
        typer.Option(min=1, help="Server processes behind the port (default: GAMEHOST_WORKERS or 1)."),
    ] = None,
) -> None:
    """Migrate the database, then run the web server for the Twilio SMS and voice webhooks."""
    import os

    import uvicorn

    from host.app import create_app, settle_heap

    settings = db_settings(db, database_url)
    workers = workers or settings.workers
    problem = settings.serve_problem()
    if problem is not None:
        raise fail(problem)
    check_port(host, port)
    if settings.development:
        err.print(
            "gamehost: DEVELOPMENT MODE: Twilio signatures are NOT checked; anyone who can reach"
            " this server can play as anyone. Never expose it."
        )
    store = open_store(settings.database)  # migrated here, once, before any worker starts
    base = (settings.public_url or f"http://{host}:{port}").rstrip("/")
    err.print(f"gamehost {metadata.version('gamehost')} serving on http://{host}:{port}")
    err.print(f"  database: {describe(settings.database)}")
    if workers > 1:
        single = " (SQLite: one writer at a time, WAL)" if store.sqlite else ""
        err.print(f"  workers: {workers}{single}")
    err.print(f"  mode: {'development (signatures NOT checked)' if settings.development else 'production'}")
    err.print(f"  Twilio webhooks: SMS {base}/twilio/sms, voice {base}/twilio/voice,")
    err.print(f"    call status callback {base}/twilio/voice/status (all POST)")
    err.print(f"  live page: {base}/ (each game's board at {base}/t/<join code>)")
    err.print(f"  health: http://{host}:{port}/healthz; games: {', '.join(s.name for s in all_games())}")
    # ws_max_size: no websocket message near uvicorn's 16 MiB default is Twilio's (a
    # media frame is a few hundred bytes); the media route also closes on > 64 KiB.
    if workers == 1:
        served = create_app(settings, store)
        served.state.mode_told = True  # said above: the app need not warn a second time
        settle_heap()
        uvicorn.run(served, host=host, port=port, log_level="info", ws_max_size=1 << 20)
        return
    # Each worker process builds its own app from the environment: hand it the database.
    store.close()
    os.environ["GAMEHOST_DATABASE_URL"] = settings.database
    # timeout_worker_healthcheck: uvicorn kills a worker that does not answer its ping in
    # 5 s; a worker still importing the app on a busy machine can take longer, and was then
    # killed and restarted over and over, never serving.
    uvicorn.run(
        "host.app:app_from_env", factory=True, workers=workers, host=host, port=port,
        log_level="info", ws_max_size=1 << 20, timeout_worker_healthcheck=WORKER_HEALTHCHECK_S,
    )


#: Seconds a worker process may take to answer its supervisor's ping (see serve).
WORKER_HEALTHCHECK_S = 60


def check_port(host: str, port: int) -> None:
    """Exit 2 with one line when something else listens on ``port`` already, before the
    banner says the server is serving (uvicorn would fail after it, with a raw error)."""
    import errno
    import socket

    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except OSError:
        return  # a bad host: uvicorn says so
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise fail(f"port {port} on {host} is in use: stop what uses it, or serve on another"
                           f" with --port {port + 1}") from None


@app.command(cls=Command)
def migrate(
    db: DbOption = None,
    database_url: DatabaseUrlOption = None,
) -> None:
    """Create the database's tables or bring them up to date (serve does this too)."""
    from host.migrations import current, head

    target = db_settings(db, database_url).database
    try:
        store = Store(target, migrate=False)
        with store.connection() as conn:
            before = current(conn)
        changed = store.migrate()
    except Exception as exc:
        raise fail(f"cannot migrate the database {describe(target)}: {exc}") from None
    store.close()
    if changed:
        out.print(f"Migrated {describe(target)} from {before or 'no revision'} to {head()}.")
    else:
        out.print(f"{describe(target)} is up to date ({head()}).")


@app.command(cls=Command)
def outbox(
    db: DbOption = None,
    limit: Annotated[int, typer.Option(min=1, help="How many of the latest items.")] = 50,
    to: Annotated[str | None, typer.Option(help="Only items to this number or call.")] = None,
) -> None:
    """Show what the server sent, is sending, gave up on or (no Twilio credentials) stored."""
    import datetime

    from host.outbound import Outbound

    settings = get_settings() if db is None else Settings(db=db, database_url=None)
    store = open_store(settings.database)
    items = Outbound(settings, store).items(limit=limit, to=to)
    if not items:
        out.print("The outbox is empty.")
        return
    whom = recipients(store)
    for item in items:
        when = datetime.datetime.fromtimestamp(item.at).strftime("%Y-%m-%d %H:%M:%S")
        state = OUTBOX_STATES.get(item.status, item.status)
        tries = f", {item.attempts} {'try' if item.attempts == 1 else 'tries'}" if item.attempts else ""
        sid = f", Twilio SID {item.sid}" if item.sid else ""
        to = f"{whom[item.to]} ({item.to})" if item.to in whom else item.to
        out.print(f"#{item.id} {when}  {item.kind} to {to}  {state}{tries}{sid}")
        # A call update's TwiML is not what the caller heard: its summary is (or, for rows
        # stored without one, the TwiML's words).
        said = item.said if item.kind != "call" or item.summary is not None else twiml_words(item.body)
        out.print(f"    said: {said}")
        if item.detail and item.status != "sent":
            out.print(f"    last error: {item.detail}")


@app.command(cls=Command)
def mic(
    code: Annotated[str, typer.Argument(help="The game's six-digit join code.")],
    off: Annotated[bool, typer.Option("--off", help="Mark the game as having no table microphone.")] = False,
    on: Annotated[bool, typer.Option("--on", help="Allow a table microphone again; print a link.")] = False,
    db: DbOption = None,
    database_url: DatabaseUrlOption = None,
) -> None:
    """Print a link that makes one browser the game's table microphone (it works once,
    within the hour, and revokes any link or microphone made before); --off: none at all."""
    from host.web import mic as table_mic

    if off and on:
        raise fail("--off and --on contradict each other")
    settings = db_settings(db, database_url)
    store = open_store(settings.database)
    row = store.session_by_code(code.strip())
    if row is None or row.status == "closed":
        raise fail(f"no open game has the code {code.strip()}")
    if off or on:
        table_mic.set_table_mic(store, row.id, allowed=on)
    if off:
        out.print(f"Game {row.code} has no table microphone now; its links and microphones stop working.")
        return
    try:
        key = table_mic.mint_link_key(store, row.id)
    except table_mic.NoTableMic:
        allow = f"gamehost mic {row.code} --on"
        raise fail(f"game {row.code} has no table microphone ({allow} allows one)") from None
    base = settings.public_url or "http://127.0.0.1:8000"
    out.print(f"Open this on the table's device within the hour (it works once) to make it game {row.code}'s")
    out.print("microphone; a new link revokes this one and any microphone made with it:")
    out.print(table_mic.link(base, str(row.code), key), soft_wrap=True)
    if settings.public_url is None:
        out.print("(GAMEHOST_PUBLIC_URL is not set: the address above assumes this machine, port 8000.)")


OUTBOX_STATES = {
    "stored": "stored (no Twilio credentials)",
    "unknown": "unknown (Twilio may have it: looked up there before any resend)",
}


def recipients(store: Store) -> dict[str, str]:
    """Who a phone number or a live call is: the player's name (and, for a call, number)."""
    whom: dict[str, str] = {}
    for row in store.execute("SELECT address, name, call_sid FROM members"):
        whom[str(row["address"])] = str(row["name"])
        if row["call_sid"]:
            whom[str(row["call_sid"])] = f"{row['name']}, {row['address']}"
    return whom


def twiml_words(twiml: str) -> str:
    """The words of a TwiML document (what ``<Say>`` says), without its markup."""
    try:
        root = ElementTree.fromstring(twiml)
    except ElementTree.ParseError:
        return twiml
    return " ".join(" ".join(root.itertext()).split())


@app.command(cls=Command, context_settings=EXTRA_ARGS)
def table(
    ctx: typer.Context,
    game: GameArgument,
    players: Annotated[str, typer.Option(metavar="NAMES", help=PlayersHelp)],
    opt: OptOption = None,
    say: SayOption = None,
    mode: ModeOption = None,
    range_: RangeOption = None,
    revoke_penalty: PenaltyOption = None,
    suits: SuitsOption = None,
    lane: LaneOption = None,
    first: FirstOption = None,
    lang: Annotated[str, typer.Option(help="Language spoken at the table: en or ko.")] = "en",
    model: Annotated[
        Path | None,
        typer.Option(help="Speech model folder (default: the installed model for --lang)."),
    ] = None,
    engine: Annotated[
        str | None,
        typer.Option(help="vosk, pocketsphinx or auto: Vosk with a model for --lang, else pocketsphinx."),
    ] = None,
    mic: Annotated[
        bool, typer.Option("--mic", help="Listen to the default microphone (the default).")
    ] = False,
    audio: Annotated[
        Path | None,
        typer.Option("--audio", help="Play a 16 kHz 16-bit mono WAV file in instead of the microphone."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per event, per line.")] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", help="Print announcements without speaking them.")
    ] = False,
    db: Annotated[Path | None, typer.Option(help="SQLite file (default: the user data directory).")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show what was heard on stderr.")] = False,
) -> None:
    """Referee players around one microphone and speaker, offline (Vosk), out loud.

    Setup not given as options (a card game's suits, lane, who starts) is said at the table."""
    # Speech loads only for this command: `play` and `serve` start without it.
    from host.listening.listener import Heard, Listener
    from host.speech.audio import (
        SAMPLE_RATE,
        AudioDeviceError,
        AudioFormatError,
        microphone_chunks,
        pcm_chunks,
        read_wav,
    )
    from host.speech.model import ENGINE_CHOICES, ModelUnavailable, describe_model, load_model
    from host.speech.table import StreamClock, TableRunner, Voice

    spec = find(game)
    check_lang(lang)
    if mic and audio is not None:
        raise fail("use either --mic or --audio FILE.wav, not both")
    if "table" not in spec.channels:
        raise fail(f"{spec.title} is not played at a table with a microphone")
    names = parse_players(players)
    named: dict[str, object] = {"--mode": mode, "--revoke-penalty": revoke_penalty, "--suits": suits}
    named["--lane"] = lane
    named |= {"--first": first, **flag_values(ctx.args)}
    options, setup = options_and_setup(spec, opt, say, named, range_)
    check_setup(spec, names, options, lang, setup)
    pcm = b""
    if audio is not None:
        # The file is checked before the model loads: a wrong file fails at once.
        try:
            pcm, _ = read_wav(audio, SAMPLE_RATE)
        except AudioFormatError as exc:
            raise fail(str(exc)) from None
    else:
        check_microphone(SAMPLE_RATE)  # before a model loads, a session is saved or a word said
    try:
        chosen = engine or get_settings().speech_engine
        if chosen not in ENGINE_CHOICES:
            raise fail(f"--engine must be one of {', '.join(ENGINE_CHOICES)}, not {chosen!r}")
        speech_model = load_model(model, lang=lang, download=model is None, engine=chosen)
    except ModelUnavailable as exc:
        raise fail(str(exc)) from None

    store = open_store(db)
    clock = StreamClock() if audio is not None else None
    referee = Referee(store, SkipClock(clock or time.time))
    settings = get_settings()
    try:
        session_id = new_session(referee, spec, names, options, lang, confirm_below=settings.confirm_below)
        openings = said_first(referee, session_id, setup)
        listener = Listener(
            referee, session_id, speech_model, sample_rate=SAMPLE_RATE, report_missing=False,
            confirm_lapse=settings.confirm_lapse,
        )
    except ValueError as exc:
        raise fail(str(exc)) from None
    if clock is not None:
        clock.listener = listener
    err.print(describe_model(speech_model))
    hint = f"gamehost play {spec.name} {resume_hint(session_id, db)}"
    err.print(f"Session {session_id} (resume as text with: {hint}).")
    # Names are the table's own (the grammars' words are all in the model: a test sees to
    # that); say once which cannot be heard, and what to do without them.
    unheard = set(listener.missing_words)
    mute = [n for n in names if unheard & set(normalise(n).split())]
    lacking = [w for w in listener.missing_words if not any(w in normalise(n).split() for n in mute)]
    if mute:
        err.print(
            f"The speech model cannot hear the name{'s' if len(mute) > 1 else ''} {', '.join(mute)}: "
            "moves need no names (where the game asks for one, give it with --say)."
        )
    if lacking:
        err.print(f"The speech model lacks these words; phrases with them go unheard: {', '.join(lacking)}")

    def show(heard: Heard) -> None:
        if not verbose:
            return
        at = f"[{heard.hearing.end:7.2f} s] heard {heard.hearing.text!r}"
        if heard.reply is None:
            talk = f" as {heard.hearing.talk!r}" if heard.hearing.talk else ""
            err.print(f"{at} (ignored: {heard.ignored}{talk})")
            return
        # What the referee was given (the reading, not only the decoder's best path) and its answer.
        given = heard.reading.text if heard.reading is not None else heard.hearing.text
        answer = (heard.reply.news or heard.reply.private or [""])[0]
        err.print(f"{at} -> {given!r}: {answer}")

    def show_ignored(at: float, why: str) -> None:
        err.print(f"[{at:7.2f} s] (ignored: {why})")

    voice = None if quiet else Voice(lang, SAMPLE_RATE)
    runner = TableRunner(
        listener,
        lambda reply: emit(reply, as_json),
        voice,
        live=audio is None,
        on_heard=show,
        on_ignored=show_ignored if verbose else None,
        due=Watch(referee, session_id).due,
    )
    try:
        if voice is not None:
            voice.prepare()
        for opening in openings:
            runner.announce(opening)
        if audio is not None:
            runner.run(pcm_chunks(pcm, SAMPLE_RATE, 20))
        else:
            err.print("Listening; press Ctrl+C to stop.")
            runner.run(microphone_chunks(SAMPLE_RATE, 20))
    except AudioDeviceError as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        err.print(f"Stopped. Session {session_id}.")
    finally:
        if voice is not None:
            voice.close()  # no synthesis left running into the interpreter's exit
        store.close()


def check_microphone(rate: int) -> None:
    """Exit 2 when there is no microphone to listen to, pointing at ``--audio``."""
    from host.speech.audio import AudioDeviceError, load_sounddevice

    hint = "connect one, or play a recording in with --audio FILE.wav (16 kHz mono)"
    try:
        sounddevice = load_sounddevice()
        sounddevice.check_input_settings(device=None, channels=1, dtype="int16", samplerate=rate)
    except AudioDeviceError as exc:
        raise fail(f"no microphone: {exc}; {hint}") from None
    except Exception as exc:  # PortAudioError ("Error querying device -1"), ValueError
        raise fail(f"no microphone to listen to ({exc}): {hint}") from None


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    app()


if __name__ == "__main__":
    main()

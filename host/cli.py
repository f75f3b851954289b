"""The ``gamehost`` command line (Typer + Rich)."""

from __future__ import annotations

import json
import logging
import re
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from games import inversion as inv
from games.cards import Card, Suit
from games.core import Mode, RuleError
from grammars import GrammarError, languages, load
from host.config import get_settings
from host.referee import Referee, Reply, SessionConfig, Table, prompt_text, turn_event
from host.store import Store

app = typer.Typer(
    help="gamehost: a voice and text referee for Up-or-Down and !nversion.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console(markup=False, highlight=False, soft_wrap=True)
err = Console(stderr=True, markup=False, highlight=False)


@app.callback()
def _root() -> None:
    """gamehost: a voice and text referee for Up-or-Down and !nversion."""


_SPEAKER = re.compile(r"^\s*([^:\d][^:]{0,40}):\s*(.*)$")


class Game(StrEnum):
    UP_OR_DOWN = "up-or-down"
    INVERSION = "inversion"


# Options shared by ``play`` and ``table``.
ModeOption = Annotated[
    Mode, typer.Option(help="tournament: a mistake puts you out; training: nobody goes out.")
]
RangeOption = Annotated[str, typer.Option("--range", help="The numbers allowed, e.g. 1-100.")]
SuitsOption = Annotated[
    str | None, typer.Option(help="!nversion: the players+1 suits, e.g. heart,spade,club.")
]
LaneOption = Annotated[
    str | None, typer.Option(help="!nversion: the lane from the reference card, e.g. 9H,2C,...")
]
FirstOption = Annotated[
    str | None, typer.Option(help="!nversion: who plays first (2 players) or declares first (3-4).")
]
PENALTY_HELP = "!nversion: a proven revoke is only announced, or costs a trick."


def fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"gamehost: {message}")
    return typer.Exit(code)


def parse_range(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(-?\d+)\s*(?:-|\.\.|to)\s*(-?\d+)\s*", text)
    if not match:
        raise fail(f"--range must look like 1-100, not {text!r}")
    low, high = int(match[1]), int(match[2])
    if high - low < 2:
        raise fail(f"--range {text}: needs at least three numbers, lowest first")
    return low, high


def parse_players(text: str | None) -> list[str]:
    if text is None:
        return []
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


def open_store(db: Path | None) -> Store:
    path = db or get_settings().db
    try:
        return Store(path)
    except Exception as exc:  # sqlite3.Error, OSError: a bad --db is the user's to fix
        raise fail(f"cannot open the database {path}: {exc}") from None


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


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="The game to referee: up-or-down or inversion.")],
    players: Annotated[str | None, typer.Option(help="Seating order, comma separated: Ann,Bob,Cy.")] = None,
    mode: ModeOption = Mode.TOURNAMENT,
    range_: RangeOption = "1-100",
    rounds: Annotated[int | None, typer.Option(min=1, help="Training: end after this many rounds.")] = None,
    suits: SuitsOption = None,
    lane: LaneOption = None,
    first: FirstOption = None,
    revoke_penalty: Annotated[
        inv.Penalty,
        typer.Option(help=PENALTY_HELP),
    ] = inv.Penalty.ANNOUNCE,
    lang: Annotated[str, typer.Option(help="Language of the words understood and said.")] = "en",
    db: Annotated[Path | None, typer.Option(help="SQLite file (default: the user data directory).")] = None,
    resume: Annotated[str | None, typer.Option(help="Go on with a saved session by its ID.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per event, per line.")] = False,
) -> None:
    """Referee a game typed on standard input: one "Name: utterance" per line, or a bare utterance."""
    if game not in {g.value for g in Game}:
        raise fail(f"unknown game {game!r}; known games: {', '.join(g.value for g in Game)}")
    try:
        load(lang)
    except GrammarError as exc:
        raise fail(str(exc)) from None
    if lang not in languages():
        raise fail(f"unknown language {lang!r}")
    store = open_store(db)
    referee = Referee(store)
    if resume is not None:
        if store.session(resume) is None:
            raise fail(f"no saved session {resume!r} in {store.path}")
        session_id = resume
        table = referee.table(session_id)
        err.print(f"Resuming session {session_id} ({', '.join(table.names)}).")
        emit(opening_reply(table), as_json)
    elif game == Game.INVERSION:
        session_id = start_inversion(referee, players, suits, lane, first, revoke_penalty, lang, as_json)
    else:
        names = parse_players(players)
        low, high = parse_range(range_)
        if rounds is not None and mode is not Mode.TRAINING:
            raise fail("--rounds is for --mode training")
        settings = get_settings()
        config = SessionConfig(
            mode=mode, low=low, high=high, rounds=rounds, lang=lang, undo_grace=settings.table_undo_grace
        )
        try:
            session_id = referee.create(config, names)
        except RuleError as exc:
            raise fail(str(exc)) from None
        err.print(f"Session {session_id} (resume with --resume {session_id}).")
        emit(opening_reply(referee.table(session_id)), as_json)
    for raw in sys.stdin:
        line = raw.rstrip("\n")
        if not line.strip():
            continue
        table = referee.table(session_id)
        speaker, text = split_speaker(line, table.names)
        emit(referee.handle(session_id, text, speaker), as_json)
    store.close()


def opening_reply(table: Table) -> Reply:
    """What to show when a session starts or resumes: the prompt and the turn."""
    reply = Reply("")
    text = prompt_text(table)
    if text is not None:
        reply.public.append(text)
    event = turn_event(table)
    if event is not None:
        reply.events.append(event)
    return reply


def setup_moves(
    names: list[str], suits: str | None, lane: str | None, first: str | None
) -> list[tuple[str, inv.Move]]:
    """!nversion setup given as options, in the order the game asks for it."""
    moves: list[tuple[str, inv.Move]] = []
    if (lane or first) and not suits:
        raise fail("--lane and --first need --suits first")
    if first and not lane:
        raise fail("--first needs the whole --lane")
    try:
        if suits:
            chosen = tuple(Suit.parse(s) for s in suits.split(",") if s.strip())
            moves.append(("--suits", inv.ChooseSuits(chosen)))
        if lane:
            cards = tuple(Card.parse(c) for c in lane.split(",") if c.strip())
            moves.append(("--lane", inv.LayLane(cards)))
    except ValueError as exc:
        raise fail(str(exc)) from None
    if first:
        player = next((n for n in names if n.casefold() == first.strip().casefold()), None)
        if player is None:
            raise fail(f"--first {first}: not one of the players ({', '.join(names)})")
        moves.append(("--first", inv.ChooseFirst(player)))
    return moves


def inversion_setup(
    players: str | None, suits: str | None, lane: str | None, first: str | None
) -> tuple[list[str], list[tuple[str, inv.Move]]]:
    """!nversion players and setup options (``play`` and ``table``), checked as text."""
    names = parse_players(players)
    if len(names) > inv.MAX_PLAYERS:
        raise fail(f"!nversion is for {inv.MIN_PLAYERS} to {inv.MAX_PLAYERS} players, not {len(names)}")
    return names, setup_moves(names, suits, lane, first)


def setup_replies(referee: Referee, session_id: str, moves: list[tuple[str, inv.Move]]) -> list[Reply]:
    """Apply setup options to a new !nversion session; return what to show."""
    replies: list[Reply] = []
    for option, move in moves:
        try:
            replies.append(referee.act(session_id, move))
        except RuleError as exc:
            raise fail(f"{option}: {exc}") from None
    if not replies:
        return [opening_reply(referee.table(session_id))]
    for reply in replies[:-1]:
        # Only the last step's "what next" is shown: the options answered the others.
        reply.public = reply.public[:-1]
        reply.events = [e for e in reply.events if e["type"] != "turn"]
    return replies


def start_inversion(
    referee: Referee,
    players: str | None,
    suits: str | None,
    lane: str | None,
    first: str | None,
    penalty: inv.Penalty,
    lang: str,
    as_json: bool,
) -> str:
    names, moves = inversion_setup(players, suits, lane, first)
    settings = get_settings()
    config = SessionConfig(
        game="inversion", lang=lang, undo_grace=settings.table_undo_grace, revoke_penalty=penalty
    )
    session_id = referee.create(config, names)
    err.print(f"Session {session_id} (resume with --resume {session_id}).")
    for reply in setup_replies(referee, session_id, moves):
        emit(reply, as_json)
    return session_id


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    db: Annotated[
        Path | None, typer.Option(help="SQLite file (default: GAMEHOST_DB or the user data directory).")
    ] = None,
) -> None:
    """Run the web server for the Twilio SMS and voice webhooks."""
    import uvicorn

    from host.app import create_app
    from host.config import Settings

    settings = get_settings() if db is None else Settings(db=db)
    if settings.check_signatures and settings.twilio_auth_token is None:
        # Every webhook would be refused: better not to look as if it were working.
        raise fail(
            "TWILIO_AUTH_TOKEN is not set (or empty), so no Twilio webhook could be checked."
            " Set it, or run with GAMEHOST_MODE=development for local experiments (no signature checks)."
        )
    if settings.development:
        err.print(
            "gamehost: DEVELOPMENT MODE: Twilio signatures are NOT checked; anyone who can reach"
            " this server can play as anyone. Never expose it."
        )
    store = open_store(settings.db)
    err.print(f"gamehost serving on http://{host}:{port} (database {settings.db})")
    # ws_max_size: no websocket message near uvicorn's 16 MiB default is Twilio's (a
    # media frame is a few hundred bytes); the media route also closes on > 64 KiB.
    uvicorn.run(create_app(settings, store), host=host, port=port, log_level="info", ws_max_size=1 << 20)


@app.command()
def outbox(
    db: Annotated[
        Path | None, typer.Option(help="SQLite file (default: GAMEHOST_DB or the user data directory).")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, help="How many of the latest items.")] = 50,
    to: Annotated[str | None, typer.Option(help="Only items to this number or call.")] = None,
) -> None:
    """Show what the server sent, is sending, gave up on or (no Twilio credentials) stored."""
    import datetime

    from host.config import Settings
    from host.outbound import Outbound

    settings = get_settings() if db is None else Settings(db=db)
    store = open_store(settings.db)
    items = Outbound(settings, store).items(limit=limit, to=to)
    if not items:
        out.print("The outbox is empty.")
        return
    for item in items:
        when = datetime.datetime.fromtimestamp(item.at).strftime("%Y-%m-%d %H:%M:%S")
        state = "stored (no Twilio credentials)" if item.status == "stored" else item.status
        tries = f", {item.attempts} {'try' if item.attempts == 1 else 'tries'}" if item.attempts else ""
        sid = f", Twilio SID {item.sid}" if item.sid else ""
        out.print(f"#{item.id} {when}  {item.kind} to {item.to}  {state}{tries}{sid}")
        # A call update's TwiML is not what the caller heard: its summary is.
        out.print(f"    said: {item.said}")
        if item.detail and item.status != "sent":
            out.print(f"    last error: {item.detail}")


def check_setup(names: list[str], moves: list[tuple[str, inv.Move]], lang: str) -> None:
    """Judge !nversion setup options on the bare game, before anything slow or stored."""
    from host.inversion_phrasing import refusal_text

    state = inv.new_game(names)
    for option, move in moves:
        problem = inv.refusal(state, move)
        if problem is not None:
            raise fail(f"{option}: {refusal_text(problem, state, lang)}")
        state, _ = inv.play(state, move)


@app.command()
def table(
    game: Annotated[str, typer.Argument(help="The game to referee: up-or-down or inversion.")],
    players: Annotated[str, typer.Option(help="Seating order, comma separated: Ann,Bob,Cy.")],
    mode: ModeOption = Mode.TOURNAMENT,
    range_: RangeOption = "1-100",
    suits: SuitsOption = None,
    lane: LaneOption = None,
    first: FirstOption = None,
    revoke_penalty: Annotated[
        inv.Penalty | None,
        typer.Option(help=PENALTY_HELP),
    ] = None,
    lang: Annotated[str, typer.Option(help="Language spoken at the table: en or ko.")] = "en",
    model: Annotated[
        Path | None,
        typer.Option(help="Vosk model folder (default: the installed or downloaded model for --lang)."),
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

    !nversion setup not given as options (suits, lane, who starts) is said at the table."""
    from host.speech.audio import (
        SAMPLE_RATE,
        AudioDeviceError,
        AudioFormatError,
        microphone_chunks,
        pcm_chunks,
        read_wav,
    )
    from host.speech.card_listener import CardListener
    from host.speech.listener import Heard, Listener, StreamListener
    from host.speech.model import ModelUnavailable, load_model
    from host.speech.table import StreamClock, TableRunner, Voice

    if game not in {g.value for g in Game}:
        raise fail(f"unknown game {game!r}; known games: {', '.join(g.value for g in Game)}")
    if lang not in languages():
        raise fail(f"unknown language {lang!r} (have: {', '.join(languages())})")
    try:
        load(lang)
    except GrammarError as exc:
        raise fail(str(exc)) from None
    if mic and audio is not None:
        raise fail("use either --mic or --audio FILE.wav, not both")
    cards = game == Game.INVERSION
    moves: list[tuple[str, inv.Move]] = []
    if cards:
        names, moves = inversion_setup(players, suits, lane, first)
        check_setup(names, moves, lang)
    else:
        if suits or lane or first or revoke_penalty:
            raise fail("--suits, --lane, --first and --revoke-penalty are for inversion")
        names = parse_players(players)
        low, high = parse_range(range_)
    pcm = b""
    if audio is not None:
        # The file is checked before the model loads: a wrong file fails at once.
        try:
            pcm, _ = read_wav(audio, SAMPLE_RATE)
        except AudioFormatError as exc:
            raise fail(str(exc)) from None
    try:
        speech_model = load_model(model, lang=lang, download=model is None)
    except ModelUnavailable as exc:
        raise fail(str(exc)) from None

    store = open_store(db)
    clock = StreamClock() if audio is not None else None
    referee = Referee(store, clock) if clock is not None else Referee(store)
    settings = get_settings()
    if cards:
        config = SessionConfig(
            game="inversion",
            lang=lang,
            undo_grace=settings.table_undo_grace,
            confirm_below=settings.confirm_below,
            revoke_penalty=revoke_penalty or inv.Penalty.ANNOUNCE,
        )
    else:
        config = SessionConfig(
            mode=mode,
            low=low,
            high=high,
            lang=lang,
            undo_grace=settings.table_undo_grace,
            confirm_below=settings.confirm_below,
        )
    listener: StreamListener
    try:
        session_id = referee.create(config, names)
        openings = (
            setup_replies(referee, session_id, moves) if cards else [opening_reply(referee.table(session_id))]
        )
        kind = CardListener if cards else Listener
        listener = kind(referee, session_id, speech_model, sample_rate=SAMPLE_RATE, report_missing=False)
    except (RuleError, ValueError) as exc:
        raise fail(str(exc)) from None
    if clock is not None:
        clock.listener = listener
    err.print(f"Session {session_id} (resume as text with: gamehost play {game} --resume {session_id}).")
    if listener.missing_words:
        err.print(
            f"The speech model in {speech_model.path} lacks {len(listener.missing_words)} word(s); "
            f"phrases with them cannot be heard: {', '.join(listener.missing_words)}"
        )

    def show(heard: Heard) -> None:
        if verbose:
            what = "ignored: " + str(heard.ignored) if heard.reply is None else "ruled"
            err.print(f"[{heard.hearing.end:7.2f} s] heard {heard.hearing.text!r} ({what})")

    voice = None if quiet else Voice(lang, SAMPLE_RATE)
    runner = TableRunner(
        listener, lambda reply: emit(reply, as_json), voice, live=audio is None, on_heard=show
    )
    for opening in openings:
        runner.announce(opening)
    try:
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
        store.close()


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    app()


if __name__ == "__main__":
    main()

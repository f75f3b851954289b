"""``gamehost table``: players around one microphone and loudspeaker, refereed out loud.

The table itself (listener, loudspeaker, dropping what was said over the host) is built by
:func:`host.channels.table.open_table`, as for a browser's microphone; here are the
command line's parts: the options, the checks that fail before a model loads, and what
``-v`` prints. The speech modules are imported by module (``speech_audio.load_sounddevice``,
``speech_models.load_model``), so a test can stand in for the sound card or the model."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

import host.speech.audio as speech_audio
import host.speech.model as speech_models
from grammars import REFERENCE
from grammars.reader import normalise
from host.channels.table import StreamClock, open_table
from host.channels.table.check import check, prompt
from host.cli.console import err, fail
from host.cli.database import GameDbOption, open_store
from host.cli.options import (
    GameArgument,
    OptOption,
    PlayersHelp,
    SayOption,
    find,
    flag_values,
    options_and_setup,
    parse_players,
    takes_game_flags,
)
from host.cli.start import check_lang, check_setup, emit, new_session, resume_hint, said_first
from host.config import get_settings
from host.deadline import SkipClock, Watch
from host.listening.listener import Heard
from host.referee import Referee
from host.speech.audio import (
    SAMPLE_RATE,
    AudioDeviceError,
    AudioFormatError,
    microphone_chunks,
    pcm_chunks,
    read_recording,
)
from host.speech.model import ENGINE_CHOICES, ModelUnavailable, describe_model


@takes_game_flags
def table(
    ctx: typer.Context,
    game: GameArgument,
    players: Annotated[str, typer.Option(metavar="NAMES", help=PlayersHelp)],
    opt: OptOption = None,
    say: SayOption = None,
    lang: Annotated[
        str, typer.Option(help="Language spoken at the table (one with a recogniser).")
    ] = REFERENCE,
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
        typer.Option(
            "--audio", help="Play a PCM WAV recording in instead of the microphone (any rate or channels)."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per event, per line.")] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", help="Print announcements without speaking them.")
    ] = False,
    db: GameDbOption = None,
    voices: Annotated[
        bool,
        typer.Option(
            "--voices/--no-voices",
            help="Tell the players apart by voice (names asked first; kept in memory for the game only).",
        ),
    ] = True,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show what was heard on stderr.")] = False,
    room_check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="No game: each player says two numbers; what was heard, the room, and what to change.",
        ),
    ] = False,
    *,
    game_flags: dict[str, str],
) -> None:
    """Referee players around one microphone and speaker, offline (pocketsphinx or Vosk), out loud.

    Setup not given as options (a card game's suits, lane, who starts) is said at the table."""
    spec = find(game)
    check_lang(lang)
    if model is None and (deaf := speech_models.hearing_problem(lang)) is not None:
        raise fail(deaf)  # before a microphone is opened or a file read
    if mic and audio is not None:
        raise fail("use either --mic or --audio FILE.wav, not both")
    if "table" not in spec.channels:
        raise fail(f"{spec.title} is not played at a table with a microphone")
    names = parse_players(players)
    options, setup = options_and_setup(spec, opt, say, {**game_flags, **flag_values(ctx)})
    check_setup(spec, names, options, lang, setup)
    pcm = b""
    if audio is not None:
        # The file is checked before the model loads: a wrong file fails at once.
        try:
            pcm, converted = read_recording(audio)
        except AudioFormatError as exc:
            raise fail(str(exc)) from None
        if converted:
            typer.echo(f"{audio}: {converted}, heard as 16 kHz mono 16-bit", err=True)
    else:
        check_microphone(SAMPLE_RATE)  # before a model loads, a session is saved or a word said
    try:
        chosen = engine or get_settings().speech_engine
        if chosen not in ENGINE_CHOICES:
            raise fail(f"--engine must be one of {', '.join(ENGINE_CHOICES)}, not {chosen!r}")
        speech_model = speech_models.load_model(model, lang=lang, download=model is None, engine=chosen)
    except ModelUnavailable as exc:
        raise fail(str(exc)) from None
    if room_check:
        chunks = pcm_chunks(pcm, SAMPLE_RATE, 20) if audio is not None else microphone_chunks(tell=err.print)
        try:
            result = check(speech_model, lang, names, chunks, lambda name: err.print(prompt(name, lang)))
        except AudioDeviceError as exc:
            raise fail(str(exc)) from None
        for line in result.lines():
            typer.echo(line)
        return

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
        voice = heard.voiced.heard if heard.voiced is not None else None
        err.print(f"{at} -> {given!r}{f' ({voice} speaking)' if voice else ''}: {answer}")

    def show_ignored(at: float, why: str) -> None:
        err.print(f"[{at:7.2f} s] (ignored: {why})")

    store = open_store(db)
    clock = StreamClock() if audio is not None else None
    referee = Referee(store, SkipClock(clock or time.time))
    settings = get_settings()
    try:
        session_id = new_session(referee, spec, names, options, lang, confirm_below=settings.confirm_below)
        openings = said_first(referee, session_id, setup)
        runner = open_table(
            referee,
            session_id,
            speech_model,
            lambda reply: emit(reply, as_json),
            live=audio is None,
            confirm_lapse=settings.confirm_lapse,
            quiet=quiet,
            clock=clock,
            on_heard=show,
            on_ignored=show_ignored if verbose else None,
            due=Watch(referee, session_id).due,
            report_missing=False,
            voices=voices,
            names_over=audio is not None,
        )
    except ValueError as exc:
        raise fail(str(exc)) from None
    err.print(describe_model(speech_model))
    err.print(f"Session {session_id} (resume as text with: gamehost play {resume_hint(session_id, db)}).")
    # Names are the table's own (the grammars' words are all in the model: a test sees to
    # that); say once which cannot be heard, and what to do without them.
    unheard = set(runner.listener.missing_words)
    mute = [n for n in names if unheard & set(normalise(n).split())]
    lacking = [w for w in runner.listener.missing_words if not any(w in normalise(n).split() for n in mute)]
    if mute:
        err.print(
            f"The speech model cannot hear the name{'s' if len(mute) > 1 else ''} {', '.join(mute)}: "
            "moves need no names (where the game asks for one, give it with --say)."
        )
    if lacking:
        err.print(f"The speech model lacks these words; phrases with them go unheard: {', '.join(lacking)}")

    loudspeaker = runner.loudspeaker
    try:
        if loudspeaker is not None:
            loudspeaker.prepare()
        for opening in openings:
            runner.announce(opening)
        runner.ask_names()
        if audio is not None:
            runner.run(pcm_chunks(pcm, SAMPLE_RATE, 20))
        else:
            err.print("Listening; press Ctrl+C to stop.")
            runner.run(microphone_chunks(SAMPLE_RATE, 20, tell=err.print))
    except AudioDeviceError as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        err.print(f"Stopped. Session {session_id}.")
    finally:
        if loudspeaker is not None:
            loudspeaker.close()  # no synthesis left running into the interpreter's exit
        store.close()


def check_microphone(rate: int) -> None:
    """Exit 2 when there is no microphone to listen to, pointing at ``--audio``."""
    hint = "connect one, or play a recording in with --audio FILE.wav"
    try:
        sounddevice = speech_audio.load_sounddevice()
        # Opened at its own rate and resampled (speech_audio.microphone_chunks): check that one.
        native = speech_audio.input_rate(sounddevice, None)
        sounddevice.check_input_settings(device=None, channels=1, dtype="int16", samplerate=native)
    except AudioDeviceError as exc:
        raise fail(f"no microphone: {exc}; {hint}") from None
    except Exception as exc:  # PortAudioError ("Error querying device -1"), ValueError
        raise fail(f"no microphone to listen to ({exc}): {hint}") from None

"""The table channel: players around one microphone and one loudspeaker, the host refereeing
out loud. The microphone is a sound card's, a WAV file standing for the room (``gamehost
table --audio``), or a browser's (host/channels/web/listen.py); :func:`open_table` builds
the table the same way for each: the session's listener, its loudspeaker, and the runner
that feeds one to the other and drops what was said over the host
(:mod:`~host.channels.table.runner`). With voices on (the default), the listener knows who
spoke (host/listening/speakers.py) and the runner asks the players' names at the start
(:mod:`~host.channels.table.names`).
"""

from __future__ import annotations

from collections.abc import Callable

from host.channels.table.clock import StreamClock
from host.channels.table.loudspeaker import Loudspeaker
from host.channels.table.names import NameRound
from host.channels.table.runner import TableRunner
from host.listening.listener import Heard, Listener
from host.listening.speakers import WhoSpoke
from host.referee import Referee
from host.reply import Reply
from host.speech.audio import SAMPLE_RATE
from host.speech.model import SpeechModel
from host.speech.tts import play
from host.speech.voiceprint import Voices

__all__ = ["Loudspeaker", "StreamClock", "TableRunner", "open_table"]


def open_table(
    referee: Referee,
    session_id: str,
    model: SpeechModel,
    emit: Callable[[Reply], None],
    *,
    live: bool,
    confirm_lapse: float | None,
    quiet: bool = False,
    player: Callable[[bytes, int], None] = play,
    clock: StreamClock | None = None,
    on_reply: Callable[[Reply], None] | None = None,
    on_heard: Callable[[Heard], None] | None = None,
    on_ignored: Callable[[float, str], None] | None = None,
    due: Callable[[], Reply | None] | None = None,
    report_missing: bool = True,
    voices: bool = True,
    names_over: bool = False,
) -> TableRunner:
    """The table for a session: a shared microphone (``speaker`` None: a move is the
    player's whose turn it is) heard at 16 kHz, announcements said in the session's
    language through ``player`` (the sound card; nothing with ``quiet``).

    ``live``: the input is a microphone's, so what it captured while the host spoke is
    dropped by the wall clock; otherwise by the length of the host's audio (a file, or a
    page that plays it while its microphone keeps sending). ``clock``: a recording's
    clock, set going by this listener. ``on_reply``: the listener's (told inside each
    ruling's transaction); ``emit``, ``on_heard``, ``on_ignored``, ``due``: the runner's
    (:class:`TableRunner`). ``report_missing`` false: the caller says which words the model
    lacks (:attr:`~host.listening.listener.StreamListener.missing_words`). ``voices``: tell
    the players apart by voice (one :class:`~host.speech.voiceprint.Voices` for the game,
    in memory only), asking their names first (:meth:`TableRunner.ask_names`);
    ``names_over``: the name round's questions drop no input (a WAV file)."""
    listener = Listener(
        referee,
        session_id,
        model,
        sample_rate=SAMPLE_RATE,
        report_missing=report_missing,
        on_reply=on_reply,
        confirm_lapse=confirm_lapse,
    )
    if clock is not None:
        clock.listener = listener
    names = None
    if voices:
        listener.who_spoke = WhoSpoke(Voices(), SAMPLE_RATE)
        names = NameRound(
            listener.who_spoke,
            session_id,
            referee.table(session_id).names,
            listener.lang,
            spoken_over=names_over,
        )
        names.unheard = frozenset(listener.missing_words)
    loudspeaker = None if quiet else Loudspeaker(listener.lang, SAMPLE_RATE, player)
    return TableRunner(
        listener, emit, loudspeaker, live=live, on_heard=on_heard, on_ignored=on_ignored, due=due, names=names
    )

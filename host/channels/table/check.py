"""``gamehost table --check``: before a game, each player says two numbers; the host says
what it heard from each, the room it measured (noise floor, reverberation, each player's
level: :mod:`host.speech.room`) and a plain verdict ("Bob is hard to hear: move the phone
towards Bob").

The numbers are heard as a game's moves are (an :class:`~host.speech.endpointer.Endpointer`
on a phrase list of the numbers 1 to 99), one number an utterance; a player's turn ends
after two utterances or :data:`TURN_S` seconds of stream, and the next player's begins.
Everything it says and prints is worded in the table's language (``grammars/<lang>/check.yaml``).
The live page runs the same check through the browser's microphone
(host/channels/web/room_check.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from grammars import check_phrase
from grammars.reader import number_phrases
from host.confirm import ECHOING_RT60
from host.listening.doubts import RINGS_RT60
from host.speech.audio import SAMPLE_RATE
from host.speech.endpointer import Endpointer
from host.speech.engines import recognizer_for
from host.speech.hearing import Hearing
from host.speech.model import SpeechModel
from host.speech.room import RoomMeter, RoomSound

#: Seconds of stream a player has for their two numbers before the next player's turn.
TURN_S = 12.0
SAID = 2  # utterances a player says
#: A player this far (dB) below the loudest is hard to hear: a move of theirs is far more
#: often dropped or read back (the room benches: the far seats of each room).
QUIET_DB = 8.0
#: The quietest player this close (dB) above the noise floor: the room is too loud.
NOISY_SNR_DB = 15.0
#: A peak this close to full scale (dBFS) is clipped.
CLIPS_DBFS = -1.0


@dataclass(frozen=True)
class Seat:
    """What the check heard of one player: the numbers (texts) and their level (dBFS)."""

    name: str
    heard: tuple[str, ...]
    level_db: float | None


@dataclass(frozen=True)
class Check:
    lang: str
    seats: tuple[Seat, ...]
    room: RoomSound
    verdicts: tuple[str, ...]

    def lines(self) -> list[str]:
        """The report, in plain lines."""
        out = [heard_line(self.lang, seat) for seat in self.seats]
        floor, rt60 = self.room.floor_db, self.room.rt60
        if rt60 is not None:
            out.append(check_phrase(self.lang, "room", floor=floor, rt60=rt60))
        else:
            out.append(check_phrase(self.lang, "room_unmeasured", floor=floor))
        out += list(self.verdicts)
        return out


def heard_line(lang: str, seat: Seat) -> str:
    """What the check heard of one player ("Ann: heard twenty three, seventy one at -31 dBFS")."""
    name, numbers, level = seat.name, ", ".join(seat.heard), seat.level_db
    if seat.heard:
        if level is None:
            return check_phrase(lang, "heard", player=name, numbers=numbers)
        return check_phrase(lang, "heard_at", player=name, numbers=numbers, level=level)
    if level is None:
        return check_phrase(lang, "heard_nothing", player=name)
    return check_phrase(lang, "heard_nothing_at", player=name, level=level)


def prompt(name: str, lang: str) -> str:
    """What a player is asked as their turn begins."""
    return check_phrase(lang, "say_two", player=name)


def check(
    model: SpeechModel,
    lang: str,
    names: Sequence[str],
    chunks: Iterable[bytes],
    on_turn: Callable[[str], None] | None = None,
) -> Check:
    """Hear ``names`` say two numbers each, in turn, from ``chunks`` (16 kHz pcm16);
    ``on_turn`` is told each player's name as their turn begins (to prompt them: :func:`prompt`).
    ``lang`` is the table's: the numbers heard and the report's words."""
    endpointer = Endpointer(recognizer_for(model, SAMPLE_RATE, number_phrases(range(1, 100), lang)))
    meter = RoomMeter()
    heard: dict[str, list[str]] = {name: [] for name in names}
    turn, turn_start = 0, 0.0

    def next_turn() -> None:
        nonlocal turn, turn_start
        turn, turn_start = turn + 1, endpointer.time
        if on_turn is not None and turn < len(names):
            on_turn(names[turn])

    if on_turn is not None and names:
        on_turn(names[0])

    def take(hearing: Hearing | None) -> None:
        while hearing is not None and turn < len(names):
            name = names[turn]
            if hearing.text:
                heard[name].append(hearing.text)
            meter.later(hearing.start, hearing.speech_end, endpointer.time, name)
            if len(heard[name]) >= SAID:
                next_turn()
            hearing = endpointer.feed(b"")

    crowded = False  # others talked among themselves near the phone at some point
    for chunk in _until_done(chunks, lambda: turn >= len(names)):
        meter.feed(chunk)
        take(endpointer.feed(chunk))
        crowded = crowded or endpointer.foreground.busy
        if turn < len(names) and endpointer.time - turn_start > TURN_S and not endpointer.in_utterance:
            next_turn()
    take(endpointer.flush())
    meter.feed(bytes(2 * round(SAMPLE_RATE * 0.7)))  # the last tail, measured
    room = meter.room()
    seats = tuple(Seat(n, tuple(heard[n]), room.level(n)) for n in names)
    return Check(lang, seats, room, verdicts(seats, room, lang, crowded=crowded))


def _until_done(chunks: Iterable[bytes], done: Callable[[], bool]) -> Iterator[bytes]:
    """``chunks`` until ``done``, and two seconds more (the last word's tail)."""
    tail = 0
    for chunk in chunks:
        yield chunk
        if done():
            tail += len(chunk)
            if tail >= 4 * SAMPLE_RATE:
                return


def verdicts(seats: Sequence[Seat], room: RoomSound, lang: str, *, crowded: bool = False) -> tuple[str, ...]:
    """Plain advice from what was measured, in ``lang``; "Everyone is heard well." when none
    is needed. ``crowded``: others talked among themselves near the phone (every move heard
    while they do is read back: host/speech/foreground.py)."""
    out = []
    levels = [s.level_db for s in seats if s.level_db is not None]
    loudest = max(levels) if levels else None
    for seat in seats:
        if not seat.heard or seat.level_db is None:
            out.append(check_phrase(lang, "not_heard", player=seat.name))
        elif loudest is not None and seat.level_db < loudest - QUIET_DB:
            out.append(check_phrase(lang, "quiet", player=seat.name))
    snr = room.snr_db
    if snr is not None and snr < NOISY_SNR_DB:
        out.append(check_phrase(lang, "noisy"))
    if room.rt60 is not None and room.rt60 >= ECHOING_RT60:  # moves not heard clearly are read back
        out.append(check_phrase(lang, "echoes", rt60=room.rt60))
    elif room.rt60 is not None and room.rt60 >= RINGS_RT60:
        out.append(check_phrase(lang, "echoes_little", rt60=room.rt60))
    if crowded:
        out.append(check_phrase(lang, "crowded"))
    if any(u.peak_db >= CLIPS_DBFS for u in room.utterances):
        out.append(check_phrase(lang, "too_loud"))
    return tuple(out) or (check_phrase(lang, "all_well"),)

"""The room measured from what players say in it (host/speech/room.py) and its late
reverberation taken out (host/speech/dereverb.py): Piper's voice in a modelled room
(tests/speech/reverb.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from host.speech.audio import SAMPLE_RATE, as_int16
from host.speech.dereverb import FRAME, HOP, Dereverberator
from host.speech.room import RoomMeter, decay_rt60
from tests import voices
from tests.speech.conftest import trim
from tests.speech.reverb import in_room, said_in_room

WORDS = ("fifty three", "nineteen", "Ann", "forty two", "seventy", "Bob")


def measured(
    rt60: float | None, gain: float = 1.0, words: tuple[str, ...] = WORDS, snr_db: float | None = None
) -> RoomMeter:
    """The meter after ``words`` said in the room (``snr_db``: with white noise that far below
    the speech)."""
    audio, spans = said_in_room([trim(voices.piper(w)) for w in words], rt60)
    if gain != 1.0:
        audio = (as_int16(audio) * gain).astype("<i2").tobytes()
    if snr_db is not None:
        x = as_int16(audio).astype(np.float64)
        speech = np.concatenate([x[round(a * SAMPLE_RATE) : round(b * SAMPLE_RATE)] for a, b in spans])
        level = np.sqrt(np.mean(speech**2) / 10 ** (snr_db / 10))
        noise = np.random.default_rng(3).normal(0.0, level, x.size)
        audio = np.clip(np.rint(x + noise), -32768, 32767).astype("<i2").tobytes()
    meter = RoomMeter()
    meter.feed(audio)
    for start, end in spans:
        meter.utterance(start, end)
    return meter


def test_a_straight_decay_reads_as_its_rt60() -> None:
    # 10 ms frames falling 60 dB in 0.5 s from -30 dBFS onto a floor of -70 dBFS.
    levels = [max(-30 - 120 * 0.01 * k, -70.0) for k in range(60)]
    rt60 = decay_rt60(levels, -70.0)
    assert rt60 is not None and rt60 == pytest.approx(0.5, abs=0.02)
    assert decay_rt60(levels[:3], -70.0) is None  # too short to read
    assert decay_rt60([-60.0] * 40, -70.0) is None  # no decay above the floor


@pytest.mark.parametrize("rt60", [0.3, 0.6, 0.9])
def test_a_decay_that_meets_the_noise_floor_reads_as_the_rooms(rt60: float) -> None:
    # The tail's power plus the floor's: the level bends into the floor 25 dB down.
    floor = -60.0
    tail = [floor + 25 - 60 * 0.01 * k / rt60 for k in range(80)]
    levels = [10 * math.log10(10 ** (t / 10) + 10 ** (floor / 10)) for t in tail]
    measured_rt60 = decay_rt60(levels, floor)
    assert measured_rt60 is not None and measured_rt60 == pytest.approx(rt60, rel=0.03)  # was 16 % long


def test_a_word_that_stops_dead_in_noise_is_no_decay() -> None:
    # A fricative's last frames 8 dB above the floor, then nothing but the floor: fitted as
    # a decay, 2 s of ringing at a dry table.
    floor = -60.0
    levels = [floor + d for d in (22, 19, 14, 17, 15, 11, *[8] * 12, *[0.5] * 40)]
    assert decay_rt60(levels, floor) is None


@pytest.mark.parametrize("rt60", [0.4, 0.8])
def test_a_room_is_measured_through_noise_as_in_quiet(rt60: float) -> None:
    quiet, noisy = measured(rt60).rt60, measured(rt60, snr_db=15.0).rt60
    assert quiet is not None and noisy is not None
    assert noisy == pytest.approx(rt60, rel=0.15)  # 0.48 and 1.05 s before the floor came out
    assert noisy == pytest.approx(quiet, rel=0.15)


@pytest.mark.parametrize("rt60", [0.4, 0.8])
def test_the_room_is_measured_from_the_tails_of_what_players_say(rt60: float) -> None:
    room = measured(rt60).room()
    assert room.rt60 is not None and room.rt60 == pytest.approx(rt60, rel=0.3)
    assert -80 < room.floor_db < -60  # the floor (RMS 20) is -64 dBFS


def test_a_table_of_two_is_measured_from_their_names() -> None:
    rt60 = measured(0.7, words=("Ann", "Bob")).rt60
    assert rt60 is not None and rt60 == pytest.approx(0.7, rel=0.3)


@pytest.mark.parametrize("snr_db", [None, 20.0])
def test_dry_speech_does_not_ring(snr_db: float | None) -> None:
    rt60 = measured(None, snr_db=snr_db).rt60
    assert rt60 is None or rt60 < 0.3


def test_each_speakers_level_is_kept() -> None:
    meter = RoomMeter()
    loud, _ = said_in_room([trim(voices.piper("Ann"))], 0.5)
    quiet = (as_int16(loud) * 0.25).astype("<i2").tobytes()
    meter.feed(loud + quiet)
    half = len(loud) / 2 / SAMPLE_RATE
    meter.later(0.8, 1.2, now=meter.time, who="Ann")
    meter.later(half + 0.8, half + 1.2, now=meter.time, who="Bob")
    meter.feed(bytes(2 * SAMPLE_RATE))  # their tails are in
    room = meter.room()
    ann, bob = room.level("Ann"), room.level("Bob")
    assert ann is not None and bob is not None and ann - bob == pytest.approx(12.0, abs=1.5)
    assert room.level("Cy") is None


def tail_db(pcm: bytes, end_s: float) -> float:
    """Energy from 50 to 400 ms after ``end_s`` against the speech before it (dB)."""
    x = as_int16(pcm).astype(np.float64)
    end = round(end_s * SAMPLE_RATE)
    tail = x[end + round(0.05 * SAMPLE_RATE) : end + round(0.4 * SAMPLE_RATE)]
    return float(10 * np.log10(np.mean(tail**2) / np.mean(x[:end] ** 2)))


def test_the_dereverberator_takes_the_tail_out_and_keeps_the_word() -> None:
    dry = trim(voices.piper("fifty three"))
    wet = in_room(dry, 0.8)
    end = as_int16(dry).size / SAMPLE_RATE
    dereverberator = Dereverberator(0.8)
    out = b"".join(dereverberator(wet[i : i + 640]) for i in range(0, len(wet), 640))
    delay = (FRAME - HOP) / SAMPLE_RATE  # 24 ms
    assert len(out) == len(wet) - len(wet) % (2 * HOP)  # as much as it was given, whole hops
    assert tail_db(out, end + delay) < tail_db(wet, end) - 2  # the tail turned down
    speech = as_int16(out)[: round((end + delay) * SAMPLE_RATE)].astype(np.float64)
    assert np.sqrt(np.mean(speech**2)) > 0.5 * np.sqrt(
        np.mean(as_int16(wet)[: speech.size].astype(np.float64) ** 2)
    )


def test_below_a_ringing_room_the_audio_passes_unchanged_but_delayed() -> None:
    dry = trim(voices.piper("nineteen"))
    out = Dereverberator(0.1)(dry)
    delay = FRAME - HOP
    a, b = (
        as_int16(out)[delay:].astype(np.int32),
        as_int16(dry)[: as_int16(out).size - delay].astype(np.int32),
    )
    assert np.max(np.abs(a - b)) <= 2

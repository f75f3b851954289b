"""The table's loudspeaker: the host says its announcements out loud."""

from __future__ import annotations

import logging
from collections.abc import Callable

import host.speech.audio as speech_audio
from host.speech.audio import AudioDeviceError
from host.speech.tts import TTSError, duration, play, prepare_in_background, stop_preparing, synthesize_stream

log = logging.getLogger(__name__)


class Loudspeaker:
    """Says announcements through the sound card (or whatever ``player`` plays pcm16 on: the
    browser microphone's page); falls back to silence if it cannot."""

    def __init__(self, lang: str, rate: int, player: Callable[[bytes, int], None] = play) -> None:
        self.lang = lang
        self.rate = rate
        self.player = player
        self.can_play = True
        self.can_speak = True

    def prepare(self) -> None:
        """Make the fixed announcements' audio in the background, so they start at once; but
        first, when the sound card plays them, ask it once whether it can (without one,
        every announcement was made, at the cost of the listener's CPU, then not played)."""
        if self.player is play and self.can_play:
            self.can_play = has_output(self.rate)
        if self.can_speak and self.can_play:
            prepare_in_background(self.lang, self.rate)

    def close(self) -> None:
        """Stop making audio in the background (before the process exits: see
        :func:`~host.speech.tts.stop_preparing`)."""
        stop_preparing()

    def say(self, text: str) -> float:
        """Speak ``text``; return the seconds of audio it took (0 if nothing was said: with
        no sound card the room hears nothing, so no input is dropped for it). Playing
        starts with the first sentence (a cached announcement at once), not after the last
        is synthesised."""
        if not self.can_speak or not self.can_play:
            return 0.0
        seconds = 0.0
        try:
            for pcm in synthesize_stream(text, self.lang, self.rate):
                self.player(pcm, self.rate)
                seconds += duration(pcm, self.rate)
        except TTSError as exc:
            log.warning("%s; announcements are printed only", exc)
            self.can_speak = False
        except AudioDeviceError as exc:
            log.warning("%s; announcements are printed only", exc)
            self.can_play = False
        return seconds


def has_output(rate: int) -> bool:
    """Whether the default output device plays pcm16 mono at ``rate``; warns once if not."""
    try:
        sounddevice = speech_audio.load_sounddevice()
        sounddevice.check_output_settings(device=None, channels=1, dtype="int16", samplerate=rate)
    except Exception as exc:  # AudioDeviceError, PortAudioError ("Error querying device -1"), ValueError
        log.warning("no sound card to speak through (%s): announcements are printed only", exc)
        return False
    return True

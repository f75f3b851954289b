"""The gate of :mod:`host.speech.sphinx`: a pocketsphinx decoder on the same audio as the
phrase decoder, with a grammar of "one whole phrase, or a run of talk words"; and the two
decoder helpers both use."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Gate:
    """One gate decoder: the audio against "one whole phrase, or a run of talk words", the
    talk branch with prior ``weight``. The decoder is made when talk words first come."""

    def __init__(self, config: Any, weight: float) -> None:
        self.config = config
        self.weight = weight
        self.decoder: Any = None
        self.searches: dict[str, str] = {}  # grammar text -> search name in the decoder
        self.active: str | None = None  # the search in use (None: no gate now)
        self.in_utt = False
        self.fed = 0  # pieces of the utterance's audio decoded

    def start(self) -> None:
        self.decoder.start_utt()
        self.in_utt, self.fed = True, 0

    def end(self) -> None:
        if self.in_utt:
            self.decoder.end_utt()
            self.in_utt = False

    def feed(self, audio: list[bytes]) -> None:
        """Decode what of ``audio`` (the utterance so far) it has not decoded yet."""
        for pcm in audio[self.fed :]:
            self.decoder.process_raw(pcm, False, False)
        self.fed = len(audio)

    def activate(self, make: Callable[[Any], Any], grammar: str | None) -> None:
        """Listen with the JSGF ``grammar`` (None: no gate now); ``make`` makes the decoder
        from the config, the first time."""
        if grammar is None:
            self.active = None
            return
        if self.decoder is None:
            self.decoder = make(self.config)
        name = search_for(self.decoder, self.searches, grammar)
        if self.active != name:
            self.decoder.activate_search(name)
            self.active = name

    def set_cmn(self, value: str) -> None:
        self.config["cmninit"] = value  # the decoder may not be made yet
        if self.decoder is not None:
            self.decoder.set_cmn(value)

    def text(self) -> str:
        return decoder_text(self.decoder)


def decoder_text(decoder: Any) -> str:
    """A decoder's best reading so far, words single-spaced ("" for none)."""
    hyp = decoder.hyp()
    return " ".join(str(hyp.hypstr).split()) if hyp is not None else ""


def search_for(decoder: Any, searches: dict[str, str], grammar: str) -> str:
    """The decoder's search for a JSGF grammar, added the first time it is seen."""
    found = searches.get(grammar)
    if found is None:
        found = f"g{len(searches)}"
        decoder.add_jsgf_string(found, grammar)
        searches[grammar] = found
    return found

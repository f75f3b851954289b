"""The gate of :mod:`host.speech.sphinx`: a pocketsphinx decoder on the same audio as the
phrase decoder, with a grammar of "one whole phrase, or a run of talk words"; the talk
words it may use; and the decoder helpers both use (a grammar's search, its words taught
to a decoder made with an empty dictionary, the best reading)."""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from host.speech.model import SpeechModel

ALT_PRONUNCIATION = re.compile(r"\(\d+\)$")  # "hundred(2)" is "hundred"
# JSGF reserves these; a dictionary word containing one must be quoted.
_JSGF_SPECIAL = re.compile(r"[;=|*+<>()\[\]{}/\"\\\s]")


def _token(word: str) -> str:
    if not _JSGF_SPECIAL.search(word):
        return word
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def alternatives(phrases: Iterable[str]) -> str:
    """``phrases`` as JSGF alternatives."""
    return " | ".join(" ".join(_token(w) for w in p.split()) for p in phrases)


def gate_jsgf(phrases: list[str], talk: list[str], weight: float) -> str:
    """One whole phrase, or one or more ``talk`` words in any order: the gate's grammar."""
    return _gate_jsgf(tuple(phrases), tuple(talk), weight)


@lru_cache(maxsize=256)
def _gate_jsgf(phrases: tuple[str, ...], talk: tuple[str, ...], weight: float) -> str:
    body = (
        f"/1/ <phrase> | /{weight:.30f}/ <talk>+;\n<phrase> = {alternatives(phrases)};\n"
        f"<talk> = {alternatives(talk)}"
    )
    if not phrases:
        body = f"<talk>+;\n<talk> = {alternatives(talk)}"
    return f"#JSGF V1.0;\ngrammar gate;\npublic <gate> = {body};\n"


class Gate:
    """One gate decoder: the audio against "one whole phrase, or a run of talk words", the
    talk branch with prior ``weight``. The decoder is made when talk words first come."""

    def __init__(self, config: Any, weight: float) -> None:
        self.config = config
        self.weight = weight
        self.decoder: Any = None
        self.known: set[str] = set()  # words added to the decoder's dictionary (teach)
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

    def activate(
        self, make: Callable[[Any], Any], grammar: str | None, teach: Callable[[Any, set[str]], None]
    ) -> None:
        """Listen with the JSGF ``grammar`` (None: no gate now); ``make`` makes the decoder
        from the config, the first time; ``teach`` adds the grammar's words it lacks."""
        if grammar is None:
            self.active = None
            return
        if self.decoder is None:
            self.decoder, self.known = make(self.config), set()
        teach(self.decoder, self.known)
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


def doubter(gates: list[Gate]) -> Gate | None:
    """The gate's twin when it doubts (listening with a higher talk prior than the gate's)."""
    twin = gates[1] if len(gates) > 1 else None
    return twin if twin is not None and twin.active is not None and twin.weight > gates[0].weight else None


def doubted(gates: list[Gate], audio: list[bytes], phrase: str, phrases: Iterable[str]) -> str:
    """The talk a doubting twin (:func:`doubter`) hears in ``audio``, which the gate heard
    as ``phrase``; "" when it has none or hears a phrase too. The twin decodes only for the
    phrases doubted: what it has not heard yet (``Gate.feed``), now."""
    twin = doubter(gates)
    if not phrase or twin is None:
        return ""
    twin.feed(audio)
    twin.end()
    heard = twin.text()
    return heard if heard and heard != phrase and heard not in phrases else ""


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


@lru_cache(maxsize=2)
def pronunciations(dictionary: Path) -> dict[str, tuple[str, ...]]:
    """Every pronunciation of every word of a pocketsphinx dictionary, the dictionary's own
    order (~0.3 s, once)."""
    found: dict[str, dict[str, None]] = {}
    with dictionary.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            word, _, phones = line.strip().partition(" ")
            if phones:
                found.setdefault(ALT_PRONUNCIATION.sub("", word), {})[" ".join(phones.split())] = None
    return {w: tuple(p) for w, p in found.items()}


@lru_cache(maxsize=1)
def empty_dictionary() -> Path:
    """A dictionary of no words. A decoder made with the model's own reads all 134,000 of
    them, ~0.13 s of CPU each time (a table's three decoders are remade when the room turns
    out to ring); made with this one it starts in ~0.01 s and :func:`teach` adds the few its
    grammars use, with every pronunciation the model's dictionary gives them."""
    return scratch_file("empty.dict", "")


def scratch_file(name: str, text: str) -> Path:
    """A file pocketsphinx reads by path, in a private directory removed when the process
    exits (one such directory a process was left behind in the temp dir before)."""
    folder = tempfile.mkdtemp(prefix="gamehost-sphinx-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = Path(folder) / name
    path.write_text(text)
    return path


def teach(
    decoder: Any, known: set[str] | None, words: Iterable[str], model: SpeechModel, variant: int
) -> None:
    """Add to ``decoder`` each of ``words`` not ``known`` yet (None: it has the model's whole
    dictionary), as the ``model``'s dictionary says it ("word", "word(2)", ...), and the
    model's second pronunciation of it ("word(9)" for ``variant`` 9, after the dictionary's:
    pocketsphinx numbers a pronunciation only after its word's first)."""
    if known is None:
        return
    assert model.dictionary is not None
    said, ours = pronunciations(model.dictionary), model.variants
    for word in words:
        if word in known:
            continue
        known.add(word)
        for k, phones in enumerate(said.get(word, ())):
            decoder.add_word(word if k == 0 else f"{word}({k + 1})", phones, False)
        if word in ours and (word in said or word in model.pronunciations):
            decoder.add_word(f"{word}({variant})", ours[word], False)


def talk_words(talk: Iterable[str], phrases: Iterable[str], dictionary: Path | None) -> list[str]:
    """The ``talk`` words a gate may use with ``phrases``: none that is a phrase by itself or
    sounds exactly like one ("two" said alone must be the move, not the word "to"). Words
    only found inside longer phrases stay: a whole phrase said still beats the same words
    as talk (the talk branch's prior and word penalty), while without "take", "what" or
    "game" in the loop, "take your time" had to be heard as "take it back" and "welcome,
    take a seat" as "what can i say"."""
    return list(_talk_words(tuple(talk), tuple(phrases), dictionary))


# The phrases change with every game state and the same lists come back (a player's turn,
# the same moves): remembered, as a spoken card game spent a tenth of its CPU here.
@lru_cache(maxsize=256)
def _talk_words(talk: tuple[str, ...], phrases: tuple[str, ...], dictionary: Path | None) -> tuple[str, ...]:
    alone = {" ".join(p.split()) for p in phrases if len(p.split()) == 1}
    sounds = pronunciations(dictionary) if dictionary is not None else {}
    taken = {pron for w in alone for pron in sounds.get(w, ())}
    return tuple(w for w in talk if w not in alone and taken.isdisjoint(sounds.get(w, ())))

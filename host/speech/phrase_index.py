"""Where a text stands in a phrase list, word by word: whether it ends a phrase that
nothing extends (the utterance may end at once), ends a phrase a longer one extends
("fifty" of "fifty three"), or what words may come next. The end-pointer
(:class:`host.speech.endpointer.Endpointer`) and the listener ask it.
"""

from __future__ import annotations

from functools import lru_cache


def complete_phrases(phrases: tuple[str, ...] | None) -> frozenset[str]:
    """Phrases that no other phrase of the list extends word by word.

    Hearing one of these, nothing the speaker could add would make another phrase, so the
    utterance can end after a short silence: "fifty three" is complete among the numbers,
    "ninety" is not ("ninety one").
    """
    if not phrases:
        return frozenset()
    whole, prefixes = _phrase_index(phrases)
    return whole - prefixes


@lru_cache(maxsize=64)
def _phrase_index(phrases: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """The phrases, and the word sequences that begin a longer phrase."""
    return frozenset(" ".join(p.split()) for p in phrases), frozenset(_followers(phrases))


def next_words(text: str, phrases: tuple[str, ...] | None) -> frozenset[str]:
    """The words a longer phrase may go on with after ``text`` (judged by its last words, as
    :func:`ending` does): "이" and the other ranks after "스페이드", "거꾸로" after "낸다 공중제비"."""
    if not phrases or not text:
        return frozenset()
    follows = _followers(phrases)
    words = text.split()
    return frozenset().union(*(follows.get(" ".join(words[i:]), ()) for i in range(len(words))))


@lru_cache(maxsize=64)
def _followers(phrases: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """Each word sequence that begins a longer phrase, and the words that may come next."""
    found: dict[str, set[str]] = {}
    for phrase in {" ".join(p.split()) for p in phrases}:
        words = phrase.split()
        for i in range(1, len(words)):
            found.setdefault(" ".join(words[:i]), set()).add(words[i])
    return {k: frozenset(v) for k, v in found.items()}


def sound_extended(text: str, phrases: tuple[str, ...] | None) -> bool:
    """Whether ``text``'s last word begins a longer word of the phrase list, letter by
    letter: "eight" of "eighty" and "eighteen", "seven" of "seventy". Heard so far, the
    speaker may be in the quiet end of the longer word ("-ty", "-teen"), which a room's
    tail can hide.

    >>> numbers = ("eight", "eighteen", "eighty", "fifty three", "seven", "seventy")
    >>> [sound_extended(t, numbers) for t in ("eight", "fifty three", "seventy", "")]
    [True, False, False, False]
    """
    words = text.split()
    return bool(words) and bool(phrases) and words[-1] in _sound_prefixes(phrases)


@lru_cache(maxsize=64)
def _sound_prefixes(phrases: tuple[str, ...]) -> frozenset[str]:
    """The words of ``phrases`` that a longer word of them begins with."""
    vocabulary = sorted({w for p in phrases for w in p.split()})
    return frozenset(
        w for i, w in enumerate(vocabulary) if i + 1 < len(vocabulary) and vocabulary[i + 1].startswith(w)
    )


def ending(text: str, phrases: tuple[str, ...] | None) -> str | None:
    """How ``text`` ends in the phrase list: "complete" when its last words are a phrase and
    no ending of it begins a longer one (nothing the speaker adds extends a phrase: what
    follows would be a new phrase), "phrase" when it ends with a phrase a longer one
    extends ("fifty" of "fifty three"), else None.

    A phrase-list decoder may put any phrases in a row ("사 삼십 이" for a misheard 31),
    so a text is judged by its last phrase, not only as a whole.
    """
    if not phrases or not text:
        return None
    whole, prefixes = _phrase_index(phrases)
    if text in whole:
        # One phrase: only it can be extended ("forty one" is complete although "one"
        # begins "one hundred"; a grammar of single phrases, like JSGF, has nothing else).
        return "phrase" if text in prefixes else "complete"
    words = text.split()
    tails = [" ".join(words[i:]) for i in range(len(words))]
    if not any(t in whole for t in tails):
        return None
    return "phrase" if any(t in prefixes for t in tails) else "complete"

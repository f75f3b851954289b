"""SMS text: GSM-7 checks, safe player names, and fitting lines into single segments.

One character outside the GSM 03.38 alphabet turns a whole message into UCS-2 (70
characters a segment), and a message over 160 GSM-7 characters is billed and delivered as
several parts that may arrive out of order. So everything the host texts goes through
``fit``: cleaned to GSM-7, then packed into messages of at most one segment each.

>>> fit(["Ann said 53.", "Bob: an odd number above 53 or an even number below 53."], "#2 ")
['#2 Ann said 53. Bob: an odd number above 53 or an even number below 53.']
>>> sanitize_name("  Zoë 🎲 O'Brien-Smith ")
"Zoe O'Brien"
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

from grammars import languages, load

SEGMENT = 160  # GSM-7 characters in a single-part SMS

# GSM 03.38 default alphabet (ESC excluded) and its extension table (two characters each).
GSM7_BASIC = frozenset(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
GSM7_EXTENSION = frozenset("^{}\\[~]|€\f")
_GSM7 = GSM7_BASIC | GSM7_EXTENSION

# Common characters phones and keyboards produce that have a GSM-7 spelling.
_REPLACEMENTS = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "`": "'",
        "\u00b4": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u2010": "-",
        "\u2011": "-",
        "\u2026": "...",
        "\u00a0": " ",
        "\u2009": " ",
        "\u202f": " ",
        "\t": " ",
    }
)

NAME_MAX = 12
# Letters people use in names that GSM-7 has (upper and lower case where it has both).
_NAME_LETTERS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789èéùìòÇØøÅåÆæßÉÄÖÑÜäöñüà"
)
_NAME_MARKS = frozenset(" -'.")


def is_gsm7(text: str) -> bool:
    return _GSM7.issuperset(text)


def gsm_length(text: str) -> int:
    """Septets ``text`` takes in GSM-7 (extension characters count twice).

    Raises ``ValueError`` for text that would force UCS-2."""
    if not _GSM7.issuperset(text):
        c = next(c for c in text if c not in _GSM7)
        raise ValueError(f"{c!r} is not in the GSM-7 alphabet")
    if GSM7_EXTENSION.isdisjoint(text):  # the usual case: one septet a character
        return len(text)
    return len(text) + sum(1 for c in text if c in GSM7_EXTENSION)


def fits_one_segment(text: str) -> bool:
    return is_gsm7(text) and gsm_length(text) <= SEGMENT


def to_gsm7(text: str) -> str:
    """``text`` with every character GSM-7 can carry; others spelled plainly or dropped."""
    if is_gsm7(text):  # the usual case: our own phrases
        return " ".join(text.split())
    text = text.translate(_REPLACEMENTS)
    out: list[str] = []
    for c in text:
        if c in GSM7_BASIC or c in GSM7_EXTENSION:
            out.append(c)
            continue
        # "ł" has no decomposition, "ô" becomes "o" + accent: keep what GSM-7 knows.
        base = "".join(b for b in unicodedata.normalize("NFKD", c) if b in GSM7_BASIC)
        out.append(base)
    return " ".join("".join(out).split())


def sanitize_name(raw: str, limit: int = NAME_MAX) -> str:
    """A player name safe to text to everyone: GSM-7 letters, digits, `` -'.``, at most
    ``limit`` characters; empty when nothing usable is left (the caller picks a default)."""
    kept: list[str] = []
    for c in raw.translate(_REPLACEMENTS):
        if c in _NAME_LETTERS or c in _NAME_MARKS:
            kept.append(c)
        elif c.isspace():
            kept.append(" ")
        else:
            kept.extend(b for b in unicodedata.normalize("NFKD", c) if b in _NAME_LETTERS)
    name = " ".join("".join(kept).split())
    name = name[:limit].strip(" -'.")
    return name if any(c.isalnum() for c in name) else ""


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_COLON = re.compile(r"(?<=[:;])\s+")
_CLAUSE_END = re.compile(r"(?<=,)\s+")


def _pack(pieces: Iterable[str], room: int) -> list[str]:
    """Join pieces with spaces into as few chunks of at most ``room`` septets as order allows."""
    chunks: list[str] = []
    current = ""
    for piece in pieces:
        candidate = f"{current} {piece}" if current else piece
        if gsm_length(candidate) <= room:
            current = candidate
        else:
            if current:
                chunks.append(current)
            current = piece
    if current:
        chunks.append(current)
    return chunks


def _split(text: str, room: int) -> list[str]:
    """Pieces of ``text`` each at most ``room`` septets, cut at sentences, then colons, then
    clauses, then words, then (a 200-digit number) anywhere. A sentence that fits stays
    whole: "Tricks:" never ends one text with its list in the next."""
    if gsm_length(text) <= room:
        return [text]
    for pattern in (_SENTENCE_END, _COLON, _CLAUSE_END, re.compile(r"\s+")):
        parts = pattern.split(text)
        if len(parts) > 1:
            return _pack((p for part in parts for p in _split(part, room)), room)
    pieces: list[str] = []
    current = ""
    for c in text:
        if gsm_length(current + c) > room:
            pieces.append(current)
            current = ""
        current += c
    return [*pieces, current] if current else pieces


@functools.cache
def _texted_rules() -> tuple[re.Pattern[str] | None, tuple[tuple[re.Pattern[str], str], ...]]:
    """Each language's ``sms_texted`` phrase: ``spoken=texted`` pairs separated by ``;``;
    and one pattern matching wherever any of them would (None: there are none)."""
    rules: list[tuple[re.Pattern[str], str]] = []
    said: list[str] = []
    for lang in languages():
        for pair in load(lang).phrases.get("sms_texted", "").split(";"):
            spoken, eq, texted = pair.partition("=")
            if eq and spoken.strip():
                said.append(re.escape(spoken.strip()))
                pattern = re.compile(rf"(?<!\w){said[-1]}(?!\w)", re.IGNORECASE)
                rules.append((pattern, texted.strip()))
    anywhere = re.compile(rf"(?<!\w)(?:{'|'.join(said)})(?!\w)", re.IGNORECASE) if said else None
    return anywhere, tuple(rules)


def texted(line: str) -> str:
    """``line`` as said over SMS: what the host tells people to say, they text ("Say new game"
    becomes "Text NEW"; grammars/<lang>/phrases.yaml ``sms_texted``).

    >>> texted("Cy wins! Cy opens the next game: say new game.")
    'Cy wins! Cy opens the next game: text NEW.'
    >>> texted("Say new game to play again.")
    'Text NEW to play again.'
    """
    anywhere, rules = _texted_rules()
    if anywhere is None or anywhere.search(line) is None:
        return line  # most lines: no rule applies, and each would have been tried in turn
    for pattern, words in rules:
        line = pattern.sub(functools.partial(_as_texted, words), line)
    return line


def _as_texted(words: str, match: re.Match[str]) -> str:
    """``words`` capitalised like the spoken words they replace."""
    return words[:1].upper() + words[1:] if match[0][:1].isupper() else words


def fit(lines: Iterable[str], prefix: str = "", limit: int = SEGMENT, numbered: bool = False) -> list[str]:
    """Messages carrying ``lines`` in order, each ``prefix`` + text within one segment.

    Lines are said as texted (:func:`texted`) and packed together while they fit; a line
    too long on its own is split at sentence, then clause, then word boundaries.
    ``numbered``: an answer that takes several texts numbers them ("1/2 ", "2/2 "), since
    texts can arrive out of order.

    >>> fit(["One sentence here.", "Another one."], limit=30, numbered=True)
    ['1/2 One sentence here.', '2/2 Another one.']
    """
    lines = list(lines)
    prefix = to_gsm7(prefix) + (" " if prefix.endswith(" ") else "")
    room = limit - gsm_length(prefix)
    if room < 20:
        raise ValueError(f"prefix {prefix!r} leaves no room")
    pieces = [p for line in lines if (clean := to_gsm7(texted(line))) for p in _split(clean, room)]
    chunks = _pack(pieces, room)
    if numbered and len(chunks) > 1:
        # Room for "nn/nn " in each: packed again without it.
        tag = len(f"{len(chunks)}/{len(chunks)} ") + 1
        pieces = [p for piece in pieces for p in _split(piece, room - tag)]
        chunks = _pack(pieces, room - tag)
        return [f"{prefix}{i}/{len(chunks)} {chunk}" for i, chunk in enumerate(chunks, start=1)]
    return [prefix + chunk for chunk in chunks]


def turn_prefix(turn: int | None) -> str:
    """Every game message starts with its turn number, so late texts can be placed."""
    return "" if turn is None else f"#{turn} "

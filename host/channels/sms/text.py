"""SMS text: GSM-7 and UCS-2, safe player names, and fitting lines into single segments.

A message all of whose characters are in the GSM 03.38 alphabet goes as GSM-7 (160
characters a segment); one character outside it (Hangul, most of the world's letters)
turns the whole message into UCS-2 (70 UTF-16 units a segment). A message over one
segment is billed and delivered as several parts that may arrive out of order. So
everything the host texts goes through ``fit``: punctuation spelled plainly and letters
GSM-7 can spell spelled so, then packed into messages of at most one segment each of the
encoding each uses.

>>> fit(["Ann said 53.", "Bob: an odd number above 53 or an even number below 53."], "#2 ")
['#2 Ann said 53. Bob: an odd number above 53 or an even number below 53.']
>>> fit(["민수, 오십삼.", "지은, 오십삼보다 큰 홀수 또는 오십삼보다 작은 짝수."], "#2 ")
['#2 민수, 오십삼. 지은, 오십삼보다 큰 홀수 또는 오십삼보다 작은 짝수.']
>>> sanitize_name("  Zoë 🎲 O'Brien-Smith "), sanitize_name("민수")
("Zoe O'Brien", '민수')
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable

from grammars import languages, load

SEGMENT = 160  # GSM-7 characters in a single-part SMS
UCS2_SEGMENT = 70  # UTF-16 units in a single-part SMS of any other characters

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


def ucs2_length(text: str) -> int:
    """UTF-16 units ``text`` takes in UCS-2 (a character beyond the BMP, an emoji, takes two)."""
    return len(text.encode("utf-16-le")) // 2


def fits_one_segment(text: str) -> bool:
    """Whether ``text`` goes as one segment of the encoding it needs."""
    if is_gsm7(text):
        return gsm_length(text) <= SEGMENT
    return ucs2_length(text) <= UCS2_SEGMENT


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


def cleaned(text: str) -> str:
    """``text`` as texted: phone punctuation spelled plainly, a letter GSM-7 can spell
    spelled so ("ô" as "o"), any other letter, digit or sign kept as it is (the message
    then goes as UCS-2), control characters dropped."""
    if is_gsm7(text):
        return " ".join(text.split())
    out: list[str] = []
    for c in text.translate(_REPLACEMENTS):
        if c in _GSM7:
            out.append(c)
        elif c.isspace():
            out.append(" ")
        elif base := "".join(b for b in unicodedata.normalize("NFKD", c) if b in GSM7_BASIC):
            out.append(base)
        elif unicodedata.category(c)[0] in "LMNPS":
            out.append(c)
    return " ".join("".join(out).split())


def sanitize_name(raw: str, limit: int = NAME_MAX) -> str:
    """A player name safe to text to everyone: letters, digits, `` -'.``, at most ``limit``
    characters; a letter GSM-7 can spell spelled so ("Zoë" is "Zoe": its texts stay
    GSM-7), any other letter kept ("민수": texts with it go as UCS-2); empty when nothing
    usable is left (the caller picks a default)."""
    kept: list[str] = []
    for c in raw.translate(_REPLACEMENTS):
        if c in _NAME_LETTERS or c in _NAME_MARKS:
            kept.append(c)
        elif c.isspace():
            kept.append(" ")
        elif spelled := [b for b in unicodedata.normalize("NFKD", c) if b in _NAME_LETTERS]:
            kept.extend(spelled)
        elif c.isalpha() or (c.isdigit() and c.isdecimal()):
            kept.append(c)
    name = " ".join("".join(kept).split())
    name = name[:limit].strip(" -'.")
    return name if any(c.isalnum() for c in name) else ""


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_COLON = re.compile(r"(?<=[:;])\s+")
_CLAUSE_END = re.compile(r"(?<=,)\s+")


Fits = Callable[[str], bool]


def _fits(prefix: str, limit: int = SEGMENT, reserve: int = 0) -> Fits:
    """Whether a chunk after ``prefix`` (and ``reserve`` ASCII characters: a part number)
    goes as one segment of the encoding the whole message needs: ``limit`` GSM-7
    characters, or as much of a UCS-2 segment."""
    gsm, ucs2 = limit - reserve, limit * UCS2_SEGMENT // SEGMENT - reserve

    def fits(chunk: str) -> bool:
        text = prefix + chunk
        if _GSM7.issuperset(text):
            return gsm_length(text) <= gsm
        return ucs2_length(text) <= ucs2

    return fits


def _pack(pieces: Iterable[str], fits: Fits) -> list[str]:
    """Join pieces with spaces into as few chunks that fit as order allows."""
    chunks: list[str] = []
    current = ""
    for piece in pieces:
        candidate = f"{current} {piece}" if current else piece
        if fits(candidate):
            current = candidate
        else:
            if current:
                chunks.append(current)
            current = piece
    if current:
        chunks.append(current)
    return chunks


def _split(text: str, fits: Fits) -> list[str]:
    """Pieces of ``text`` that each fit, cut at sentences, then colons, then clauses, then
    words, then (a 200-digit number) anywhere. A sentence that fits stays whole: "Tricks:"
    never ends one text with its list in the next."""
    if fits(text):
        return [text]
    for pattern in (_SENTENCE_END, _COLON, _CLAUSE_END, re.compile(r"\s+")):
        parts = pattern.split(text)
        if len(parts) > 1:
            return _pack((p for part in parts for p in _split(part, fits)), fits)
    pieces: list[str] = []
    current = ""
    for c in text:
        if current and not fits(current + c):
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
    """Messages carrying ``lines`` in order, each ``prefix`` + text within one segment of
    the encoding it needs (``limit`` GSM-7 characters, or :data:`UCS2_SEGMENT` UTF-16
    units when a character GSM-7 lacks is in it, scaled down with ``limit``).

    Lines are said as texted (:func:`texted`) and packed together while they fit; a line
    too long on its own is split at sentence, then clause, then word boundaries.
    ``numbered``: an answer that takes several texts numbers them ("1/2 ", "2/2 "), since
    texts can arrive out of order.

    >>> fit(["One sentence here.", "Another one."], limit=30, numbered=True)
    ['1/2 One sentence here.', '2/2 Another one.']
    """
    lines = list(lines)
    prefix = to_gsm7(prefix) + (" " if prefix.endswith(" ") else "")
    if limit - gsm_length(prefix) < 20:
        raise ValueError(f"prefix {prefix!r} leaves no room")
    fits = _fits(prefix, limit)
    pieces = [p for line in lines if (clean := cleaned(texted(line))) for p in _split(clean, fits)]
    chunks = _pack(pieces, fits)
    if numbered and len(chunks) > 1:
        # Room for "nn/nn " in each: packed again without it.
        tag = len(f"{len(chunks)}/{len(chunks)} ") + 1
        tagged = _fits(prefix, limit, tag)
        pieces = [p for piece in pieces for p in _split(piece, tagged)]
        chunks = _pack(pieces, tagged)
        return [f"{prefix}{i}/{len(chunks)} {chunk}" for i, chunk in enumerate(chunks, start=1)]
    return [prefix + chunk for chunk in chunks]


def turn_prefix(turn: int | None) -> str:
    """Every game message starts with its turn number, so late texts can be placed."""
    return "" if turn is None else f"#{turn} "

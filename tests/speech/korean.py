"""Korean number words for the speech tests and the recognition benchmark."""

from __future__ import annotations

DIGITS = ("", "일", "이", "삼", "사", "오", "육", "칠", "팔", "구")
NATIVE_TENS = ("", "열", "스물", "서른", "마흔", "쉰", "예순", "일흔", "여든", "아흔")
NATIVE_UNITS = ("", "하나", "둘", "셋", "넷", "다섯", "여섯", "일곱", "여덟", "아홉")


def sino(n: int, spaced: bool = True) -> str:
    """Sino-Korean 1..100: ``sino(53)`` is "오십 삼" (spaced) or "오십삼" (one word).

    The spaced form matters: the packaged Korean model has only 41 of the 100 one-word
    spellings (no "오십삼"), but every piece of the spaced form.
    """
    if not 1 <= n <= 100:
        raise ValueError(n)
    if n == 100:
        return "백"
    tens, units = divmod(n, 10)
    head = "" if tens == 0 else ("십" if tens == 1 else DIGITS[tens] + "십")
    if head and units:
        return head + (" " if spaced else "") + DIGITS[units]
    return head or DIGITS[units]


def native(n: int) -> str:
    """Native Korean 1..99, spaced: ``native(23)`` is "스물 셋"."""
    if not 1 <= n <= 99:
        raise ValueError(n)
    tens, units = divmod(n, 10)
    return " ".join(w for w in (NATIVE_TENS[tens], NATIVE_UNITS[units]) if w)


def parse_sino(text: str) -> int | None:
    """Value of a Sino-Korean number however vosk spaced it ("오 십삼" -> 53), else None."""
    joined = text.replace(" ", "")
    for n in range(1, 101):
        if sino(n, spaced=False) == joined:
            return n
    return None

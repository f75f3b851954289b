"""English number words for the speech tests and benchmarks."""

from __future__ import annotations

ONES = ("", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
         "nineteen")  # fmt: skip
TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")


def english(n: int) -> str:
    """1..100 as words: ``english(53)`` is "fifty three"."""
    if not 1 <= n <= 100:
        raise ValueError(n)
    if n == 100:
        return "one hundred"
    if n < 10:
        return ONES[n]
    if n < 20:
        return TEENS[n - 10]
    tens, units = divmod(n, 10)
    return TENS[tens] + (" " + ONES[units] if units else "")


NUMBERS_EN = [english(n) for n in range(1, 101)]
_VALUES = {text: n for n, text in enumerate(NUMBERS_EN, start=1)}


def parse_english(text: str) -> int | None:
    return _VALUES.get(text)

"""The table screen's HTML: the page data (``live.Feed.page``) drawn as one fragment per
region of ``/t/<code>``.

The first page and every update over Server-Sent Events carry the same fragments, so the
screen has one renderer (Jinja, autoescaped: names and words come from players' messages)
and the browser only swaps a region whose HTML changed. Nothing here knows a game: a board
is drawn from the vocabulary of ``games.base.View``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

#: The regions of the page that change, in page order: whose turn (or the result), the
#: players with their figures, the board, the earlier rulings, the last ruling.
REGIONS = ("turn", "scores", "board", "rulings", "last")

ENV = Environment(
    loader=FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=select_autoescape(default=True),
    trim_blocks=True,
    lstrip_blocks=True,
)


def spaced(code: str | None) -> str:
    """A join code as people read and text it: "684 527"."""
    if code is None or len(code) != 6:
        return code or ""
    return f"{code[:3]} {code[3:]}"


def at(value: int, low: int, high: int) -> float:
    """Where ``value`` lies on a line from ``low`` to ``high``, in percent (kept on the line)."""
    if high <= low:
        return 0.0
    return round(min(max((value - low) / (high - low), 0.0), 1.0) * 100, 2)


def clock_text(seconds: float) -> str:
    """A countdown as shown: "9:41", never below "0:00"."""
    left = max(int(seconds + 0.999), 0)  # a clock shows 0:01 until the last second is gone
    return f"{left // 60}:{left % 60:02d}"


def strip_name(prompt: str | None, acting: list[str]) -> str:
    """The prompt without the name the turn region already shows large ("Bob: an odd
    number ..." -> "An odd number ...")."""
    if not prompt or len(acting) != 1 or not prompt.startswith(f"{acting[0]}: "):
        return prompt or ""
    rest = prompt[len(acting[0]) + 2 :]
    return rest[:1].upper() + rest[1:]


ENV.globals.update(at=at, clock_text=clock_text, spaced=spaced, strip_name=strip_name)


def fragments(page: dict[str, Any], words: dict[str, str]) -> dict[str, str]:
    """Each region's HTML for ``page`` in the session's ``words`` (``labels(lang)["page"]``)."""
    macros: Any = ENV.get_template("screen.html").module
    return {region: str(getattr(macros, region)(page, words)) for region in REGIONS}

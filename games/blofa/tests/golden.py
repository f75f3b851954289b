"""A whole Blófa game as table lines, for the host's golden-transcript machinery.

Mistakes on purpose: an ambiguous "pass", a pass from the wrong pile and from an empty
one, a card kept that is not there, a flipped 0 not taken as the rule card; commands:
undo, whose turn, score, help. It ends with the third rule card captured. Every line is
"Name: words", as the host's transcripts have them.
"""

from __future__ import annotations

from typing import Any

PLAYERS = ("Ann", "Bob", "Cy", "Dana")

LINES = """\
Ann: one blue card, two
Bob: pass
Bob: pass yellow
Bob: undo
Bob: pass yellow
Cy: pass yellow
Cy: pass
Dana: pass
Ann: whose turn
Dana: Dana challenges
Ann: zero
Dana: hmm
Dana: keeps a card
Dana: takes the rule card
Dana: two cards, blue and yellow, two
Ann: pass
Ann: two yellow cards, four
Bob: score
Bob: challenge
Ann: three and one
Ann: keep blue
Ann: keeps a card
Ann: one blue card, one
Bob: pass blue
Cy: pass
Dana: three
Dana: one yellow card, three
Ann: pass
Ann: one yellow card, five
Bob: pass
Bob: challenge
Ann: five
Ann: keep blue
Ann: one blue card, two
Bob: pass yellow
Cy: pass
Cy: two blue cards, four
Dana: pass
Dana: challenge
Cy: two and two
Cy: takes the rule card
Cy: one yellow card, one
Dana: pass blue
Ann: pass
Bob: pass
Cy: keep yellow
Cy: help
Cy: one blue card, two
Dana: I challenge
Cy: zero
Dana: takes the rule card
"""


def golden_script() -> tuple[tuple[str, ...], dict[str, Any], list[str]]:
    """Players in seating order, options as the CLI would give them, and the lines."""
    return PLAYERS, {}, LINES.splitlines()

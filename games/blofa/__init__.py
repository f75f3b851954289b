"""Blófa Cards (issue 14): a 4-player bluffing trick game with 18 blue and yellow cards.

The referee sees card backs (colours) but not faces: ``rules`` keeps exact colour counts
and checks what the table says when cards are flipped; ``talk`` reads and writes the
table's words. See ``docs/blofa.md``.
"""

from __future__ import annotations

from games.base import GameSpec, register
from games.blofa.rules import EVENTS, BlofaRules, Options, decode, encode
from games.blofa.talk import TALK
from grammars import game_languages

SPEC = register(
    GameSpec(
        name="blofa",
        title="Blófa Cards",
        aliases=("blofa cards", "blófa", "bluff cards", "bluff"),
        min_players=4,
        max_players=4,
        options=Options,
        events=EVENTS,
        rules=BlofaRules(),
        talk=TALK,
        encode=encode,
        decode=decode,
        channels=frozenset({"text", "sms", "table"}),
        languages=game_languages(__file__),
        summary="Bluff about the sum of cards played face down; capture the three rule cards.",
    )
)

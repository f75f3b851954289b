"""Upside-Out (Gunnar Clovis, Global Game Jam 2020): each card has a side facing its
player and a side facing everyone else. Refereed by counts; card texts come from a deck
file (``decks/sample.yaml`` is invented for testing). See ``docs/upside-out.md``."""

from __future__ import annotations

from games.base import GameSpec, register
from games.upside_out.deck import bundled
from games.upside_out.rules import EVENTS, Options, UpsideOutRules, decode, encode
from games.upside_out.talk import UpsideOutTalk
from grammars import game_languages

SPEC = register(
    GameSpec(
        name="upside-out",
        title="Upside-Out",
        aliases=("upsideout", "upside out"),
        min_players=2,
        max_players=4,
        options=Options,
        events=EVENTS,
        rules=UpsideOutRules(),
        talk=UpsideOutTalk(),
        encode=encode,
        decode=decode,
        channels=frozenset({"text", "sms", "table"}),
        languages=game_languages(__file__),
        summary="Draw or play one card: its near side hits you, its far side everyone else.",
        # "NEW UPSIDEOUT SAMPLE": a bundled deck by name (a text never names a server file).
        option_words={name: {"deck": name} for name in bundled()},
    )
)

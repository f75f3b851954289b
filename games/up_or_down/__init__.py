"""Up-or-Down: the number chain you play in your head (``docs/rules/up-or-down.txt``)."""

from games.base import GameSpec, register
from games.up_or_down import rules
from games.up_or_down.talk import TALK
from grammars import game_languages

SPEC = register(
    GameSpec(
        name="up-or-down",
        title="Up-or-Down",
        aliases=("up or down", "updown", "number chain"),
        min_players=rules.MIN_PLAYERS,
        max_players=10,  # the rules set none; ten keeps each turn coming round (a text game seated ten)
        options=rules.Options,
        events=(rules.MoveMade, rules.PlayerOut, rules.MistakeCounted, rules.TurnPassed, rules.PlayerLeft),
        rules=rules.Rules(),
        talk=TALK,
        encode=rules.encode,
        decode=rules.decode,
        languages=game_languages(__file__),
        summary="Say numbers in turn: after odd, odd and higher or even and lower; after even, the reverse.",
        timed=True,
        default=True,
        option_words={
            **{word: {"mode": "training"} for word in ("training", "practice", "practise", "train")},
            **{word: {"mode": "tournament"} for word in ("tournament", "game", "match")},
        },
    )
)

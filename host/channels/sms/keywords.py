"""The words of the texting protocol: keywords (the first word of a text, after fillers),
the carriers' opt-out words (a text of that one word), and what starts each game playable by text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from games.base import GameSpec, all_games

CHANNEL = "sms"
OPT_OUT = frozenset({"STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "REVOKE", "OPTOUT"})
OPT_IN = frozenset({"START", "YES", "UNSTOP"})
HELP = frozenset({"HELP", "INFO"})
KEYWORDS = frozenset({"NEW", "JOIN", "START", "STATUS", "RULES", "LEAVE"}) | OPT_OUT | HELP
# Words people put before a keyword ("ok start", "please join 123456").
FILLERS = frozenset({"OK", "OKAY", "PLEASE", "PLS", "PLZ", "LETS", "HI", "HEY", "HELLO", "SO"})

_NON_WORD = re.compile(r"[\W_]+")


@dataclass(frozen=True)
class Words:
    raw: tuple[str, ...]  # whitespace-separated tokens as typed
    keys: tuple[str, ...]  # the same, punctuation dropped, upper case

    @classmethod
    def of(cls, text: str) -> Words:
        raw = tuple(text.split())
        return cls(raw, tuple(_NON_WORD.sub("", t).upper() for t in raw))

    def keyword(self) -> tuple[str | None, int]:
        """The keyword the text starts with (after fillers) and the index after it. An
        opt-out word counts only as the whole text, as Twilio counts it ("end the game"
        is no opt-out there, so here it is words to the referee, not silence)."""
        for i, key in enumerate(self.keys):
            if key in OPT_OUT and sum(1 for k in self.keys if k) > 1:
                return None, 0
            if key in KEYWORDS or key in OPT_IN:
                return key, i + 1
            if key not in FILLERS and key:
                return None, 0
        return None, 0


def new_keywords() -> str:
    """What starts each game playable by text: "NEW" (and its option words, "NEW TRAINING")
    for the default game, then "NEW" and the name of each other game."""
    texted: list[str] = []
    for spec in sorted(all_games(), key=lambda spec: spec.name):  # not in import order
        if CHANNEL not in spec.channels:
            continue
        if spec.default:
            # One word per other way to play ("TRAINING", not its synonyms nor the defaults').
            defaults, seen, words = spec.make_options(), [], []
            for word, values in spec.option_words.items():
                if values not in seen and any(getattr(defaults, k) != v for k, v in values.items()):
                    seen.append(values)
                    words.append(f"NEW {word.upper()}")
            texted[:0] = ["NEW", *words]
        else:
            texted.append(f"NEW {re.sub(r'[^A-Za-z0-9]+', '', spec.name).upper()}")
    return ", ".join(texted)


def game_named(word: str) -> GameSpec[Any, Any, Any] | None:
    """The game texted by name ("INVERSION", "!nversion"), if it can be played by text."""
    return next((s for s in all_games() if CHANNEL in s.channels and s.known_as(word)), None)


def seat_range(spec: GameSpec[Any, Any, Any]) -> str:
    if spec.max_players is None:
        return f"{spec.min_players}+"
    if spec.max_players == spec.min_players:
        return str(spec.min_players)
    return f"{spec.min_players} to {spec.max_players}"

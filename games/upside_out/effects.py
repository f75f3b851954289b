"""The effect vocabulary of Upside-Out: what a card side can ask of the players it faces.

Card texts are printed on the cards, not in the rules, so an effect is data: a few steps,
each written in one canonical line that deck files, events and the on-the-fly reading all
share ("draw 2", "draw 1 from discard", "donate 1 to caster", "reverse").

>>> parse_effect("draw 2, discard 1")
(Step(kind='draw', count=2, source='deck', to=''), Step(kind='discard', count=1, source='deck', to=''))
>>> str(parse_step("donate 1 to next"))
'donate 1 to next'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Steps that take a count; the rest are done once.
COUNTED = ("draw", "discard", "donate", "set", "reveal")
#: Steps with no count: ``reorder``/``reorient`` change no count, so the referee only says them.
PLAIN = ("reorder", "reorient", "reverse", "skip", "nothing")
KINDS = COUNTED + PLAIN
SOURCES = ("deck", "discard")
#: Who receives a donation: the caster (the default when someone else donates), the
#: next or previous player in turn order (the default for the caster), or anyone they choose.
RECIPIENTS = ("caster", "next", "previous", "any")
#: Special cards: played out of turn as reactions, never as a turn.
SPECIALS = ("mirror", "counter", "decoy")
MAX_COUNT = 84

_STEP = re.compile(
    r"^(?P<kind>[a-z]+)(?:\s+(?P<count>\d+))?"
    r"(?:\s+from\s+(?P<source>[a-z]+))?(?:\s+to\s+(?P<to>[a-z]+))?$"
)


@dataclass(frozen=True)
class Step:
    """One thing a side asks of each player it faces."""

    kind: str
    count: int = 0
    source: str = "deck"
    to: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown effect {self.kind!r} (use one of: {', '.join(KINDS)})")
        if self.kind in COUNTED and not 1 <= self.count <= MAX_COUNT:
            raise ValueError(f"{self.kind} needs a count from 1 to {MAX_COUNT}")
        if self.kind not in COUNTED and self.count:
            raise ValueError(f"{self.kind} takes no count")
        if self.source not in SOURCES or (self.source != "deck" and self.kind != "draw"):
            raise ValueError(f"'from {self.source}' fits only draw, from deck or discard")
        if self.to and (self.kind != "donate" or self.to not in RECIPIENTS):
            raise ValueError(f"'to {self.to}' fits only donate, to one of: {', '.join(RECIPIENTS)}")

    def __str__(self) -> str:
        text = f"{self.kind} {self.count}" if self.kind in COUNTED else self.kind
        if self.source != "deck":
            text += f" from {self.source}"
        if self.to:
            text += f" to {self.to}"
        return text


Effect = tuple[Step, ...]


def parse_step(text: str) -> Step:
    """A step from its canonical line; ValueError says what is wrong."""
    match = _STEP.match(" ".join(text.lower().split()))
    if match is None:
        raise ValueError(f"cannot read effect {text!r} (write e.g. 'draw 2', 'donate 1 to caster')")
    count = int(match["count"]) if match["count"] else (0 if match["kind"] not in COUNTED else 1)
    return Step(match["kind"], count, match["source"] or "deck", match["to"] or "")


def parse_effect(text: str) -> Effect:
    """Steps separated by commas, done in order; "nothing" alone is the empty effect."""
    steps = tuple(parse_step(part) for part in text.split(",") if part.strip())
    if not steps:
        raise ValueError("an effect needs at least one step (say 'nothing' for none)")
    return tuple(s for s in steps if s.kind != "nothing") or (Step("nothing"),)


def effect_text(effect: Effect) -> str:
    return ", ".join(str(s) for s in effect)


@dataclass(frozen=True)
class CardText:
    """A played or revealed card as the referee needs it: the side facing its player
    (``you``) and the side facing away (``others``). ``name`` is empty for a card
    described on the fly."""

    name: str
    you: Effect
    others: Effect

    def __post_init__(self) -> None:
        if not self.you or not self.others:
            raise ValueError("a card has two sides: say 'nothing' for an empty one")

    def turned(self) -> CardText:
        """The same card laid the other way round."""
        return CardText(self.name, self.others, self.you)

    @property
    def label(self) -> str:
        return self.name or f"me: {effect_text(self.you)}; others: {effect_text(self.others)}"

"""Playing cards as small frozen values that round-trip to text (python-chess ``Move`` style).

>>> Card.parse("9H")
Card(rank=9, suit=<Suit.HEART: 'heart'>)
>>> str(Card.parse("10c")), str(Card(7, Suit.CLOWN))
('10C', '7X')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache


class Suit(StrEnum):
    CLUB = "club"
    SPADE = "spade"
    HEART = "heart"
    DIAMOND = "diamond"
    CLOWN = "clown"

    @property
    def letter(self) -> str:
        return _LETTERS[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """A suit by name, plural or letter: "heart", "Hearts", "H". Clown is "X" (C is club)."""
        key = text.strip().lower()
        for suit in cls:
            if key in (suit.value, suit.value + "s", suit.letter.lower()):
                return suit
        raise ValueError(f"not a suit: {text!r} (club, spade, heart, diamond, clown or C S H D X)")


_LETTERS = {Suit.CLUB: "C", Suit.SPADE: "S", Suit.HEART: "H", Suit.DIAMOND: "D", Suit.CLOWN: "X"}
_SHORT = re.compile(r"^\s*(10|[1-9])\s*([a-z]+)\s*$|^\s*([a-z]+)\s*(10|[1-9])\s*$", re.IGNORECASE)
RANKS = range(1, 11)


@dataclass(frozen=True, order=True)
class Card:
    rank: int
    suit: Suit

    def __post_init__(self) -> None:
        if self.rank not in RANKS:
            raise ValueError(f"a card's number is 1 to 10, not {self.rank}")

    @classmethod
    def parse(cls, text: str) -> Card:
        """``9H``, ``10C``, ``h9``, ``7X`` or ``7clown``; raises ValueError otherwise."""
        match = _SHORT.match(text)
        if not match:
            raise ValueError(f"not a card: {text!r} (write it like 9H, 10C or 7X for the clown seven)")
        rank, suit = (match[1], match[2]) if match[1] else (match[4], match[3])
        return cls(int(rank), Suit.parse(suit))

    def __str__(self) -> str:
        return f"{self.rank}{self.suit.letter}"


def deck(suits: tuple[Suit, ...] | list[Suit]) -> frozenset[Card]:
    """Every card of the chosen suits, 1 to 10 each."""
    return _deck(frozenset(suits))


@cache
def _deck(suits: frozenset[Suit]) -> frozenset[Card]:
    # Asked for on every play (what is still unseen); there are only 31 suit choices.
    return frozenset(Card(rank, suit) for suit in suits for rank in RANKS)

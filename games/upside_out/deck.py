"""Deck files: the 28 card texts of a printed Upside-Out deck, as data.

The rules text leaves card texts to the printed cards, so a deck file names each face
and its two sides in the effect vocabulary of :mod:`games.upside_out.effects`; special
cards name their reaction instead. Errors name the file and line (``grammars.load_file``).

>>> deck = load_deck("sample")
>>> len(deck.faces), deck.find("windfall").card.you
(28, (Step(kind='draw', count=2, source='deck', to=''),))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from games.upside_out.effects import CardText, parse_effect
from grammars import GrammarError, load_file
from grammars.reader import normalise

DECKS = Path(__file__).parent / "decks"
SAMPLE = "sample"
FACES = 28  # a printed deck: 28 faces ...
COPIES = 3  # ... three copies of each


class FaceModel(BaseModel):
    """One face: ``you`` and ``others`` (each "draw 2", "discard 1, skip", "nothing"), or
    ``special`` for Mirror, Counter and Decoy. ``aliases``: other names players use.
    ``said``: by language, what a table speaking it calls the card instead (a speech model
    for Korean knows no "Windfall": ``{ko: [횡재]}``)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list)
    said: dict[str, list[str]] = Field(default_factory=dict)
    you: str | None = None
    others: str | None = None
    special: Literal["mirror", "counter", "decoy"] | None = None

    @field_validator("you", "others")
    @classmethod
    def _effect(cls, value: str | None) -> str | None:
        if value is not None:
            parse_effect(value)  # a ValueError becomes a pydantic error on this line
        return value

    @model_validator(mode="after")
    def _sides(self) -> FaceModel:
        if self.special is None and (self.you is None or self.others is None):
            raise ValueError(f"{self.name}: a card needs 'you' and 'others', or 'special'")
        if self.special is not None and (self.you is not None or self.others is not None):
            raise ValueError(f"{self.name}: a special card has no 'you'/'others' sides")
        return self


class DeckModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = ""
    cards: list[FaceModel]

    @field_validator("cards")
    @classmethod
    def _faces(cls, cards: list[FaceModel]) -> list[FaceModel]:
        if len(cards) != FACES:
            raise ValueError(f"a deck has {FACES} faces (3 copies each), this one {len(cards)}")
        seen: set[str] = set()
        for face in cards:
            for name in (face.name, *face.aliases, *(n for ns in face.said.values() for n in ns)):
                key = " ".join(name.casefold().split())
                if key in seen:
                    raise ValueError(f"the name {name!r} is used twice")
                seen.add(key)
        return cards


@dataclass(frozen=True)
class Face:
    name: str
    names: tuple[str, ...]  # the name and aliases as read hears them: "U-Turn" is "u turn"
    card: CardText | None  # None: a special card
    special: str | None
    said: dict[str, tuple[str, ...]] = field(default_factory=dict)  # by language, as read hears them


@dataclass(frozen=True)
class Deck:
    title: str
    faces: tuple[Face, ...]

    def find(self, name: str) -> Face | None:
        """The face called ``name``, in any of its languages."""
        key = normalise(name)
        return next((f for f in self.faces if key in f.names or any(key in s for s in f.said.values())), None)


def deck_path(deck: str) -> Path:
    """``sample`` (or any bare name of a bundled deck) or a file path."""
    bundled = DECKS / f"{deck}.yaml"
    return bundled if "/" not in deck and bundled.is_file() else Path(deck)


def bundled() -> list[str]:
    """The decks shipped in ``decks/``, by the names the deck option takes."""
    return sorted(p.stem for p in DECKS.glob("*.yaml"))


def checked(deck: str) -> str:
    """The deck option, if its file loads: a wrong one is refused when the options are
    made (``GameSpec.make_options``), naming the file and the fault, not at the first card."""
    path = deck_path(deck)
    shown = deck if path == Path(deck) else f"decks/{path.name}"  # a bundled deck: no server path
    if not path.is_file():
        raise ValueError(f"{shown}: no such deck file (bundled decks: {', '.join(bundled())})")
    try:
        load_deck(deck)
    except GrammarError as exc:  # file:line: the fault, without pydantic's own prefix
        raise ValueError(str(exc).replace(str(path), shown).replace("Value error, ", "")) from None
    return deck


@cache
def load_deck(deck: str) -> Deck:
    """The deck option's file, validated; raises ``grammars.GrammarError`` naming file:line."""
    model = load_file(deck_path(deck), DeckModel)
    faces = []
    for f in model.cards:
        names = tuple(dict.fromkeys(normalise(n) for n in (f.name, *f.aliases)))
        card = None
        if f.special is None:
            assert f.you is not None and f.others is not None
            card = CardText(f.name, parse_effect(f.you), parse_effect(f.others))
        said = {lang: tuple(dict.fromkeys(normalise(n) for n in ns)) for lang, ns in f.said.items() if ns}
        faces.append(Face(f.name, names, card, f.special, said))
    return Deck(model.title, tuple(faces))

"""Card table talk: the cards, suits, bids, passes, names and commands in one utterance.

Driven by ``grammar/<lang>/words.yaml`` (``cards``); numbers and commands are read by grammars/reader.py,
so a card's rank is read exactly like any other number. The parser proposes and the referee
judges: "eleven of hearts" is not a card, so it comes back as the number 11 and the suit
hearts, and the referee can say why that is not a card.

>>> parse_cards("nine of hearts, two of clubs").cards
(Card(rank=9, suit=<Suit.HEART: 'heart'>), Card(rank=2, suit=<Suit.CLUB: 'club'>))
>>> parse_cards("I bid three").bids, parse_cards("no bid").passed
((3,), True)
>>> card_words(Card(7, Suit.CLOWN)), card_words(Card(9, Suit.HEART), "ko")
('seven of clowns', '하트 구')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from games.inversion.cards import RANKS, Card, Suit, deck
from grammars import Grammar, GrammarError, load, load_file
from grammars.reader import _lexicon, normalise, read_numbers, recognizer_phrase, to_words


@dataclass(frozen=True)
class CardTalk:
    """Everything found in one utterance at a card table, each in the order said."""

    text: str
    cards: tuple[Card, ...] = ()
    suits: tuple[Suit, ...] = ()  # named on their own, not as part of a card
    numbers: tuple[int, ...] = ()  # not part of a card or a bid (also "eleven" of "eleven of hearts")
    bids: tuple[int, ...] = ()
    passed: bool = False
    players: tuple[str, ...] = ()  # as spelled in the ``players`` given to parse_cards
    commands: tuple[str, ...] = ()
    leftovers: tuple[str, ...] = ()  # words that were none of the above and not filler


# Suit names as cards.py spells them (Suit values).
SuitName = Literal["club", "spade", "heart", "diamond", "clown"]
_Words = Annotated[list[str], Field(min_length=1)]
_CARD_FIELDS = {"rank", "suit", "suits"}
_BID_FIELDS = {"number", "count"}


class SuitWords(BaseModel):
    """Words for each suit; the first is read aloud, the rest are understood too."""

    model_config = ConfigDict(extra="forbid")

    club: _Words
    spade: _Words
    heart: _Words
    diamond: _Words
    clown: _Words


class Cards(BaseModel):
    """How a table talks about cards, bids and passes (``grammar/<lang>/words.yaml`` ``cards``)."""

    model_config = ConfigDict(extra="forbid")

    suits: SuitWords
    # The plural read aloud ("seven of clowns"), where it differs from the singular.
    plurals: dict[SuitName, str] = Field(default_factory=dict)
    # Rank words beyond numbers.yaml ("ace"); they stand alone, never inside a longer number.
    ranks: dict[str, int] = Field(default_factory=dict)
    # Face cards other decks have ("queen"): word -> how the host names them ("queens").
    # !nversion has none, so a card named by one is answered with that, not read as a suit.
    faces: dict[str, str] = Field(default_factory=dict)
    # Counting words that are a number only right before a bid word ("세 개" but "네" is yes).
    counts: dict[str, int] = Field(default_factory=dict)
    # Words allowed between a rank and its suit ("the nine OF hearts", "THE clown seven").
    connectors: list[str] = Field(default_factory=list)
    # Which order wins when words fit both ("heart nine club": heart nine, or nine club?).
    order: Literal["rank_first", "suit_first"] = "rank_first"
    bid_before: _Words  # "i bid" three
    bid_after: _Words  # three "tricks"
    passes: _Words
    # Endings glued to a suit, bid or pass word or a name ("하트는", "패스요"), dropped.
    particles: list[str] = Field(default_factory=list)
    # Words that carry no meaning at a card table; anything else unexplained is a leftover.
    filler: list[str] = Field(default_factory=list)
    # How a card is read aloud, and the phrases recognisers get for cards and bids.
    read: str
    card_hints: _Words
    bid_hints: _Words

    @field_validator("read", "card_hints", "bid_hints")
    @classmethod
    def _known_fields(cls, value: str | list[str], info: ValidationInfo) -> str | list[str]:
        allowed = _CARD_FIELDS if info.field_name != "bid_hints" else _BID_FIELDS
        for text in [value] if isinstance(value, str) else value:
            used = set(re.findall(r"{(\w*)}", text))
            if used - allowed:
                unknown = sorted(used - allowed)
                raise ValueError(f"unknown fields {unknown} in {text!r}: use {sorted(allowed)}")
        return value

    @model_validator(mode="after")
    def _one_meaning_per_word(self) -> Cards:
        seen: dict[str, str] = {}
        groups = {f"suits.{s}": words for s, words in self.suits.model_dump().items()}
        groups |= {"ranks": list(self.ranks), "bid_before": self.bid_before}
        groups |= {"bid_after": self.bid_after, "passes": self.passes}
        for group, words in groups.items():
            for word in words:
                if word in seen and seen[word] != group:
                    raise ValueError(f"{word!r} is in both {seen[word]} and {group}")
                seen[word] = group
        return self


class InversionWords(BaseModel):
    """``games/inversion/grammar/<lang>/words.yaml``: the card talk and what the host says."""

    model_config = ConfigDict(extra="forbid")

    cards: Cards
    phrases: dict[str, str]
    #: [said, heard]: a rank a room that rings may make another's however surely (one way).
    room_ranks: list[tuple[int, int]] = Field(default_factory=list)


GRAMMAR = Path(__file__).parent / "grammar"


@cache
def words_of(lang: str) -> InversionWords:
    """This game's words in ``lang``; every English phrase must be there too."""
    path = GRAMMAR / lang / "words.yaml"
    if not path.is_file():
        raise GrammarError(f"{path}: !nversion has no words in {lang!r}")
    words = load_file(path, InversionWords)
    if lang != "en":
        absent = sorted(set(words_of("en").phrases) - set(words.phrases))
        if absent:
            raise GrammarError(f"{path}:1: missing phrases: {', '.join(absent)}")
    return words


@cache
def grammar(lang: str) -> Grammar:
    """The shared grammar with this game's phrases added (the host says both)."""
    shared = load(lang)
    return replace(shared, phrases={**shared.phrases, **words_of(lang).phrases})


# Suit symbols people type ("9♥"); replaced by the language's suit word before parsing.
_SYMBOLS = {"♣": Suit.CLUB, "♧": Suit.CLUB, "♠": Suit.SPADE, "♤": Suit.SPADE, "♥": Suit.HEART}
_SYMBOLS |= {"♡": Suit.HEART, "♦": Suit.DIAMOND, "♢": Suit.DIAMOND, "🃏": Suit.CLOWN}
# Digits glued to letters: "9h", "h9", "10clubs", "3개". ASCII digits only: int() needs them.
_GLUED = re.compile(r"^([0-9]+)([^\W\d_]+)$|^([^\W\d_]+)([0-9]+)$")
# When two phrases at one place are equally long, the earlier kind wins: a name the referee
# gave us beats everything, and "pass" and bids beat the general commands.
_KINDS = ("player", "pass", "bid_before", "bid_after", "suit", "command", "connector")


@dataclass(frozen=True)
class _Item:
    """One meaningful piece of an utterance: a number, or a word or phrase of some kind."""

    kind: str  # a _KINDS entry, "number", "count" (세 of 세 개), "filler" or "word"
    text: str
    value: int = 0  # of a number or count
    name: str = ""  # the suit, command or player a phrase stands for


class _Vocabulary:
    """The card words of one language, indexed for the parser."""

    def __init__(self, lang: str) -> None:
        grammar = load(lang)
        self.lang = lang
        self.cards: Cards = words_of(lang).cards
        self.lex = _lexicon(lang)
        self.split_chars = grammar.numbers.split == "chars"
        c = self.cards
        self.suit_words: dict[Suit, list[str]] = {s: list(getattr(c.suits, s.value)) for s in Suit}
        self.suit_of = {w: suit for suit, words in self.suit_words.items() for w in words}
        entries = [(w, "suit", suit.value) for w, suit in self.suit_of.items()]
        entries += [(w, "pass", "") for w in c.passes]
        entries += [(w, "bid_before", "") for w in c.bid_before]
        entries += [(w, "bid_after", "") for w in c.bid_after]
        entries += [(w, "connector", "") for w in c.connectors]
        entries += [(p, "command", name) for name, ps in grammar.commands.items() for p in ps]
        self.phrases = _index((tuple(normalise(w).split()), kind, name) for w, kind, name in entries)
        self.bid_after = {w for w in c.bid_after if " " not in w}
        # Words that may carry a particle ("하트는") or be glued to a number ("하트구", "세개").
        self.single = {w for w, kind, _ in entries if kind != "command" and " " not in w}
        self.glue = sorted((*self.suit_of, *self.bid_after), key=len, reverse=True)
        self.particles = sorted(c.particles, key=len, reverse=True)
        self.filler = set(c.filler) | set(grammar.numbers.articles) | set(grammar.numbers.connectors)

    def suit(self, word: str) -> Suit | None:
        """A suit by this language's word, or by letter or English name ("h", "clubs")."""
        if word in self.suit_of:
            return self.suit_of[word]
        try:
            return Suit.parse(word)
        except ValueError:
            return None

    def is_number(self, pieces: list[str]) -> bool:
        lex = self.lex
        return bool(pieces) and all(p.isdecimal() or p in lex.words or p in lex.minus for p in pieces)

    def split(self, word: str) -> list[str]:
        """One word as tokens: "9h" -> 9, heart; "h" or "spades" -> the language's suit
        word (typed setup, "H,S,C", in any language); "하트구요" -> 하트, 구; "오십삼" -> 오, 십, 삼."""
        if word.isascii() and word.isalpha() and word not in self.single and (typed := self.suit(word)):
            return [self.suit_words[typed][0]]
        glued = _GLUED.match(word)
        if glued:
            digits, letters = (glued[1], glued[2]) if glued[1] else (glued[4], glued[3])
            suit = self.suit(letters)
            if suit is not None or (glued[1] and letters in self.bid_after):
                pieces = [digits, self.suit_words[suit][0] if suit else letters]
                return pieces if glued[1] else pieces[::-1]
        if self.split_chars and word not in self.single and not self.is_number(self.lex.tokens(word)):
            return self._unglue(word) or self.lex.tokens(word)
        return self.lex.tokens(word)

    def _unglue(self, word: str) -> list[str] | None:
        stripped = [word[: -len(p)] for p in self.particles if word.endswith(p) and len(word) > len(p)]
        for candidate in (word, *stripped):
            if candidate in self.single:
                return [candidate]
            for w in self.glue:
                if candidate.startswith(w) and w in self.suit_of:
                    rest = candidate[len(w) :]
                    if rest in self.particles:  # "하트만" is hearts only, not heart 10,000
                        return [w]
                    if rest in self.cards.ranks or self.is_number(pieces := self.lex.tokens(rest)):
                        return [w, rest] if rest in self.cards.ranks else [w, *pieces]
                if candidate.endswith(w) and len(candidate) > len(w):
                    stem = candidate[: -len(w)]
                    if w in self.bid_after and stem in self.cards.counts:
                        return [stem, w]
                    if self.is_number(pieces := self.lex.tokens(stem)):
                        return [*pieces, w]
        return None


def _index(
    entries: Iterable[tuple[tuple[str, ...], str, str]],
) -> dict[str, list[tuple[tuple[str, ...], str, str]]]:
    """Phrases by first word, longest first, then by kind (see _KINDS)."""
    out: dict[str, list[tuple[tuple[str, ...], str, str]]] = {}
    for entry in sorted(entries, key=lambda e: (-len(e[0]), _KINDS.index(e[1]))):
        if entry[0]:
            out.setdefault(entry[0][0], []).append(entry)
    return out


@cache
def _vocabulary(lang: str) -> _Vocabulary:
    return _Vocabulary(lang)


# -- reading ----------------------------------------------------------------------------


def _words_and_names(v: _Vocabulary, text: str, players: Sequence[str]) -> list[_Item | str]:
    """Normalised words, with player names (whole words, any case) already claimed."""
    for symbol, suit in _SYMBOLS.items():
        text = text.replace(symbol, f" {v.suit_words[suit][0]} ")
    words = normalise(text).split()
    names = sorted(((tuple(normalise(p).split()), p) for p in players), key=lambda n: -len(n[0]))
    out: list[_Item | str] = []
    i = 0
    while i < len(words):
        for name, player in names:
            size = len(name)
            said = words[i : i + size]
            if size and len(said) == size and said[:-1] == list(name[:-1]) and _same(v, said[-1], name[-1]):
                out.append(_Item("player", " ".join(said), name=player))
                i += size
                break
        else:
            out.append(words[i])
            i += 1
    return out


def _same(v: _Vocabulary, said: str, word: str) -> bool:
    """The same word, or it with a particle ("민수가")."""
    return said == word or any(said == word + p for p in v.particles)


def _claim_phrases(v: _Vocabulary, tokens: list[str], claims: list[_Item | None]) -> None:
    """Claim counts before a bid word ("세 개"), then every phrase, longest first, in the
    tokens not claimed yet (names are); no phrase runs across a claimed token."""
    for i, token in enumerate(tokens[:-1]):
        if token in v.cards.counts and tokens[i + 1] in v.bid_after and not any(claims[i : i + 2]):
            claims[i] = _Item("count", token, v.cards.counts[token])
    for i, token in enumerate(tokens):
        for phrase, kind, name in v.phrases.get(token, ()):
            size = len(phrase)
            if tuple(tokens[i : i + size]) == phrase and not any(claims[i : i + size]):
                claims[i] = _Item(kind, " ".join(phrase), name=name)
                # The rest of the phrase is claimed too, by a marker that _items skips.
                claims[i + 1 : i + size] = [_Item("", "")] * (size - 1)
                break


def _items(v: _Vocabulary, text: str, players: Sequence[str]) -> list[_Item]:
    """The utterance as numbers and claimed phrases, each once, in the order said."""
    tokens: list[str] = []
    claims: list[_Item | None] = []
    for piece in _words_and_names(v, text, players):
        if isinstance(piece, _Item):
            tokens.append(piece.text)
            claims.append(piece)
        else:
            split = v.split(piece)
            tokens += split
            claims += [None] * len(split)
    _claim_phrases(v, tokens, claims)
    # Rank words ("ace") stand alone, like digits: they never join a longer number.
    ranks = v.cards.ranks
    readable = [None if c else str(ranks.get(t, t)) for t, c in zip(tokens, claims, strict=True)]
    starts = {n.start: n for n in read_numbers(readable, v.lang)}
    out: list[_Item] = []
    i = 0
    while i < len(tokens):
        claim = claims[i]
        if i in starts:
            span = starts[i]
            out.append(_Item("number", " ".join(tokens[i : span.end]), span.value))
            i = span.end
            continue
        if claim is None:
            out.append(_Item("filler" if tokens[i] in v.filler else "word", tokens[i]))
        elif claim.kind:
            out.append(claim)
        i += 1
    return out


def _pairs(v: _Vocabulary, items: list[_Item]) -> list[tuple[int, int]]:
    """(number, suit) item indices that name a card. A run of numbers and suits, each next
    to the other kind with only connectors between, is paired rank first ("nine of hearts,
    two of clubs") or suit first ("하트 구 클로버 이"); anything else ends the run."""
    pairs: list[tuple[int, int]] = []
    run: list[int] = []
    for at, item in enumerate([*items, _Item("end", "")]):
        if item.kind in ("number", "suit") and run and items[run[-1]].kind != item.kind:
            run.append(at)
        elif item.kind != "connector":
            pairs += _pair_run(v, items, run)
            run = [at] if item.kind in ("number", "suit") else []
    return pairs


def _pair_run(v: _Vocabulary, items: list[_Item], run: list[int]) -> list[tuple[int, int]]:
    """Pair one run both ways; keep the reading with more cards, else the language's usual
    order: "hearts nine of clubs" is hearts, then the nine of clubs, in English."""
    best: tuple[tuple[int, bool], list[tuple[int, int]]] | None = None
    for order, first in (("rank_first", "number"), ("suit_first", "suit")):
        pairs: list[tuple[int, int]] = []
        i = 0
        while i < len(run) - 1:
            if items[run[i]].kind == first:
                a, b = run[i], run[i + 1]
                pairs.append((a, b) if first == "number" else (b, a))
                i += 2
            else:
                i += 1
        score = (len(pairs), order == v.cards.order)
        if best is None or score > best[0]:
            best = (score, pairs)
    return best[1] if best else []


def parse_cards(text: str, lang: str = "en", players: Sequence[str] = ()) -> CardTalk:
    """Find every card, suit, number, bid, pass, player and command in one utterance."""
    v = _vocabulary(lang)
    items = _items(v, text, players)
    cards: dict[int, Card] = {}  # by the index of the pair's first item, to keep the order said
    used: set[int] = set()
    for n, s in _pairs(v, items):
        if items[n].value in RANKS:
            cards[min(n, s)] = Card(items[n].value, Suit(items[s].name))
            used |= {n, s}
    bids: list[int] = []
    for at, item in enumerate(items):
        if at in used or item.kind not in ("number", "count"):
            continue
        for step in (-1, 1):
            near = _next_meaningful(items, at, step)
            if near is not None and items[near].kind == ("bid_before" if step < 0 else "bid_after"):
                used.add(near)
                if at not in used:
                    bids.append(item.value)
                    used.add(at)
    rest = [item for at, item in enumerate(items) if at not in used]
    unused_markers = ("word", "bid_before", "bid_after", "count")
    return CardTalk(
        text=text,
        cards=tuple(cards[k] for k in sorted(cards)),
        suits=tuple(Suit(i.name) for i in rest if i.kind == "suit"),
        numbers=tuple(i.value for i in rest if i.kind == "number"),
        bids=tuple(bids),
        passed=any(i.kind == "pass" for i in items),
        players=tuple(i.name for i in items if i.kind == "player"),
        commands=tuple(i.name for i in items if i.kind == "command"),
        leftovers=tuple(i.text for i in rest if i.kind in unused_markers),
    )


def _next_meaningful(items: list[_Item], at: int, step: int) -> int | None:
    """The nearest item before (step -1) or after (+1) ``at`` that is not filler."""
    at += step
    while 0 <= at < len(items) and items[at].kind in ("filler", "connector"):
        at += step
    return at if 0 <= at < len(items) else None


# -- words for the host and the recognisers ----------------------------------------------


def suit_words(suit: Suit, lang: str = "en", plural: bool = False) -> str:
    """The suit as read aloud: "heart", "hearts", "하트"."""
    v = _vocabulary(lang)
    singular = v.suit_words[suit][0]
    return v.cards.plurals.get(suit.value, singular) if plural else singular


def _fill(template: str, card: Card, lang: str, rank: str) -> str:
    plural = suit_words(card.suit, lang, plural=True)
    return template.format(rank=rank, suit=suit_words(card.suit, lang), suits=plural)


def card_words(card: Card, lang: str = "en") -> str:
    """A card read aloud: "nine of hearts", "seven of clowns", "하트 구"."""
    return _fill(_vocabulary(lang).cards.read, card, lang, to_words(card.rank, lang))


def card_phrases(cards: Iterable[Card], lang: str = "en") -> list[str]:
    """Phrases for a recogniser's phrase list or Twilio hints, spelled as the recogniser's
    vocabulary has them (grammars.reader.recognizer_phrase)."""
    hints = _vocabulary(lang).cards.card_hints
    phrases = (_fill(h, card, lang, recognizer_phrase(card.rank, lang)) for card in cards for h in hints)
    return list(dict.fromkeys(phrases))


def no_card_phrases(suits: Iterable[Suit], lang: str = "en") -> list[str]:
    """Phrases that name no card of a game with ``suits`` in play, for a recogniser to hear
    as said rather than as the card that sounds nearest ("queen of hearts" was heard as
    "one of hearts"): the face cards of other decks in every suit, and the cards of the
    suits not in play, each in the way cards are read aloud (``read``)."""
    v = _vocabulary(lang).cards
    faces: dict[str, str] = {}
    for word, plural in v.faces.items():
        faces.setdefault(plural, word)  # one word per face: "queen", not "queens" too
    phrases = [_fill(v.read, Card(1, suit), lang, face) for suit in Suit for face in faces.values()]
    unused = [suit for suit in Suit if suit not in set(suits)]
    phrases += [
        _fill(v.read, card, lang, recognizer_phrase(card.rank, lang)) for card in sorted(deck(unused))
    ]
    return list(dict.fromkeys(phrases))


def bid_phrases(bids: Iterable[int], lang: str = "en") -> list[str]:
    """Phrases for the bids allowed now ("i bid three", "세 개", "삼"), then the passes."""
    c = _vocabulary(lang).cards
    counts = {n: word for word, n in reversed(c.counts.items())}  # the first word per value
    phrases: list[str] = []
    for n in bids:
        for hint in c.bid_hints:
            if "{count}" not in hint or n in counts:
                phrases.append(hint.format(number=recognizer_phrase(n, lang), count=counts.get(n, "")))
    return list(dict.fromkeys([*phrases, *c.passes]))


def suit_phrases(lang: str = "en") -> list[str]:
    """Every suit word the parser understands, for a recogniser's phrase list."""
    v = _vocabulary(lang)
    plurals = list(v.cards.plurals.values())
    return list(dict.fromkeys([*(w for words in v.suit_words.values() for w in words), *plurals]))

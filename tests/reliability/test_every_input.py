"""Issue 43, item 6: every input in every game state gets an answer, and none crashes.

A bare "yes" or "no" texted in Blófa with no question asked used to end in the referee's
``assert asked is not None`` ("Sorry, something went wrong" by SMS). Beyond that one case,
a hypothesis state machine plays all four games by text through the referee: commands,
yes and no, the games' own table talk (every line of each game's grammar tests), numbers,
random words, speech heard unsurely (so read-backs are asked and answered), out of turn,
leave, undo, finish, turn timeouts and time passing. Every input must be answered (a
line or an event) and nothing may raise. The SMS slice of the same (real signed posts)
is in ``test_every_input_sms.py``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from games.base import find_game
from host.heard import SpeechText
from host.referee import Referee
from host.reply import Reply
from host.session import SessionConfig
from host.store import Store
from tests.clock import Clock

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("Ann", "Bob", "Cy", "Dana")
#: (game, seats) as a table by text plays them.
GAMES = (("up-or-down", 2), ("up-or-down", 3), ("inversion", 3), ("blofa", 4), ("upside-out", 3))

#: Words any game is texted: the host's commands, yes and no, and nonsense.
COMMON = (
    "yes",
    "no",
    "Yes",
    "NO!",
    "yes please",
    "undo",
    "take that back",
    "finish",
    "end the game",
    "new game",
    "leave",
    "leave the game",
    "help",
    "rules",
    "status",
    "whose turn",
    "repeat",
    "start",
    "pass",
    "me",
    "",
    "   ",
    "?",
    "53",
    "-5",
    "0",
    "1000000",
    "99999999999999999999",
    "fifty three",
    "two",
    "hello there",
    "Bob: yes",
    "Zed: no",
    "Ann: undo",
)
#: Lines that move each game along from its start (its tests.yaml lines do the rest).
OPENINGS = {
    "up-or-down": ("50", "51", "49", "48", "47"),
    "inversion": ("hearts, spades and clubs", "hearts, spades, clubs and diamonds", "9H", "I bid 3"),
    "blofa": ("one blue card, two", "pass yellow", "pass blue", "challenge", "keep blue"),
    "upside-out": ("me", "Ann: me", "draw", "plays Windfall", "done"),
}


@cache
def table_talk(game: str) -> tuple[str, ...]:
    """Every line the game's grammar tests read (``said``/``text``, and ``before`` lines)."""
    folder = find_game(game).rules.__module__.rsplit(".", 1)[0].replace(".", "/")
    data = yaml.safe_load((ROOT / folder / "grammar" / "en" / "tests.yaml").read_text())
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("said", "text") and isinstance(value, str):
                    found.append(value)
                elif key == "before" and isinstance(value, list):
                    found.extend(v for v in value if isinstance(v, str))
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(data)
    plain = [re.sub(r"^\w+: ", "", line) for line in found]  # "Ann: plays Purge" as Ann says it
    return tuple(dict.fromkeys([*OPENINGS[game], *found, *plain]))


def pick(data: st.DataObject, items: Sequence[Any], label: str) -> Any:
    """One of ``items``, drawn as an index: which items there are depends on the game's
    deal (a random session id seeds it), and hypothesis needs each draw's shape to repeat."""
    return items[data.draw(st.integers(0, 2**16), label=label) % len(items)]


def answered(reply: Reply, what: str) -> None:
    assert reply.lines or reply.events, f"no answer to {what!r}"
    assert all(isinstance(line, str) and line.strip() for line in reply.lines), (what, reply.lines)


class EveryInput(RuleBasedStateMachine):
    """One game by text at the referee; every step is one input or time passing."""

    def __init__(self, referee: Referee, clock: Clock) -> None:
        super().__init__()
        self.referee = referee
        self.clock = clock
        self.sid = ""
        self.game = ""
        self.names: tuple[str, ...] = ()

    @initialize(game=st.sampled_from(GAMES), undo=st.sampled_from([30.0, None]))
    def start(self, game: tuple[str, int], undo: float | None) -> None:
        self.game, seats = game
        self.names = NAMES[:seats]
        config = SessionConfig(game=self.game, undo_grace=undo, turn_timeout=60.0)
        self.sid = self.referee.create(config, list(self.names))

    def _speaker(self, data: st.DataObject) -> str | None:
        # Players (the current one most often), a shared device (None), a stranger.
        table = self.referee.table(self.sid)
        current = [table.current_player] if table.current_player else []
        pool = [*current, *current, *self.names, None, "Zed"]
        return pick(data, pool, "speaker")

    def _words(self, data: st.DataObject) -> str:
        # Mostly what the game listens for now (so games move on), then its table talk,
        # the host's words, numbers and nonsense.
        table = self.referee.table(self.sid)
        now = table.spec.talk.listen_for(table.state, table.names, "en", False).moves if table.state else ()
        kinds = ["now"] * 5 + ["talk"] * 3 + ["common"] * 2 + ["number", "random"]
        kind = data.draw(st.sampled_from(kinds), label="kind")
        if kind == "now" and now:
            return pick(data, now, "words")
        if kind in ("talk", "now"):
            return data.draw(st.sampled_from(table_talk(self.game)), label="words")
        if kind == "common":
            return data.draw(st.sampled_from(COMMON), label="words")
        if kind == "number":
            return str(data.draw(st.integers(-200, 200), label="words"))
        alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 ,.:!?'-HSDCé한"
        return data.draw(st.text(alphabet=alphabet, max_size=24), label="words")

    @rule(data=st.data())
    def step(self, data: st.DataObject) -> None:
        """Mostly words (typed, or a phone's speech), sometimes time passing or a turn
        running out, now and then someone leaving."""
        kinds = ["text"] * 6 + ["speech"] * 2 + ["time", "timeout", "leave"]
        kind = data.draw(st.sampled_from(kinds), label="step")
        if kind == "time":
            self.clock.advance(data.draw(st.sampled_from([1.0, 10.0, 45.0, 700.0]), label="seconds"))
        elif kind == "timeout":
            table = self.referee.table(self.sid)
            if table.state is not None:
                self.referee.timeout(self.sid, table.state.turn)  # None (no clock, stale) is fine
        elif kind == "leave" and data.draw(st.booleans(), label="really"):
            who = data.draw(st.sampled_from([*self.names, "Zed"]), label="leaves")
            answered(self.referee.leave(self.sid, who), f"{who} leaves")
        elif kind == "speech":
            # A phone's speech: unsure hearings are read back ("Did you say ...?").
            speaker, words = self._speaker(data), self._words(data)
            confidence = data.draw(st.sampled_from([0.2, 0.6, 0.95, None]), label="confidence")
            hearing = SpeechText((words, self._words(data)), confidence)
            answered(self.referee.handle(self.sid, words, speaker, hearing=hearing), words)
        else:
            speaker, words = self._speaker(data), self._words(data)
            answered(self.referee.handle(self.sid, words, speaker), words)

    @invariant()
    def table_rebuilds(self) -> None:
        if self.sid:
            self.referee.table(self.sid)


def test_a_yes_or_no_with_nothing_asked_gets_an_answer() -> None:
    """The crash of issue 43 item 6: Blófa reads a bare yes or no as an answer."""
    referee = Referee(Store(":memory:"), Clock())
    sid = referee.create(SessionConfig(game="blofa"), list(NAMES))
    for speaker, words in (("Ann", "yes"), ("Bob", "no"), (None, "yes"), ("Cy", "Yes!")):
        reply = referee.handle(sid, words, speaker)
        assert reply.private[0].startswith("I didn't catch that. Ann: open trick 1"), reply.private
        assert reply.events == [{"type": "not_understood", "text": words}]
        assert not reply.accepted
    assert referee.table(sid).seq == 5  # four seats and the start: nothing was logged


def test_every_input_in_every_state_is_answered(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "every.sqlite3"))
    clock = Clock()
    referee = Referee(store, clock)
    try:
        run_state_machine_as_test(
            lambda: EveryInput(referee, clock),
            settings=settings(
                max_examples=80,
                stateful_step_count=40,
                deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
            ),
        )
    finally:
        store.close()

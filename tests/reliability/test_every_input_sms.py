"""Issue 43, item 6, the SMS slice: the state machine of ``test_every_input.py`` through the
SMS webhook, with real signed posts (the SDK's ``RequestValidator``) from five phones:
NEW (each game), JOIN, START, STATUS, RULES, HELP, LEAVE, STOP and back, the games' words,
yes and no, out of turn, random text. Every text gets 200 and an answer (nothing only for
an opted-out number), never the apology for a crash.
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from grammars import load
from host.channels.sms.keywords import OPT_IN, OPT_OUT, Words
from tests.clock import Clock
from tests.reliability.test_every_input import COMMON, pick, table_talk
from tests.sms.conftest import PHONES, Sms, build, messages_of
from tests.twilio_helpers import FakeTwilio

SORRY = load("en").phrase("sms_error")
KEYWORDS = (
    "NEW Ann",
    "NEW BLOFA Bo",
    "NEW INVERSION",
    "NEW UPSIDEOUT Cy",
    "new training",
    "JOIN",
    "JOIN 000000",
    "JOIN {code} Dee",
    "JOIN {code}",
    "START",
    "STATUS",
    "RULES",
    "RULES BLOFA",
    "HELP",
    "LEAVE",
    "STOP",
    "UNSTOP",
)


class EveryText(RuleBasedStateMachine):
    def __init__(self, host: Sms) -> None:
        super().__init__()
        self.host = host
        self.phones = PHONES[:5]
        self.codes: list[str] = ["123456"]
        self.opted_out: set[str] = set()
        for phone in self.phones:  # each example starts with every phone opted in, in no game
            self.host.text(phone, "UNSTOP")
            self.host.text(phone, "LEAVE")

    def _words(self, phone: str, data: st.DataObject) -> str:
        member = self.host.app.state.lobby.member(phone)
        game_words: tuple[str, ...] = ()
        if member is not None:
            table = self.host.app.state.referee.table(member.session_id)
            if table.state is not None:
                game_words = table.spec.talk.listen_for(table.state, table.names, "en", False).moves
            game_words += table_talk(table.spec.name)
        kinds = ["keyword"] * 3 + ["common"] * 2 + ["random"] + ["game"] * 5
        kind = data.draw(st.sampled_from(kinds), label="kind")
        if kind == "game" and game_words:
            return pick(data, game_words, "words")
        if kind in ("common", "game"):
            return data.draw(st.sampled_from(COMMON), label="words")
        if kind == "random":
            return data.draw(st.text(alphabet="abcdefghij0123456789 NEWJOIN?!é", max_size=20), label="words")
        words = data.draw(st.sampled_from(KEYWORDS), label="words")
        return words.format(code=pick(data, self.codes, "code"))

    @rule(data=st.data())
    def text(self, data: st.DataObject) -> None:
        phone = data.draw(st.sampled_from(self.phones), label="phone")
        words = self._words(phone, data)
        said = messages_of(self.host.post(phone, words))
        assert SORRY not in said, (phone, words, said)
        keyword = Words.of(words).keyword()[0]  # as the channel reads it
        if keyword in OPT_OUT:
            self.opted_out.add(phone)
        elif keyword in OPT_IN:
            self.opted_out.discard(phone)
        if phone not in self.opted_out:
            assert said and all(m.strip() for m in said), (phone, words, said)
        self.codes.extend(c for m in said for c in re.findall(r"\b(\d{6})\b", m) if c not in self.codes)

    @rule(seconds=st.sampled_from([5.0, 700.0]))
    def time_passes(self, seconds: float) -> None:
        self.host.clock.advance(seconds)

    @invariant()
    def nothing_dead(self) -> None:
        # Everything told to the others went out (or waits): no outbox item dead-lettered.
        dead = self.host.app.state.store.execute("SELECT COUNT(*) AS n FROM outbox WHERE status = 'dead'")
        assert dead[0]["n"] == 0


def test_every_text_in_every_state_is_answered(tmp_path: Path, fake: FakeTwilio) -> None:
    host = build(tmp_path, fake, Clock())
    try:
        run_state_machine_as_test(
            lambda: EveryText(host),
            settings=settings(
                max_examples=12,
                stateful_step_count=30,
                deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
            ),
        )
    finally:
        host.app.state.store.close()


def test_blofa_by_text_a_bare_yes_is_answered(sms: Sms) -> None:
    """issue 43 item 6 by SMS (``blofa_yes.py``): the apology for a crash before."""
    phones = sms.new_game(4, "BLOFA")
    for phone, words in ((phones[0], "yes"), (phones[2], "no"), (phones[1], "YES!")):
        said = sms.text(phone, words)
        assert said[0].startswith("#1 I didn't catch that. Ann: open trick 1"), said


def test_a_text_starting_with_an_opt_out_word_is_no_opt_out(sms: Sms) -> None:
    """Twilio opts a number out only for the keyword alone: "end the game" opted the player
    out here alone, and every later text of theirs went unanswered."""
    phones = sms.new_game(2)
    assert sms.text(phones[0], "end the game")  # answered: words for the referee
    assert sms.text(phones[0], "status")  # and still answered
    assert sms.app.state.lobby.member(phones[0]) is not None
    assert sms.text(phones[1], "End") == []  # the word alone: opted out, as at Twilio

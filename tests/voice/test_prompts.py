"""Spoken wording and the small readers of callers' words (host/channels/voice/prompts.py),
and a ruling as a caller hears it (host/channels/spoken.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import host.channels.voice.prompts as vp
from games.up_or_down import rules as ud
from games.up_or_down.rules import Mode
from games.up_or_down.talk import TALK, spoken_turn
from grammars import voice_phrases
from grammars.reader import spoken
from host.channels.spoken import reply_lines
from host.heard import SpeechText
from host.referee import Referee
from host.session import SessionConfig
from host.store import Store


def chain(*numbers: int, players: tuple[str, ...] = ("Ann", "Bob")) -> ud.State:
    state = ud.new_game(players)
    for n in numbers:
        state, _ = ud.play(state, n)
    return state


@pytest.mark.parametrize(
    ("numbers", "expected"),
    [
        ((), "Ann, your turn: any number from one to one hundred."),
        ((53,), "Bob, your turn: odd above fifty three, or even below it."),
        ((8,), "Bob, your turn: even above eight, or odd below it."),
        ((100,), "Bob, your turn: odd below one hundred."),
        ((1,), "Bob, your turn: odd above one."),
        ((99,), "Bob, your turn: even below ninety nine."),
    ],
)
def test_the_constraint_is_said_plainly_in_words(numbers: tuple[int, ...], expected: str) -> None:
    assert spoken_turn(chain(*numbers)) == expected


def test_numbers_in_names_and_lines_are_read_as_words() -> None:
    state = ud.new_game(("Player 1", "Player 2"))
    assert spoken_turn(state).startswith("Player one, your turn")
    assert spoken("Turn 12. Last number 100. In: Player 2.") == (
        "Turn twelve. Last number one hundred. In: Player two."
    )
    assert spoken("1,000,000 and -5") == "one million and minus five"


def test_reply_lines_drop_the_written_prompt(tmp_path: Path) -> None:
    referee = Referee(Store(tmp_path / "g.sqlite3"))
    session = referee.create(SessionConfig(mode=Mode.TOURNAMENT), ["Ann", "Bob", "Cy"])
    reply = referee.handle(session, "53")
    table = referee.table(session)
    assert reply.public[-1] == "Bob: an odd number above 53 or an even number below 53."
    assert reply_lines(reply, table) == ["Ann said fifty three."]
    muddle = referee.handle(session, "banana")
    assert reply_lines(muddle, referee.table(session)) == ["I didn't catch that."]
    asked = referee.handle(session, "fifteen", hearing=SpeechText(("fifteen",), 0.2))
    assert reply_lines(asked, referee.table(session)) == ["Bob, fifteen?"]  # one device: whose move
    declined = referee.handle(session, "no")
    assert reply_lines(declined, referee.table(session)) == [vp.say("en", "say_again")]


def test_a_call_says_each_answer_and_leaves_its_written_prompt_to_the_call(tmp_path: Path) -> None:
    # The referee keeps the prompt that closes an answer apart (``Reply.answer_prompt``):
    # text shows it where it always stood; a call says the answer alone and its spoken
    # prompt after, with nothing cut off by matching.
    referee = Referee(Store(tmp_path / "g.sqlite3"))
    session = referee.create(SessionConfig(mode=Mode.TOURNAMENT), ["Ann", "Bob", "Cy"])
    referee.handle(session, "53")
    prompt = "Bob: an odd number above 53 or an even number below 53."
    table = referee.table(session)
    whose = referee.handle(session, "whose turn")
    assert whose.private == [prompt] and whose.answer == [] and reply_lines(whose, table) == []
    again = referee.handle(session, "repeat")
    assert again.private == ["Ann said 53.", prompt]
    assert reply_lines(again, table) == ["Ann said fifty three."]
    muddle = referee.handle(session, "banana")
    assert muddle.private == [f"I didn't catch that. {prompt}"]
    assert reply_lines(muddle, table) == ["I didn't catch that."]
    cards = referee.create(SessionConfig(game="inversion"), ["Ann", "Bob"])
    wrong = referee.handle(cards, "hearts and spades")
    assert wrong.private == ["Choose 3 suits, not 2. Which 3 suits? Say them, like hearts, spades and clubs."]
    assert reply_lines(wrong, referee.table(cards)) == ["Choose three suits, not two."]


@pytest.mark.parametrize(
    ("said", "code"),
    [
        ("four eight one five nine two", "481592"),
        ("481592", "481592"),
        ("48 15 92", "481592"),
        ("forty eight, fifteen, ninety two", "481592"),
        ("oh four eight two one three", "048213"),
        ("048213", "048213"),
        ("zero four eight two one three", "048213"),
        ("um the code is", ""),
    ],
)
def test_codes_heard(said: str, code: str) -> None:
    assert vp.code_heard(said, "en") == code
    assert vp.spoken_code("481592", "en") == "four, eight, one, five, nine, two"


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("Ann.", "Ann"),
        ("my name is bob", "Bob"),
        ("I'm Mary Jane Watson", "Mary Jane"),
        ("it's o'brien", "O'brien"),
        ("", None),
        ("!!!", None),
    ],
)
def test_names_heard(said: str, name: str | None) -> None:
    assert vp.name_heard(said, "en") == name


def test_unique_names() -> None:
    assert vp.unique_name("Ann", ["Bob"]) == "Ann"
    assert vp.unique_name("ann", ["Ann", "Ann 2"]) == "ann 3"


def test_menu_words_pick_the_longest_phrase() -> None:
    options = {"new": "words_new", "join": "words_join", "room": "words_room"}
    assert vp.choice("one phone please", "en", options) == "room"
    assert vp.choice("a new game", "en", options) == "new"
    assert vp.choice("I want to join", "en", options) == "join"
    assert vp.choice("banana", "en", options) is None
    assert vp.count_heard("3", None, "en") == 3
    assert vp.count_heard(None, "four of us", "en") == 4
    assert vp.count_heard(None, "three or four", "en") is None


def test_hints_fit_twilio_limits_even_for_a_huge_range() -> None:
    for low, high in ((1, 100), (1, 5000)):
        game = ud.new_game(("Ann", "Bob"), ud.Options(low=low, high=high))
        phrases = TALK.listen_for(game, (), "en", False)
        hints = [h.strip() for h in vp.move_hints("en", phrases.moves).split(",")]
        assert len(hints) <= vp.MAX_HINTS
        assert all(0 < len(h) <= 100 for h in hints)
        assert "whose turn" in hints and "take it back" in hints
        assert "fifty three" in hints
    numbers = TALK.listen_for(ud.new_game(("Ann", "Bob")), (), "en", False).moves
    assert "one hundred" in vp.move_hints("en", numbers).split(", ")


def test_every_phrase_used_by_the_channel_exists_and_formats() -> None:
    source = "\n".join(p.read_text() for p in Path(vp.__file__).parent.glob("*.py"))
    used = set(re.findall(r'vp\.say\([^,]+, "(\w+)"', source)) | set(re.findall(r'"(words_\w+)"', source))
    phrases = voice_phrases("en")
    assert used and used <= set(phrases), used - set(phrases)
    fields = dict(
        player="Ann",
        players="Ann, Bob",
        code="one",
        digits="six",
        low="two",
        high="eight",
        parity="odd",
        number="one",
        up="odd",
        down="even",
        last="three",
    )
    for key, text in phrases.items():
        if key in ("name_endings", "code_zero"):  # word lists a language may leave empty
            continue
        assert spoken(text.format(**fields)), key


def test_every_language_speaks_its_own_wording_in_its_own_voice() -> None:
    assert voice_phrases("ko")["goodbye"] != voice_phrases("en")["goodbye"]
    assert vp.language_tag("ko") == "ko-KR" and vp.say_voice("ko") == "Polly.Seoyeon"
    assert vp.language_tag("en") == "en-US"

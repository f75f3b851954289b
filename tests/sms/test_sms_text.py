"""Every text the host can send fits one segment of the encoding it needs (GSM-7 when every
character is in its alphabet, UCS-2 otherwise), whatever the names and numbers."""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.base import all_games
from games.up_or_down.words import load  # the host's phrases and Up-or-Down's
from host.channels.sms.keywords import NOT_IN_NAMES, UNKNOWN_WORD_MAX, new_keywords
from host.channels.sms.text import (
    GSM7_BASIC,
    NAME_MAX,
    SEGMENT,
    UCS2_SEGMENT,
    cleaned,
    fit,
    fits_one_segment,
    gsm_length,
    is_gsm7,
    sanitize_name,
    texted,
    to_gsm7,
    turn_prefix,
    ucs2_length,
)

LONG_NAME = "W" * NAME_MAX  # the longest name sanitize_name lets through
PLAYERS = 10  # the most an SMS game seats (host/channels/sms/channel.py MAX_PLAYERS)
NAMES = [f"{c * (NAME_MAX - 1)}{i}" for i, c in zip(range(PLAYERS), "ABCDEFGHIJ", strict=True)]
CHAIN = "-1000000"  # a wrong number the chain goes on from: 7 digits and a sign
RANGE = "100"  # SMS games play 1 to 100
PREFIX = turn_prefix(9999)
# Fields that hold a list of every player (the only ones allowed to need two messages).
LISTS = {"players", "counts", "out"}


# The longest option words a game started by text can be told it was (sms_created_with),
# and the longest NEW text with them.
OPTIONS = max((w for s in all_games() for w in s.option_words), key=len)
COMMAND = max(
    (
        f"NEW {re.sub(r'[^A-Za-z0-9]+', '', s.name).upper()} {w.upper()}"
        for s in all_games()
        for w in s.option_words
    ),
    key=len,
)


def _prompt() -> str:
    g = load("en")
    return g.phrase("turn_both", player=LONG_NAME, up="even", down="even", last=CHAIN)


def _why() -> str:
    """The longest reason a number is wrong."""
    g = load("en")
    fields = {"number": CHAIN, "parity": "even", "last": CHAIN, "low": RANGE, "high": RANGE}
    return max((g.phrase(k, **fields) for k in g.phrases if k.startswith("why_")), key=len)


def _values(key: str) -> dict[str, str]:
    g = load("en")
    counts = ", ".join(g.phrase("counts_item", player=n, count=999) for n in NAMES)
    return {
        "player": LONG_NAME,
        "winner": LONG_NAME,
        "last_mistake": LONG_NAME,
        "name": LONG_NAME,
        "creator": LONG_NAME,
        "number": CHAIN,
        "what": CHAIN,
        "game": "A game title of 20 c",
        "seats": "10 to 10",
        "last": CHAIN,
        "low": RANGE,
        "high": RANGE,
        "numbers": f"{CHAIN} or {CHAIN} or {CHAIN}",
        "count": "999",
        "minutes": "1440",
        "seconds": "59",
        "why": _why(),
        "parity": "even",
        "code": "123456",
        "pin": "123456",
        "up": "even",
        "down": "even",
        "players": ", ".join(NAMES),
        "out": ", ".join(NAMES),
        "counts": counts,
        "games": new_keywords("en"),  # every game by text, as the channel fills it
        "options": OPTIONS,
        "word": "W" * UNKNOWN_WORD_MAX,  # an unknown word, quoted back cut
        "chars": "".join(sorted(NOT_IN_NAMES)),
        "command": COMMAND,
        # not_understood wraps a whole prompt; status lines count turns.
        "turn": _prompt() if key == "not_understood" else "9999",
    }


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


# !nversion seats at most 4, with its own fields: tests/sms/test_inversion_sms.py.
# sms_texted is how the rest is texted, not a text of its own.
TEMPLATES = sorted(
    (k, v) for k, v in load("en").phrases.items() if not k.startswith("inv_") and k != "sms_texted"
)


@pytest.mark.parametrize(("key", "template"), TEMPLATES, ids=[k for k, _ in TEMPLATES])
def test_every_template_fits_one_segment_with_the_longest_names_and_numbers(key: str, template: str) -> None:
    text = template.format(**_values(key))
    assert is_gsm7(text), f"{key} has characters that force UCS-2: {text!r}"
    messages = fit([text], PREFIX)
    assert all(fits_one_segment(m) for m in messages), messages
    assert all(m.startswith(PREFIX) for m in messages)
    if not _fields(template) & LISTS:
        # One name and a few numbers never need a second message.
        assert len(messages) == 1, f"{key} needs {len(messages)} messages: {messages}"
    assert " ".join(m.removeprefix(PREFIX) for m in messages) == texted(text)


def test_the_longest_combined_move_reply_fits_in_one_or_is_split_in_order() -> None:
    g = load("en")
    lines = [
        g.phrase("mistake_training", player=LONG_NAME, number=CHAIN, why=_why(), count=999),
        _prompt(),
    ]
    messages = fit(lines, PREFIX)
    assert all(fits_one_segment(m) for m in messages)
    assert " ".join(m.removeprefix(PREFIX) for m in messages) == texted(" ".join(lines))


def test_gsm_length_counts_extension_characters_twice_and_refuses_ucs2() -> None:
    assert gsm_length("a{b}") == 6
    assert gsm_length("€") == 2
    with pytest.raises(ValueError):
        gsm_length("🎲")
    assert not is_gsm7("ć")
    assert is_gsm7("Müller né Ñoño")


def test_to_gsm7_spells_phone_punctuation_plainly() -> None:
    assert to_gsm7("Don\u2019t \u201cstop\u201d \u2013 ok\u2026 🎲 Łódź") == 'Don\'t "stop" - ok... odz'


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("Ann", "Ann"),
        ("  bob   the  builder ", "bob the buil"),
        ("🎲🎲🎲", ""),
        ("李小龙", "李小龙"),
        ("민수", "민수"),
        ("Zoë", "Zoe"),
        ("José", "José"),
        ("<script>", "script"),
        ("{Ann}[1]", "Ann1"),
        ("...", ""),
        ("Ann\x00\x07Bob", "AnnBob"),
        ("x" * 500, "x" * NAME_MAX),
    ],
)
def test_names_from_texts_are_short_and_spelled_in_gsm7_where_they_can_be(raw: str, name: str) -> None:
    assert sanitize_name(raw) == name


@given(st.text(max_size=60))
def test_any_name_is_safe(raw: str) -> None:
    name = sanitize_name(raw)
    assert len(name) <= NAME_MAX
    # A letter GSM-7 has stays GSM-7; any other is a letter or digit (no emoji, no controls).
    assert all(c in GSM7_BASIC or c.isalpha() or c.isdecimal() for c in name)
    assert name == name.strip()


@given(
    st.lists(st.text(max_size=400), max_size=6),
    st.one_of(st.none(), st.integers(min_value=0, max_value=10**9)),
)
def test_fit_always_gives_single_segments_in_order(lines: list[str], turn: int | None) -> None:
    prefix = turn_prefix(turn)
    messages = fit(lines, prefix)
    for m in messages:
        assert m.startswith(prefix)
        assert fits_one_segment(m)
        assert gsm_length(m) <= SEGMENT if is_gsm7(m) else ucs2_length(m) <= UCS2_SEGMENT
    # Nothing is lost or reordered, only whitespace between pieces may differ (and "say"
    # instructions are texted: hypothesis found "SAY").
    sent = "".join("".join(m.removeprefix(prefix).split()) for m in messages)
    assert sent == "".join("".join(cleaned(texted(line)).split()) for line in lines)


@pytest.mark.parametrize(
    ("said", "sent"),
    [
        ("Cy wins! Cy opens the next game: say new game.", "Cy wins! Cy opens the next game: text NEW."),
        ("Say new game to play again.", "Text NEW to play again."),
        ("A game is running. Say finish to end it first.", "A game is running. Text FINISH to end it first."),
        ("게임이 끝났어요. 새 게임이라고 하세요.", "게임이 끝났어요. 새 게임이라고 보내세요."),
        ("차례가 되면 숫자를 말하거나 도움말이라고 하세요.", "차례가 되면 숫자나 도움말을 보내세요."),
        ("민수 승리! 새 게임 하려면 새 게임.", "민수 승리! 새 게임 하려면 새 게임이라고 보내세요."),
        # Any other instruction to say something is one to text it; "said" and "says" stay.
        ("Ann: say keep blue.", "Ann: text keep blue."),
        ("Did you say 53? Bob said 52; Cy says pass.", "Did you text 53? Bob said 52; Cy says pass."),
    ],
)
def test_what_to_say_is_texted_as_what_to_text(said: str, sent: str) -> None:
    assert texted(said) == sent


def test_no_text_tells_anyone_to_say_a_command() -> None:
    g = load("en")
    lines = [
        g.phrase(k, winner="Ann", last_mistake="Ann", counts="Ann 1", turn="")
        for k in (
            "winner",
            "game_over_training",
            "game_over_training_clean",
            "no_game",
            "game_finished",
            "game_running",
            "not_understood_wait",
        )
    ]
    assert not any("say new game" in m.lower() or "say finish" in m.lower() for m in fit(lines))


def test_a_message_goes_as_gsm7_when_all_of_it_fits_and_as_ucs2_otherwise() -> None:
    # All GSM-7: up to 160 characters in one message.
    english = fit(["Ann said 53. " * 11], "#2 ")
    assert all(is_gsm7(m) and gsm_length(m) <= SEGMENT for m in english) and len(english) == 1
    # A Korean name or line: UCS-2, at most 70 characters a message, nothing lost.
    korean = ["민수, 오십삼. 지은 님 차례예요. 오십삼보다 큰 홀수, 또는 오십삼보다 작은 짝수."] * 2
    messages = fit(korean, "#2 ")
    assert len(messages) >= 2 and all(not is_gsm7(m) and ucs2_length(m) <= UCS2_SEGMENT for m in messages)
    assert "".join("".join(m.removeprefix("#2 ").split()) for m in messages) == "".join(
        "".join(korean).split()
    )
    # An emoji takes two UTF-16 units.
    assert ucs2_length("🎲") == 2 and fits_one_segment("🎲" * 35) and not fits_one_segment("🎲" * 36)
    # A Latin letter GSM-7 can spell is spelled so: that message stays GSM-7.
    assert fit(["Zoë said 53."]) == ["Zoe said 53."]

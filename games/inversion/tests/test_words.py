"""!nversion's table talk (``words.py``): cards, suits, bids and passes in every language the
game ships, and its grammar files (``grammar/<lang>/words.yaml``, cases in ``tests.yaml``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from games.inversion import SPEC
from games.inversion.cards import Card, Suit, deck
from games.inversion.rules import PlayCard
from games.inversion.words import (
    GRAMMAR,
    CardTalk,
    InversionWords,
    bid_phrases,
    card_phrases,
    card_words,
    parse_cards,
    suit_phrases,
    suit_words,
)
from grammars import GrammarError, load_file
from grammars.reader import to_words

LANGS = SPEC.languages
EVERY_CARD = sorted(deck(tuple(Suit)))
CASES = [
    (lang, case)
    for lang in LANGS
    for case in yaml.safe_load((GRAMMAR / lang / "tests.yaml").read_text(encoding="utf-8"))
]


def test_both_languages_have_card_words() -> None:
    assert {"en", "ko"} <= set(LANGS)


@pytest.mark.parametrize(("lang", "case"), CASES, ids=[f"{lang}:{c['text']}" for lang, c in CASES])
def test_sentence(lang: str, case: dict[str, object]) -> None:
    """The cases in games/inversion/grammar/<lang>/tests.yaml; only the keys a case gives are checked."""
    table = case.get("table", [])
    assert isinstance(table, list)
    said = parse_cards(str(case["text"]), lang, players=table)
    expected: dict[str, Callable[[Any], object]] = {
        "cards": lambda v: tuple(Card.parse(c) for c in v),
        "suits": lambda v: tuple(Suit(s) for s in v),
        "numbers": tuple,
        "bids": tuple,
        "passed": bool,
        "players": tuple,
        "commands": tuple,
        "leftovers": tuple,
    }
    checked = [key for key in expected if key in case]
    assert checked, "a case must say what to expect"
    for key in checked:
        assert getattr(said, key) == expected[key](case[key]), key


# -- the examples of the issue, spelled out ---------------------------------------------


def test_the_ways_to_say_the_nine_of_hearts() -> None:
    nine = Card(9, Suit.HEART)
    for text in ("nine of hearts", "heart nine", "9H", "9h", "h9", "The Nine of Hearts!", "9 ♥"):
        assert parse_cards(text) == CardTalk(text, cards=(nine,)), text


def test_clowns_and_clubs() -> None:
    assert parse_cards("the clown seven").cards == (Card(7, Suit.CLOWN),)
    assert parse_cards("ten of clubs").cards == parse_cards("10c").cards == (Card(10, Suit.CLUB),)
    assert parse_cards("7X").cards == (Card(7, Suit.CLOWN),)


def test_bids_and_passes() -> None:
    assert parse_cards("I bid three") == CardTalk("I bid three", bids=(3,))
    assert parse_cards("three tricks") == CardTalk("three tricks", bids=(3,))
    assert parse_cards("pass") == CardTalk("pass", passed=True)
    assert parse_cards("three").numbers == (3,) and parse_cards("three").bids == ()


def test_a_line_of_lane_cards() -> None:
    lane = "9h 2c 5s 10d 7x, nine of hearts, two of clubs and ten of spades"
    assert [str(c) for c in parse_cards(lane).cards] == ["9H", "2C", "5S", "10D", "7X", "9H", "2C", "10S"]


def test_not_a_card_comes_back_as_a_number_and_a_suit() -> None:
    said = parse_cards("eleven of hearts")
    assert (said.cards, said.numbers, said.suits) == ((), (11,), (Suit.HEART,))


def test_players_are_whole_words_in_any_case() -> None:
    said = parse_cards("ANN plays first, then Mary Jo", players=["Ann", "Mary Jo", "Jo"])
    assert said.players == ("Ann", "Mary Jo")
    assert parse_cards("annie", players=["Ann"]).players == ()


def test_korean() -> None:
    assert parse_cards("하트 구", "ko").cards == parse_cards("하트구", "ko").cards == (Card(9, Suit.HEART),)
    assert parse_cards("광대 칠 클로버 십", "ko").cards == (Card(7, Suit.CLOWN), Card(10, Suit.CLUB))
    assert parse_cards("세 개", "ko").bids == parse_cards("비드 삼", "ko").bids == (3,)
    assert parse_cards("패스", "ko").passed and parse_cards("네", "ko").commands == ("yes",)


# -- round trips ------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_every_card_read_aloud_parses_back(lang: str) -> None:
    for card in EVERY_CARD:
        assert parse_cards(card_words(card, lang), lang).cards == (card,), card


def test_how_cards_are_read() -> None:
    assert card_words(Card(9, Suit.HEART)) == "nine of hearts"
    assert card_words(Card(7, Suit.CLOWN)) == "seven of clowns"
    assert card_words(Card(9, Suit.HEART), "ko") == "하트 구"
    assert card_words(Card(10, Suit.CLUB), "ko") == "클로버 십"
    assert suit_words(Suit.HEART) == "heart" and suit_words(Suit.HEART, plural=True) == "hearts"


@pytest.mark.parametrize("lang", LANGS)
def test_every_card_phrase_parses_to_its_card(lang: str) -> None:
    for card in EVERY_CARD:
        phrases = card_phrases([card], lang)
        assert phrases
        for phrase in phrases:
            assert parse_cards(phrase, lang).cards == (card,), phrase


@pytest.mark.parametrize("lang", LANGS)
def test_every_bid_phrase_parses_to_its_bid(lang: str) -> None:
    for n in range(11):
        for phrase in bid_phrases([n], lang):
            said = parse_cards(phrase, lang)
            assert said.passed or n in said.bids or said.numbers == (n,), phrase
            assert not said.leftovers and not said.cards, phrase
    assert "i bid three" in bid_phrases([3]) and "pass" in bid_phrases([3])
    assert "세 개" in bid_phrases([3], "ko") and "패스" in bid_phrases([3], "ko")


@pytest.mark.parametrize("lang", LANGS)
def test_every_suit_phrase_is_a_suit(lang: str) -> None:
    phrases = suit_phrases(lang)
    assert {parse_cards(p, lang).suits for p in phrases} == {(s,) for s in Suit}


@given(st.lists(st.sampled_from(EVERY_CARD), max_size=8), st.sampled_from(LANGS))
def test_lists_of_cards_round_trip(cards: list[Card], lang: str) -> None:
    for sep in (", ", " "):
        assert parse_cards(sep.join(card_words(c, lang) for c in cards), lang).cards == tuple(cards)
    assert parse_cards(" ".join(str(c) for c in cards), lang).cards == tuple(cards)


@given(st.integers(11, 10**6) | st.integers(-1000, 0), st.sampled_from(list(Suit)))
def test_a_number_that_is_no_rank_stays_a_number(n: int, suit: Suit) -> None:
    said = parse_cards(f"{to_words(n)} of {suit_words(suit, plural=True)}")
    assert (said.cards, said.numbers, said.suits) == ((), (n,), (suit,))


# -- nothing a person says can crash it -------------------------------------------------

# Words and pieces the parser treats specially, to mix into utterances.
_TALK = [
    *["nine", "of", "hearts", "ten", "9h", "h9", "11h", "7x", "i", "bid", "tricks", "pass", "no"],
    *["the", "a", "ann", "하트", "구", "하트구", "세", "개", "네", "세개", "패스요", "클로버이"],
    *["하트만", "오십삼", "마이너스", "민수가", "♥", "🃏", "9" * 40, "-", ","],
]


@given(st.text(max_size=300), st.sampled_from(["en", "ko"]), st.lists(st.text(max_size=10), max_size=3))
def test_any_text_parses_without_error(text: str, lang: str, players: list[str]) -> None:
    said = parse_cards(text, lang, players)
    assert said.text == text
    assert all(1 <= c.rank <= 10 for c in said.cards)


@given(st.lists(st.sampled_from(_TALK), max_size=30), st.sampled_from(["en", "ko"]))
def test_any_mix_of_card_words_parses_without_error(words: list[str], lang: str) -> None:
    said = parse_cards(" ".join(words), lang, players=["Ann", "민수"])
    assert len(said.cards) <= len(words)


LONG = ["", "🙂🙂", "9" * 10_000, "nine of hearts " * 700, "하트구 " * 2000, "x" * 10_000, "1h" * 3000]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("text", LONG, ids=range(len(LONG)))
def test_long_and_odd_inputs(lang: str, text: str) -> None:
    assert parse_cards(text, lang).text == text


def test_a_long_line_keeps_every_card() -> None:
    assert parse_cards("nine of hearts " * 700).cards == (Card(9, Suit.HEART),) * 700
    assert parse_cards("하트구 " * 2000, "ko").cards == (Card(9, Suit.HEART),) * 2000
    assert parse_cards("9" * 10_000).numbers == ()  # no number anyone says


# -- the grammar file ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        ("  heart: [heart, hearts]", "  heart: []", r"suits\.heart"),
        ("  ace: 1", "  ace: one", r"ranks\.ace"),
        ("order: rank_first", "order: sideways", "order"),
        ('read: "{rank} of {suits}"', 'read: "{rank} of {colour}"', "read: .*colour"),
        ("passes: [pass", "colours: [red]\npasses: [pass", "colours: Extra inputs"),
    ],
)
def test_a_wrong_cards_file_is_reported_with_file_and_line(
    tmp_path: Path, old: str, new: str, error: str
) -> None:
    cards = tmp_path / "words.yaml"
    lines = (GRAMMAR / "en" / "words.yaml").read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(old.strip()))
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    lines[at] = indent + lines[at].strip().replace(old.strip(), new.strip().replace("\n", "\n" + indent))
    cards.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(GrammarError, match=rf"words\.yaml:{at + 1}: cards\.{error}"):
        load_file(cards, InversionWords)


def test_a_word_with_two_meanings_is_refused(tmp_path: Path) -> None:
    cards = tmp_path / "words.yaml"
    text = (GRAMMAR / "en" / "words.yaml").read_text(encoding="utf-8")
    cards.write_text(text.replace("[pass,", "[hearts, pass,"), encoding="utf-8")
    with pytest.raises(GrammarError, match=r"words\.yaml:\d+: .*'hearts' is in both suits\.heart and passes"):
        load_file(cards, InversionWords)


def test_what_a_ringing_room_makes_of_a_card() -> None:
    # An unseen voice in an unseen room of RT60 0.65 s had "seven of hearts" ruled as "ten of
    # hearts"; "five of ..." was heard as "nine of ...", "four of ..." as "one of ...". One
    # way, echoing or not.
    talk = SPEC.talk

    def said(rank: int, lang: str = "en", echoing: bool = True) -> list[int]:
        heard = PlayCard("Ann", Card(rank, Suit.HEART))
        return [
            m.card.rank for m in talk.echo_confusable(heard, lang, echoing=echoing) if isinstance(m, PlayCard)
        ]

    assert said(10) == said(10, echoing=False) == [7]
    assert said(9) == [5]
    assert said(1) == said(1, echoing=False) == [4]
    assert said(7) == said(5) == said(4) == said(2) == said(10, "ko") == []

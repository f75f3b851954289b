"""!nversion by text message: NEW INVERSION, the setup dialogue, the auction and the tricks,
each texted move refereed through ``Referee.handle`` and told to every other phone.

The deals are real: every card a test plays comes from a hand dealt from the chosen suits,
so the engine's claim checks (a player who showed no hearts and later plays one) stay quiet.
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from games.core import Event, GameOver
from games.inversion import rules as inv
from games.inversion import talk as words
from games.inversion.cards import Card, Suit, deck
from games.inversion.rules import InversionOutcome
from games.inversion.words import card_words, grammar, words_of
from host.channels.sms.text import NAME_MAX, SEGMENT, fit, fits_one_segment, gsm_length, texted, turn_prefix
from host.reply import Reply
from tests.sms.conftest import PHONES, Sms, new_sid

# -- helpers -----------------------------------------------------------------------------


def move(sms: Sms, phones: list[str], phone: str, body: str, sid: str | None = None) -> list[str]:
    """``phone`` texts ``body``: its answer, checked to be exactly what every other phone got."""
    before = {p: len(sms.inbox(p)) for p in phones}
    answer = sms.text(phone, body, sid)
    assert answer and all(fits_one_segment(m) for m in answer), answer
    for other in phones:
        if other != phone:
            assert sms.inbox(other)[before[other] :] == answer, f"{other} was told something else"
    assert len(sms.inbox(phone)) == before[phone]  # the sender is answered in TwiML only
    return answer


def private(sms: Sms, phones: list[str], phone: str, body: str) -> list[str]:
    """``phone`` texts ``body`` and is answered alone: nobody else is told anything."""
    before = {p: len(sms.inbox(p)) for p in phones}
    answer = sms.text(phone, body)
    assert answer and all(fits_one_segment(m) for m in answer), answer
    assert {p: len(sms.inbox(p)) for p in phones} == before
    return answer


def new_inversion(sms: Sms, names: list[str]) -> list[str]:
    """NEW INVERSION and JOINs (not START); the phones in seat order."""
    phones = PHONES[: len(names)]
    created = sms.text(phones[0], f"NEW INVERSION {names[0]}")
    code = created[0].split()[1].rstrip(":")
    assert code.isdigit() and len(code) == 6, created
    assert "!nversion" in created[0]
    for phone, name in zip(phones[1:], names[1:], strict=True):
        assert f"as {name}." in sms.text(phone, f"JOIN {code} {name}")[0]
    return phones


def acts(sms: Sms, phone: str) -> list[SimpleNamespace]:
    """The card-game moves the log holds, as the game's codec wrote them."""
    member = sms.app.state.lobby.member(phone)
    inputs = sms.app.state.store.inputs(member.session_id)
    fields = {"player": None, "cards": [], "suits": [], "amount": None}
    return [
        SimpleNamespace(**{**fields, **i.body["move"]})
        for i in inputs
        if i.body["kind"] == "play" and "action" in i.body["move"]
    ]


def turn_of(message: str) -> int:
    found = re.match(r"#(\d+) ", message)
    assert found, message
    return int(found.group(1))


def said(answer: list[str]) -> str:
    """The texts of one answer as one line, without their "#<turn> " prefixes."""
    return " ".join(re.sub(r"^#\d+ ", "", m) for m in answer)


def cards(text: str) -> list[Card]:
    return [Card.parse(c) for c in text.split()]


# -- a whole two-player game -------------------------------------------------------------

# Hearts, spades and clubs: 30 cards, 10 in the lane and 10 in each hand.
LANE_2 = cards("4S 7S 8S 7H 2C 1S 10H 2S 1H 9H")
ANN_2 = cards("3S 9S 8H 5H 7C 1C 4H 8C 6H 3C")
BOB_2 = cards("10S 5S 3H 2H 6C 6S 4C 5C 9C 10C")
# (player, text, card) per card, as people type them; Ann plays first, then each trick's winner.
PLAYS_2 = [
    ("Ann", "3S", "3S"), ("Bob", "ten of spades", "10S"),  # trick 1: Bob, highest spade
    ("Bob", "5S", "5S"), ("Ann", "the 9 of spades", "9S"),  # trick 2: Ann
    # Trick 3: Bob inverts (3 + 8) and counts the 8S; Ann's 8H ties it and came first.
    ("Ann", "8H", "8H"), ("Bob", "h3", "3H"),
    ("Ann", "5 of hearts", "5H"), ("Bob", "2H", "2H"),
    ("Ann", "seven of clubs", "7C"), ("Bob", "6C", "6C"),
    ("Ann", "1C", "1C"), ("Bob", "6S", "6S"),
    ("Bob", "4C", "4C"), ("Ann", "4H", "4H"),
    ("Ann", "8C", "8C"), ("Bob", "5C", "5C"),  # trick 8: nobody followed the 2 of spades
    ("Ann", "6H", "6H"), ("Bob", "9C", "9C"),
    ("Ann", "3C", "3C"), ("Bob", "10 clubs", "10C"),
]  # fmt: skip


def test_the_deals_are_real() -> None:
    three = (Suit.HEART, Suit.SPADE, Suit.CLUB)
    assert sorted([*LANE_2, *ANN_2, *BOB_2]) == sorted(deck(three))
    hands = {"Ann": ANN_2, "Bob": BOB_2}
    assert all(Card.parse(card) in hands[player] for player, _, card in PLAYS_2)
    assert len({card for _, _, card in PLAYS_2}) == 20
    assert sorted([*LANE_3, *ANN_3, *BOB_3, *CY_3]) == sorted(deck((*three, Suit.DIAMOND)))


def test_a_whole_two_player_game_by_text(sms: Sms) -> None:
    ann, bob = phones = new_inversion(sms, ["Ann", "Bob"])
    started = move(sms, phones, ann, "START")
    assert started == ["#1 New game: Ann, Bob. Which 3 suits? Text them, like hearts, spades and clubs."]
    # Anyone at the table answers the setup questions.
    assert move(sms, phones, bob, "hearts, spades and clubs") == [
        "#2 Suits: hearts, spades, clubs. Lane card 1 of 10, nearest the reference card first?"
        " Text one or more."
    ]
    lane = move(sms, phones, ann, "four of spades, seven of spades, 8S, 7H, 2C")
    assert lane[0].startswith("#3 Lane 5 of 10: 4 of spades, 7 of spades, 8 of spades, 7 of hearts,")
    assert lane[0].endswith("Lane card 6 of 10, nearest the reference card first? Text one or more.")
    assert move(sms, phones, bob, "1S 10H 2S 1H 9H") == [
        "#4 Lane 10 of 10: 1 of spades, 10 of hearts, 2 of spades, 1 of hearts, 9 of hearts. Who plays first?"
    ]
    assert move(sms, phones, bob, "Ann") == [
        "#5 Ann plays first. Trick 1: follow card 4 of spades. Ann leads. Ann: a spade, or any 7 to invert."
    ]
    phone = {"Ann": ann, "Bob": bob}
    answers: list[list[str]] = []
    for i, (player, text, _) in enumerate(PLAYS_2):
        if i == 5:
            # A card that is in the lane: refused with the reason, to Bob alone.
            assert private(sms, phones, bob, "10H") == [
                "#10 The 10 of hearts is in the lane, card 7. Bob: a spade, or any 3 to invert."
            ]
            # Garbage and a card out of turn change nothing either.
            assert private(sms, phones, bob, "zzz qqq") == [
                "#10 I didn't catch that. Bob: a spade, or any 3 to invert."
            ]
            assert private(sms, phones, ann, "6H") == ["#10 Waiting for Bob."]
        answers.append(move(sms, phones, phone[player], text))
    texts = [said(answer) for answer in answers]
    # The inversion, and the trick won on a tie by the card played first.
    assert answers[5] == [
        "#11 Bob: 3 of hearts. Inversion! Bob takes the 8 of spades. Follow card now 3 of hearts.",
        "#11 Ann wins trick 3 with the 8 of hearts: inversion, highest number, Ann played first."
        " Tricks: Ann 2, Bob 1."
        " Trick 4: follow card 7 of hearts. Ann leads.",
        "#11 Ann: a heart, or any 4 to invert.",
    ]
    assert (
        "Ann wins trick 8 with the 8 of clubs: nobody followed spades, highest number. Tricks: Ann 6, Bob 2."
        in texts[15]
    )
    assert answers[-1] == [
        "#25 Bob: 10 of clubs."
        " Bob wins trick 10 with the 10 of clubs: nobody followed hearts, highest number."
        " Tricks: Ann 7, Bob 3. All 30 cards accounted for.",
        "#25 Ann wins the game, 7 tricks to 3. Text NEW to play again.",
    ]
    # Each phone was sent every move of the other (``move`` checked each), in turn order.
    assert answers[5][0] in sms.inbox(ann) and answers[4][0] in sms.inbox(bob)
    for p in phones:
        turns = [turn_of(m) for m in sms.inbox(p) if not m.startswith("Bob joined")]
        assert turns == sorted(turns) and turns[-1] == (24 if p == bob else 25)
    assert sms.inbox(ann)[-2:] == answers[-1]  # Bob played the last card: Ann was told by REST
    table = sms.table(ann)
    assert table.state is not None and table.state.outcome is not None
    assert table.state.outcome.winner == "Ann" and table.state.outcome.scores == (("Ann", 7), ("Bob", 3))
    assert not table.running
    assert sms.text(bob, "status") == ["#25 Ann wins the game, 7 tricks to 3."]
    # The log is the cards as ruled: 20 cards, each once, by whoever texted them.
    logged = [(a.player, a.cards[0]) for a in acts(sms, ann) if a.action == "card"]
    assert logged == [(player, card) for player, _, card in PLAYS_2]
    # A rematch at the same table starts with the setup again.
    assert move(sms, phones, bob, "new game")[0].startswith("#1 New game: Ann, Bob. Which 3 suits?")


def test_a_replayed_message_sid_does_not_double_a_move(sms: Sms) -> None:
    ann, bob = phones = new_inversion(sms, ["Ann", "Bob"])
    sms.text(ann, "START")
    move(sms, phones, bob, "hearts spades clubs")
    move(sms, phones, ann, " ".join(str(c) for c in LANE_2))
    move(sms, phones, ann, "Ann plays first")
    sid = new_sid()
    first = move(sms, phones, ann, "3S", sid=sid)
    assert first == ["#5 Ann: 3 of spades. Bob: a spade, or any 7 to invert."]
    told = {p: len(sms.inbox(p)) for p in phones}
    assert sms.text(ann, "3S", sid=sid) == first  # Twilio's retry: the same answer ...
    assert {p: len(sms.inbox(p)) for p in phones} == told  # ... told to nobody again
    assert [a.cards for a in acts(sms, ann) if a.action == "card"] == [["3S"]]
    # A new text with the same words is a new request: it is Bob's turn now.
    assert sms.text(ann, "3S") == ["#5 Waiting for Bob."]
    # A refused card keeps its answer on a retry too, and still changes nothing.
    sid = new_sid()
    refused = sms.text(bob, "4S", sid=sid)
    assert refused == ["#5 The 4 of spades is the follow card. Bob: a spade, or any 7 to invert."]
    assert sms.text(bob, "4S", sid=sid) == refused
    assert len(acts(sms, ann)) == 4


# -- three players through the auction ----------------------------------------------------

# Hearts, spades, clubs and diamonds: 40 cards.
LANE_3 = cards("5D 9C 3H 8S 2D 10H 6C 1S 7D 4H")
ANN_3 = cards("10D 4C 1H 2H 5H 6H 7H 8H 9H 2S")
BOB_3 = cards("8D 10C 1C 2C 3C 5C 7C 8C 3S 4S")
CY_3 = cards("6D 1D 3D 4D 9D 5S 6S 7S 9S 10S")


def test_three_players_through_the_auction(sms: Sms) -> None:
    ann, bob, cy = phones = new_inversion(sms, ["Ann", "Bob", "Cy"])
    move(sms, phones, ann, "start")
    assert move(sms, phones, cy, "Hearts, spades, clubs, diamonds.")[0].startswith(
        "#2 Suits: hearts, spades, clubs, diamonds. Lane card 1 of 10"
    )
    move(sms, phones, bob, ", ".join(card_words(c) for c in LANE_3[:4]))
    assert move(sms, phones, cy, " ".join(str(c) for c in LANE_3[4:])) == [
        "#4 Lane 10 of 10: 2 of diamonds, 10 of hearts, 6 of clubs, 1 of spades, 7 of diamonds,"
        " 4 of hearts. Who declares first?"
    ]
    assert move(sms, phones, ann, "Cy") == [
        "#5 Cy declares first. Cy: how many tricks will you win? Declare 1 to 10, or pass."
    ]
    assert private(sms, phones, ann, "2") == ["#5 Waiting for Cy."]
    assert private(sms, phones, cy, "I bid 0") == [
        "#5 The first declaration can't be 0. Cy: how many tricks will you win? Declare 1 to 10, or pass."
    ]
    assert move(sms, phones, cy, "I bid 3") == ["#6 Cy declares 3. Ann: declare more than 3, or pass."]
    assert move(sms, phones, ann, "pass") == ["#7 Ann passes. Bob: declare more than 3, or pass."]
    assert private(sms, phones, bob, "I bid 2") == ["#7 Declare more than 3, or pass."]
    assert move(sms, phones, bob, "four tricks") == ["#8 Bob declares 4. Cy: declare more than 4, or pass."]
    assert move(sms, phones, cy, "pass") == [
        "#9 Cy passes. Bob is the parent with 4. Children: Ann, Cy."
        " Trick 1: follow card 5 of diamonds. Bob leads. Bob: a diamond, or any 6 to invert."
    ]
    # Trick 1: the parent leads; Cy inverts with the 6 (6 + 5); Ann's 10 is highest.
    assert private(sms, phones, bob, "7D") == [
        "#9 The 7 of diamonds is in the lane, card 9. Bob: a diamond, or any 6 to invert."
    ]
    move(sms, phones, bob, "eight of diamonds")
    assert move(sms, phones, cy, "6D")[0] == (
        "#11 Cy: 6 of diamonds. Inversion! Cy takes the 5 of diamonds. Follow card now 6 of diamonds."
        " Ann: a diamond, or any 5 to invert."
    )
    won = said(move(sms, phones, ann, "10 of diamonds"))
    assert "Ann wins trick 1 with the 10 of diamonds: inversion, highest number." in won
    assert "highest number. Tricks: Ann 1, Bob 0, Cy 0." in won
    assert won.endswith("Trick 2: follow card 9 of clubs. Ann leads. Ann: a club, or any 2 to invert.")
    # Trick 2: Cy has no clubs and plays a spade; Bob's 10 is the highest club.
    move(sms, phones, ann, "4C")
    move(sms, phones, bob, "10C")
    won = said(move(sms, phones, cy, "5 of spades"))
    assert "Bob wins trick 2 with the 10 of clubs: highest club. Tricks: Ann 1, Bob 1, Cy 0." in won
    assert sms.text(cy, "status") == [
        "#15 Trick 3, follow card 3 of hearts. Tricks: Ann 1, Bob 1, Cy 0. Bob bid 4."
    ]
    assert move(sms, phones, cy, "finish") == [
        "#16 Game over. Tricks: Ann 1, Bob 1, Cy 0. Text NEW to play again."
    ]
    assert not sms.table(ann).running
    assert [sms.inbox(p)[-1] for p in (ann, bob)] == [
        "#16 Game over. Tricks: Ann 1, Bob 1, Cy 0. Text NEW to play again."
    ] * 2


# -- four players, the longest names, a whole game ---------------------------------------

LONG = ["Christabelle", "Konstantinos", "Maximilienne", "Alessandrina"]


def _choose(state: inv.State, hand: list[Card]) -> Card:
    """A real player's card: the follow suit (or the card that inverts) when they hold one."""
    assert state.follow is not None
    follow = state.follow
    same = [c for c in hand if c.suit == follow.suit or c.rank + follow.rank == inv.MAKES]
    return max(same) if same else min(hand)


@pytest.mark.parametrize("seed", [4, 7])
def test_four_players_with_the_longest_names_play_a_whole_game(sms: Sms, seed: int) -> None:
    assert all(len(n) == NAME_MAX for n in LONG)
    phones = new_inversion(sms, LONG)
    # A fifth is refused: the game seats 4.
    assert sms.text(PHONES[4], f"JOIN {_code(sms, phones[0])} Eve") == ["That game is full: 4 players."]
    move(sms, phones, phones[0], "START")
    move(sms, phones, phones[1], "clubs, spades, hearts, diamonds and clowns")
    dealt = sorted(deck(tuple(Suit)))
    random.Random(seed).shuffle(dealt)
    lane, hands = dealt[:10], {n: dealt[10 + 10 * i : 20 + 10 * i] for i, n in enumerate(LONG)}
    move(sms, phones, phones[2], " ".join(card_words(c) for c in lane))
    move(sms, phones, phones[3], f"{LONG[2]} declares first")
    move(sms, phones, phones[2], "I bid 2")
    move(sms, phones, phones[3], "3")
    move(sms, phones, phones[0], "pass")
    move(sms, phones, phones[1], "pass")
    assert move(sms, phones, phones[2], "I pass")[0].startswith(
        f"#9 {LONG[2]} passes. {LONG[3]} is the parent with 3. Children: {LONG[0]}, {LONG[1]}, {LONG[2]}."
    )
    n, last = 0, [""]
    while (state := sms.table(phones[0]).state) is not None and not state.is_over:
        player = state.current_player
        assert player is not None
        card = _choose(state, hands[player])
        hands[player].remove(card)
        n += 1
        last = move(sms, phones, phones[LONG.index(player)], str(card) if n % 2 else card_words(card))
    assert n == 40 and all(not h for h in hands.values())
    state = sms.table(phones[0]).state
    assert state is not None and state.outcome is not None and not state.revokes
    result = words.outcome_text(state.outcome)
    assert LONG[3] in result and "win the game" in result
    # The last card's answer, and so every phone, carries the audit and the result.
    assert "All 50 cards accounted for." in said(last)
    assert last[-1].endswith(f"{result} Text NEW to play again.")
    assert sms.fake is not None
    assert all(fits_one_segment(m["Body"]) for m in sms.fake.messages)


def _code(sms: Sms, phone: str) -> str:
    member = sms.app.state.lobby.member(phone)
    row = sms.app.state.store.session(member.session_id)
    assert row is not None and row.code
    return str(row.code)


# -- the lobby, help and the channel's other answers --------------------------------------


def test_start_needs_two_and_the_lobby_seats_four(sms: Sms) -> None:
    ann = PHONES[0]
    created = sms.text(ann, "new !nversion Ann")[0]
    assert created.startswith("Game ") and "!nversion, 2 to 4 players" in created
    table = sms.table(ann)
    assert table.config.game == "inversion" and table.config.turn_timeout is None
    assert sms.text(ann, "START") == ["A game needs at least 2 players."]
    code = _code(sms, ann)
    for phone, name in zip(PHONES[1:4], ["Bob", "Cy", "Dee"], strict=True):
        sms.text(phone, f"JOIN {code} {name}")
    assert sms.text(PHONES[4], f"JOIN {code} Eve") == ["That game is full: 4 players."]
    assert sms.app.state.lobby.member(PHONES[4]) is None
    # The lobby itself refuses a fifth seat too (a caller joining by voice, say).
    assert sms.app.state.lobby.join(PHONES[5], code, "Flo", "voice") == "full"
    assert sms.table(ann).names == ("Ann", "Bob", "Cy", "Dee")
    assert sms.text(ann, "START")[0] == (
        "#1 New game: Ann, Bob, Cy, Dee. Which 5 suits? Text them, like hearts, spades and clubs."
    )


def test_help_rules_and_the_welcome_mention_inversion(sms: Sms) -> None:
    assert "NEW INVERSION" in sms.text(PHONES[0], "hello")[0]
    assert "NEW INVERSION" in sms.text(PHONES[0], "help")[0]
    assert sms.text(PHONES[0], "rules inversion")[0].startswith("Follow the suit of the follow card")
    assert sms.text(PHONES[0], "rules")[0].startswith("Text a number.")
    ann, bob = phones = new_inversion(sms, ["Ann", "Bob"])
    assert sms.text(bob, "rules")[0].startswith("Follow the suit of the follow card")
    move(sms, phones, ann, "START")
    help_text = sms.text(bob, "HELP")[0]
    assert help_text.startswith("#1 Text the card you play, like nine of hearts or 9H.")
    assert sms.text(ann, "status") == ["#1 Setting up the game."]
    assert sms.text(ann, "whose turn") == ["#1 Which 3 suits? Text them, like hearts, spades and clubs."]
    assert private(sms, phones, ann, "hearts and spades") == [
        "#1 Choose 3 suits, not 2. Which 3 suits? Text them, like hearts, spades and clubs."
    ]
    # A 20-digit number is a typing accident, answered like any text not understood.
    assert private(sms, phones, ann, "I bid 12345678901234567890") == [
        "#1 I didn't catch that. Which 3 suits? Text them, like hearts, spades and clubs."
    ]


def test_leaving_a_card_game_ends_it_for_the_others(sms: Sms) -> None:
    ann, bob, cy = new_inversion(sms, ["Ann", "Bob", "Cy"])
    sms.text(ann, "START")
    sms.text(bob, "hearts spades clubs diamonds")
    assert sms.text(cy, "LEAVE") == ["You left the game. Text NEW to start another or JOIN and a code."]
    assert sms.inbox(ann)[-1] == "#3 Cy left, so the game is over. Text NEW to play again."
    assert sms.inbox(bob)[-1] == sms.inbox(ann)[-1]
    assert not sms.table(ann).running


def test_no_turn_timer_for_cards_while_up_or_down_keeps_its_own(sms: Sms) -> None:
    ann, bob = phones = new_inversion(sms, ["Ann", "Bob"])
    move(sms, phones, ann, "START")
    move(sms, phones, ann, "hearts spades clubs")
    # An Up-or-Down game on the same number, at the same time, as before.
    cy, dee = PHONES[5], PHONES[6]
    code = sms.text(cy, "NEW Cy")[0].split()[1]
    sms.text(dee, f"JOIN {code} Dee")
    assert sms.text(cy, "START") == ["#1 New game: Cy, Dee. Cy: any number from 1 to 100."]
    assert sms.text(cy, "fifty") == ["#2 Cy said 50. Dee: an even number above 50 or an odd number below 50."]
    assert sms.inbox(dee)[-1].startswith("#2 Cy said 50.")
    told = {p: len(sms.inbox(p)) for p in phones}
    sms.clock.advance(24 * 3600)
    actions = sms.app.state.turn_timer.tick()
    assert [(a.kind, a.player) for a in actions] == [("timeout", "Dee")]
    assert {p: len(sms.inbox(p)) for p in phones} == told  # nobody at the card table was timed
    assert sms.table(ann).running
    assert move(sms, phones, bob, "9H 1C 2C 3C 4C 5C 6C 7C 8C 10C")[0].startswith("#3 Lane 10 of 10:")


# -- every !nversion text fits one segment --------------------------------------------------

NAMES = [f"{c * (NAME_MAX - 1)}{i}" for i, c in enumerate("ABCD", start=1)]  # 4 players, 12 letters
NAME = NAMES[3]
WIDE = Card(10, Suit.DIAMOND)  # "10 of diamonds": the longest card
# The most moves a game can take: suits, 10 lane cards, who starts, an auction of at most 10
# raises and 3 passes, 40 cards, an end. The prefix of every game text is "#<turn> ".
MOST_TURNS = 1 + inv.LANE + 1 + (inv.TRICKS + inv.MAX_PLAYERS - 1) + inv.TRICKS * inv.MAX_PLAYERS + 1
PREFIX = turn_prefix(99)
# Fields that list many cards (10 lane cards at once): these may take two texts.
LISTS = {"cards", "missing", "doubled"}


def _tally() -> str:
    g = grammar("en")
    counts = (10, 0, 0, 0)  # 10 tricks in all: at most one count has two digits
    return ", ".join(
        g.phrase("inv_tally_item", player=p, count=c) for p, c in zip(NAMES, counts, strict=True)
    )


def _worst_prompt() -> str:
    return max((words.prompt(s) for s in _states()), key=gsm_length)


def _values(key: str) -> dict[str, object]:
    g = grammar("en")
    card = words.card_text(WIDE)
    all_suits = ", ".join(words.card_text(Card(1, s)).removeprefix("1 of ") for s in Suit)
    lane = words.cards_text([Card(10, s) for s in Suit] + [Card(9, s) for s in Suit])
    reason = g.phrase("inv_reason_highest", suit="diamond", suits="diamonds")
    reason += ", " + g.phrase("inv_reason_tie", player=NAME)
    return {
        "player": NAME, "winner": NAME, "parent": NAME,
        "children": f" {g.phrases['and']} ".join(NAMES[:3]),
        "card": card, "took": card, "claimed_card": card, "example": card, "what": card,
        "cards": lane, "missing": lane, "doubled": lane,
        "suits": all_suits if key in ("inv_suits", "inv_unused_suit") else "diamonds",
        "suit": "diamond", "faces": "queens",
        "rank": 10, "count": 10, "trick": 10, "position": 10, "total": 50, "amount": 10,
        "bid": 10, "most": 10, "got": 10, "hand": 10, "others": 40, "tricks": 10,
        "claimed_trick": 10, "high": 10, "low": 0, "passed": ", ".join(NAMES[:3]),
        "tally": _tally(),
        "score": g.phrase("inv_score_two", high=10, low=0),
        "reason": reason,
        "turn": _worst_prompt(),
    }  # fmt: skip


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


INV_TEMPLATES = sorted(words_of("en").phrases.items())


def test_the_game_has_its_own_phrases() -> None:
    assert len(INV_TEMPLATES) > 50


def test_turn_numbers_stay_below_a_hundred() -> None:
    assert MOST_TURNS < 100, MOST_TURNS


@pytest.mark.parametrize(("key", "template"), INV_TEMPLATES, ids=[k for k, _ in INV_TEMPLATES])
def test_every_inversion_phrase_fits_one_segment(key: str, template: str) -> None:
    text = template.format(**_values(key))
    messages = fit([text], PREFIX)
    assert all(fits_one_segment(m) for m in messages), messages
    if not _fields(template) & LISTS:
        assert len(messages) == 1, f"{key} needs {len(messages)} messages: {messages}"
    assert " ".join(m.removeprefix(PREFIX) for m in messages) == texted(text)


def _states() -> list[inv.State]:
    """A game of 4 with the longest names in every phase the host prompts in."""
    s = inv.new_game(NAMES)
    out = [s]
    s, _ = inv.play(s, inv.ChooseSuits(tuple(Suit)))
    out.append(s)
    lane = [Card(1, Suit.DIAMOND), *(Card(r, Suit.CLOWN) for r in range(1, 10))]
    s, _ = inv.play(s, inv.LayLane(tuple(lane[:9])))
    out.append(s)  # "Lane card 10 of 10"
    s, _ = inv.play(s, inv.LayLane(tuple(lane[9:])))
    out.append(s)
    s, _ = inv.play(s, inv.ChooseFirst(NAMES[0]))
    out.append(s)
    raised, _ = inv.play(s, inv.Declare(NAMES[0], 9))
    out.append(raised)
    for name in NAMES[:3]:
        s, _ = inv.play(s, inv.Declare(name, None))
    out.append(s)  # "all others passed"
    s, _ = inv.play(s, inv.Declare(NAMES[3], 10))
    out.append(s)  # playing: "a diamond, or any 10 to invert"
    return out


def _events() -> list[Event]:
    tally = tuple(zip(NAMES, (0, 0, 0, 10), strict=True))
    other = Card(10, Suit.HEART)  # a "highest" win is never of the follow suit
    return [
        inv.SuitsChosen(tuple(Suit)),
        inv.FirstChosen(NAME, True),
        inv.BidMade(NAME, 10),
        inv.BidMade(NAME, None),
        inv.AuctionWon(NAMES[0], 10, tuple(NAMES[1:])),
        inv.TrickStarted(10, WIDE, NAME),
        inv.CardPlayed(NAME, WIDE, 10, WIDE, True),
        inv.Inversion(NAME, Card(1, Suit.DIAMOND), WIDE, 10),
        inv.Revoke(NAME, Suit.DIAMOND, 10, WIDE, 10, "played", card=WIDE),
        inv.Revoke(NAME, Suit.DIAMOND, 10, WIDE, 10, "count", hand=10, others=40),
        inv.TrickWon(10, NAME, other, "highest", True, Suit.DIAMOND, (), tally),
        inv.TrickWon(10, NAME, WIDE, "inversion", True, Suit.DIAMOND, (), tally),
        inv.TrickWon(10, NAME, WIDE, "follow_suit", True, Suit.DIAMOND, (), tally),
        inv.CardsAccounted(50),
        GameOver(InversionOutcome("tricks", winners=tuple(NAMES[1:]), scores=tally, parent=NAMES[0], bid=10)),
        GameOver(InversionOutcome("tricks", winners=(NAMES[0],), scores=tally, parent=NAMES[0], bid=1)),
        GameOver(InversionOutcome("tricks", winners=(NAMES[0],), scores=((NAMES[0], 10), (NAME, 0)))),
        GameOver(InversionOutcome("draw", scores=((NAMES[0], 5), (NAME, 5)))),
        GameOver(InversionOutcome("requested", scores=tally)),
        GameOver(InversionOutcome("player_left", left=NAME)),
    ]


def _refusals() -> list[inv.Refusal]:
    four = (Suit.CLUB, Suit.SPADE, Suit.HEART, Suit.CLOWN)
    fields: dict[str, dict[str, object]] = {
        "unused_suit": {"card": WIDE, "suits": four},
        "card_seen": {"card": WIDE, "where": "pile", "trick": 10, "player": NAME},
        "must_follow": {"player": NAME, "suit": Suit.DIAMOND, "rank": 10, "hand": 10, "others": 9},
        "suit_count": {"count": 5, "got": 10},
        "duplicate_suit": {"count": 5},
        "lane_duplicate": {"card": WIDE},
        "lane_full": {"count": 10, "got": 10},
        "lane_count": {"count": 10},
        "must_declare": {"player": NAME},
        "bid_too_high": {"most": 10},
        "bid_too_low": {"bid": 10},
        "not_your_turn": {"player": NAME},
        "not_playing": {"player": NAME},
        "wrong_phase": {"phase": "playing"},
        "first_bid_zero": {},
        "game_over": {},
    }
    wheres: list[dict[str, object]] = [
        {"where": "lane", "position": 10},
        {"where": "follow"},
        {"where": "trick", "player": NAME, "trick": 10},
    ]
    out = [inv.Refusal(reason, f) for reason, f in fields.items()]
    out += [inv.Refusal("card_seen", {"card": WIDE, **w}) for w in wheres]
    return out


def test_every_refusal_reason_of_the_engine_is_checked() -> None:
    source = Path(inv.__file__).read_text(encoding="utf-8")
    reasons = set(re.findall(r'Refusal\(\s*"(\w+)"', source))
    assert reasons and reasons <= {r.reason for r in _refusals()}


def test_every_inversion_line_the_referee_can_send_fits_one_segment() -> None:
    """Real lines from games/inversion/talk.py, as the referee writes them (an answer and
    the turn prompt after it: ``Reply.private``), with 4 players of 12 letters, "10 of
    diamonds", 4-player tallies (a won trick's line carries the tally), revoke penalties."""
    g = grammar("en")
    lines: list[str] = []
    for state in _states():
        prompt = words.prompt(state)
        lines += [prompt, words.status(state)]
        lines += Reply("", answer=[g.phrase("not_understood")], answer_prompt=prompt).private
        for r in _refusals():
            why = [text] if (text := words.refusal_text(r, state)) else []
            lines += Reply("", answer=why, answer_prompt=prompt if words.prompt_follows(r) else None).private
    playing = _states()[-1]
    lines.append(words.status(replace(playing, piles=((NAME, ()),) * 10)))
    # A trick's result and its tally are separate lines (``describe`` puts them on two), so
    # a channel can send them apart: each fits a text even with 4 names of 12 letters.
    for event in _events():
        lines += words.describe(event).splitlines() + words.describe(event, penalty=True).splitlines()
    assert all(lines)
    for line in lines:
        [message] = fit([line], PREFIX)
        assert gsm_length(message) <= SEGMENT, message
    assert max(gsm_length(PREFIX + line) for line in lines) <= SEGMENT
    tally = tuple(zip(NAMES, (0, 0, 0, 10), strict=True))
    for reason in ("highest", "inversion"):
        event = inv.TrickWon(10, NAMES[3], Card(10, Suit.HEART), reason, True, Suit.DIAMOND, (), tally)
        messages = fit(words.describe(event).splitlines(), PREFIX)
        assert all(gsm_length(m) <= SEGMENT for m in messages)
        assert messages[-1].startswith(f"{PREFIX}Tricks: ") or len(messages) == 1, messages

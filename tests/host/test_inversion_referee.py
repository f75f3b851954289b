"""!nversion through the referee: table talk by text over a real SQLite log, setup dialogue,
auction, tricks, revokes, undo, confirmation, idempotency and replay."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.inversion import rules as inv
from games.inversion.cards import Card, deck
from games.inversion.tests.deals import deal
from games.inversion.words import card_words
from host.heard import SpeechText
from host.referee import Referee
from host.session import SessionConfig, replay
from host.store import Store
from tests.clock import Clock
from tests.host.card_tables import LANE, set_up, start, state


def test_the_setup_dialogue_asks_for_each_part_in_turn(referee: Referee) -> None:
    sid = start(referee)
    assert referee.handle(sid, "whose turn").lines == [
        "Which 3 suits? Say them, like hearts, spades and clubs."
    ]
    wrong = referee.handle(sid, "hearts and spades")
    assert not wrong.accepted and wrong.lines[0].startswith("Choose 3 suits, not 2.")
    reply = referee.handle(sid, "hearts, spades and clubs")
    assert reply.public == [
        "Suits: hearts, spades, clubs.",
        "Lane card 1 of 10, nearest the reference card first? Say one or more.",
    ]
    assert referee.handle(sid, "nine of hearts").accepted
    bad = referee.handle(sid, "the clown seven")
    assert "not in this game" in bad.lines[0] and not bad.accepted
    twice = referee.handle(sid, "9H")
    assert "in the lane already" in twice.lines[0]
    reply = referee.handle(sid, "1C 2C 3C 4C 5C 6C 7C 8C 10C")
    assert reply.public[-1] == "Who plays first?"
    reply = referee.handle(sid, "Bob")
    assert reply.public == [
        "Bob plays first.",
        "Trick 1: follow card 9 of hearts. Bob leads.",
        "Bob: a heart, or any 2 to invert.",
    ]
    assert reply.next_player == "Bob"


def test_rule_example_one_the_first_of_two_nines_wins_after_an_inversion(referee: Referee) -> None:
    sid = start(referee, "Ann,Bob,Cy")
    set_up(referee, sid, "hearts spades clubs diamonds", LANE, "Ann")
    for who, said in (("Ann", "I bid 2"), ("Bob", "pass"), ("Cy", "pass")):
        referee.handle(sid, said, who)
    assert state(referee, sid).parent == "Ann"
    referee.handle(sid, "nine of clubs", "Ann")
    inverted = referee.handle(sid, "two of spades", "Bob")
    assert "Inversion! Bob takes the 9 of hearts. Follow card now 2 of spades." in inverted.public
    assert inverted.public[-1] == "Cy: a spade, or any 9 to invert."
    won = referee.handle(sid, "eight of spades", "Cy")
    trick = next(e for e in won.events if e["type"] == "trick_won")
    assert (
        trick["winner"] == "Ann" and trick["card"] == "9C" and trick["reason"] == "inversion" and trick["tie"]
    )
    assert any("Ann played first" in line for line in won.public)


def test_rule_example_two_two_inversions_in_one_trick(referee: Referee) -> None:
    sid = start(referee, "Ann,Bob,Cy")
    set_up(referee, sid, "hearts spades clubs diamonds", "2H 1C 2C 3C 4C 5C 6C 7C 8C 10C", "Ann")
    for who, said in (("Ann", "pass"), ("Bob", "pass"), ("Cy", "three tricks")):
        referee.handle(sid, said, who)
    assert state(referee, sid).parent == "Cy"
    referee.handle(sid, "5H", "Cy")
    referee.handle(sid, "9S", "Ann")
    won = referee.handle(sid, "2S", "Bob")
    assert [e["type"] for e in won.events].count("inversion") == 1  # this card's inversion
    trick = next(e for e in won.events if e["type"] == "trick_won")
    assert trick["winner"] == "Bob" and trick["card"] == "9S"
    assert sorted(trick["pile"]) == sorted(["5H", "2H", "9S", "2S"])  # type: ignore[arg-type]


def test_the_auction_refuses_what_the_rules_forbid(referee: Referee) -> None:
    sid = start(referee, "Ann,Bob,Cy")
    set_up(referee, sid, "hearts spades clubs diamonds", LANE, "Bob")
    assert "can't be 0" in referee.handle(sid, "I bid zero", "Bob").lines[0]
    assert referee.handle(sid, "nine of hearts", "Ann").lines == ["Waiting for Bob."]
    assert referee.handle(sid, "I bid 3", "Bob").accepted
    assert referee.handle(sid, "two", "Cy").lines == ["Declare more than 3, or pass."]
    assert referee.handle(sid, "eleven", "Cy").lines[0].startswith("There are only 10 tricks.")
    referee.handle(sid, "pass", "Cy")
    ended = referee.handle(sid, "pass", "Ann")
    assert "Bob is the parent with 3. Children: Ann, Cy." in ended.public
    assert ended.next_player == "Bob"


def test_refusals_name_where_a_card_is_and_change_nothing(referee: Referee) -> None:
    sid = start(referee)
    set_up(referee, sid, "hearts spades clubs", LANE, "Ann")
    before = state(referee, sid)
    assert (
        referee.handle(sid, "ten of clubs", "Ann")
        .lines[0]
        .startswith("The 10 of clubs is in the lane, card 10.")
    )
    assert referee.handle(sid, "9H", "Ann").lines[0].startswith("The 9 of hearts is the follow card.")
    assert (
        referee.handle(sid, "five of diamonds", "Ann")
        .lines[0]
        .startswith("The 5 of diamonds is not in this game.")
    )
    assert referee.handle(sid, "nine", "Ann").lines == ["Which 9? Say the suit too, like 9 of hearts."]
    assert referee.handle(sid, "eleven of hearts", "Ann").lines[0].startswith("Cards go from 1 to 10.")
    assert referee.handle(sid, "hearts", "Ann").lines[0].startswith("Which heart?")
    assert referee.handle(sid, "8H or 7H", "Ann").lines[0].startswith("I heard 8 of hearts or 7 of hearts.")
    assert referee.handle(sid, "blah blah", "Ann").lines[0].startswith("I didn't catch that. Ann: a heart")
    assert state(referee, sid) == before


def test_a_revoke_is_proven_by_a_later_card_and_announced_with_evidence(referee: Referee) -> None:
    sid = start(referee)
    set_up(referee, sid, "hearts spades clubs", LANE, "Ann")
    referee.handle(sid, "three of spades", "Ann")  # no heart, no 2: Ann claims no hearts
    referee.handle(sid, "8H", "Bob")
    assert state(referee, sid).claims[0].player == "Ann"
    referee.handle(sid, "4S", "Bob")  # Bob won and leads trick 2 (follow 1C)
    caught = referee.handle(sid, "5 of hearts", "Ann")
    revoke = next(e for e in caught.events if e["type"] == "revoke")
    assert revoke["player"] == "Ann" and revoke["claimed_trick"] == 1 and revoke["card"] == "5H"
    assert any(
        line.startswith("Revoke! Ann showed no hearts in trick 1 with the 3 of spades")
        for line in caught.public
    )


def test_revoke_penalty_is_a_table_option(referee: Referee) -> None:
    results = {}
    for penalty in ("announce", "trick"):
        sid = start(referee, revoke_penalty=penalty)
        set_up(referee, sid, "hearts spades clubs", LANE, "Ann")
        referee.handle(sid, "3S", "Ann")
        referee.handle(sid, "8H", "Bob")
        referee.handle(sid, "4S", "Bob")
        caught = referee.handle(sid, "5H", "Ann")
        assert any("to the other side" in line for line in caught.public) == (penalty == "trick")
        referee.handle(sid, "finish")
        outcome = state(referee, sid).outcome
        assert outcome is not None
        results[penalty] = dict(outcome.scores)
    # Trick 1 to Bob (Ann showed no heart); trick 2 to Ann's 5H (nobody followed clubs).
    assert results["announce"] == {"Ann": 1, "Bob": 1}
    assert results["trick"] == {"Ann": 0, "Bob": 2}


def test_undo_takes_back_the_last_card_only_by_its_player(referee: Referee, clock: Clock) -> None:
    sid = start(referee)
    set_up(referee, sid, "hearts spades clubs", LANE, "Ann")
    referee.handle(sid, "8H", "Ann")
    assert referee.handle(sid, "undo", "Bob").lines == ["Only Ann can take back 8 of hearts."]
    undone = referee.handle(sid, "undo", "Ann")
    assert undone.public[0] == "Ann took back 8 of hearts." and state(referee, sid).current_player == "Ann"
    referee.handle(sid, "8H", "Ann")
    clock.now += 60
    assert referee.handle(sid, "undo", "Ann").lines == ["Too late to take that back."]


def test_a_repeated_key_plays_a_card_once(referee: Referee) -> None:
    sid = start(referee)
    set_up(referee, sid, "hearts spades clubs", LANE, "Ann")
    first = referee.handle(sid, "8H", "Ann", key="SM1")
    again = referee.handle(sid, "8H", "Ann", key="SM1")
    assert first.to_json() == again.to_json()
    assert state(referee, sid).cards_played == (1, 0)


def test_a_card_heard_unsurely_is_read_back_before_it_counts(referee: Referee) -> None:
    sid = start(referee)
    set_up(referee, sid, "hearts spades clubs", LANE, "Ann")
    asked = referee.handle(sid, "eight of hearts", hearing=SpeechText(("eight of hearts",), 0.4))
    assert asked.lines == ["Ann, 8 of hearts?"] and not asked.accepted
    assert state(referee, sid).cards_played == (0, 0)
    ruled = referee.handle(sid, "yes", hearing=SpeechText(("yes",), 0.9))
    assert ruled.accepted and ruled.public[0] == "Ann: 8 of hearts."
    asked = referee.handle(sid, "two of spades", hearing=SpeechText(("two of spades",), 0.3))
    corrected = referee.handle(sid, "no, three of hearts", hearing=SpeechText(("no three of hearts",), 0.5))
    assert corrected.public[0] == "Bob: 3 of hearts."
    sure = referee.handle(sid, "4 of spades", hearing=SpeechText(("four of spades",), 0.95))
    assert sure.accepted


def test_sessions_resume_from_the_file(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "log.sqlite3"
    referee = Referee(Store(path), clock)
    sid = start(referee)
    set_up(referee, sid, "hearts spades clubs", LANE, "Ann")
    referee.handle(sid, "8H", "Ann")
    live = state(referee, sid)
    referee.store.close()
    again = Referee(Store(path), clock)
    assert again.table(sid).state == live
    assert again.handle(sid, "2S", "Bob").public[1].startswith("Inversion!")


# -- contract: seeded random games to the end --------------------------------------------------


def say(rng: random.Random, card: Card) -> str:
    return rng.choice(
        [str(card), card_words(card), f"the {card_words(card)}", f"{card.rank} of {card.suit.value}s"]
    )


@pytest.mark.parametrize("seed", range(12))
def test_contract_random_games_by_text_replay_to_the_same_table(
    referee: Referee, clock: Clock, seed: int
) -> None:
    """Honest tables with noise: replay equals the live table, only the current player's
    cards count, cards are conserved, every game ends after 10 tricks, and honest play is
    never called a revoke."""
    rng = random.Random(seed)
    n = 2 + seed % 3
    names = [f"P{i}" for i in range(n)]
    suits, hands, lane = deal(rng, n)
    sid = start(referee, ",".join(names))
    set_up(referee, sid, " ".join(s.value for s in suits), " ".join(map(str, lane)), rng.choice(names))
    while state(referee, sid).phase is inv.Phase.BIDDING:
        current = state(referee, sid).current_player
        high = state(referee, sid).high_bid or 0
        text = "pass" if rng.random() < 0.5 and high else f"I bid {min(10, high + rng.randint(1, 3))}"
        referee.handle(sid, text, current)
    for _ in range(400):
        game = state(referee, sid)
        if game.is_over:
            break
        clock.now += 1
        player = game.current_player
        assert player is not None and game.follow is not None
        hand = hands[names.index(player)]
        if rng.random() < 0.15:  # noise: a wrong speaker, garbage or a seen card
            other = rng.choice([p for p in names if p != player])
            noises = [(player, "umm"), (player, say(rng, lane[-1]))]
            if hands[names.index(other)]:
                noises.append((other, say(rng, rng.choice(hands[names.index(other)]))))
            speaker, text = rng.choice(noises)
            referee.handle(sid, text, speaker)
            assert state(referee, sid) == game
            continue
        follow = [c for c in hand if c.suit == game.follow.suit]
        card = rng.choice(follow or hand)
        reply = referee.handle(sid, say(rng, card), player)
        assert reply.accepted, reply.lines
        hand.remove(card)
        assert not any(e["type"] == "revoke" for e in reply.events)
    final = state(referee, sid)
    assert final.is_over and len(final.piles) == 10 and all(not h for h in hands)
    assert sorted(c for _, pile in final.piles for c in pile) == sorted(deck(suits))
    rebuilt = replay(
        SessionConfig.model_validate(referee.store.session(sid).config),  # type: ignore[union-attr]
        referee.store.inputs(sid),
    )
    assert rebuilt.state == final


# -- whatever anyone says, in every phase --------------------------------------------------

WORDS = [
    "nine",
    "of",
    "hearts",
    "9H",
    "pass",
    "bid",
    "3",
    "11",
    "Ann",
    "Bob",
    "Cy",
    "undo",
    "yes",
    "no",
    "clown",
    "seven",
    "status",
    "repeat",
    "finish",
    "new game",
    "leave",
    "ten",
    "clubs",
    "🃏",
    "-1",
    "0",
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    phase=st.sampled_from(["suits", "lane", "first", "bidding", "playing"]),
    said=st.lists(
        st.tuples(
            st.sampled_from([None, "Ann", "Bob", "Cy", "Zed"]),
            st.one_of(st.text(max_size=40), st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join)),
            st.one_of(st.none(), st.floats(0, 1)),
        ),
        max_size=8,
    ),
)
def test_anything_said_gets_an_answer_and_a_move_is_ruled_once(
    tmp_path_factory: pytest.TempPathFactory, phase: str, said: list[tuple[str | None, str, float | None]]
) -> None:
    referee = Referee(Store(tmp_path_factory.mktemp("fuzz") / "log.sqlite3"), Clock(1_000_000.0))
    sid = start(referee, "Ann,Bob,Cy")
    steps = {
        "suits": [],
        "lane": ["H S C D"],
        "first": ["H S C D", LANE],
        "bidding": ["H S C D", LANE, "Ann"],
    }
    for text in steps.get(phase, ["H S C D", LANE, "Ann", "Ann: I bid 2", "Bob: pass", "Cy: pass"]):
        who, _, words = text.rpartition(": ")
        referee.handle(sid, words, who or None)

    def ruled() -> int:
        """Inputs that change the game (a read-back asked or dropped is logged, rules nothing)."""
        return sum(1 for i in referee.store.inputs(sid) if i.body["kind"] not in ("ask", "drop"))

    for speaker, text, confidence in said:
        before = ruled()
        hearing = None if confidence is None else SpeechText((text,), confidence)
        reply = referee.handle(sid, text, speaker, hearing=hearing)
        assert reply.lines or reply.events, (speaker, text)
        grew = ruled() - before
        assert grew == (1 if reply.accepted else 0), (speaker, text, reply)
    rebuilt = replay(
        SessionConfig.model_validate(referee.store.session(sid).config),  # type: ignore[union-attr]
        referee.store.inputs(sid),
    )
    assert rebuilt.state == referee.table(sid).state
    referee.store.close()


def test_undo_while_a_read_back_waits_cancels_the_question_only(referee: Referee) -> None:
    sid = start(referee)
    set_up(referee, sid, "hearts spades clubs", LANE, "Ann")
    referee.handle(sid, "8H", "Ann")
    asked = referee.handle(sid, "three of hearts", hearing=SpeechText(("three of hearts",), 0.3))
    assert asked.lines == ["Bob, 3 of hearts?"]
    cancelled = referee.handle(sid, "undo", hearing=SpeechText(("undo",), 0.9))
    assert (
        not cancelled.accepted
        and cancelled.lines[-1] == "I didn't catch that. Bob: a heart, or any 2 to invert."
    )
    assert state(referee, sid).cards_played == (1, 0)  # Ann's 8 of hearts stands


def test_status_during_the_auction_names_the_declarations(referee: Referee) -> None:
    sid = start(referee, "Ann,Bob,Cy")
    set_up(referee, sid, "hearts spades clubs diamonds", LANE, "Ann")
    assert referee.handle(sid, "status").lines == [
        "Highest declaration: none. Passed: none."
        " Ann: how many tricks will you win? Declare 1 to 10, or pass."
    ]
    referee.handle(sid, "I bid 2", "Ann")
    referee.handle(sid, "pass", "Bob")
    assert referee.handle(sid, "score", "Cy").lines == [
        "Highest declaration: Ann 2. Passed: Bob. Cy: declare more than 2, or pass."
    ]


def test_finish_after_the_end_says_the_game_is_over(referee: Referee) -> None:
    sid = start(referee)
    referee.handle(sid, "finish")
    assert referee.handle(sid, "finish").lines == ["The game is over. Say new game to play again."]

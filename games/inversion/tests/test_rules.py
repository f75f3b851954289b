"""!nversion rules (``docs/rules/inversion.txt``): the rule text's examples, setup,
the auction, lane following, revokes, results, and properties over random full games.

The random games keep their own model of the table (the real hands, the lane, who won
each trick by the rule text) and check the engine against it, so a wrong winner, a lost
card or a revoke pinned on an honest player makes a test fail.
"""

from __future__ import annotations

import functools
import json
import random
from collections import Counter
from dataclasses import dataclass, field, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.core import End, Event, GameOver, IllegalMove, Leave, Refusal, event_to_json
from games.inversion import rules as inv
from games.inversion.cards import Card, Suit, deck
from games.inversion.rules import (
    AuctionWon,
    BidMade,
    CardPlayed,
    CardsAccounted,
    ChooseFirst,
    ChooseSuits,
    Claim,
    Declare,
    FirstChosen,
    Inversion,
    InversionOutcome,
    LaneLaid,
    LayLane,
    Move,
    Options,
    Penalty,
    Phase,
    PlayCard,
    Played,
    Revoke,
    State,
    SuitsChosen,
    TrickStarted,
    TrickWon,
)

H, S, C, D, X = Suit.HEART, Suit.SPADE, Suit.CLUB, Suit.DIAMOND, Suit.CLOWN
SEATS = ("Ann", "Bob", "Cat", "Dan")
DEFAULT = Options()


def card(text: str) -> Card:
    return Card.parse(text)


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


def run(state: State, *moves: inv.AnyMove) -> tuple[State, list[Event]]:
    """Apply moves that must all be accepted; the events of all of them."""
    events: list[Event] = []
    for move in moves:
        state, new = inv.play(state, move)
        events.extend(new)
    return state, events


def refused(state: State, move: inv.AnyMove, reason: str) -> Refusal:
    """``move`` is refused for ``reason``: ``refusal`` says so and ``play`` raises."""
    problem = inv.refusal(state, move)
    assert problem is not None, f"{move} was allowed"
    assert problem.reason == reason, problem
    with pytest.raises(IllegalMove, match=f"^{reason}$"):
        inv.play(state, move)
    return problem


def laid(players: tuple[str, ...], suits: tuple[Suit, ...], lane: str, options: Options = DEFAULT) -> State:
    """A table with its suits chosen and its lane laid, waiting for ChooseFirst."""
    g, _ = run(inv.new_game(players, options), ChooseSuits(suits), LayLane(cards(lane)))
    assert g.phase is Phase.FIRST
    return g


def three(lane: str, parent: str = "Ann", bid: int = 1) -> State:
    """Three players (hearts, clubs, spades, diamonds); ``parent`` wins the auction alone."""
    g = laid(SEATS[:3], (H, C, S, D), lane)
    g, _ = run(g, ChooseFirst(parent), Declare(parent, bid))
    seat = SEATS.index(parent)
    g, _ = run(g, *(Declare(SEATS[(seat + k) % 3], None) for k in (1, 2)))
    assert g.phase is Phase.PLAYING and g.parent == parent and g.current_player == parent
    return g


def trick_won(events: list[Event]) -> TrickWon:
    won = [e for e in events if isinstance(e, TrickWon)]
    assert len(won) == 1, events
    return won[0]


# -- the rule text's examples ---------------------------------------------------------------

LANE_9H = "9H 1D 2D 3D 4D 5D 6D 7D 8D 9D"
LANE_2H = "2H 1D 3D 4D 5D 6D 7D 8D 9D 10D"


def test_example_1_tie_after_an_inversion_goes_to_the_first_player() -> None:
    g = three(LANE_9H)
    g, events = run(g, PlayCard("Ann", card("9C")), PlayCard("Bob", card("2S")), PlayCard("Cat", card("8S")))
    inversions = [e for e in events if isinstance(e, Inversion)]
    assert inversions == [Inversion("Bob", card("2S"), card("9H"), 1)]
    won = trick_won(events)
    assert (won.winner, won.card, won.reason, won.tie) == ("Ann", card("9C"), "inversion", True)
    # The trick as considered (Bob counts the 9H he took) and the follow card at the end.
    assert won.pile == cards("9C 9H 8S 2S")
    assert won.tally == (("Ann", 1), ("Bob", 0), ("Cat", 0))
    # The winner leads the next trick; the next lane card is the follow card.
    assert events[-1] == TrickStarted(2, card("1D"), "Ann")
    assert g.current_player == "Ann" and g.follow == card("1D") and g.trick == 2


def test_example_2_two_inversions_and_the_third_player_wins() -> None:
    g = three(LANE_2H)
    g, events = run(g, PlayCard("Ann", card("5H")), PlayCard("Bob", card("9S")), PlayCard("Cat", card("2S")))
    assert [e for e in events if isinstance(e, Inversion)] == [
        Inversion("Bob", card("9S"), card("2H"), 1),
        Inversion("Cat", card("2S"), card("9S"), 1),
    ]
    won = trick_won(events)
    assert (won.winner, won.card, won.reason, won.tie) == ("Cat", card("9S"), "inversion", False)
    # Cards considered: 5H, 2H, 9S; the 2S is the follow card the winner also takes.
    assert won.pile == cards("5H 2H 9S 2S")
    assert g.current_player == "Cat" and g.follow == card("1D")


def test_in_text_example_after_8h_and_2s_the_third_player_must_play_a_spade_or_a_9() -> None:
    g = three(LANE_9H)
    assert g.allowed() == (H, 2)
    g, events = run(g, PlayCard("Ann", card("8H")), PlayCard("Bob", card("2S")))
    assert Inversion("Bob", card("2S"), card("9H"), 1) in events
    assert g.follow == card("2S") and g.current_player == "Cat"
    assert g.allowed() == (S, 9)
    # Bob has the 9 of hearts in front of him as his played card.
    assert g.plays[1] == Played("Bob", card("2S"), card("9H"), True)


def test_two_of_hearts_on_the_nine_of_hearts_inverts() -> None:
    g = three(LANE_9H)
    g, events = run(g, PlayCard("Ann", card("2H")))
    assert events[0] == CardPlayed("Ann", card("2H"), 1, card("9H"), True)
    assert events[1] == Inversion("Ann", card("2H"), card("9H"), 1)
    assert g.follow == card("2H") and g.allowed() == (H, 9)


def test_example_from_the_module_docstring_two_players() -> None:
    g = laid(("Ann", "Bob"), (H, S, C), "9H 1C 2C 3C 4C 5C 6C 7C 8C 10C")
    g, events = run(g, ChooseFirst("Ann"))
    assert events == [FirstChosen("Ann", False), TrickStarted(1, card("9H"), "Ann")]
    g, events = run(g, PlayCard("Ann", card("8H")), PlayCard("Bob", card("2S")))
    won = trick_won(events)
    assert (won.winner, won.card, won.reason) == ("Bob", card("9H"), "inversion")


# -- setup ----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [("Ann",), (*SEATS, "Eve"), ()])
def test_two_to_four_players(players: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        inv.new_game(players)


def test_player_names_must_differ() -> None:
    with pytest.raises(ValueError):
        inv.new_game(("Ann", "Ann", "Bob"))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_table_picks_players_plus_one_suits(n: int) -> None:
    g = inv.new_game(SEATS[:n])
    assert g.phase is Phase.SUITS and g.current_player is None
    suits = (X, D, H, S, C)[: n + 1]
    refused(g, ChooseSuits(suits[:-1]), "suit_count")
    if n < 4:
        refused(g, ChooseSuits((X, D, H, S, C)[: n + 2]), "suit_count")
    refused(g, ChooseSuits((*suits[:-1], suits[0])), "duplicate_suit")
    refused(g, LayLane(cards("1X")), "wrong_phase")
    g, events = run(g, ChooseSuits(suits))
    assert events == [SuitsChosen(suits)]
    assert g.phase is Phase.LANE and g.suits == suits and len(deck(g.suits)) == 10 * (n + 1)
    refused(g, ChooseSuits(suits), "wrong_phase")


def test_lane_in_one_move_or_one_by_one_gives_the_same_table() -> None:
    lane = cards("9H 1C 2C 3C 4C 5C 6C 7C 8C 10C")
    g, _ = run(inv.new_game(("Ann", "Bob")), ChooseSuits((H, S, C)))
    at_once, events = run(g, LayLane(lane))
    assert events == [LaneLaid(lane, 10)]
    one_by_one = g
    for i, c in enumerate(lane, start=1):
        assert one_by_one.phase is Phase.LANE
        one_by_one, events = run(one_by_one, LayLane((c,)))
        assert events == [LaneLaid((c,), i)]
    assert one_by_one.lane == at_once.lane == lane
    assert one_by_one.phase is at_once.phase is Phase.FIRST
    assert one_by_one.seen == at_once.seen == frozenset(lane)
    assert one_by_one.turn == 12 and at_once.turn == 3


def test_lane_refusals() -> None:
    g, _ = run(inv.new_game(("Ann", "Bob")), ChooseSuits((H, S, C)))
    refused(g, LayLane(()), "lane_count")
    problem = refused(g, LayLane(cards("9H 1D")), "unused_suit")
    assert problem.fields["card"] == card("1D")
    refused(g, LayLane(cards("9H 1C 9H")), "lane_duplicate")
    refused(g, LayLane(cards("1C 2C 3C 4C 5C 6C 7C 8C 9C 10C 1H")), "lane_full")
    refused(g, ChooseFirst("Ann"), "wrong_phase")
    g, _ = run(g, LayLane(cards("9H 1C 2C")))
    problem = refused(g, LayLane(cards("4C 2C")), "lane_duplicate")
    assert problem.fields["card"] == card("2C")
    problem = refused(g, LayLane(cards("3C 4C 5C 6C 7C 8C 9C 10C")), "lane_full")
    assert problem.fields == {"count": 7, "got": 8}
    g, _ = run(g, LayLane(cards("3C 4C 5C 6C 7C 8C 9C")))
    assert g.phase is Phase.FIRST
    refused(g, LayLane(cards("10C")), "wrong_phase")
    refused(g, ChooseFirst("Zed"), "not_playing")
    refused(g, PlayCard("Ann", card("1H")), "wrong_phase")


def test_two_players_have_no_auction_and_the_table_names_the_first_player() -> None:
    g = laid(("Ann", "Bob"), (H, S, C), "9H 1C 2C 3C 4C 5C 6C 7C 8C 10C")
    refused(g, Declare("Ann", 3), "wrong_phase")
    g, events = run(g, ChooseFirst("Bob"))
    assert events == [FirstChosen("Bob", False), TrickStarted(1, card("9H"), "Bob")]
    assert g.phase is Phase.PLAYING and g.parent is None and g.bid is None
    assert g.current_player == "Bob" and g.follow == card("9H") and g.trick == 1
    assert g.hand_size("Ann") == g.hand_size("Bob") == 10 and len(g.unseen) == 20
    refused(g, Declare("Bob", 3), "wrong_phase")
    refused(g, ChooseFirst("Ann"), "wrong_phase")


# -- the auction ----------------------------------------------------------------------------


def auction(n: int, first: str) -> State:
    g = laid(SEATS[:n], (H, S, C, D, X)[: n + 1], "1H 2H 3H 4H 5H 6H 7H 8H 9H 10H")
    g, events = run(g, ChooseFirst(first))
    assert events == [FirstChosen(first, True)]
    assert g.phase is Phase.BIDDING and g.current_player == first
    return g


def test_declarations_go_clockwise_until_all_but_one_pass() -> None:
    g = auction(4, "Cat")
    g, _ = run(g, Declare("Cat", 2))
    assert g.current_player == "Dan"
    g, _ = run(g, Declare("Dan", 3))
    assert g.current_player == "Ann"
    g, _ = run(g, Declare("Ann", None))
    assert g.current_player == "Bob"
    g, _ = run(g, Declare("Bob", 4), Declare("Cat", None))
    assert g.current_player == "Dan"
    g, events = run(g, Declare("Dan", None))
    assert events[:2] == [BidMade("Dan", None), AuctionWon("Bob", 4, ("Ann", "Cat", "Dan"))]
    # Play starts from the parent.
    assert events[2] == TrickStarted(1, card("1H"), "Bob")
    assert g.phase is Phase.PLAYING and g.parent == "Bob" and g.bid == 4 and g.current_player == "Bob"
    assert g.bids == (("Cat", 2), ("Dan", 3), ("Ann", None), ("Bob", 4), ("Cat", None), ("Dan", None))


def test_passes_are_final() -> None:
    g = auction(3, "Ann")
    g, _ = run(g, Declare("Ann", 2), Declare("Bob", None), Declare("Cat", 3))
    # Bob passed: the turn skips him for good.
    assert g.current_player == "Ann"
    refused(g, Declare("Bob", 5), "not_your_turn")
    g, _ = run(g, Declare("Ann", 4))
    assert g.current_player == "Cat"
    g, events = run(g, Declare("Cat", None))
    assert AuctionWon("Ann", 4, ("Bob", "Cat")) in events


def test_first_declaration_cannot_be_zero_and_each_must_be_larger() -> None:
    g = auction(3, "Bob")
    refused(g, Declare("Ann", 1), "not_your_turn")
    refused(g, Declare("Bob", 0), "first_bid_zero")
    refused(g, Declare("Bob", 11), "bid_too_high")
    g, _ = run(g, Declare("Bob", None))
    refused(g, Declare("Cat", 0), "first_bid_zero")
    g, _ = run(g, Declare("Cat", 3))
    assert refused(g, Declare("Ann", 3), "bid_too_low").fields == {"bid": 3}
    refused(g, Declare("Ann", 0), "bid_too_low")
    refused(g, Declare("Ann", 2), "bid_too_low")
    refused(g, PlayCard("Ann", card("1S")), "wrong_phase")


@pytest.mark.parametrize("amount", [-1, -5])
def test_negative_declarations_are_refused(amount: int) -> None:
    g = auction(3, "Ann")
    assert refused(g, Declare("Ann", amount), "bid_too_low").fields == {"bid": 0}
    g, _ = run(g, Declare("Ann", 2))
    assert refused(g, Declare("Bob", amount), "bid_too_low").fields == {"bid": 2}


def test_a_bid_of_ten_ends_the_auction_at_once() -> None:
    g = auction(4, "Dan")
    g, _ = run(g, Declare("Dan", 2))
    g, events = run(g, Declare("Ann", 10))
    assert AuctionWon("Ann", 10, ("Bob", "Cat", "Dan")) in events
    assert g.phase is Phase.PLAYING and g.current_player == "Ann"


def test_the_last_player_left_without_a_bid_must_declare() -> None:
    g = auction(3, "Ann")
    g, _ = run(g, Declare("Ann", None), Declare("Bob", None))
    assert refused(g, Declare("Cat", None), "must_declare").fields == {"player": "Cat"}
    refused(g, Declare("Cat", 0), "first_bid_zero")
    g, events = run(g, Declare("Cat", 1))
    assert AuctionWon("Cat", 1, ("Ann", "Bob")) in events
    assert g.parent == "Cat" and g.bid == 1


def test_the_last_one_in_is_the_parent_even_after_others_passed_late() -> None:
    g = auction(3, "Cat")
    g, _ = run(g, Declare("Cat", 1), Declare("Ann", 2), Declare("Bob", 5), Declare("Cat", None))
    assert g.phase is Phase.BIDDING and g.current_player == "Ann"
    g, events = run(g, Declare("Ann", None))
    assert AuctionWon("Bob", 5, ("Ann", "Cat")) in events


# -- lane following, inversions, trick winners ----------------------------------------------


def test_no_inversion_highest_of_the_follow_suit_wins() -> None:
    g = three(LANE_9H)
    g, events = run(g, PlayCard("Ann", card("3H")), PlayCard("Bob", card("10S")), PlayCard("Cat", card("4H")))
    won = trick_won(events)
    assert (won.winner, won.card, won.reason, won.tie) == ("Cat", card("4H"), "follow_suit", False)
    assert won.pile == cards("3H 10S 4H 9H")


def test_nobody_follows_the_highest_card_wins_and_ties_go_to_the_earliest() -> None:
    g = three(LANE_9H)
    g, events = run(g, PlayCard("Ann", card("5S")), PlayCard("Bob", card("7C")), PlayCard("Cat", card("7S")))
    won = trick_won(events)
    assert (won.winner, won.card, won.reason, won.tie) == ("Bob", card("7C"), "highest", True)
    # Playing off suit without making 11 is a claim of holding no hearts.
    assert g.claims == (
        Claim("Ann", H, 1, card("5S")),
        Claim("Bob", H, 1, card("7C")),
        Claim("Cat", H, 1, card("7S")),
    )


def test_an_inversion_only_affects_the_current_trick() -> None:
    g = three(LANE_9H)
    g, _ = run(g, PlayCard("Ann", card("2C")), PlayCard("Bob", card("9C")), PlayCard("Cat", card("1H")))
    # 2C inverted (9H taken), 9C inverted again (2C taken); the lane goes on as laid.
    assert g.follow == card("1D") and g.lane == cards(LANE_9H) and g.trick == 2
    assert g.piles == (("Ann", cards("9H 2C 1H 9C")),)
    assert g.lane_ahead == cards("2D 3D 4D 5D 6D 7D 8D 9D")


def test_inversion_with_a_follow_suit_card_is_still_an_inversion_for_the_winner() -> None:
    g = three(LANE_2H)
    # Ann plays 9H on 2H: follows suit and inverts, counting the 2H. Bob's 8H then follows
    # the 9H and does not invert; with an inversion in the trick the highest number wins.
    g, events = run(g, PlayCard("Ann", card("9H")), PlayCard("Bob", card("8H")), PlayCard("Cat", card("3S")))
    assert events[0] == CardPlayed("Ann", card("9H"), 1, card("2H"), True)
    won = trick_won(events)
    assert (won.winner, won.card, won.reason) == ("Bob", card("8H"), "inversion")


def test_the_lower_card_taken_can_lose_the_trick_for_the_inverter() -> None:
    g = three("10H 1D 2D 3D 4D 5D 6D 7D 8D 9D")
    # 1S inverts the 10H: Ann counts the 10. Bob then must follow spades or play a 10.
    g, _ = run(g, PlayCard("Ann", card("1S")))
    assert g.allowed() == (S, 10)
    g, events = run(g, PlayCard("Bob", card("10S")), PlayCard("Cat", card("9S")))
    won = trick_won(events)
    # Bob's 10S inverted the 1S: Bob counts the 1S, Ann's 10H wins.
    assert (won.winner, won.card) == ("Ann", card("10H"))
    assert won.pile == cards("10H 1S 9S 10S")


def test_trick_winner_directly() -> None:
    def plays(*spec: tuple[str, str, str | None]) -> tuple[Played, ...]:
        return tuple(
            Played(p, card(c), card(took) if took else card(c), took is not None) for p, c, took in spec
        )

    follow = plays(("A", "3H", None), ("B", "10S", None), ("C", "4H", None))
    assert inv.trick_winner(follow, H) == (2, "follow_suit", False)
    nobody = plays(("A", "5S", None), ("B", "7C", None), ("C", "7S", None), ("D", "2C", None))
    assert inv.trick_winner(nobody, H) == (1, "highest", True)
    inverted = plays(("A", "9C", None), ("B", "2S", "9H"), ("C", "8S", None))
    assert inv.trick_winner(inverted, H) == (0, "inversion", True)
    twice = plays(("A", "5H", None), ("B", "9S", "2H"), ("C", "2S", "9S"))
    assert inv.trick_winner(twice, H) == (2, "inversion", False)
    tie_follow = plays(("A", "6H", None), ("B", "6H", None))
    assert inv.trick_winner(tie_follow, H)[2] is True


# -- the referee without eyes: naming cards, turns, revokes -----------------------------------


def test_a_card_must_exist_in_the_chosen_suits_and_not_be_seen() -> None:
    g = three(LANE_9H)
    problem = refused(g, PlayCard("Ann", card("3X")), "unused_suit")
    assert problem.fields["card"] == card("3X")
    assert refused(g, PlayCard("Ann", card("9H")), "card_seen").fields == {
        "card": card("9H"),
        "where": "follow",
    }
    assert refused(g, PlayCard("Ann", card("5D")), "card_seen").fields == {
        "card": card("5D"),
        "where": "lane",
        "position": 6,
    }
    assert refused(g, PlayCard("Bob", card("3H")), "not_your_turn").fields == {"player": "Ann"}
    g, _ = run(g, PlayCard("Ann", card("3H")))
    assert refused(g, PlayCard("Bob", card("3H")), "card_seen").fields == {
        "card": card("3H"),
        "where": "trick",
        "player": "Ann",
        "trick": 1,
    }
    refused(g, PlayCard("Ann", card("4H")), "not_your_turn")
    refused(g, PlayCard("Zed", card("4H")), "not_your_turn")
    g, _ = run(g, PlayCard("Bob", card("4H")), PlayCard("Cat", card("5H")))
    assert refused(g, PlayCard("Cat", card("3H")), "card_seen").fields == {
        "card": card("3H"),
        "where": "pile",
        "trick": 1,
        "player": "Cat",
    }


def test_where_seen_after_inversions_names_where_the_card_lies_now() -> None:
    g = three(LANE_2H)
    g, _ = run(g, PlayCard("Ann", card("5H")), PlayCard("Bob", card("9S")))
    # 9S went into the lane as the follow card; Bob holds the 2H taken from the lane.
    assert inv.where_seen(g, card("9S")) == {"where": "follow"}
    assert inv.where_seen(g, card("2H")) == {"where": "trick", "player": "Bob", "trick": 1}
    g, _ = run(g, PlayCard("Cat", card("2S")))
    assert [inv.where_seen(g, c) for c in cards("5H 2H 9S 2S")] == [
        {"where": "pile", "trick": 1, "player": "Cat"}
    ] * 4
    g = three(LANE_2H)
    g, _ = run(g, PlayCard("Ann", card("5H")), PlayCard("Bob", card("9S")), PlayCard("Cat", card("2S")))
    assert inv.where_seen(g, card("1D")) == {"where": "follow"}
    assert inv.where_seen(g, card("10D")) == {"where": "lane", "position": 10}
    # Mid-trick, after a second inversion: Bob now holds the 9S, the 2S is the follow card.
    g = three(LANE_2H)
    g, _ = run(g, PlayCard("Ann", card("9S")), PlayCard("Bob", card("2S")))
    assert inv.where_seen(g, card("9S")) == {"where": "trick", "player": "Bob", "trick": 1}
    assert inv.where_seen(g, card("2S")) == {"where": "follow"}
    assert inv.where_seen(g, card("2H")) == {"where": "trick", "player": "Ann", "trick": 1}


def test_playable_lists_unseen_cards_the_current_player_may_name() -> None:
    g = laid(("Ann", "Bob"), (H, S, C), "9H 1C 2C 3C 4C 5C 6C 7C 8C 10C")
    assert inv.playable(g) == ()
    g, _ = run(g, ChooseFirst("Ann"))
    # Nothing proves Ann holds a heart yet: every unseen card may be named.
    assert inv.playable(g) == tuple(sorted(g.unseen))
    assert len(inv.playable(g)) == 20 and card("9H") not in inv.playable(g)


def must_follow_table() -> State:
    """Two players; clubs are all played or in the lane when the 5H comes up in trick 3."""
    g = laid(("Ann", "Bob"), (H, S, C), "1C 2C 5H 3C 4C 5C 6C 7C 8C 9C")
    g, _ = run(g, ChooseFirst("Ann"))
    g, _ = run(g, PlayCard("Ann", card("1S")), PlayCard("Bob", card("2S")))  # Bob wins: 2 beats 1
    g, _ = run(g, PlayCard("Bob", card("3S")), PlayCard("Ann", card("4S")))  # Ann wins
    assert g.follow == card("5H") and g.current_player == "Ann"
    # Unseen: 9 hearts, 6 spades, 10C; Ann holds 8 cards but only 7 are not hearts.
    assert g.hand_size("Ann") == 8 and g.must_follow("Ann") == (8, 7)
    return g


def test_must_follow_refuses_an_off_suit_card_when_counting_proves_a_heart_in_hand() -> None:
    g = must_follow_table()
    problem = refused(g, PlayCard("Ann", card("5S")), "must_follow")
    assert problem.fields == {"player": "Ann", "suit": H, "rank": 6, "hand": 8, "others": 7}
    refused(g, PlayCard("Ann", card("10C")), "must_follow")
    # A heart, or a 6 of any suit (making 11), is allowed.
    assert inv.refusal(g, PlayCard("Ann", card("7H"))) is None
    assert inv.refusal(g, PlayCard("Ann", card("6S"))) is None
    assert set(inv.playable(g)) == {c for c in g.unseen if c.suit is H or c.rank == 6}


def test_a_revoke_proven_by_playing_the_suit_claimed_void() -> None:
    g = laid(("Ann", "Bob"), (H, S, C), "5H 1C 2C 3C 4C 5C 6C 7C 8C 9C")
    g, _ = run(g, ChooseFirst("Ann"), PlayCard("Ann", card("1S")))
    assert g.claims == (Claim("Ann", H, 1, card("1S")),)
    g, events = run(g, PlayCard("Bob", card("7H")))
    assert trick_won(events).winner == "Bob"
    g, _ = run(g, PlayCard("Bob", card("2S")))
    g, events = run(g, PlayCard("Ann", card("3H")))
    revoke = Revoke("Ann", H, 1, card("1S"), 2, "played", card=card("3H"))
    assert revoke in events and g.revokes == (revoke,)
    # The heart claim is closed; playing a heart on a club is a new claim of holding no clubs.
    assert g.claims == (Claim("Bob", C, 2, card("2S")), Claim("Ann", C, 2, card("3H")))
    assert event_to_json(revoke)["evidence"] == "played"


def test_a_revoke_proven_by_counting() -> None:
    g = laid(("Ann", "Bob"), (H, S, C), "5H 1C 2C 3C 4C 5C 6C 7C 8C 9C")
    g, _ = run(g, ChooseFirst("Ann"), PlayCard("Ann", card("1S")), PlayCard("Bob", card("2S")))
    # Both claim no hearts; 9 hearts are unseen in 18 cards: one of them lies, nobody knows who.
    assert g.revokes == () and len(g.claims) == 2
    g, events = run(g, PlayCard("Bob", card("3S")))
    # Ann holds 9 cards, but only 7 spades and the 10C are unseen besides hearts.
    revoke = Revoke("Ann", H, 1, card("1S"), 2, "count", hand=9, others=8)
    assert [e for e in events if isinstance(e, Revoke)] == [revoke]
    assert g.revokes == (revoke,)
    assert g.claims == (Claim("Bob", H, 1, card("2S")), Claim("Bob", C, 2, card("3S")))
    # A heart from Ann now proves nothing new: the claim is already closed.
    g, events = run(g, PlayCard("Ann", card("4H")))
    assert not [e for e in events if isinstance(e, Revoke)]


def revoke_then(options: Options, *, parent: bool) -> State:
    """A proven revoke by Ann, then the table ends the game."""
    if parent:
        g = laid(SEATS[:3], (H, S, C, D), "5H 1C 2C 3C 4C 5C 6C 7C 8C 9C", options)
        g, _ = run(g, ChooseFirst("Ann"), Declare("Ann", 2), Declare("Bob", None), Declare("Cat", None))
        g, _ = run(g, PlayCard("Ann", card("1S")), PlayCard("Bob", card("7H")), PlayCard("Cat", card("4D")))
        g, _ = run(g, PlayCard("Bob", card("2S")), PlayCard("Cat", card("3D")), PlayCard("Ann", card("3H")))
    else:
        g = laid(("Ann", "Bob"), (H, S, C), "5H 1C 2C 3C 4C 5C 6C 7C 8C 9C", options)
        g, _ = run(g, ChooseFirst("Ann"), PlayCard("Ann", card("1S")), PlayCard("Bob", card("7H")))
        g, _ = run(g, PlayCard("Bob", card("2S")), PlayCard("Ann", card("3H")))
    assert len(g.revokes) == 1 and g.revokes[0].player == "Ann"
    g, _ = run(g, End())
    return g


def test_revoke_penalty_trick_moves_one_trick_to_the_other_side() -> None:
    announce = revoke_then(Options(), parent=False)
    assert announce.outcome is not None
    assert announce.outcome.scores == (("Ann", 1), ("Bob", 1))
    trick = revoke_then(Options(Penalty.TRICK), parent=False)
    assert trick.outcome is not None
    assert trick.outcome.scores == (("Ann", 0), ("Bob", 2))
    # Three players, the parent revoked: one trick less for the parent.
    announce = revoke_then(Options(), parent=True)
    assert announce.outcome is not None and announce.outcome.parent == "Ann"
    assert announce.outcome.scores == (("Ann", 0), ("Bob", 1), ("Cat", 1))
    # ...but Ann has no trick to hand over: nobody's count goes below 0.
    trick = revoke_then(Options(Penalty.TRICK), parent=True)
    assert trick.outcome is not None
    assert trick.outcome.scores == (("Ann", 0), ("Bob", 1), ("Cat", 1))


def test_a_revoke_hands_a_trick_over_only_while_the_offender_has_one() -> None:
    base = three(LANE_9H)
    proof = Revoke("Bob", H, 1, card("1S"), 2, "played", card=card("3H"))
    g = replace(base, piles=(("Ann", ()), ("Bob", ()), ("Cat", ())), revokes=(proof, proof))
    assert inv.scores(g) == (("Ann", 1), ("Bob", 1), ("Cat", 1))
    g = replace(g, options=Options(Penalty.TRICK))
    # A child's revoke hands a trick to the parent; Bob's second has nothing left to give.
    assert inv.scores(g) == (("Ann", 2), ("Bob", 0), ("Cat", 1))
    # The parent's goes to the child after them.
    g = replace(g, revokes=(replace(proof, player="Ann"),))
    assert inv.scores(g) == (("Ann", 0), ("Bob", 2), ("Cat", 1))


def test_the_audit_names_missing_and_doubled_cards() -> None:
    g = three(LANE_9H)
    everything = sorted(deck(g.suits))
    whole = replace(g, piles=(("Ann", tuple(everything)),))
    assert inv.audit(whole) == CardsAccounted(40)
    broken = replace(g, piles=(("Ann", tuple(everything[1:])), ("Bob", (everything[5], card("1X")))))
    assert inv.audit(broken) == CardsAccounted(
        40, (everything[0],), tuple(sorted((everything[5], card("1X"))))
    )


def test_ending_or_leaving_early_ends_without_winners() -> None:
    g = three(LANE_9H)
    refused(g, Leave("Zed"), "not_playing")
    over, events = run(g, Leave("Bob"))
    assert over.outcome is not None and over.outcome.reason == "player_left" and over.outcome.left == "Bob"
    assert over.outcome.winners == () and isinstance(events[-1], GameOver)
    refused(over, End(), "game_over")
    refused(over, Leave("Ann"), "game_over")
    refused(over, PlayCard("Ann", card("1H")), "game_over")
    over, _ = run(g, End())
    assert over.outcome is not None and over.outcome.reason == "requested" and over.outcome.bid == 1


# -- scripted full games: results ----------------------------------------------------------

CLUB_LANE = "1C 2C 3C 4C 5C 6C 7C 8C 9C 10C"


def play_tricks(g: State, winners: list[str]) -> tuple[State, list[Event]]:
    """Play the ten tricks so that each named player wins theirs.

    All ten clubs are in the lane, so nobody holds one: every card is off suit (an honest
    claim of holding no clubs), and with no card making 11 the highest card wins. The unseen
    cards, sorted, are cut into ten groups 10 places apart, so each group's last card is
    strictly the highest; the groups are matched to tricks avoiding cards that make 11."""
    n = len(g.players)
    ranked = sorted(g.unseen, key=lambda c: c.rank)
    groups = [[ranked[k + 10 * j] for j in range(n)] for k in range(10)]
    follows = g.lane[g.trick - 1 :]

    def order(left: list[list[Card]]) -> list[list[Card]] | None:
        if not left:
            return []
        follow = follows[10 - len(left)]
        for i, group in enumerate(left):
            if all(c.rank + follow.rank != 11 for c in group):
                rest = order(left[:i] + left[i + 1 :])
                if rest is not None:
                    return [group, *rest]
        return None

    tricks = order(groups)
    assert tricks is not None and len(winners) == 10
    events: list[Event] = []
    for want, group in zip(winners, tricks, strict=True):
        assert g.current_player is not None
        low = iter(group[:-1])
        seat = g.players.index(g.current_player)
        for p in (g.players[(seat + i) % n] for i in range(n)):
            g, new = inv.play(g, PlayCard(p, group[-1] if p == want else next(low)))
            events.extend(new)
        assert trick_won(new).winner == want and trick_won(new).reason == "highest"
    assert not [e for e in events if isinstance(e, Revoke | Inversion)]
    return g, events


def finished(g: State, events: list[Event]) -> InversionOutcome:
    assert g.is_over and isinstance(g.outcome, InversionOutcome)
    assert events[-2] == CardsAccounted(len(deck(g.suits)))
    assert events[-1] == GameOver(g.outcome)
    assert sum(n for _, n in g.tally()) == 10
    return g.outcome


def test_two_players_equal_tricks_is_a_draw() -> None:
    g = laid(("Ann", "Bob"), (H, S, C), CLUB_LANE)
    g, _ = run(g, ChooseFirst("Ann"))
    g, events = play_tricks(g, ["Ann", "Bob"] * 5)
    outcome = finished(g, events)
    assert outcome == InversionOutcome("draw", scores=(("Ann", 5), ("Bob", 5)))


def test_two_players_most_tricks_wins() -> None:
    g = laid(("Ann", "Bob"), (H, S, C), CLUB_LANE)
    g, _ = run(g, ChooseFirst("Bob"))
    g, events = play_tricks(g, ["Bob", "Ann"] * 4 + ["Bob", "Bob"])
    outcome = finished(g, events)
    assert outcome == InversionOutcome("tricks", winners=("Bob",), scores=(("Ann", 4), ("Bob", 6)))


@pytest.mark.parametrize(("won", "made"), [(4, True), (5, True), (3, False)])
def test_parent_wins_with_at_least_the_bid_otherwise_all_children_win(won: int, made: bool) -> None:
    g = laid(SEATS[:3], (H, S, D, C), CLUB_LANE)
    g, _ = run(g, ChooseFirst("Bob"), Declare("Bob", 4), Declare("Cat", None), Declare("Ann", None))
    rest = 10 - won
    winners = ["Bob"] * won + ["Ann", "Cat"] * (rest // 2) + ["Cat"] * (rest % 2)
    g, events = play_tricks(g, winners)
    outcome = finished(g, events)
    assert (outcome.parent, outcome.bid, outcome.reason) == ("Bob", 4, "tricks")
    assert dict(outcome.scores)["Bob"] == won
    if made:
        assert outcome.winners == ("Bob",) and outcome.winner == "Bob"
    else:
        assert outcome.winners == ("Ann", "Cat") and outcome.winner is None


def test_four_players_children_win_together() -> None:
    g = laid(SEATS, (H, S, D, X, C), CLUB_LANE)
    g, _ = run(g, ChooseFirst("Dan"), Declare("Dan", 3), Declare("Ann", None))
    g, _ = run(g, Declare("Bob", None), Declare("Cat", None))
    g, events = play_tricks(g, ["Dan", "Dan", "Ann", "Bob", "Cat"] * 2)
    outcome = finished(g, events)
    assert outcome.winners == ("Dan",) and dict(outcome.scores) == {"Ann": 2, "Bob": 2, "Cat": 2, "Dan": 4}


# -- properties over random full games -------------------------------------------------------


@dataclass
class Table:
    """The physical table as the tests see it: real hands the engine never sees."""

    state: State
    hands: dict[str, list[Card]]
    rng: random.Random
    cheat: float
    moves: list[Move] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    cheats: list[tuple[str, Suit, Card]] = field(default_factory=list)  # off-suit while holding it
    refusals: Counter[str] = field(default_factory=Counter)

    def act(self, move: Move) -> list[Event]:
        assert inv.refusal(self.state, move) is None
        new, events = inv.play(self.state, move)
        assert new.turn == self.state.turn + 1 == len(self.moves) + 2
        self.state = new
        self.moves.append(move)
        self.events.extend(events)
        return events

    def refuse(self, move: Move, reason: str) -> Refusal:
        problem = refused(self.state, move, reason)
        self.refusals[reason] += 1
        return problem


def winner_by_the_rules(
    considered: list[tuple[str, Card]], follow_suit: Suit, inverted: bool
) -> tuple[str, str]:
    """The reference card, read from the rule text independently of the engine."""
    if inverted:
        pool, reason = considered, "inversion"
    elif any(c.suit == follow_suit for _, c in considered):
        pool, reason = [(p, c) for p, c in considered if c.suit == follow_suit], "follow_suit"
    else:
        pool, reason = considered, "highest"
    best = max(c.rank for _, c in pool)
    return next(p for p, c in pool if c.rank == best), reason


def setup(t: Table, suits: tuple[Suit, ...], lane: list[Card]) -> None:
    g = t.state
    t.act(ChooseSuits(suits))
    cuts = sorted(t.rng.sample(range(1, 10), t.rng.randint(0, 3)))
    for a, b in zip([0, *cuts], [*cuts, 10], strict=True):
        t.act(LayLane(tuple(lane[a:b])))
    before = t.state
    assert before.lane == tuple(lane) and before.phase is Phase.FIRST
    first = t.rng.choice(g.players)
    t.act(ChooseFirst(first))
    if not g.bidding:
        assert t.state.current_player == first and t.state.follow == lane[0]
        return
    # The auction, with a model of who is still in.
    n = len(g.players)
    seat, passed, high, high_bidder = g.players.index(first), set[str](), 0, ""
    bids: list[tuple[str, int | None]] = []
    while True:
        player = g.players[seat]
        assert t.state.current_player == player and t.state.bids == tuple(bids)
        t.refuse(Declare(g.players[(seat + 1) % n], high + 1 if high < 10 else None), "not_your_turn")
        t.refuse(Declare(player, 11), "bid_too_high")
        if high:
            t.refuse(Declare(player, t.rng.randint(0, high)), "bid_too_low")
        else:
            t.refuse(Declare(player, 0), "first_bid_zero")
        must = not high and len(passed) == n - 1
        if must:
            t.refuse(Declare(player, None), "must_declare")
        if not must and t.rng.random() < 0.5:
            amount: int | None = None
            passed.add(player)
        else:
            amount = min(10, high + 1 + int(t.rng.expovariate(1.0)))
            high, high_bidder = amount, player
        events = t.act(Declare(player, amount))
        bids.append((player, amount))
        assert events[0] == BidMade(player, amount)
        if high == 10 or (high and len(passed) == n - 1):
            children = tuple(p for p in g.players if p != high_bidder)
            assert events[1] == AuctionWon(high_bidder, high, children)
            assert t.state.phase is Phase.PLAYING and t.state.current_player == high_bidder
            assert (t.state.parent, t.state.bid) == (high_bidder, high)
            return
        assert len(events) == 1
        seat = next(s for s in ((seat + i) % n for i in range(1, n)) if g.players[s] not in passed)


@functools.cache
def full_deck(suits: tuple[Suit, ...]) -> Counter[Card]:
    return Counter(deck(suits))


def check_table(t: Table, trick: list[Card]) -> None:
    """Cards are conserved: each lies in exactly one place, and the engine's unseen are the hands."""
    g = t.state
    assert g.follow is not None
    places = [*trick, g.follow, *g.lane_ahead, *(c for _, pile in g.piles for c in pile)]
    in_hands = [c for hand in t.hands.values() for c in hand]
    assert len(places) == len(set(places))
    assert Counter(places + in_hands) == full_deck(g.suits)
    assert g.unseen == frozenset(in_hands)
    for p in g.players:
        assert g.hand_size(p) == len(t.hands[p])


def choose(t: Table, player: str, follow: Card) -> Card:
    """A card from the player's real hand: an honest one, or sometimes a revoke."""
    hand = t.hands[player]
    holds = any(c.suit == follow.suit for c in hand)
    legal = [c for c in hand if not holds or c.suit == follow.suit or c.rank + follow.rank == 11]
    revokes = [c for c in hand if c not in legal]
    if revokes and t.rng.random() < t.cheat:
        wrong = t.rng.choice(revokes)
        problem = inv.refusal(t.state, PlayCard(player, wrong))
        if problem is None:
            t.cheats.append((player, follow.suit, wrong))
            return wrong
        # Refused by counting: it must be true that the player holds the follow suit.
        assert problem.reason == "must_follow" and holds
        others = sum(1 for h in t.hands.values() for c in h if c.suit != follow.suit)
        assert problem.fields["hand"] == len(hand) and problem.fields["others"] == others < len(hand)
        t.refuse(PlayCard(player, wrong), "must_follow")
    choice = t.rng.choice(legal)
    # Honest play is never refused.
    assert inv.refusal(t.state, PlayCard(player, choice)) is None
    return choice


def play_out(t: Table) -> None:
    g = t.state
    open_claims: dict[tuple[str, Suit], tuple[int, Card, bool]] = {}  # -> trick, card, was a revoke
    for trick_no in range(1, 11):
        follow = g.lane[trick_no - 1]
        assert t.state.trick == trick_no and t.state.follow == follow and not t.state.plays
        considered: list[tuple[str, Card]] = []
        inverted = False
        leader = t.state.current_player
        assert leader is not None
        for i in range(len(g.players)):
            state = t.state
            player = g.players[(g.players.index(leader) + i) % len(g.players)]
            assert state.current_player == player and state.follow == follow
            check_table(t, [c for _, c in considered])
            # Only the current player may play; seen cards cannot be named.
            other = t.rng.choice([p for p in g.players if p != player])
            t.refuse(PlayCard(other, t.rng.choice(sorted(state.unseen))), "not_your_turn")
            t.refuse(PlayCard(player, t.rng.choice(sorted(state.seen))), "card_seen")
            assert state.allowed() == (follow.suit, 11 - follow.rank)

            played = choose(t, player, follow)
            held_suit = any(c.suit == follow.suit for c in t.hands[player])
            t.hands[player].remove(played)
            events = t.act(PlayCard(player, played))
            makes = played.rank + follow.rank == 11
            assert events[0] == CardPlayed(player, played, trick_no, follow, played.suit == follow.suit)
            rest = events[1:]
            if makes:
                assert rest[0] == Inversion(player, played, follow, trick_no)
                rest = rest[1:]
                considered.append((player, follow))
                follow, inverted = played, True
            else:
                considered.append((player, played))
            # Revokes: each closes a claim that was really a revoke, and is true now.
            while rest and isinstance(revoke := rest[0], Revoke):
                rest = rest[1:]
                claim = open_claims.pop((revoke.player, revoke.suit))
                assert claim == (revoke.claimed_trick, revoke.claimed_card, True)
                assert revoke.trick == trick_no
                if revoke.evidence == "played":
                    assert (revoke.player, revoke.card) == (player, played) and played.suit == revoke.suit
                else:
                    assert revoke.evidence == "count"
                    others = sum(1 for h in t.hands.values() for c in h if c.suit != revoke.suit)
                    assert (
                        revoke.hand == len(t.hands[revoke.player]) and revoke.others == others < revoke.hand
                    )
                    assert any(c.suit == revoke.suit for c in t.hands[revoke.player])
            # Off suit without making 11: a claim of holding none (one open claim per suit).
            if not makes and played.suit != follow.suit and (player, follow.suit) not in open_claims:
                open_claims[(player, follow.suit)] = (trick_no, played, held_suit)
            if i < len(g.players) - 1:
                assert not rest
                _, counted = considered[-1]
                assert t.state.plays[-1] == Played(player, played, counted, makes)
        # The trick, judged by the rule text.
        winner, reason = winner_by_the_rules(considered, g.lane[trick_no - 1].suit, inverted)
        won = rest[0]
        assert isinstance(won, TrickWon)
        assert (won.trick, won.winner, won.reason) == (trick_no, winner, reason)
        assert won.card == dict(considered)[winner]
        assert won.pile == (*(c for _, c in considered), follow)
        best = won.card.rank
        assert won.tie == (
            sum(
                1
                for p, c in considered
                if c.rank == best and (inverted or reason == "highest" or c.suit == g.lane[trick_no - 1].suit)
            )
            > 1
        )
        assert t.state.tally() == won.tally
        if trick_no < 10:
            assert rest[1:] == [TrickStarted(trick_no + 1, g.lane[trick_no], winner)]
            assert t.state.current_player == winner
        else:
            assert isinstance(rest[1], CardsAccounted) and isinstance(rest[2], GameOver)
    # Every real revoke was caught by the end (the cards of the suit had to come out).
    assert not [c for c in open_claims.values() if c[2]]
    assert {(r.player, r.suit) for r in t.state.revokes} == {(p, s) for p, s, _ in t.cheats}
    assert {(r.player, r.claimed_card) for r in t.state.revokes} <= {(p, c) for p, _, c in t.cheats}


def expected_outcome(g: State, penalty: Penalty) -> tuple[tuple[str, int], ...]:
    score = {p: g.tricks(p) for p in g.players}
    if penalty is Penalty.TRICK:
        for r in g.revokes:
            if score[r.player] == 0:
                continue  # no trick to hand over
            if g.parent is None:
                taker = next(p for p in g.players if p != r.player)
            elif r.player == g.parent:
                taker = g.players[(g.players.index(r.player) + 1) % len(g.players)]
            else:
                taker = g.parent
            score[r.player] -= 1
            score[taker] += 1
    assert all(n >= 0 for n in score.values())
    return tuple(score.items())


@dataclass(frozen=True)
class Deal:
    players: tuple[str, ...]
    suits: tuple[Suit, ...]
    seed: int
    cheat: float  # how often a player holding the follow suit tries to play off suit
    penalty: Penalty


@st.composite
def deals(draw: st.DrawFn) -> Deal:
    n = draw(st.integers(2, 4))
    suits = tuple(draw(st.permutations(list(Suit)))[: n + 1])
    seed = draw(st.integers(0, 2**32 - 1))
    cheat = draw(st.sampled_from([0.0, 0.0, 0.2, 0.6]))
    return Deal(SEATS[:n], suits, seed, cheat, draw(st.sampled_from(list(Penalty))))


def shuffle_and_set_up(deal: Deal) -> Table:
    """Shuffle the deck with the seed, deal 10 each, the rest is the lane; then the auction."""
    rng = random.Random(deal.seed)
    shuffled = sorted(deck(deal.suits))
    rng.shuffle(shuffled)
    n = len(deal.players)
    hands = {p: shuffled[10 * i : 10 * i + 10] for i, p in enumerate(deal.players)}
    t = Table(inv.new_game(deal.players, Options(deal.penalty)), hands, rng, deal.cheat)
    setup(t, deal.suits, shuffled[10 * n :])
    return t


@settings(max_examples=120, deadline=None)
@given(deals())
def test_random_games_follow_the_rules_to_the_end(deal: Deal) -> None:
    t = shuffle_and_set_up(deal)
    play_out(t)
    g = t.state
    assert g.is_over and g.outcome is not None and g.trick == 10
    assert sum(n for _, n in g.tally()) == 10 and len(g.piles) == 10
    pile_cards = [c for _, pile in g.piles for c in pile]
    assert Counter(pile_cards) == Counter(deck(g.suits))
    assert CardsAccounted(len(deck(g.suits))) in t.events
    if t.cheat == 0:
        assert not t.cheats and g.revokes == () and t.refusals["must_follow"] == 0
        assert not [e for e in t.events if isinstance(e, Revoke)]
    # The result, by the rule text.
    score = expected_outcome(g, g.options.revoke_penalty)
    assert g.outcome.scores == score
    if g.parent is None:
        best = max(n for _, n in score)
        top = tuple(p for p, n in score if n == best)
        assert g.outcome.winners == (top if len(top) == 1 else ())
        assert g.outcome.reason == ("tricks" if len(top) == 1 else "draw")
    else:
        assert g.bid is not None
        made = dict(score)[g.parent] >= g.bid
        assert g.outcome.winners == ((g.parent,) if made else tuple(p for p in g.players if p != g.parent))
        assert g.outcome.reason == "tricks"
    assert g.outcome.winner == (g.outcome.winners[0] if len(g.outcome.winners) == 1 else None)
    # Nothing more can happen.
    refused(g, PlayCard(g.players[0], card(f"1{g.suits[0].letter}")), "game_over")


@settings(max_examples=40, deadline=None)
@given(deals())
def test_replaying_the_moves_rebuilds_an_equal_state(deal: Deal) -> None:
    t = shuffle_and_set_up(deal)
    play_out(t)
    g = inv.new_game(t.state.players, t.state.options)
    events: list[Event] = []
    for move in t.moves:
        g, new = inv.play(g, move)
        events.extend(new)
    assert g == t.state and events == t.events
    assert g.turn == len(t.moves) + 1
    # The same moves under the other penalty: same play, scores moved one trick per revoke.
    other = Penalty.TRICK if t.state.options.revoke_penalty is Penalty.ANNOUNCE else Penalty.ANNOUNCE
    h, _ = run(inv.new_game(t.state.players, Options(other)), *t.moves)
    assert h.piles == g.piles and h.revokes == g.revokes
    assert h.outcome is not None and h.outcome.scores == expected_outcome(h, other)
    # Every event turns into JSON.
    for event in t.events:
        json.dumps(event_to_json(event))


def test_a_face_card_is_answered_with_the_cards_there_are() -> None:
    # "Numbers ... go from 1 to 10": "queen of hearts" names no card of this game, so the
    # host says there are no queens, not "which heart?".
    from games.base import Unclear
    from games.inversion import SPEC

    g = inv.new_game(("Ann", "Bob"))
    lane = LayLane(cards("9H 1C 2C 3C 4C 5C 6C 7C 8C 10C"))
    for move in (ChooseSuits((H, S, C)), lane, ChooseFirst("Ann")):
        g, _ = inv.play(g, move)
    said = SPEC.talk.read("queen of hearts", g, g.players, "Ann", None, "en")
    assert isinstance(said, Unclear) and said.event["type"] == "not_a_card"
    assert said.text == "There are no queens in !nversion: cards go from 1 to 10." and said.then_prompt
    assert SPEC.talk.prompt(g, "en").startswith("Ann:")
    king = SPEC.talk.read("하트 킹", g, g.players, "Ann", None, "ko")
    assert isinstance(king, Unclear) and "킹" in king.text
    # An ace is a 1, as players who grew up with aces say.
    ace = SPEC.talk.read("ace of hearts", g, g.players, "Ann", None, "en")
    assert not isinstance(ace, Unclear)

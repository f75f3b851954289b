"""Blófa Cards rules: each end, the pass piles, clashes, the seating bonuses, elimination."""

from __future__ import annotations

from dataclasses import replace

import pytest

from games.base import find_game
from games.blofa.rules import (
    CARDS,
    BlofaOutcome,
    Challenge,
    Claim,
    Colour,
    Hand,
    Keep,
    Move,
    Options,
    Pass,
    Phase,
    PlayCards,
    Reveal,
    State,
    across,
    card_count,
    decode,
    encode,
    new_game,
    play,
    refusal,
    right_of,
    to_act,
)
from games.core import End, GameOver, IllegalMove, Leave, event_to_json

P = ("Ann", "Bob", "Cy", "Dana")
B, Y = Colour.BLUE, Colour.YELLOW


def run(state: State, *moves: Move | Leave | End) -> State:
    """Play ``moves``; cards stay conserved (states built by hand may not start so)."""
    whole = card_count(state)
    for move in moves:
        state, _ = play(state, move)
        assert card_count(state) == whole
    return state


def types(state: State, move: Move) -> list[str]:
    return [e.type for e in play(state, move)[1]]


@pytest.fixture
def g() -> State:
    return new_game(P, Options())


def test_the_deal(g: State) -> None:
    assert g.hands == (Hand(2, 2),) * 4 and g.piles == Hand(1, 1)
    assert to_act(g) == {"Ann"} and card_count(g) == CARDS


def test_the_youngest_deals_when_named() -> None:
    g = new_game(P, Options(dealer="Cy"))
    assert to_act(g) == {"Cy"}
    with pytest.raises(ValueError, match="dealer"):
        new_game(P, Options(dealer="Zed"))


def test_a_rematch_is_dealt_by_the_last_trick_winner(g: State) -> None:
    last = replace(g, dealer=2)
    assert to_act(new_game(P, Options(), 0, last)) == {"Cy"}


@pytest.mark.parametrize("players", [P[:3], (*P, "Eve"), ("Ann", "Ann", "Bob", "Cy")])
def test_only_four_different_players(players: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        new_game(players, Options())


def test_the_dealer_opens_with_one_or_two(g: State) -> None:
    assert refusal(g, PlayCards("Ann", (B,), 3)) is not None
    assert refusal(g, Pass("Ann", B)).reason == "must_open"  # type: ignore[union-attr]
    assert refusal(g, Challenge("Ann")).reason == "must_open"  # type: ignore[union-attr]
    assert refusal(g, PlayCards("Bob", (B,), 1)).reason == "not_your_turn"  # type: ignore[union-attr]
    assert refusal(g, PlayCards("Ann", (B,), 1)) is None
    assert refusal(g, PlayCards("Ann", (B, Y), 2)) is None


def test_declarations_go_up_by_one_or_two(g: State) -> None:
    g = run(g, PlayCards("Ann", (B,), 2))
    assert g.allowed_sums == (3, 4)
    wrong = refusal(g, PlayCards("Bob", (Y,), 5))
    assert wrong is not None and wrong.reason == "declaration" and wrong.fields["high"] == 4
    assert refusal(g, PlayCards("Bob", (Y,), 2)) is not None
    assert refusal(g, PlayCards("Bob", (Y,), 4)) is None


def test_a_hand_cannot_play_colours_it_does_not_hold(g: State) -> None:
    g = run(g, PlayCards("Ann", (B, B), 2), Pass("Bob", Y), Pass("Cy", B), PlayCards("Dana", (Y,), 3))
    assert g.hands[0] == Hand(0, 2)
    wrong = refusal(g, PlayCards("Ann", (B,), 4))
    assert wrong is not None and wrong.reason == "not_in_hand"
    assert refusal(g, PlayCards("Ann", (Y, Y, Y), 4)).reason == "card_count"  # type: ignore[union-attr]
    assert refusal(g, PlayCards("Ann", (Y, Y), 4)) is None


def test_passers_alternate_piles_and_an_empty_pile_forbids_passing(g: State) -> None:
    g = run(g, PlayCards("Ann", (B,), 1))
    assert g.required_pile is None and g.can_pass()
    g = run(g, Pass("Bob", Y))
    assert g.required_pile is B
    assert refusal(g, Pass("Cy", Y)).reason == "wrong_pile"  # type: ignore[union-attr]
    g = run(g, Pass("Cy", B))
    assert g.piles == Hand(0, 0) and g.required_pile is Y
    wrong = refusal(g, Pass("Dana", Y))
    assert wrong is not None and wrong.reason == "no_pass" and not g.can_pass()
    assert g.hands[1] == Hand(2, 3) and g.hands[2] == Hand(3, 2)


def test_alternation_survives_a_play_in_between(g: State) -> None:
    g = run(g, PlayCards("Ann", (B,), 1), Pass("Bob", B), PlayCards("Cy", (Y,), 2))
    assert g.passes == 0 and g.required_pile is Y  # the last passer drew blue
    assert refusal(g, Pass("Dana", B)).reason == "wrong_pile"  # type: ignore[union-attr]


def test_the_first_passer_is_steered_off_an_empty_pile(g: State) -> None:
    g = replace(g, piles=Hand(0, 1))
    g = run(g, PlayCards("Ann", (B,), 1))
    assert refusal(g, Pass("Bob", B)).reason == "pile_empty"  # type: ignore[union-attr]
    assert refusal(g, Pass("Bob", Y)) is None


def test_three_passes_win_the_trick_for_the_declarer(g: State) -> None:
    g = run(g, PlayCards("Ann", (B,), 1), Pass("Bob", Y), Pass("Cy", B))
    g = replace(g, piles=Hand(0, 1))  # someone put a card back: the yellow pile has one
    g, events = play(g, Pass("Dana", Y))
    assert [e.type for e in events] == ["passed", "trick_won"]
    assert g.vp == (1, 0, 0, 0) and g.phase is Phase.KEEP and to_act(g) == {"Ann"}


def test_a_failed_challenge(g: State) -> None:
    g = run(g, PlayCards("Ann", (B, Y), 1), Challenge("Bob"))
    assert g.phase is Phase.REVEAL and to_act(g) == frozenset()
    assert refusal(g, Reveal((2,))).reason == "reveal_count"  # type: ignore[union-attr]
    assert refusal(g, Reveal((2, 7))).reason == "no_such_card"  # type: ignore[union-attr]
    g, events = play(g, Reveal((1, 0)))  # any order: paired with the colours
    clash = next(e for e in events if e.type == "clash")
    assert event_to_json(clash)["winner"] == "Ann" and not event_to_json(clash)["lied"]
    assert g.vp == (1, -1, 0, 0) and to_act(g) == {"Ann"}
    assert g.plays[-1].values == (0, 1) and "flagged" not in [e.type for e in events]


def test_a_correct_challenge(g: State) -> None:
    g = run(g, PlayCards("Ann", (B,), 2), Pass("Bob", Y), Challenge("Cy"), Reveal((4,)))
    assert g.vp == (-1, 0, 1, 0) and to_act(g) == {"Cy"}


def test_only_the_player_whose_turn_it_is_may_challenge(g: State) -> None:
    g = run(g, PlayCards("Ann", (B,), 2))
    assert refusal(g, Challenge("Dana")).reason == "not_your_turn"  # type: ignore[union-attr]


def test_the_opening_may_be_kept_safe_from_challenges() -> None:
    g = run(new_game(P, Options(challenge_opening=False)), PlayCards("Ann", (B,), 2))
    assert refusal(g, Challenge("Bob")).reason == "opening_safe"  # type: ignore[union-attr]
    g = run(g, PlayCards("Bob", (Y,), 3))
    assert refusal(g, Challenge("Cy")) is None


def test_a_reading_that_cannot_be_the_cards_is_asked_again(g: State) -> None:
    # "The blue cards are the even cards (4, 2, and 0.) The yellow cards are the odd cards
    # (5, 3, and 1.)": values that do not fit the flipped backs are a misreading, so the
    # host asks again and rules nothing.
    g = run(g, PlayCards("Ann", (B, B), 2), Challenge("Bob"))
    wrong = refusal(g, Reveal((2, 5)))
    assert wrong is not None and wrong.reason == "reveal_colours"
    assert wrong.fields == {"colours": ("blue", "blue"), "values": (2, 5)}
    with pytest.raises(IllegalMove):
        play(g, Reveal((2, 5)))
    assert refusal(g, Reveal((2, 0))) is None


def test_no_value_on_more_cards_than_exist(g: State) -> None:
    # "5 -> 1 card": two flipped 5s cannot be.
    g = run(g, PlayCards("Ann", (Y, Y), 2), Challenge("Bob"))
    wrong = refusal(g, Reveal((5, 5)))
    assert wrong is not None and (wrong.reason, wrong.fields) == ("reveal_too_many", {"value": 5, "limit": 1})
    assert refusal(g, Reveal((5, 3))) is None


def test_captured_rule_cards_count_against_revealed_zeros(g: State) -> None:
    g = replace(g, captures=(0, 1))
    g = run(g, PlayCards("Ann", (B, B), 2), Challenge("Bob"))
    wrong = refusal(g, Reveal((0, 0)))
    assert wrong is not None and (wrong.reason, wrong.fields) == ("reveal_too_many", {"value": 0, "limit": 1})
    assert refusal(g, Reveal((0, 2))) is None


def test_the_winner_keeps_one_of_the_last_three_cards(g: State) -> None:
    g = run(g, PlayCards("Ann", (B, B), 2), PlayCards("Bob", (B,), 3), PlayCards("Cy", (Y, Y), 4))
    g = run(g, Challenge("Dana"), Reveal((1, 3)))
    assert [str(c) for c, _ in g.choices()] == ["blue", "yellow", "yellow"]
    assert [v for _, v in g.choices()] == [None, 1, 3]
    g = run(g, Keep("Cy", B))
    # Ann's cards are not among the last three; every card not kept goes back to its pile.
    assert g.hands[2] == Hand(3, 0) and g.piles == Hand(3, 3) and g.dealer == 2


def test_a_flipped_zero_must_be_captured(g: State) -> None:
    g = run(g, PlayCards("Ann", (B,), 2), Challenge("Bob"), Reveal((0,)))
    assert refusal(g, Keep("Bob", B)).reason == "must_capture"  # type: ignore[union-attr]
    assert refusal(g, Keep("Bob", Y)).reason == "keep_colour"  # type: ignore[union-attr]
    g, events = play(g, Keep("Bob", B, rule=True))
    assert [e.type for e in events] == ["captured", "trick_started"] and g.captures == (1,)


def test_a_rule_card_cannot_be_among_yellow_or_flipped_nonzero_cards(g: State) -> None:
    g = run(g, PlayCards("Ann", (B,), 2), Challenge("Bob"), Reveal((2,)))
    assert refusal(g, Keep("Ann", B, rule=True)).reason == "no_rule_card"  # type: ignore[union-attr]


def _capture(g: State, dealer: str, challenger: str) -> State:
    return run(
        g, PlayCards(dealer, (B,), 2), Challenge(challenger), Reveal((0,)), Keep(challenger, B, rule=True)
    )


def test_the_game_ends_when_all_rule_cards_are_captured(g: State) -> None:
    g = _capture(g, "Ann", "Bob")
    g = _capture(g, "Bob", "Cy")
    g = run(g, PlayCards("Cy", (B,), 2), Challenge("Dana"), Reveal((0,)))
    g, events = play(g, Keep("Dana", B, rule=True))
    assert [e.type for e in events] == ["captured", "rule_card_check", "game_over"]
    assert g.is_over and g.outcome is not None and g.outcome.reason == "all_captured"
    # Bob: +6 capture, Cy's capture puts him across (+4)... check every line.
    lines = [(s.capturer, s.across, s.right) for s in g.outcome.lines]
    assert lines == [("Bob", "Dana", "Ann"), ("Cy", "Ann", "Bob"), ("Dana", "Bob", "Cy")]
    # Clash points: Ann -1, Bob +1-1, Cy +1-1, Dana +1; bonuses on top.
    assert dict(g.outcome.vp) == {"Ann": -1 + 2 + 4, "Bob": 6 + 2 + 4, "Cy": 6 + 2, "Dana": 1 + 6 + 4}
    assert g.outcome.winner == "Bob"


def test_the_seats_across_and_on_the_right() -> None:
    # Clockwise play passes to the left: the right-hand neighbour is the previous seat.
    assert [across(s) for s in range(4)] == [2, 3, 0, 1]
    assert [right_of(s) for s in range(4)] == [3, 0, 1, 2]


def test_the_game_ends_after_dry_tricks(g: State) -> None:
    g = new_game(P, Options(dry_tricks=2))
    g = run(g, PlayCards("Ann", (B,), 2), Challenge("Bob"), Reveal((2,)), Keep("Ann", B))
    assert g.phase is Phase.PLAY and g.dry == 1
    g = run(g, PlayCards("Ann", (B,), 2), Challenge("Bob"), Reveal((2,)))
    g, events = play(g, Keep("Ann", B))
    assert [e.type for e in events][-1] == "rule_card_check" and g.phase is Phase.CHECK
    assert to_act(g) == set(P)


def test_a_capture_resets_the_dry_count(g: State) -> None:
    g = run(g, PlayCards("Ann", (B,), 2), Challenge("Bob"), Reveal((2,)), Keep("Ann", B))
    assert g.dry == 1
    g = _capture(g, "Ann", "Bob")
    assert g.dry == 0


def test_a_dealer_left_empty_ends_the_game() -> None:
    g = new_game(P, Options())
    g = replace(g, hands=(Hand(1, 0), Hand(2, 2), Hand(3, 3), Hand(2, 3)), piles=Hand(0, 0))
    # Ann plays her last card; three passes give her the trick; she captures the card.
    g = replace(g, piles=Hand(2, 1))
    g = run(g, PlayCards("Ann", (B,), 2), Pass("Bob", B), Pass("Cy", Y), Pass("Dana", B))
    assert g.phase is Phase.KEEP and to_act(g) == {"Ann"}
    g, events = play(g, Keep("Ann", B, rule=True))
    assert g.phase is Phase.CHECK and g.end_reason == "dealer_empty"
    assert events[-1].type == "rule_card_check"


def _at_check(captures: tuple[int, ...], hands: tuple[Hand, ...], piles: Hand, vp: tuple[int, ...]) -> State:
    g = new_game(P, Options())
    return replace(g, phase=Phase.CHECK, captures=captures, hands=hands, piles=piles, vp=vp, end_reason="dry")


def test_rule_card_holders_are_eliminated() -> None:
    g = _at_check((0,), (Hand(2, 2), Hand(1, 2), Hand(2, 3), Hand(2, 2)), Hand(0, 1), (3, 0, 0, 0))
    g = run(g, Claim("Ann", True), Claim("Bob", False), Claim("Cy", True), Claim("Dana", False))
    assert g.outcome is not None
    assert g.outcome.eliminated == ("Ann", "Cy")
    # Ann captured: +6 (9), Cy across +4, Dana on her right +2; Ann and Cy are out.
    assert dict(g.outcome.vp) == {"Ann": 9, "Bob": 0, "Cy": 4, "Dana": 2}
    assert g.outcome.winner == "Dana"
    assert g.outcome.to_json()["eliminated"] == ["Ann", "Cy"]


def test_a_tie_has_no_winner() -> None:
    g = _at_check((), (Hand(2, 2),) * 4, Hand(1, 1), (1, 1, 0, 0))
    g = run(g, *(Claim(p, False) for p in P))
    assert g.outcome is not None and g.outcome.winner is None and g.outcome.winners == ()
    data = g.outcome.to_json()
    assert data["winner"] is None and data["vp"] == {"Ann": 1, "Bob": 1, "Cy": 0, "Dana": 0}


def test_claims_are_checked_against_the_rule_cards_left() -> None:
    g = _at_check((0, 1), (Hand(2, 2), Hand(0, 2), Hand(2, 3), Hand(2, 2)), Hand(0, 1), (0,) * 4)
    assert refusal(g, Claim("Bob", True)).reason == "holds_no_blue"  # type: ignore[union-attr]
    g = run(g, Claim("Ann", True))
    assert refusal(g, Claim("Cy", True)).reason == "too_many_holders"  # type: ignore[union-attr]
    assert refusal(g, Claim("Ann", False)).reason == "already_claimed"  # type: ignore[union-attr]


def test_a_rule_card_nobody_admits_to_is_flagged() -> None:
    g = _at_check((0,), (Hand(2, 2), Hand(1, 2), Hand(2, 3), Hand(2, 2)), Hand(1, 1), (0,) * 4)
    g = run(g, Claim("Ann", False), Claim("Bob", False), Claim("Cy", False))
    g, events = play(g, Claim("Dana", False))
    flagged = [event_to_json(e) for e in events if e.type == "flagged"]
    # Two rule cards are uncaptured; nobody holds one, and the blue pile has one card.
    assert flagged == [{"type": "flagged", "reason": "claims", "limit": 1, "missing": 2}]
    assert g.is_over


def test_one_hand_may_hold_several_rule_cards() -> None:
    # "each player that still has at least a rule card on his hand is eliminated": a hand
    # holds blue cards, so one holder with two blue cards and one in the blue pile explain
    # three uncaptured rule cards, and nothing is flagged.
    g = _at_check((), (Hand(2, 2), Hand(0, 3), Hand(1, 2), Hand(3, 2)), Hand(1, 1), (1, -1, 0, 0))
    g = run(g, Claim("Ann", True), Claim("Bob", False), Claim("Cy", False))
    g, events = play(g, Claim("Dana", False))
    assert "flagged" not in [e.type for e in events]
    assert g.outcome is not None and g.outcome.eliminated == ("Ann",)
    # One blue card short of three: flagged.
    g = _at_check((), (Hand(1, 3), Hand(0, 3), Hand(1, 2), Hand(4, 2)), Hand(1, 1), (0,) * 4)
    g = run(g, Claim("Ann", True), Claim("Bob", False), Claim("Cy", False))
    flagged = [event_to_json(e) for e in play(g, Claim("Dana", False))[1] if e.type == "flagged"]
    assert flagged == [{"type": "flagged", "reason": "claims", "limit": 2, "missing": 3}]


def test_leave_and_end_stop_the_game(g: State) -> None:
    over = run(g, Leave("Bob"))
    assert over.is_over and over.outcome is not None and over.outcome.reason == "left"
    assert over.outcome.to_json()["left"] == "Bob" and over.outcome.winner is None
    assert refusal(over, PlayCards("Ann", (B,), 1)).reason == "game_over"  # type: ignore[union-attr]
    ended, events = play(g, End("Ann"))
    assert isinstance(events[-1], GameOver) and ended.outcome is not None and ended.outcome.reason == "ended"


def test_play_raises_for_a_refused_move(g: State) -> None:
    with pytest.raises(IllegalMove) as err:
        play(g, PlayCards("Bob", (B,), 1))
    assert err.value.refusal.reason == "not_your_turn"


def test_every_move_round_trips_through_json() -> None:
    spec = find_game("blofa")
    moves: list[Move] = [
        PlayCards("Ann", (B, Y), 4),
        Pass("Bob", Y),
        Challenge("Cy"),
        Reveal((0, 3)),
        Keep("Dana", B, rule=True),
        Keep("Dana", Y),
        Claim("Ann", True),
    ]
    for move in moves:
        assert decode(encode(move)) == move
        assert spec.decode_move(spec.encode_move(move)) == move
    for common in (Leave("Ann"), End(None)):
        assert spec.decode_move(spec.encode_move(common)) == common
    with pytest.raises(ValueError):
        decode({"move": "dance"})


def test_the_game_over_json_line() -> None:
    outcome = BlofaOutcome(reason="dry", winners=("Ann",), vp=(("Ann", 3), ("Bob", 1)), eliminated=("Bob",))
    data = event_to_json(GameOver(outcome))
    assert data == {
        "type": "game_over",
        "reason": "dry",
        "winner": "Ann",
        "vp": {"Ann": 3, "Bob": 1},
        "eliminated": ["Bob"],
        "scoring": [],
    }


def test_the_spec_is_registered() -> None:
    spec = find_game("Blófa Cards")
    assert spec is find_game("bluff") and spec.seats(4) and not spec.seats(3)
    assert {o.name for o in spec.option_info()} == {"dealer", "challenge_opening", "dry_tricks"}
    assert spec.make_options({"dealer": "Cy"}).dealer == "Cy"
    with pytest.raises(ValueError, match="dry_tricks"):
        spec.make_options({"dry_tricks": 0})
    names = {e.__dataclass_fields__["type"].default for e in spec.events}
    assert {
        "declared",
        "passed",
        "challenge",
        "revealed",
        "clash",
        "trick_won",
        "captured",
        "game_over",
    } <= names


def test_layering() -> None:
    """Rules import only games.core and their own modules; nothing here imports host."""
    import ast
    from pathlib import Path

    folder = Path(__file__).parents[1]
    for path in folder.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [n for n in names if n.split(".")[0] == "host"], path
        if path.name == "rules.py":
            games = [n for n in names if n.startswith(("games", "grammars"))]
            assert set(games) <= {"games.core", "games.base"}, games


def test_options_from_text_and_back() -> None:
    spec = find_game("blofa")
    opts = spec.make_options({"challenge_opening": "false", "dry_tricks": "3", "dealer": "Cy"})
    assert opts == Options(dealer="Cy", challenge_opening=False, dry_tricks=3)
    assert spec.make_options(spec.options_json(opts)) == opts
    flags = {o.name: o.flags for o in spec.option_info()}
    assert flags["dealer"] == ("--dealer",) and flags["dry_tricks"] == ("--dry-tricks",)


def test_a_protected_opening_may_be_challenged_when_nothing_else_is_left() -> None:
    # "When it's your turn, you have 3 options": with no card to play and no pile to draw
    # from, challenging the protected opening is the one left.
    g = new_game(P, Options(challenge_opening=False))
    g = replace(g, hands=(Hand(2, 2), Hand(0, 0), Hand(4, 4), Hand(3, 2)), piles=Hand(0, 0))
    g = run(g, PlayCards("Ann", (B,), 1))
    assert refusal(g, Challenge("Bob")) is None
    g2 = replace(g, piles=Hand(0, 1))
    assert refusal(g2, Challenge("Bob")).reason == "opening_safe"  # type: ignore[union-attr]

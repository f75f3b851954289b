"""Upside-Out rules: scripted situations, each checked against the counts."""

from __future__ import annotations

import pytest

from games.core import End, IllegalMove, Leave
from games.upside_out.deck import load_deck
from games.upside_out.effects import CardText, parse_effect
from games.upside_out.rules import (
    CARDS,
    Discard,
    Donate,
    Draw,
    EffectDue,
    Move,
    Options,
    Phase,
    Play,
    React,
    Reveal,
    Start,
    State,
    UpsideOutRules,
    decode,
    encode,
)
from games.upside_out.tests.golden import golden_script, transcript

R = UpsideOutRules()
DECK = load_deck("sample")
P3 = ("Ann", "Bob", "Cy")


def card(name: str) -> CardText:
    face = DECK.find(name)
    assert face is not None and face.card is not None
    return face.card


def fly(you: str, others: str) -> CardText:
    return CardText("", parse_effect(you), parse_effect(others))


# A secret with nothing on either side, said on the fly: any number of them may be revealed
# (a named face has only 3 copies).
QUIET = CardText("", parse_effect("nothing"), parse_effect("nothing"))


def game(players: tuple[str, ...] = P3, first: str = "Ann") -> State:
    return R.new_game(players, Options(first=first), 0, None)


def run(state: State, *moves: Move | Leave | End) -> tuple[State, list[str]]:
    types: list[str] = []
    for move in moves:
        state, events = R.play(state, move)
        types += [e.type for e in events]
        assert state.total() == CARDS
    return state, types


def test_the_deal_is_counted() -> None:
    s = game(("Ann", "Bob", "Cy", "Di"))
    assert s.hands == (4, 4, 4, 4) and s.secrets == (3, 3, 3, 3)
    assert s.deck == CARDS - 28 and s.discard == 0 and s.total() == CARDS


@pytest.mark.parametrize("players", [("Ann",), ("A", "B", "C", "D", "E")])
def test_two_to_four_players(players: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match="2 to 4"):
        R.new_game(players, Options(), 0, None)


def test_opening_asks_for_a_secret_then_who_was_alone() -> None:
    s = R.new_game(P3, Options(), 0, None)
    assert s.phase is Phase.OPENING_SECRET and R.to_act(s) == frozenset()
    assert R.refusal(s, Draw("Ann")) is not None
    s2, events = R.on_timeout(s)
    assert s2.phase is Phase.OPENING_ALONE and [e.type for e in events] == ["opening"]
    assert s2.turn == s.turn + 1
    s3, events = R.play(s2, Start("Bob"))
    assert s3.current_player == "Bob" and events[0].type == "first"
    assert R.on_timeout(s3) == (s3, [])
    assert R.owner(Start("Bob")) is None


def test_a_turn_is_one_draw_or_one_play() -> None:
    s = game()
    s, _ = run(s, Draw("Ann"))
    assert s.hand("Ann") == 5 and s.deck == CARDS - 21 - 1 and s.current_player == "Bob"
    refused = R.refusal(s, Draw("Ann"))
    assert refused is not None and refused.reason == "not_your_turn" and refused.fields == {"player": "Bob"}
    with pytest.raises(IllegalMove):
        R.play(s, Play("Ann", card("hush")))


def test_facing_side_on_the_player_then_far_side_in_turn_order() -> None:
    s = game()
    s, types = run(s, Play("Ann", card("windfall")))
    assert types[:3] == ["played", "effect", "drew"]
    assert [o.player for o in s.owed] == ["Bob", "Cy"]
    assert R.to_act(s) == {"Bob", "Cy"}  # both may answer, in any order
    assert s.hand("Ann") == 4 - 1 + 2 and s.in_play == 1
    assert R.refusal(s, Draw("Ann")) is not None  # the card is still resolving
    s, _ = run(s, Discard("Cy", 1), Discard("Bob", 1))
    assert s.phase is Phase.TURN and s.current_player == "Bob" and s.in_play == 0 and s.discard == 3


def test_reversal_turns_the_order_and_says_it() -> None:
    s = game()
    s, types = run(s, Play("Ann", card("u-turn")))
    assert "reversed" in types and s.direction == -1 and s.current_player == "Cy"
    s, _ = run(s, Draw("Cy"))
    assert s.current_player == "Bob"
    # The far side faces everyone else, but the order turns once, not once per player.
    s, types = run(s, Play("Bob", fly("nothing", "reverse")))
    assert types.count("reversed") == 1 and s.direction == 1 and s.current_player == "Cy"


def test_a_revealed_secret_waits_for_the_card_that_revealed_it() -> None:
    s = game()
    s, types = run(s, Play("Ann", fly("nothing", "reveal 1, draw 1")))
    assert R.to_act(s) == {"Bob", "Cy"} and types[-1] == "effect"
    s, types = run(s, Reveal("Bob", fly("draw 3", "nothing")))
    # Bob's secret is queued: Cy still owes, and nobody has drawn a card yet.
    assert types == ["revealed"] and s.hand("Bob") == 4 and s.secrets_of("Bob") == 2
    s, types = run(s, Reveal("Cy", card("hush")))
    # The rest of Ann's card (everyone else draws 1) comes first, then Bob's, then Cy's.
    drew = [t for t in types if t in ("drew", "discarded")]
    assert drew == ["drew", "drew", "discarded", "drew", "discarded", "discarded"]
    assert s.hand("Bob") == 4 + 1 + 3 and s.hand("Cy") == 5 and s.current_player == "Bob"


def test_discarding_more_than_held_reveals_a_secret_for_the_rest() -> None:
    s = game()
    s, _ = run(s, Play("Ann", fly("nothing", "discard 6")))
    refused = R.refusal(s, Discard("Bob", 5))
    assert refused is not None and refused.reason == "hand_short"
    s, _ = run(s, Discard("Bob", 4))
    assert s.owes("Bob") is not None and s.owes("Bob").count == 2  # type: ignore[union-attr]
    assert R.refusal(s, Discard("Bob", 1)) is not None  # no cards left: a secret it is
    s, _ = run(s, Reveal("Bob", card("hush")))
    assert s.owes("Bob") is None and s.secrets_of("Bob") == 2 and s.hand("Bob") == 0
    # A secret may stand in for the cards at any time, with cards still in hand.
    s, _ = run(s, Reveal("Cy", card("hush")))
    assert s.hand("Cy") == 4 and s.secrets_of("Cy") == 2 and s.current_player == "Bob"


def test_a_discard_with_nothing_to_give_is_cancelled() -> None:
    s = game(("Ann", "Bob"))
    s, _ = run(s, Play("Ann", fly("nothing", "discard 4, reveal 3, discard 1")), Discard("Bob", 4))
    s, types = run(s, *(Reveal("Bob", QUIET) for _ in range(3)))
    assert "cancelled" in types  # no card and no secret left for the last discard
    assert s.is_over and s.outcome is not None and s.outcome.winner == "Ann"
    assert types[-3:] == ["knocked_out", "counts", "game_over"]


def test_mirror_sends_the_whole_effect_back_after_the_card() -> None:
    s = game()
    s, _ = run(s, Play("Ann", card("purge")))
    s, types = run(s, React("Bob", "mirror"))
    assert types == ["reacted"] and s.hand("Bob") == 3 and R.to_act(s) == {"Cy"}
    s, types = run(s, Discard("Cy", 2))
    assert types[:2] == ["discarded", "discarded"]  # Cy's cards, then Purge itself
    assert R.to_act(s) == {"Ann"} and s.owes("Ann").count == 2  # type: ignore[union-attr]
    s, _ = run(s, React("Ann", "mirror"))  # and back it goes
    assert R.to_act(s) == {"Bob"}
    s, _ = run(s, Discard("Bob", 2))
    assert s.current_player == "Bob" and s.hand("Ann") == 2 and s.hand("Bob") == 1


def test_counter_cancels_and_cannot_answer_ones_own_card() -> None:
    s = game()
    s, _ = run(s, Play("Ann", fly("discard 1", "discard 1")))
    assert R.to_act(s) == {"Ann"}
    refused = R.refusal(s, React("Ann", "counter"))
    assert refused is not None and refused.reason == "own_effect"
    s, _ = run(s, Discard("Ann", 1), React("Bob", "counter"))
    assert s.hand("Bob") == 3 and R.to_act(s) == {"Cy"}
    refused = R.refusal(s, React("Bob", "counter"))
    assert refused is not None and refused.reason == "nothing_to_react"
    s, _ = run(s, React("Cy", "decoy"))  # Decoy stands in for a discard
    assert s.current_player == "Bob" and s.discard == 4


def test_decoy_only_stands_in_for_a_discard() -> None:
    s = game()
    s, _ = run(s, Play("Ann", card("tax")))
    refused = R.refusal(s, React("Bob", "decoy"))
    assert refused is not None and refused.reason == "decoy_discard_only"
    s, _ = run(s, Donate("Bob", 1), Donate("Cy", 1))
    assert s.hand("Ann") == 3 + 2 and s.current_player == "Bob"


def test_donations_go_to_the_named_recipient() -> None:
    s = game()
    s, _ = run(s, Play("Ann", card("gift")))
    assert s.owes("Ann").to == "Bob"  # type: ignore[union-attr]
    refused = R.refusal(s, Donate("Ann", 1, "Cy"))
    assert refused is not None and refused.reason == "wrong_recipient"
    s, _ = run(s, Donate("Ann", 1))
    assert s.hand("Bob") == 4 + 1 + 1 and s.hand("Ann") == 2


def test_deck_out_reshuffles_the_discard_pile() -> None:
    s = game(("Ann", "Bob"))
    s, types = run(s, Play("Ann", fly("draw 69", "nothing")))
    assert s.deck == 1 and "reshuffled" not in types
    s, _ = run(s, Play("Bob", fly("nothing", "discard 5")), Discard("Ann", 5))
    assert s.discard == 2 + 5 and s.deck == 1
    s, types = run(s, Play("Ann", fly("draw 3", "nothing")))
    assert "reshuffled" in types and s.deck == 7 - 2 and s.discard == 1
    # Deck and discard pile both empty: a draw is refused, a drawing effect cancelled.
    s2, types = run(s, Play("Bob", fly("draw 7", "nothing")))
    assert types.count("reshuffled") == 1 and "cancelled" in types  # one card short
    assert s2.deck == 0 and s2.discard == 1  # Bob's card, resolved
    s2, types = run(s2, Draw("Ann"))
    assert types[:2] == ["reshuffled", "drew"] and s2.deck == 0 and s2.discard == 0
    refused = R.refusal(s2, Draw("Bob"))
    assert refused is not None and refused.reason == "nothing_to_draw"


def test_empty_hand_cannot_play() -> None:
    s = game(("Ann", "Bob"))
    s, _ = run(s, Draw("Ann"))
    s, _ = run(s, Play("Bob", fly("nothing", "discard 5")), Discard("Ann", 5))
    refused = R.refusal(s, Play("Ann", card("hush")))
    assert refused is not None and refused.reason == "empty_hand"


def test_simultaneous_knock_outs_leave_the_last_player() -> None:
    s = game(("Ann", "Bob", "Cy", "Di"))
    s, _ = run(s, Play("Ann", fly("nothing", "reveal 3")))
    moves = [Reveal(p, QUIET) for p in ("Bob", "Cy") for _ in range(3)]
    s, types = run(s, *moves)
    assert s.active == ("Ann", "Bob", "Cy", "Di") and R.to_act(s) == {"Di"}
    s, types = run(s, *(Reveal("Di", QUIET) for _ in range(2)))
    assert R.to_act(s) == {"Di"}
    s, types = run(s, Reveal("Di", QUIET))
    assert types.count("knocked_out") == 3 and s.is_over
    assert s.outcome is not None and s.outcome.to_json()["winner"] == "Ann"


def test_everyone_out_at_once_is_nobody_left_to_win() -> None:
    # "Play will continue ... until only one player is left remaining in the game as the
    # winner": when the last two go out at the same turn's end nobody is left, so nobody
    # wins, and the JSON says the same as the words.
    s = game(("Ann", "Bob"))
    s, _ = run(s, Play("Ann", fly("reveal 3", "reveal 3")))
    s, _ = run(s, *(Reveal("Ann", QUIET) for _ in range(3)))
    s, _ = run(s, *(Reveal("Bob", QUIET) for _ in range(3)))
    assert s.is_over and s.outcome is not None
    assert s.outcome.winner is None and s.outcome.winners == ()
    assert s.outcome.to_json() == {
        "reason": "all_out",
        "winner": None,
        "winners": [],
        "out_together": ["Ann", "Bob"],
        "secrets": {"Ann": 0, "Bob": 0},
    }


def test_skip_misses_the_next_turn() -> None:
    s = game()
    s, types = run(s, Play("Ann", card("nap")))
    assert "skipped" in types and s.current_player == "Ann"  # Bob and Cy both skip


def test_set_a_secret_up_to_three() -> None:
    s = game()
    s, types = run(s, Play("Ann", card("stash")))
    assert "cancelled" in types and s.secrets_of("Ann") == 3  # already three
    s, _ = run(
        s, Play("Bob", fly("nothing", "reveal 1")), Reveal("Cy", card("hush")), Reveal("Ann", card("hush"))
    )
    s, types = run(s, Play("Cy", card("second wind")))
    assert "set" in types and s.secrets_of("Cy") == 3


def test_leave_and_end() -> None:
    s = game()
    s, _ = run(s, Play("Ann", card("purge")))
    s, types = run(s, Leave("Bob"))
    assert types == ["left"] and R.to_act(s) == {"Cy"} and s.total() == CARDS
    s, types = run(s, Leave("Cy"))
    assert s.is_over and s.outcome is not None and s.outcome.winner == "Ann"
    s2, types = run(game(), End("Ann"))
    assert s2.is_over and types == ["game_over"]
    refused = R.refusal(s2, Draw("Ann"))
    assert refused is not None and refused.reason == "game_over"


MOVES: list[Move] = [
    Start("Ann"),
    Draw("Ann"),
    Play("Ann", card("windfall")),
    Play("Bob", fly("draw 2, discard 1", "donate 1 to any")),
    Discard("Cy", 2),
    Donate("Ann", 1),
    Donate("Ann", 1, "Bob"),
    Reveal("Bob", card("hush").turned()),
    React("Cy", "mirror"),
]


@pytest.mark.parametrize("move", MOVES, ids=lambda m: type(m).__name__)
def test_moves_round_trip_through_json(move: Move) -> None:
    import json

    assert decode(json.loads(json.dumps(encode(move)))) == move


def test_golden_script_runs_to_its_end() -> None:
    lines, state = transcript(*golden_script())
    assert state.is_over and state.outcome is not None and state.outcome.winner == "Bob"
    assert all(len(line) <= 160 for line in lines)
    assert sum("must reveal" in line or "Not yet" in line or "First:" in line for line in lines) >= 3


def test_a_player_with_no_card_and_nothing_to_draw_passes() -> None:
    from dataclasses import replace

    # Every card but one in Bob's hand and the secrets; his draw empties deck and pile.
    s = replace(game(("Ann", "Bob")), hands=(0, CARDS - 7), deck=0, discard=1, current=1)
    assert s.total() == CARDS
    s, types = run(s, Draw("Bob"))
    assert types[:2] == ["reshuffled", "drew"] and "stuck" in types
    assert s.current_player == "Bob" and s.deck == s.discard == 0
    refused = R.refusal(s, Draw("Bob"))
    assert refused is not None and refused.reason == "nothing_to_draw"


def test_the_current_player_leaving_passes_the_turn() -> None:
    s = game()
    s, types = run(s, Leave("Ann"))
    assert types == ["left"] and s.current_player == "Bob" and s.hand("Ann") == 0 and s.total() == CARDS
    opening = R.new_game(P3, Options(), 0, None)
    opening, _ = run(opening, Leave("Cy"))
    assert opening.phase is Phase.OPENING_SECRET and opening.active == ("Ann", "Bob")


def test_a_fourth_copy_of_a_face_cannot_be_on_the_table() -> None:
    # "Each of the 28 cards should have 3 copies" and the discard pile "is always face-up":
    # with three Shortcuts in it, a fourth cannot be played, revealed or react.
    s = game(("Ann", "Bob"))
    s, _ = run(s, Play("Ann", card("shortcut")), Play("Bob", card("shortcut")), Play("Ann", card("shortcut")))
    refused = R.refusal(s, Play("Bob", card("shortcut")))
    assert refused is not None and refused.reason == "no_copy_left"
    assert refused.fields == {"card": "Shortcut", "copies": 3}
    assert R.refusal(s, Play("Bob", card("windfall"))) is None
    s, _ = run(s, Play("Bob", fly("nothing", "reveal 1")))
    refused = R.refusal(s, Reveal("Ann", card("shortcut")))
    assert refused is not None and refused.reason == "no_copy_left"


def test_copies_being_resolved_count_too() -> None:
    s = game(("Ann", "Bob"))
    s, _ = run(s, Play("Ann", card("shortcut")), Play("Bob", card("shortcut")))
    s, _ = run(s, Play("Ann", card("confession")), Reveal("Bob", card("shortcut")))
    # Two Shortcuts in the discard pile, one revealed and waiting: no fourth.
    s, _ = run(s, Play("Bob", fly("nothing", "reveal 1")))
    refused = R.refusal(s, Reveal("Ann", card("shortcut")))
    assert refused is not None and refused.reason == "no_copy_left"


def test_three_reactions_of_a_kind_and_no_more() -> None:
    s = game(("Ann", "Bob"))
    for _ in range(3):
        s, _ = run(s, Play("Ann", fly("nothing", "discard 1")), React("Bob", "counter"), Draw("Bob"))
    s, _ = run(s, Play("Ann", fly("nothing", "discard 1")))
    refused = R.refusal(s, React("Bob", "counter"))
    assert refused is not None and refused.reason == "no_copy_left" and refused.fields["card"] == "Counter"
    # A Counter set as a secret is a copy of the same face.
    s = game(("Ann", "Bob"))
    for _ in range(2):
        s, _ = run(s, Play("Ann", fly("nothing", "discard 1")), React("Bob", "counter"), Draw("Bob"))
    counter_secret = CardText("Counter", QUIET.you, QUIET.you)
    s, _ = run(s, Play("Ann", fly("nothing", "reveal 1")), Reveal("Bob", counter_secret))
    s, _ = run(s, Draw("Bob"), Play("Ann", fly("nothing", "discard 1")))
    refused = R.refusal(s, React("Bob", "counter"))
    assert refused is not None and refused.reason == "no_copy_left"


def test_a_reshuffle_or_a_draw_from_the_discard_pile_forgets_which_faces_lie_there() -> None:
    s = game(("Ann", "Bob"))
    s, _ = run(s, Play("Ann", card("shortcut")), Play("Bob", card("shortcut")), Play("Ann", card("shortcut")))
    s, _ = run(s, Play("Bob", card("scavenge")))  # draw 1 from discard: which one is Bob's secret
    assert R.refusal(s, Play("Ann", card("shortcut"))) is None


def test_the_far_side_goes_in_the_order_as_it_stands() -> None:
    # "then the effect facing away from you is carried out by all other players, in turn
    # order from you": Rewind's near side reversed the order, so Cy comes before Bob.
    s = game(("Ann", "Bob", "Cy"))
    s, events = R.play(s, Play("Ann", card("rewind")))
    assert [e.player for e in events if isinstance(e, EffectDue)] == ["Cy", "Bob"]
    s, events = R.play(game(("Ann", "Bob", "Cy")), Play("Ann", card("windfall")))
    assert [e.player for e in events if isinstance(e, EffectDue) and e.player != "Ann"] == ["Bob", "Cy"]


def test_a_rematch_after_the_first_player_left_asks_who_starts() -> None:
    s = game(("Ann", "Bob", "Cy"), first="Bob")
    s, _ = run(s, Leave("Bob"), End())
    again = R.new_game(("Ann", "Cy"), Options(first="Bob"), 1, s)
    assert again.phase is Phase.OPENING_SECRET
    with pytest.raises(ValueError, match="first"):
        R.new_game(("Ann", "Cy"), Options(first="Bob"), 1, None)
    kept = R.new_game(("Ann", "Cy"), Options(first="Cy"), 1, s)
    assert kept.phase is Phase.TURN and kept.current_player == "Cy"


def test_a_donation_to_anyone_needs_a_name() -> None:
    # "donate 1 to any": the giver chooses; "gives one" alone is asked again (it crashed).
    s = game(("Ann", "Bob", "Cy"))
    s, _ = run(s, Play("Ann", fly("nothing", "donate 1 to any")))
    refused = R.refusal(s, Donate("Bob", 1))
    assert refused is not None and refused.reason == "name_recipient"
    s, _ = run(s, Donate("Bob", 1, "Cy"))
    assert s.hand("Cy") == 5 and s.hand("Bob") == 3


def test_a_donation_owed_to_someone_who_leaves_goes_where_the_card_sends_it_now() -> None:
    s = game(("Ann", "Bob", "Cy"))
    s, _ = run(s, Play("Ann", card("tax")))  # Bob and Cy each give Ann 1
    s, _ = run(s, Leave("Ann"))
    assert {o.player: o.to for o in s.owed} == {"Bob": "Cy", "Cy": "Bob"}
    s, _ = run(s, Donate("Bob", 1))
    assert s.hand("Cy") == 5 and s.hand("Ann") == 0

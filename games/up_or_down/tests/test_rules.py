"""Up-or-Down rules: the examples of the rule text and properties over random games."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.core import End, GameOver, IllegalMove
from games.up_or_down import rules as ud
from games.up_or_down.rules import MistakeCounted, Mode, MoveMade, PlayerOut, TurnPassed

PLAYERS = ("P1", "P2", "P3", "P4")


def test_after_53_sixty_seven_and_two_are_valid() -> None:
    o = ud.Options()
    assert ud.is_valid(53, 67, o) and ud.is_valid(53, 2, o)
    assert not ud.is_valid(53, 54, o) and not ud.is_valid(53, 51, o)


def test_after_8_a_hundred_and_seven_are_valid() -> None:
    o = ud.Options()
    assert ud.is_valid(8, 100, o) and ud.is_valid(8, 7, o)
    assert not ud.is_valid(8, 9, o) and not ud.is_valid(8, 6, o)


def test_never_the_same_number_nor_outside_the_range() -> None:
    o = ud.Options()
    assert not ud.is_valid(8, 8, o)
    assert not ud.is_valid(99, 101, o) and not ud.is_valid(2, 0, o) and not ud.is_valid(2, -1, o)
    assert ud.is_valid(2, 1, o) and ud.is_valid(98, 100, o)


def test_first_number_is_free_within_the_range() -> None:
    g = ud.new_game(PLAYERS)
    assert ud.valid_numbers(g) == list(range(1, 101))
    _, events = ud.play(g, 101)
    assert events[0] == MoveMade("P1", 101, False, None)


def test_p3_goes_out_and_p4_continues_from_8() -> None:
    g = ud.new_game(PLAYERS)
    for n in (5, 7, 8):
        g, events = ud.play(g, n)
    assert PlayerOut("P3", "mistake") in events
    assert g.current_player == "P4" and g.last == 8
    assert {10, 80, 1} <= set(ud.valid_numbers(g))
    assert "P3" not in g.in_play


def test_chain_continues_from_a_million() -> None:
    g = ud.new_game(PLAYERS)
    g, _ = ud.play(g, 50)
    g, _ = ud.play(g, 1_000_000)
    # 1,000,000 is even: an odd number below it, inside 1..100.
    assert ud.valid_numbers(g) == list(range(1, 100, 2))


def test_last_player_in_wins_and_opens_the_next_game() -> None:
    g = ud.new_game(("Ann", "Bob"))
    g, _ = ud.play(g, 10)
    g, events = ud.play(g, 11)
    assert isinstance(events[-1], GameOver)
    assert g.outcome is not None and g.outcome.winner == "Ann"
    assert ud.next_starter(g) == 0
    with pytest.raises(IllegalMove):
        ud.play(g, 12)


def test_training_counts_mistakes_and_the_same_player_tries_again() -> None:
    g = ud.new_game(("Ann", "Bob", "Cy"), ud.Options(mode=Mode.TRAINING))
    g, _ = ud.play(g, 53)
    g, events = ud.play(g, 54)
    assert MistakeCounted("Bob", 1) in events
    assert g.current_player == "Bob" and g.last == 53
    g, _ = ud.play(g, 55)
    assert g.current_player == "Cy"
    g, events = ud.end(g)
    outcome = g.outcome
    assert outcome is not None and outcome.last_mistake == "Bob"
    assert dict(outcome.mistakes) == {"Ann": 0, "Bob": 1, "Cy": 0}


def test_training_ends_after_the_rounds_asked_for() -> None:
    g = ud.new_game(("Ann", "Bob"), ud.Options(mode=Mode.TRAINING, rounds=2))
    for n in (10, 12, 14):
        g, _ = ud.play(g, n)
    assert not g.is_over
    g, events = ud.play(g, 16)
    assert isinstance(events[-1], GameOver) and events[-1].outcome.reason == "rounds"


def test_timeouts_put_out_in_a_tournament_and_pass_in_training() -> None:
    g, events = ud.time_out(ud.new_game(("Ann", "Bob", "Cy")))
    assert events[0] == PlayerOut("Ann", "timeout") and g.current_player == "Bob"
    t, events = ud.time_out(ud.new_game(("Ann", "Bob"), ud.Options(mode=Mode.TRAINING)))
    assert events == [TurnPassed("Ann")] and t.current_player == "Bob" and t.mistakes == (0, 0)


def test_leaving_skips_the_seat_and_can_end_the_game() -> None:
    g = ud.new_game(("Ann", "Bob", "Cy"))
    g, _ = ud.play(g, 10)
    g, _ = ud.leave(g, "Bob")
    assert g.current_player == "Cy"
    g, _ = ud.leave(g, "Cy")
    assert g.outcome is not None and g.outcome.winner == "Ann"


@pytest.mark.parametrize("low,high", [(1, 2), (5, 5), (10, 1)])
def test_ranges_too_small_are_refused(low: int, high: int) -> None:
    with pytest.raises(ValueError):
        ud.Options(low=low, high=high)


def test_new_game_needs_two_distinct_players() -> None:
    with pytest.raises(ValueError):
        ud.new_game(("Ann",))
    with pytest.raises(ValueError):
        ud.new_game(("Ann", "Ann"))


# -- properties --------------------------------------------------------------------------

ranges = st.tuples(st.integers(-50, 200), st.integers(2, 150)).map(lambda t: (t[0], t[0] + t[1]))
said = st.one_of(st.integers(-1000, 1000), st.just(1_000_000), st.integers(-(10**9), 10**9))


@st.composite
def games(draw: st.DrawFn) -> tuple[ud.State, list[int]]:
    low, high = draw(ranges)
    mode = draw(st.sampled_from(list(Mode)))
    count = draw(st.integers(2, 6))
    options = ud.Options(low=low, high=high, mode=mode)
    game = ud.new_game(tuple(f"P{i}" for i in range(count)), options)
    moves = draw(st.lists(st.one_of(said, st.integers(low, high)), max_size=40))
    return game, moves


def run(game: ud.State, moves: list[int]) -> list[ud.State]:
    states = [game]
    for n in moves:
        if game.is_over:
            break
        game, _ = ud.play(game, n)
        states.append(game)
    return states


@settings(max_examples=300, deadline=None)
@given(games())
def test_every_reachable_state_has_a_valid_number(case: tuple[ud.State, list[int]]) -> None:
    for state in run(*case):
        if not state.is_over:
            assert ud.valid_numbers(state), state


@settings(max_examples=300, deadline=None)
@given(games(), st.integers(-(10**6), 10**6))
def test_valid_numbers_obey_parity_direction_and_range(case: tuple[ud.State, list[int]], n: int) -> None:
    for state in run(*case):
        o = state.options
        if ud.is_valid(state.last, n, o):
            assert o.low <= n <= o.high
            if state.last is not None:
                assert n != state.last
                same_parity = n % 2 == state.last % 2
                assert same_parity == (n > state.last)
        for m in ud.valid_numbers(state):
            assert ud.is_valid(state.last, m, o)


@settings(max_examples=200, deadline=None)
@given(games())
def test_replaying_the_inputs_rebuilds_the_same_state(case: tuple[ud.State, list[int]]) -> None:
    first = run(*case)
    again = run(*case)
    assert first == again


@settings(max_examples=200, deadline=None)
@given(games())
def test_only_the_current_player_moves_and_turns_skip_players_out(case: tuple[ud.State, list[int]]) -> None:
    game, moves = case
    for n in moves:
        if game.is_over:
            break
        mover = game.current_player
        game, events = ud.play(game, n)
        assert isinstance(events[0], MoveMade) and events[0].player == mover
        if not game.is_over:
            assert game.seats[game.current] == ud.SEAT_IN
            if game.options.mode is Mode.TOURNAMENT:
                assert game.current_player != mover or not events[0].valid
    if game.options.mode is Mode.TOURNAMENT and game.is_over:
        assert game.outcome is not None and len(game.in_play) == 1
        assert game.outcome.winner == game.in_play[0]


def test_a_tournament_finished_early_says_who_was_still_in_and_that_nobody_won() -> None:
    # "Whoever the last one still in wins": ended before that, nobody has won, and the
    # host says so and who was still in, at the end and whenever the score is asked.
    from games.up_or_down import SPEC

    rules, talk = SPEC.rules, SPEC.talk
    g = rules.new_game(("Ann", "Bob", "Cy"), ud.Options(), 0, None)
    g, _ = rules.play(g, ud.Say("Ann", 53))
    g, _ = rules.play(g, ud.Say("Bob", 66))  # even above odd 53: Bob is out
    g, events = rules.play(g, End("Cy"))
    assert g.outcome is not None and g.outcome.winner is None
    assert g.outcome.to_json() == {"reason": "requested", "still_in": ["Ann", "Cy"]}
    said = "Game over with no winner. Still in: Ann, Cy. Say new game to play again."
    assert talk.describe(events, g.options, "en") == [said]
    assert talk.status(g, "en") == said and talk.prompt(g, "en") == said
    assert "Ann, Cy" in talk.status(g, "ko")

"""Hypothesis: random legal games keep the cards, move VP only by the rules, and replay."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from games.blofa.rules import (
    ACROSS,
    CAPTURER,
    CARDS,
    RIGHT,
    Challenge,
    Colour,
    Keep,
    Move,
    Options,
    Pass,
    Phase,
    Reveal,
    State,
    card_count,
    new_game,
    play,
    to_act,
)
from games.blofa.tests.table import legal_moves

P = ("Ann", "Bob", "Cy", "Dana")


def random_game(picks: list[int], options: Options) -> tuple[State, list[Move], list[State]]:
    state = new_game(P, options)
    moves: list[Move] = []
    states = [state]
    for pick in picks:
        if state.is_over:
            break
        choices = legal_moves(state)
        assert choices, f"stuck in {state.phase}"
        move = choices[pick % len(choices)]
        state, _ = play(state, move)
        moves.append(move)
        states.append(state)
    return state, moves, states


picks = st.lists(st.integers(min_value=0, max_value=1000), min_size=1, max_size=200)
options = st.builds(
    Options,
    dealer=st.sampled_from((None, *P)),
    challenge_opening=st.booleans(),
    dry_tricks=st.integers(min_value=1, max_value=5),
)


@settings(max_examples=150, deadline=None)
@given(picks, options)
def test_cards_are_conserved_and_someone_can_always_act(ps: list[int], opts: Options) -> None:
    _, _, states = random_game(ps, opts)
    for s in states:
        assert card_count(s) == CARDS
        assert all(h.blue >= 0 and h.yellow >= 0 for h in s.hands)
        assert s.piles.blue >= 0 and s.piles.yellow >= 0
        # Blue: 9 cards less the captured rule cards; yellow: always 9.
        in_trick = [c for p in s.plays for c in p.colours]
        blue = sum(h.blue for h in s.hands) + s.piles.blue + in_trick.count(Colour.BLUE)
        assert blue + len(s.captures) == 9
        if s.phase in (Phase.PLAY, Phase.KEEP):
            assert len(to_act(s)) == 1


@settings(max_examples=150, deadline=None)
@given(picks, options)
def test_vp_changes_only_by_the_rules(ps: list[int], opts: Options) -> None:
    _, moves, states = random_game(ps, opts)
    for before, move, after in zip(states, moves, states[1:], strict=False):
        delta = [a - b for a, b in zip(after.vp, before.vp, strict=True)]
        if isinstance(move, Reveal):
            assert sorted(delta) == [-1, 0, 0, 1]  # the clash: +1 and -1
        elif isinstance(move, Pass) and after.phase is Phase.KEEP:
            assert sorted(delta) == [0, 0, 0, 1]  # three passes: the declarer
        else:
            assert delta == [0, 0, 0, 0]
        if isinstance(move, Challenge):
            assert after.phase is Phase.REVEAL
        if isinstance(move, Keep) and move.rule:
            assert len(after.captures) == len(before.captures) + 1


@settings(max_examples=100, deadline=None)
@given(picks, options)
def test_final_points_are_clash_points_plus_seating_bonuses(ps: list[int], opts: Options) -> None:
    state, _, _ = random_game([*ps, *range(400)], opts)
    assert state.is_over and state.outcome is not None
    total = sum(v for _, v in state.outcome.vp)
    assert total == sum(state.vp) + len(state.captures) * (CAPTURER + ACROSS + RIGHT)
    assert state.outcome.winner is None or state.outcome.winner not in state.outcome.eliminated


@settings(max_examples=60, deadline=None)
@given(picks, options)
def test_replaying_the_same_moves_gives_the_same_state(ps: list[int], opts: Options) -> None:
    state, moves, _ = random_game(ps, opts)
    again = new_game(P, opts)
    for move in moves:
        again, _ = play(again, move)
    assert again == state

"""Hypothesis: any run of allowed moves keeps every card counted and replays the same."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from games.core import Leave
from games.upside_out.deck import load_deck
from games.upside_out.effects import SPECIALS, CardText
from games.upside_out.rules import (
    CARDS,
    SECRETS,
    Discard,
    Donate,
    Draw,
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

R = UpsideOutRules()
CARDTEXTS: list[CardText] = [f.card for f in load_deck("sample").faces if f.card is not None]
CARDTEXTS += [c.turned() for c in CARDTEXTS]
NAMES = ("Ann", "Bob", "Cy", "Di")


def options_now(state: State, pick: int) -> list[Move | Leave]:
    """Moves worth trying now (the rules still judge each)."""
    card = CARDTEXTS[pick % len(CARDTEXTS)]
    if state.phase in (Phase.OPENING_SECRET, Phase.OPENING_ALONE):
        return [Start(state.active[pick % len(state.active)])]
    if not state.owed:
        player = state.players[state.current]
        return [Play(player, card), Draw(player)]
    owed = state.owed[pick % len(state.owed)]
    p = owed.player
    return [
        Discard(p, 1 + pick % max(1, owed.count)),
        Reveal(p, card),
        Donate(p, 1 + pick % max(1, owed.count)),
        React(p, SPECIALS[pick % 3]),
        Discard(p, min(owed.count, state.hand(p)) or 1),
    ]


def check(state: State) -> None:
    assert state.total() == CARDS
    assert state.deck >= 0 and state.discard >= 0 and state.in_play >= 0
    assert all(h >= 0 for h in state.hands)
    assert all(0 <= s <= SECRETS for s in state.secrets)
    assert R.to_act(state) <= set(state.active)
    if state.is_over:
        assert state.outcome is not None and R.to_act(state) == frozenset()
    elif state.phase is Phase.TURN:
        assert state.players[state.current] in state.active and not state.owed


def walk(players: tuple[str, ...], choices: list[int]) -> tuple[State, list[Move | Leave]]:
    state = R.new_game(players, Options(), 0, None)
    made: list[Move | Leave] = []
    for pick in choices:
        if state.is_over:
            break
        tries = options_now(state, pick)
        if pick % 97 == 0:
            tries.insert(0, Leave(state.active[pick % len(state.active)]))
        move = next((m for m in tries[pick % 2 :] + tries if R.refusal(state, m) is None), None)
        if move is None:
            continue
        state, _ = R.play(state, move)
        made.append(move)
        check(state)
        assert state.turn == len(made) + 1
    return state, made


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 4), st.lists(st.integers(0, 10_000), min_size=1, max_size=120))
def test_cards_are_conserved_and_replays_agree(n: int, choices: list[int]) -> None:
    players = NAMES[:n]
    state, made = walk(players, choices)
    again = R.new_game(players, Options(), 0, None)
    for move in made:
        if not isinstance(move, Leave):
            move = decode(json.loads(json.dumps(encode(move))))
        again, _ = R.play(again, move)
    assert again == state

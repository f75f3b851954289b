"""!nversion sessions for the referee tests: start one, set it up by talk, read its game."""

from __future__ import annotations

from games.inversion import rules as inv
from host.referee import Referee
from host.session import SessionConfig

LANE = "9H 1C 2C 3C 4C 5C 6C 7C 8C 10C"


def start(referee: Referee, players: str = "Ann,Bob", **config: object) -> str:
    return referee.create(SessionConfig.model_validate({"game": "inversion", **config}), players.split(","))


def set_up(referee: Referee, sid: str, suits: str, lane: str, first: str) -> None:
    for text in (suits, lane, first):
        reply = referee.handle(sid, text)
        assert reply.accepted, reply.lines


def state(referee: Referee, sid: str) -> inv.State:
    cards = referee.table(sid).state
    assert cards is not None
    return cards

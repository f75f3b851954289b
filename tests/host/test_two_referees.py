"""Two referees on one database through their own connections, as two server processes
are: the same keyed requests (a webhook Twilio retried, reaching both) arrive at both at
once, and each is ruled once, in order, with one answer."""

from __future__ import annotations

import threading

from games.up_or_down import rules as ud
from host.referee import Referee
from host.reply import Reply
from host.session import SessionConfig
from host.store import Store
from tests.clock import Clock

MOVES = 24


def test_the_same_requests_at_two_referees_are_ruled_once_each(database: str) -> None:
    clock = Clock(1_000_000.0)
    referees = [Referee(Store(database), clock) for _ in range(2)]
    config = SessionConfig.model_validate({"game": "up-or-down", "options": {"mode": "training"}})
    session = referees[0].create(config, ["Ann", "Bob"])
    state = ud.new_game(("Ann", "Bob"), ud.Options(mode=ud.Mode.TRAINING))
    script = []
    for _ in range(MOVES):
        number = ud.valid_numbers(state)[len(script) % 3]
        script.append((state.players[state.current], str(number)))
        state, _ = ud.play(state, number)
    answers: list[list[Reply]] = [[], []]
    errors: list[BaseException] = []
    together = threading.Barrier(2)

    def play(n: int) -> None:
        try:
            for i, (player, said) in enumerate(script):
                together.wait(10)
                answers[n].append(referees[n].handle(session, said, player, key=f"SM-{i}"))
        except BaseException as exc:
            errors.append(exc)
            together.abort()

    threads = [threading.Thread(target=play, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert [a.to_json() for a in answers[0]] == [a.to_json() for a in answers[1]]
    assert all(a.accepted for a in answers[0])
    logged = [i.body for i in referees[1].store.inputs(session) if i.body["kind"] == "play"]
    assert [b["text"] for b in logged] == [said for _, said in script]
    for referee in referees:
        referee.store.close()

"""Twilio retries, texts at the same instant, and a restart in the middle of a game."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import httpx

from host.session import Play
from tests.sms.conftest import HOST_NUMBER, PHONES, Clock, Sms, build, messages_of, new_sid
from tests.sms.live import serve
from tests.twilio_helpers import TEST_ACCOUNT_SID as ACCOUNT
from tests.twilio_helpers import TEST_AUTH_TOKEN, FakeTwilio, post_signed


def _sessions(sms: Sms) -> int:
    return int(sms.app.state.store.execute("SELECT COUNT(*) AS n FROM sessions")[0]["n"])


def _says(sms: Sms, session_id: str) -> list[Play]:
    """The numbers the log holds for a session (each with the text it was ruled from)."""
    inputs = sms.app.state.store.inputs(session_id)
    plays = [Play.model_validate(i.body) for i in inputs if i.body["kind"] == "play"]
    return [p for p in plays if p.move.get("move") == "say"]


def test_a_retried_new_makes_one_game_and_the_same_answer(sms: Sms) -> None:
    sid = new_sid()
    first = sms.text(PHONES[0], "NEW", sid=sid)
    again = sms.text(PHONES[0], "NEW", sid=sid)
    assert first == again
    assert _sessions(sms) == 1
    # A new text (new sid) is a new request: Ann's lobby is open, so it is hers again
    # (issue 43 item 7: one number, one open game however often it texts NEW).
    # Only the PIN for calls is not told again (host/pins.py): it was told with the game.
    assert [sms.text(PHONES[0], "NEW")[0] + " "] == [first[0].split("Your PIN")[0]]
    assert _sessions(sms) == 1


def test_a_retried_move_is_ruled_once_and_told_once(sms: Sms, fake: FakeTwilio) -> None:
    ann, _bob = sms.new_game(2)
    sid = new_sid()
    first = sms.text(ann, "50", sid=sid)
    told = len(fake.messages)
    assert sms.text(ann, "50", sid=sid) == first
    assert len(fake.messages) == told  # the retry sends nothing to Bob
    session = sms.app.state.lobby.member(ann).session_id
    assert [(s.move["player"], s.move["number"]) for s in _says(sms, session)] == [("Ann", 50)]
    # The same move in a new text is a new move: Ann is not next any more.
    assert sms.text(ann, "50") == ["#2 Waiting for Bob."]


def test_the_idempotency_token_also_counts(sms: Sms) -> None:
    # A MessageSid is required now (issue 12); the token still marks a repeat on its own.
    ann, _bob = sms.new_game(2)
    headers = {"I-Twilio-Idempotency-Token": "token-1"}
    posts = []
    for _ in range(2):
        params = {"From": ann, "To": HOST_NUMBER, "Body": "50", "MessageSid": new_sid()}
        params["AccountSid"] = ACCOUNT
        posts.append(messages_of(post_signed(sms.client, "/twilio/sms", params, headers=headers)))
    first, again = posts
    assert first == again == ["#2 Ann said 50. Bob: an even number above 50 or an odd number below 50."]
    session = sms.app.state.lobby.member(ann).session_id
    assert len(_says(sms, session)) == 1


def test_a_restart_loses_no_game(tmp_path: Path, fake: FakeTwilio, clock: Clock) -> None:
    first = build(tmp_path, fake, clock)
    ann, bob, cy = first.new_game(3)
    sid = new_sid()
    answer = first.text(ann, "50", sid=sid)
    first.app.state.store.close()

    second = build(tmp_path, fake, clock)  # a new process, the same SQLite file
    assert second.text(ann, "50", sid=sid) == answer  # Twilio's retry after the restart
    assert second.text(bob, "52")[0].startswith("#3 Bob said 52. Cy:")
    assert fake.messages_to(ann)[-1].startswith("#3 Bob said 52.")
    assert second.text(ann, "status") == ["#3 Turn 3. Last number 52. In: Ann, Bob, Cy. Out: none."]
    assert second.text(cy, "leave")[0].startswith("You left")
    second.app.state.store.close()


ROUNDS = 15


def test_texts_at_the_same_instant_are_refereed_in_one_order(
    tmp_path: Path, fake: FakeTwilio, clock: Clock
) -> None:
    sms = build(tmp_path, fake, clock)
    phones = sms.new_game(3, "TRAINING")
    names = {p: sms.app.state.lobby.member(p).name for p in phones}
    session = sms.app.state.lobby.member(phones[0]).session_id
    told_before = len(fake.messages)
    results: dict[str, list[list[str]]] = {}  # sid -> the answer of each delivery
    requests: dict[str, tuple[str, str]] = {}  # sid -> (phone, body)
    lock = threading.Lock()

    with serve(sms.app) as base, httpx.Client(base_url=base, timeout=30) as client:

        def send(phone: str, body: str, sid: str, barrier: threading.Barrier) -> None:
            params = {"From": phone, "To": HOST_NUMBER, "Body": body, "MessageSid": sid}
            params["AccountSid"] = ACCOUNT
            barrier.wait()
            response = post_signed(client, "/twilio/sms", params, TEST_AUTH_TOKEN, base_url=base)
            with lock:
                results.setdefault(sid, []).append(messages_of(response))

        for r in range(ROUNDS):
            # Everyone texts a number at once, and Twilio retries one of them at once too.
            jobs = []
            for i, phone in enumerate(phones):
                sid = new_sid()
                body = f"{40 + r + i} zq{r}x{i}"  # the tag makes every text findable in the log
                requests[sid] = (phone, body)
                jobs.append((phone, body, sid))
            jobs.append(jobs[r % 3])
            barrier = threading.Barrier(len(jobs))
            threads = [threading.Thread(target=send, args=(*job, barrier)) for job in jobs]
            for t in threads:
                t.start()
            for t in threads:
                t.join()

        # The retried request got the very same answer as the first delivery.
        assert sum(len(a) for a in results.values()) == ROUNDS * 4
        assert all(len(a) == 1 or a[0] == a[1] for a in results.values())

        accepted: dict[int, str] = {}  # turn -> sid
        for sid, answers in results.items():
            phone, body = requests[sid]
            number = body.split()[0]
            first = answers[0][0]
            turn = int(re.match(r"#(\d+) ", first).group(1))  # type: ignore[union-attr]
            if f"{names[phone]} said {number}." in first:
                assert turn not in accepted or accepted[turn] == sid, "two moves ruled as one turn"
                accepted[turn] = sid
            else:
                assert "Waiting for" in first, first

        logged = _says(sms, session)
        # Nothing lost, nothing twice: the log is exactly the accepted texts, each once.
        assert sorted(s.text for s in logged) == sorted(requests[sid][1] for sid in accepted.values())
        assert len({s.text for s in logged}) == len(logged)
        # One order: turn numbers follow the log.
        assert [requests[accepted[t]][1] for t in sorted(accepted)] == [s.text for s in logged]
        assert sorted(accepted) == list(range(2, 2 + len(logged)))

        # Everyone else was told each ruled move once, whatever order the texts arrived in.
        assert fake.wait_for(messages=told_before + 2 * len(logged), timeout=20)
    for phone in phones:
        own = {t for t, sid in accepted.items() if requests[sid][0] == phone}
        received = [int(m.split()[0][1:]) for m in fake.messages_to(phone) if m.startswith("#")]
        received = [t for t in received if t > 1]  # not the "New game" text
        assert sorted(received) == sorted(set(accepted) - own), phone
    sms.app.state.store.close()

"""The live stream: a real uvicorn server (TestClient buffers a whole response, and this one
never ends), moves texted over signed SMS, and a bounded read of the events that follow."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx

from tests.sms.conftest import Sms
from tests.sms.live import serve
from tests.web.test_pages import code_of

WAIT = 5.0  # seconds an event may take at most (one comes within ~100 ms)


def events(lines: Iterator[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(id, data) of each ``table`` message; comments and ``retry`` are skipped."""
    fields: dict[str, str] = {}
    for line in lines:
        if line:
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")
            continue
        if fields.get("event") == "table":
            yield int(fields["id"]), json.loads(fields["data"])
        fields = {}


def test_a_message_after_each_move_over_sms(sms: Sms) -> None:
    phones = sms.new_game(2)
    code = code_of(sms, phones[0])
    phone_of = {"Ann": phones[0], "Bob": phones[1]}
    store = sms.app.state.store
    session_id = sms.app.state.lobby.member(phones[0]).session_id
    # The sms fixture's app runs no lifespan; neither does this server (no second sender).
    with serve(sms.app, lifespan="off") as base, httpx.Client(base_url=base, timeout=WAIT) as client:
        with client.stream("GET", f"/t/{code}/events") as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            stream = events(response.iter_lines())
            seq, page = next(stream)  # the current state at once
            assert client.get("/healthz", timeout=1.0).status_code == 200  # the stream does not block
            assert seq == store.last_seq(session_id)
            assert [p["name"] for p in page["players"]] == ["Ann", "Bob"]
            for number in (50, 49):  # 49: odd below an even 50, a valid move
                player = page["to_act"][0]
                sms.text(phone_of[player], str(number))
                later, page = next(stream)
                assert later > seq, "each message's id is the log's seq"
                seq = later
                assert page["rulings"][-1] == [f"{player} said {number}."]  # oldest first
                assert page["to_act"] != [player]
                assert page["board"]["parts"][0]["number"] == number
                assert f"{player} said {number}." in page["html"]["last"]  # drawn for the page too
        # A browser reconnecting (EventSource sends Last-Event-ID) gets the state at once.
        with client.stream("GET", f"/t/{code}/events", headers={"Last-Event-ID": str(seq)}) as again:
            again_seq, again_page = next(events(again.iter_lines()))
            assert (again_seq, again_page) == (seq, page)

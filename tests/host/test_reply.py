"""A Reply as a value: the prompt that closes an answer is its own field, written after the
answer by text channels, and replies stored by earlier releases still load."""

from __future__ import annotations

from host.reply import Reply


def test_the_answer_prompt_is_written_after_the_answer_or_apart() -> None:
    prompt = "Bob: an odd number above 53."
    assert Reply("s", answer=["I didn't catch that."], answer_prompt=prompt).private == [
        f"I didn't catch that. {prompt}"
    ]
    assert Reply("s", answer=["Ann said 53."], answer_prompt=prompt, prompt_apart=True).private == [
        "Ann said 53.",
        prompt,
    ]
    assert Reply("s", answer_prompt=prompt).private == [prompt]  # "whose turn": the prompt is the answer
    assert Reply("s", answer=["Waiting for Ann."]).private == ["Waiting for Ann."]
    both = Reply("s", news=["Ann said 53."], prompt=prompt, answer=["Too late."])
    assert both.lines == ["Ann said 53.", prompt, "Too late."]


def test_a_reply_round_trips_through_json() -> None:
    reply = Reply(
        "s",
        news=["Ann said 53."],
        answer=["Ann said 53."],
        answer_prompt="Bob next.",
        prompt_apart=True,
        events=[{"type": "command", "command": "repeat"}],
        turn=2,
        confirm="53",
    )
    assert Reply.from_json(reply.to_json()) == reply


def test_replies_stored_by_earlier_releases_load_as_written() -> None:
    # Before the prompt was a field of its own it was written into the private lines; such a
    # reply, found again by its idempotency key, reads exactly as it did.
    older = {
        "session_id": "s",
        "news": [],
        "prompt": None,
        "private": ["I didn't catch that. Bob: an odd number above 53."],
        "events": [{"type": "not_understood", "text": "banana"}],
        "turn": 2,
        "next_player": None,
        "game_over": False,
        "accepted": False,
        "confirm": None,
    }
    reply = Reply.from_json(older)
    assert reply.private == ["I didn't catch that. Bob: an odd number above 53."]
    assert reply.answer_prompt is None
    oldest = {"session_id": "s", "public": ["Ann said 53.", "Bob next."], "private": [], "confirm": 53}
    first = Reply.from_json(oldest)
    assert first.news == ["Ann said 53.", "Bob next."] and first.private == [] and first.confirm == "53"

"""The webhooks' own urlencoded parse (``posted_form``) reads a body as Starlette's form
parser does: same fields, same order, repeated keys, escapes and raw bytes alike (the
signature is computed over exactly these)."""

from __future__ import annotations

import asyncio

import pytest
from fastapi import HTTPException
from starlette.datastructures import FormData
from starlette.requests import Request

from host.config import Settings
from host.twilio_security import MAX_FIELDS, posted_form, signed_form

BODIES = [
    b"From=%2B15551234567&To=%2B15005550006&Body=I+bid+3&MessageSid=SM1",
    b"Body=%E2%82%AC%20%ED%95%9C+x&Body=again&Empty=&Bare",
    b"Body=caf\xe9&Odd=%ZZ&Plus=a%2Bb",
    b"",
]


def _request(body: bytes, content_type: str) -> Request:
    sent = False

    async def receive() -> dict[str, object]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/twilio/sms",
        "query_string": b"",
        "headers": [(b"content-type", content_type.encode())],
    }
    return Request(scope, receive)


async def _starlette(request: Request) -> FormData:
    return await request.form()


@pytest.mark.parametrize("body", BODIES)
def test_the_urlencoded_body_reads_as_starlette_reads_it(body: bytes) -> None:
    ours = asyncio.run(posted_form(_request(body, "application/x-www-form-urlencoded; charset=UTF-8")))
    theirs = asyncio.run(_starlette(_request(body, "application/x-www-form-urlencoded")))
    assert list(ours.multi_items()) == list(theirs.multi_items())


def test_a_form_of_too_many_fields_is_refused_not_a_crash() -> None:
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/twilio/sms",
        "headers": [(b"content-type", b"application/x-www-form-urlencoded")],
    }
    body = "&".join(f"f{i}=1" for i in range(MAX_FIELDS + 1)).encode()

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": body, "more_body": False}

    with pytest.raises(HTTPException) as refused:
        asyncio.run(signed_form(Request(scope, receive), Settings()))
    assert refused.value.status_code == 403

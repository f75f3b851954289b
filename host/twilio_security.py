"""``X-Twilio-Signature`` checking with the SDK's ``RequestValidator``.

Behind a proxy or tunnel ``request.url`` is not the address Twilio signed, so the URL is
rebuilt from ``GAMEHOST_PUBLIC_URL`` when it is set. The parameters are the form exactly as
posted, repeated keys included.

Both of Twilio's schemes are accepted: the Auth Token's HMAC-SHA1 (the default), and
HMAC-SHA256 when the request names it in ``X-Twilio-Webhooks-Signature-Settings``
(``key=...,algorithm=HMAC_SHA256``), keyed with ``TWILIO_WEBHOOK_KEY`` if set, else the
Auth Token. The SDK's validator does both (constant-time comparison).

A signature says the form is Twilio's, not that it is the form Twilio sends: a signed form
with a field renamed (``MessageSi=SM...``) still checks out. So the fields Twilio always
sends are required too, and de-duplication keys on the signed SID.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from urllib.parse import parse_qsl, urlparse

from fastapi import HTTPException, Request
from starlette.datastructures import FormData, UploadFile
from twilio.request_validator import (
    HMAC_SHA1,
    HMAC_SHA256,
    SIGNATURE_SETTINGS_HEADER,
    RequestValidator,
    compare,
    get_signature_algorithm,
)

from host.config import Settings

log = logging.getLogger(__name__)

# Fields Twilio sends on every request of a kind (Body may be empty, so it is not here).
REQUIRED: dict[str, tuple[str, ...]] = {
    "/twilio/sms": ("MessageSid", "AccountSid", "From", "To"),
    "/twilio/voice": ("CallSid", "AccountSid"),
}


class Unanswered(Exception):
    """A request that is answered with empty TwiML and changes nothing (see ``create_app``)."""


def signed_url(request: Request, settings: Settings) -> str:
    if settings.public_url:
        url = settings.public_url.rstrip("/") + request.url.path
        if request.url.query:
            url += "?" + request.url.query
        return url
    return str(request.url)


def signature_ok(
    settings: Settings,
    url: str,
    params: FormData | dict[str, str],
    signature: str | None,
    algorithm: str = HMAC_SHA1,
) -> bool:
    if not settings.check_signatures:
        return True
    keys = [settings.twilio_auth_token]
    if algorithm != HMAC_SHA1:
        keys.insert(0, settings.twilio_webhook_key)
    if not signature:
        return False
    signed = _Values(params) if isinstance(params, FormData) else params
    return any(
        _valid(RequestValidator(key.get_secret_value()), url, signed, signature, algorithm)
        for key in keys
        if key is not None
    )


class _Values:
    """A form as the SDK's ``compute_signature`` reads a multi-dict: each name once, and
    ``getall`` its values (repeated keys included). Handed a ``FormData`` the SDK would
    look for ``getall`` first and pay an ``AttributeError`` per field before ``getlist``."""

    __slots__ = ("_values",)

    def __init__(self, form: FormData) -> None:
        values: dict[str, list[str]] = {}
        for name, value in form.multi_items():
            values.setdefault(name, []).append(str(value))
        self._values = values

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def getall(self, name: str) -> list[str]:
        return self._values[name]


def _valid(
    validator: RequestValidator, url: str, params: _Values | dict[str, str], signature: str, algorithm: str
) -> bool:
    """``validator.validate``, trying the URL as it is first: ``validate`` always signs it
    twice, with and without the port, and one of the two is the URL itself. Only when that
    does not match (or a body hash is to be checked) does the SDK try both."""
    if "bodySHA256" not in url and algorithm.upper() in (HMAC_SHA1, HMAC_SHA256):
        as_is = urlparse(url).geturl()  # as the SDK rebuilds it
        if compare(validator.compute_signature(as_is, params, algorithm), signature):
            return True
    return bool(validator.validate(url, params, signature, algorithm))


def required_fields(path: str) -> tuple[str, ...]:
    for prefix, fields in REQUIRED.items():
        if path == prefix or path.startswith(prefix + "/"):
            return fields
    return ()


URLENCODED = "application/x-www-form-urlencoded"
MAX_FIELDS = 1000  # as Starlette's form parser


async def posted_form(request: Request) -> FormData:
    """The form as posted, repeated keys included. Twilio's urlencoded body is split by
    ``parse_qsl``, decoded as Starlette's parser does it (the bytes as Latin-1, escapes as
    UTF-8) at a fifth of its cost; any other body goes to Starlette."""
    if request.headers.get("content-type", "").partition(";")[0].strip().lower() != URLENCODED:
        return await request.form()
    body = (await request.body()).decode("latin-1")
    fields: list[tuple[str, str | UploadFile]] = []
    # More fields than MAX_FIELDS raise ValueError: an unreadable body to signed_form (403).
    fields += parse_qsl(body, keep_blank_values=True, max_num_fields=MAX_FIELDS)
    return FormData(fields)


async def signed_form(request: Request, settings: Settings) -> FormData:
    """The posted form, once its signature checks out; 403 otherwise (nothing changes).
    The webhooks are plain Starlette routes that call this first (FastAPI's dependency
    solving cost more than the parse)."""
    path = request.url.path
    try:
        form = await posted_form(request)
    except Exception:  # a malformed multipart or urlencoded body: not Twilio's
        log.warning("rejected a request to %s with an unreadable body", path)
        raise HTTPException(status_code=403, detail="unreadable form") from None
    if any(not isinstance(value, str) for _, value in form.multi_items()):
        # Twilio posts urlencoded forms; file parts (multipart) are never Twilio's.
        log.warning("rejected a request to %s with file parts", path)
        raise HTTPException(status_code=403, detail="not a Twilio form")
    url = signed_url(request, settings)
    algorithm = get_signature_algorithm(request.headers.get(SIGNATURE_SETTINGS_HEADER))
    if not signature_ok(settings, url, form, request.headers.get("X-Twilio-Signature"), algorithm):
        log.warning("rejected a request to %s with a missing or wrong signature", path)
        raise HTTPException(status_code=403, detail="invalid Twilio signature")
    if settings.check_signatures:
        missing = [name for name in required_fields(path) if not str(form.get(name) or "").strip()]
        if missing:
            log.warning("refused a signed request to %s without %s", path, ", ".join(missing))
            raise Unanswered(path)
    return form

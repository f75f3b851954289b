"""``X-Twilio-Signature`` checking with the SDK's ``RequestValidator``.

Behind a proxy or tunnel ``request.url`` is not the address Twilio signed, so the URL is
rebuilt from ``GAMEHOST_PUBLIC_URL`` when it is set. The parameters are the form exactly as
posted, repeated keys included.
"""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from starlette.datastructures import FormData
from twilio.request_validator import RequestValidator

from host.config import Settings
from host.deps import settings_dep

log = logging.getLogger(__name__)


def signed_url(request: Request, settings: Settings) -> str:
    if settings.public_url:
        url = settings.public_url.rstrip("/") + request.url.path
        if request.url.query:
            url += "?" + request.url.query
        return url
    return str(request.url)


def signature_ok(
    settings: Settings, url: str, params: FormData | dict[str, str], signature: str | None
) -> bool:
    if not settings.check_signatures:
        return True
    token = settings.twilio_auth_token
    if not signature or token is None:
        return False
    return bool(RequestValidator(token.get_secret_value()).validate(url, params, signature))


async def twilio_form(request: Request, settings: Annotated[Settings, Depends(settings_dep)]) -> FormData:
    """The posted form, once its signature checks out; 403 otherwise (nothing changes)."""
    form = await request.form()
    url = signed_url(request, settings)
    if not signature_ok(settings, url, form, request.headers.get("X-Twilio-Signature")):
        log.warning("rejected a request to %s with a missing or wrong signature", request.url.path)
        raise HTTPException(status_code=403, detail="invalid Twilio signature")
    return form


TwilioForm = Annotated[FormData, Depends(twilio_form)]

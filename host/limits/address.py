"""Whose budget a request counts against: its client's address, as the server sees it.

Behind a proxy uvicorn takes the client from ``X-Forwarded-For``, but only on connections
from the proxies named in ``FORWARDED_ALLOW_IPS`` (anyone else could name any address);
the connection's own limits (host/limits/protocol.py) do the same. An IPv6 address counts
with its whole /64, which one household or machine usually has.
"""

from __future__ import annotations

import ipaddress


def client_key(host: str | None) -> str:
    """The key a client's counts are kept under (never a phone number's: a ``web:`` key)."""
    raw = (host or "unknown").strip()
    try:
        address = ipaddress.ip_address(raw)
    except ValueError:
        return f"web:{raw}"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return f"web:{address.ipv4_mapped}"
        return f"web:{ipaddress.IPv6Network((address, 64), strict=False)}"
    return f"web:{address}"

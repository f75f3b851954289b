"""A seat's PIN: what proves a call comes from a player's phone when its caller ID is not
attested (``host/channels/voice``, docs/voice.md "Who a caller is").

A phone number seated in a game (by text or by call) gets a new PIN, which its channel
texts to that number and nowhere else: never spoken on a call, never in a game's log,
replies to others, pages or events, so spectators and the other players cannot learn it.
Only a hash is kept (``members.pin_hash``), salted by the number.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from host.store import Store

PIN_DIGITS = 6  # wrong ones count against the number's budget of wrong codes (host/lobby.py)


def is_phone(address: str) -> bool:
    """A phone number (E.164), not a call's or a browser's own address."""
    return address.startswith("+") and address[1:].isdigit()


def issue(store: Store, address: str) -> str:
    """A new PIN for the seat of ``address`` (seated in this transaction); "" for an address
    that is no phone number."""
    if not is_phone(address):
        return ""
    pin = "".join(secrets.choice("0123456789") for _ in range(PIN_DIGITS))
    store.write("UPDATE members SET pin_hash = ? WHERE address = ?", (_hash(address, pin), address))
    return pin


def matches(store: Store, address: str, pin: str) -> bool:
    """Whether ``pin`` is the PIN of the seat ``address`` has now."""
    rows = store.execute("SELECT pin_hash FROM members WHERE address = ?", (address,))
    stored = rows[0]["pin_hash"] if rows else None
    return bool(stored) and hmac.compare_digest(str(stored), _hash(address, pin.strip()))


def _hash(address: str, pin: str) -> str:
    return hashlib.sha256(f"{address}:{pin}".encode()).hexdigest()

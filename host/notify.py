"""Tell everyone else at a table what happened, each on their own channel.

The channel that took a request answers its sender itself (TwiML reply, spoken prompt);
everybody else in the game hears about it through the notifier of their channel: SMS
players by REST message, callers by a live call update. Channels register notifiers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from host.lobby import Lobby, Member
from host.outbound import Outbound
from host.reply import Reply

log = logging.getLogger(__name__)

Notifier = Callable[[Outbound, Member, Reply], None]
_notifiers: dict[str, Notifier] = {}


def register(channel: str, notifier: Notifier) -> None:
    _notifiers[channel] = notifier


def tell(outbound: Outbound, member: Member, reply: Reply) -> bool:
    """Send ``reply.public`` to one member through their channel (a turn reminder)."""
    if not reply.public:
        return False
    notifier = _notifiers.get(member.channel)
    if notifier is None:
        log.warning("no notifier for channel %s (member %s)", member.channel, member.name)
        return False
    try:
        notifier(outbound, member, reply)
    except Exception:  # one unreachable phone must not stop the others hearing
        log.exception("notifying %s failed", member.name)
        return False
    return True


def reachable(lobby: Lobby, member: Member) -> bool:
    """An SMS opt-out (STOP) silences texts only: the same number on a call still hears."""
    return member.channel != "sms" or not lobby.opted_out(member.address)


def fan_out(lobby: Lobby, outbound: Outbound, reply: Reply, exclude: str | None = None) -> None:
    """Send the public part of ``reply`` to every member except ``exclude`` (an address)."""
    if not reply.public:
        return
    for member in lobby.members(reply.session_id):
        if member.address != exclude and reachable(lobby, member):
            tell(outbound, member, reply)

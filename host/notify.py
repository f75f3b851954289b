"""Tell everyone else at a table what happened, each on their own channel.

The channel that took a request answers its sender itself (TwiML reply, spoken prompt);
everybody else in the game hears about it through the notifier of their channel: SMS
players by REST message, callers by a live call update, a caller on a media stream in the
stream. The app keeps one :class:`Notifiers` (``app.state.notifiers``); each channel's
``setup`` registers its notifier there, bound to its own service.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from host.lobby import Lobby, Member
from host.reply import Reply

log = logging.getLogger(__name__)

#: Sends a reply's public lines to one member (into the outbox, in the caller's transaction).
Notifier = Callable[[Member, Reply], None]


class Notifiers:
    """The app's notifiers by channel name."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self._by_channel: dict[str, Notifier] = {}

    def register(self, channel: str, notifier: Notifier) -> None:
        self._by_channel[channel] = notifier

    def tell(self, member: Member, reply: Reply) -> bool:
        """Send ``reply.public`` to one member through their channel (a turn reminder)."""
        if not reply.public:
            return False
        notifier = self._by_channel.get(member.channel)
        if notifier is None:
            log.warning("no notifier for channel %s (member %s)", member.channel, member.name)
            return False
        try:
            notifier(member, reply)
        except Exception:  # one unreachable phone must not stop the others hearing
            log.exception("notifying %s failed", member.name)
            return False
        return True

    def reachable(self, member: Member) -> bool:
        """An SMS opt-out (STOP) silences texts only: the same number on a call still hears."""
        return member.channel != "sms" or not self.lobby.opted_out(member.address)

    def tell_player(self, reply: Reply, player: str) -> None:
        """Send the public part of ``reply`` to the member of its game named ``player`` (a
        turn reminder)."""
        for member in self.lobby.members(reply.session_id):
            if member.name == player and self.reachable(member):
                self.tell(member, reply)

    def fan_out(self, reply: Reply, exclude: str | None = None) -> None:
        """Send the public part of ``reply`` to every member except ``exclude`` (an address)."""
        if not reply.public:
            return
        for member in self.lobby.members(reply.session_id):
            if member.address != exclude and self.reachable(member):
                self.tell(member, reply)

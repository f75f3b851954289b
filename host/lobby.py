"""Games people reach by phone: join codes, who is in which game, opt-outs.

A phone number (SMS or a call) is in at most one active game. The creator gets a join
code of digits, so it can be typed on a keypad and read out digit by digit; six random
digits plus a cap on wrong guesses per number make it hard to guess.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any, Literal

from host.referee import Referee
from host.reply import Reply
from host.session import Player, SessionConfig
from host.store import Read, Row, Store

CODE_DIGITS = 6
MAX_FAILED_JOINS = 5  # per number per hour; a million codes then take years to guess
FAILURE_WINDOW = 3600.0
# Callers who are only their call (a withheld or unattested number) would get a fresh budget
# on every call: they share one, counted across all their calls.
UNIDENTIFIED = "unidentified"
MAX_FAILED_UNIDENTIFIED = 20
_MEMO = "lobby"  # what a transaction has read of the lobby's tables (Store.memo)


@dataclass(frozen=True)
class Member:
    address: str
    session_id: str
    name: str
    channel: str
    call_sid: str | None = None


JoinError = Literal["no_such_game", "already_in_game", "started", "name_taken", "too_many_tries", "full"]


@dataclass(frozen=True)
class Joined:
    session_id: str
    name: str
    code: str


class Lobby:
    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.store: Store = referee.store

    # -- membership ------------------------------------------------------------------------
    #
    # Inside a transaction what was read is remembered (``Store.memo``) until it ends or
    # this class writes to its tables: a text reads its sender, their game's members, who
    # has opted out and which of our numbers each texted in one statement (``game_of``),
    # and telling the others reads nothing more.

    def _memo(self) -> dict[tuple[str, str], Any] | None:
        return self.store.memo(_MEMO)

    def _changed(self) -> None:
        """A write to the lobby's tables: what this transaction remembered may be stale."""
        memo = self._memo()
        if memo is not None:
            memo.clear()

    def game_of(self, address: str) -> Member | None:
        """The member ``address`` is (None: in no game), with their game's members, the
        opt-outs and the number of ours each last texted read in the same statement: the
        transaction asks for none of them again; nor for their game's row, read (and on
        PostgreSQL locked) in it too: what they sent is ruled on next."""
        read = self.reading_game_of(address)
        return self._took_game_of(address, self.store.execute(read.sql, read.params))

    def reading_game_of(self, address: str) -> Read:
        """``game_of`` as a read to send with another in one round trip (the SMS route sends
        it with the look-up of stored replies): its rows are remembered as ``game_of``'s."""
        game = self.store.session_read_with("SELECT session_id FROM members WHERE address = :address")
        sql = (
            f"WITH {game}"
            " SELECT a.address AS asked, m.address, m.session_id, m.name, m.channel, m.call_sid,"
            " (SELECT 1 FROM optouts o WHERE o.address = COALESCE(m.address, a.address)) AS opted_out,"
            " (SELECT n.host FROM sms_numbers n WHERE n.address = COALESCE(m.address, a.address)) AS host,"
            " s.*"
            " FROM (SELECT CAST(:address AS TEXT) AS address) a"
            " LEFT JOIN members m"
            " ON m.session_id = (SELECT session_id FROM members WHERE address = a.address)"
            " LEFT JOIN s ON 1 = 1"
            " ORDER BY m.joined"
        )
        return Read(sql, {"address": address}, lambda rows: self._took_game_of(address, rows))

    def _took_game_of(self, address: str, rows: list[Row]) -> Member | None:
        self.store.took_session(rows[0])
        members = [_member(r) for r in rows if r["address"] is not None]
        memo = self._memo()
        if memo is not None:
            for r in rows:
                known = r["address"] or address
                memo["optout", known] = bool(r["opted_out"])
                memo["host", known] = r["host"]
            for m in members:
                memo["member", m.address] = m
            if members:
                memo["members", members[0].session_id] = members
            memo.setdefault(("member", address), None)
        return next((m for m in members if m.address == address), None)

    def member(self, address: str) -> Member | None:
        memo = self._memo()
        if memo is not None and ("member", address) in memo:
            found: Member | None = memo["member", address]
            return found
        rows = self.store.execute("SELECT * FROM members WHERE address = ?", (address,))
        member = _member(rows[0]) if rows else None
        if memo is not None:
            memo["member", address] = member
        return member

    def members(self, session_id: str) -> list[Member]:
        memo = self._memo()
        if memo is not None and ("members", session_id) in memo:
            return list(memo["members", session_id])
        rows = self.store.execute("SELECT * FROM members WHERE session_id = ? ORDER BY joined", (session_id,))
        members = [_member(r) for r in rows]
        if memo is not None:
            memo["members", session_id] = members
        return list(members)

    def set_call(self, address: str, call_sid: str | None, channel: str | None = None) -> None:
        """The member's live call (None: not on one), and their channel when ``channel`` is given."""
        self._changed()
        self.store.execute(
            "UPDATE members SET call_sid = ?, channel = COALESCE(?, channel) WHERE address = ?",
            (call_sid, channel, address),
        )

    def _add_member(
        self, address: str, session_id: str, name: str, channel: str, call_sid: str | None
    ) -> None:
        self._changed()
        self.store.execute(
            "INSERT INTO members (address, session_id, name, channel, call_sid, joined)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (address, session_id, name, channel, call_sid, time.time()),
        )

    # -- the number of ours each address texts -------------------------------------------

    def host_number(self, address: str) -> str | None:
        """The number of ours ``address`` last texted (messages to it go out from that)."""
        return host_number(self.store, address)

    def texted(self, address: str, host: str, at: float) -> None:
        """``address`` texted our number ``host``: written only when that is news."""
        if self.host_number(address) == host:
            return
        self.store.write(
            "INSERT INTO sms_numbers (address, host, at) VALUES (?, ?, ?)"
            " ON CONFLICT (address) DO UPDATE SET host = excluded.host, at = excluded.at",
            (address, host, at),
        )
        memo = self._memo()
        if memo is not None:
            memo["host", address] = host

    # -- games -----------------------------------------------------------------------------

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice("0123456789") for _ in range(CODE_DIGITS))
            row = self.store.session_by_code(code)
            if row is None:
                return code

    def create(
        self,
        address: str,
        name: str,
        channel: str,
        config: SessionConfig,
        call_sid: str | None = None,
    ) -> Joined:
        """A new game in the lobby with its creator seated; the creator starts it. A
        creator whose lobby is still open gets that one again (one NEW, one game)."""
        with self.store.transaction():
            if (mine := self.open_lobby(address)) is not None:
                return mine
            code = self._new_code()
            session_id = self.referee.create(config, [Player(name, address, channel)], code=code, begin=False)
            self._add_member(address, session_id, name, channel, call_sid)
        return Joined(session_id, name, code)

    def open_lobby(self, address: str) -> Joined | None:
        """The game ``address`` made that has not started yet, if any."""
        member = self.member(address)
        row = self.store.session(member.session_id) if member is not None else None
        if member is None or row is None or row.status != "lobby" or self.creator(row.id) != address:
            return None
        return Joined(row.id, member.name, row.code or "")

    def join(
        self, address: str, code: str, name: str, channel: str, call_sid: str | None = None
    ) -> Joined | JoinError:
        now = time.time()
        with self.store.transaction():
            if self.member(address) is not None:
                return "already_in_game"
            if self.out_of_guesses(address, now):
                return "too_many_tries"
            row = self.store.session_by_code(code.strip())
            if row is None or row.status == "closed":
                self.wrong_guess(address, now)
                return "no_such_game"
            table = self.referee.table(row.id)
            if table.running:
                return "started"
            limit = table.spec.max_players
            if limit is not None and len(table.players) >= limit:
                return "full"
            if any(p.name.casefold() == name.casefold() for p in table.players):
                return "name_taken"
            self.referee.join(row.id, name, address, channel)
            self._add_member(address, row.id, name, channel, call_sid)
            return Joined(row.id, name, code)

    @staticmethod
    def _guesser(address: str) -> tuple[str, int]:
        """Whose budget a guess counts against, and its size."""
        if address.startswith(("call:", "guest:")):
            return UNIDENTIFIED, MAX_FAILED_UNIDENTIFIED
        return address, MAX_FAILED_JOINS

    def out_of_guesses(self, address: str, now: float) -> bool:
        key, most = self._guesser(address)
        query = "SELECT COUNT(*) AS n FROM join_failures WHERE address = ? AND at > ?"
        recent = self.store.execute(query, (key, now - FAILURE_WINDOW))[0]["n"]
        return int(recent) >= most

    def wrong_guess(self, address: str, now: float) -> None:
        key = self._guesser(address)[0]
        self.store.execute("INSERT INTO join_failures (address, at) VALUES (?, ?)", (key, now))

    def creator(self, session_id: str) -> str | None:
        table = self.referee.table(session_id)
        return table.players[0].address if table.players else None

    def leave(self, address: str) -> Reply | None:
        """Take a number out of its game cleanly (LEAVE, an opt-out, a hang-up)."""
        with self.store.transaction():
            member = self.member(address)
            if member is None:
                return None
            reply = self.referee.leave(member.session_id, member.name)
            self._drop(member)
            return reply

    def left(self, address: str, reply: Reply) -> bool:
        """Whether ``reply`` is the referee's ruling on the "leave" that ``address``'s player
        said (its events say so); if it is, the number is taken off its game's members, as
        :meth:`leave` would have, and the channel says goodbye."""
        said_leave = any(e.get("type") == "command" and e.get("command") == "leave" for e in reply.events)
        if not (reply.accepted and said_leave):
            return False
        member = self.member(address)
        if member is None or member.session_id != reply.session_id:
            return False
        self._drop(member)
        return True

    def _drop(self, member: Member) -> None:
        """Off its game's members (ruled out by the referee already); the last one out
        closes the game."""
        self._changed()
        self.store.execute("DELETE FROM members WHERE address = ?", (member.address,))
        if not self.members(member.session_id):
            self.store.set_status(member.session_id, "closed")

    # -- opt-outs --------------------------------------------------------------------------

    def opted_out(self, address: str) -> bool:
        memo = self._memo()
        if memo is not None and ("optout", address) in memo:
            return bool(memo["optout", address])
        out = bool(self.store.execute("SELECT 1 FROM optouts WHERE address = ?", (address,)))
        if memo is not None:
            memo["optout", address] = out
        return out

    def opt_out(self, address: str) -> Reply | None:
        with self.store.transaction():
            self._changed()
            self.store.execute(
                "INSERT INTO optouts (address, at) VALUES (?, ?)"
                " ON CONFLICT (address) DO UPDATE SET at = excluded.at",
                (address, time.time()),
            )
            return self.leave(address)

    def opt_in(self, address: str) -> None:
        self._changed()
        self.store.execute("DELETE FROM optouts WHERE address = ?", (address,))


def host_number(store: Store, address: str) -> str | None:
    """``Lobby.host_number`` for whoever has only the store (the SMS notifier)."""
    memo = store.memo(_MEMO)
    if memo is not None and ("host", address) in memo:
        known: str | None = memo["host", address]
        return known
    rows = store.execute("SELECT host FROM sms_numbers WHERE address = ?", (address,))
    host = str(rows[0]["host"]) if rows else None
    if memo is not None:
        memo["host", address] = host
    return host


def _member(row: Row) -> Member:
    return Member(row["address"], row["session_id"], row["name"], row["channel"], row["call_sid"])

"""The voice channel's service and the small values a request is read into: where a call
plays (``Where``) and the turn token its actions carry (``Token``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.base import GameSpec, all_games
from host.channels.voice.calls import Call, Calls
from host.config import Settings
from host.lobby import Lobby
from host.notify import Notifiers
from host.outbound import Outbound
from host.referee import Referee
from host.reply import Reply
from host.session import SessionConfig, Table
from host.workers import Workers

CHANNEL = "voice"


@dataclass
class VoiceChannel:
    """The voice channel's service (``app.state.voice``)."""

    settings: Settings
    referee: Referee
    lobby: Lobby
    outbound: Outbound
    notifiers: Notifiers
    calls: Calls
    workers: Workers  # the app's threads for the store work (host/workers.py)
    # Whether calls in a language may be streamed to our recogniser (``create_app`` sets
    # it from the media channel when GAMEHOST_VOICE_RECOGNIZER=vosk): lang -> ready.
    streams: Callable[[str], bool] | None = None

    def lang(self, call: Call) -> str:
        """The language ``call`` speaks before it is in a game (the game's own after)."""
        return call.lang or self.settings.lang

    def fan_out(self, reply: Reply | None, exclude: str) -> None:
        """Tell the others: their updates go into the outbox in the request's transaction
        (``requests.answer``), committed with the move; the outbox sender makes the REST calls."""
        if reply is not None and reply.public:
            self.notifiers.fan_out(reply, exclude)

    def config(self, mode: str, shared: bool, lang: str) -> SessionConfig:
        """A one-phone game has no turn clock: hanging up pauses it until the phone calls
        back. Games of several phones get the backstop turn timeout."""
        spec = voice_game()
        return SessionConfig(
            game=spec.name,
            options=dict(spec.option_words.get(mode, {})),
            lang=lang,
            confirm_below=self.settings.confirm_below,
            undo_grace=self.settings.table_undo_grace,
            turn_timeout=None if shared or not spec.timed else self.settings.voice_turn_timeout,
        )


def voice_game() -> GameSpec[Any, Any, Any]:
    """The game a call's menu starts: the default game if it suits a call, else the first that does."""
    suits = [s for s in all_games() if CHANNEL in s.channels]
    return next((s for s in suits if s.default), suits[0])


@dataclass(frozen=True)
class Where:
    """The game a call plays in, and as whom (``speaker`` None: everyone on one phone)."""

    session_id: str
    speaker: str | None
    address: str


@dataclass(frozen=True)
class Token:
    session_id: str
    turn: int

    @classmethod
    def parse(cls, text: str | None) -> Token | None:
        parts = (text or "").split(".")
        # A turn number of more than 9 digits is no token of ours (a forged query value).
        if len(parts) != 3 or not parts[1].lstrip("-").isdigit() or len(parts[1]) > 10:
            return None
        return cls(parts[0], int(parts[1]))


def where_of(v: VoiceChannel, call: Call) -> Where | None:
    """The game ``call`` plays in, if it is in one."""
    if call.shared and call.session_id is not None:
        return Where(call.session_id, None, call.address)
    # With the game's members, opt-outs and numbers: telling the others reads nothing more.
    member = v.lobby.game_of(call.address)
    if member is not None and member.call_sid == call.sid:
        return Where(member.session_id, member.name, call.address)
    return None


def creator_of(table: Table) -> str | None:
    """``Lobby.creator`` from a table already read."""
    return table.players[0].address if table.players else None


def turn_of(table: Table) -> int:
    return table.state.turn if table.state is not None else 0


def for_this_turn(token: Token | None, where: Where, table: Table) -> bool:
    """Was this token handed out for the turn the game is at now?"""
    return token is not None and token.session_id == where.session_id and token.turn == turn_of(table)

"""The referee: who may speak, read-backs, undo, and the ruling, for any game.

One path for every move: the game's talk reads the words into a proposal (text channels:
:meth:`Referee.handle`), or a listener hands over what it heard as a meaning
(:meth:`Referee.handle_heard`, ``host/heard.py``); the game's rules judge it (``refusal``),
what was heard unsurely is read back first (``host/confirm.py``), and the ruling is
written to the session's log (``host/session.py``) before anything is announced. A
repeated request key (an SMS MessageSid, a voice turn token) finds the reply it got the
first time. The referee knows games only through ``games/base.py``.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from games.base import Answer, Command, Moves, Unclear
from games.core import End, Event, Leave, json_value
from grammars import load
from grammars.reader import parse
from host.answers import (
    describe_events,
    event_json,
    move_fields,
    not_understood,
    prompt_text,
    refused,
    turn_event,
    unclear,
)
from host.confirm import command_read_back, confirm_line, needs_confirmation, unsure
from host.heard import HeardMeaning, SpeechText, answer_words, heard_proposal, other_readings
from host.reply import Reply
from host.session import (
    Ask,
    Begin,
    Drop,
    Play,
    Player,
    SessionConfig,
    Table,
    TimeOut,
    Undo,
    Unseat,
    apply,
    is_game_move,
    replay,
)
from host.session import Seat as SeatInput
from host.store import Store, StoredInput
from host.table_cache import DEFAULT_SIZE, TableCache

log = logging.getLogger(__name__)

Clock = Callable[[], float]

_TABLES = "referee.tables"  # a transaction's own tables (Store.memo)


class Refused(ValueError):
    """A move given directly (``Referee.act``) that the rules refuse; the message says why."""


#: How an utterance reached the referee besides its words: None typed or texted, a phone's
#: speech as text, or a meaning a listener heard.
Spoken = SpeechText | HeardMeaning | None


def _unsure(table: Table, hearing: Spoken) -> bool:
    if hearing is None:
        return False
    return unsure(hearing.confidence, table.config.confirm_below) or (
        isinstance(hearing, HeardMeaning) and hearing.unsure
    )


class Referee:
    def __init__(self, store: Store, clock: Clock = time.time, cache_size: int = DEFAULT_SIZE) -> None:
        self.store = store
        self.clock = clock
        # Committed tables only; a transaction's own are in its memo until it commits.
        self._cache = TableCache(cache_size)

    # -- sessions --------------------------------------------------------------------------

    def create(
        self,
        config: SessionConfig,
        players: Sequence[str | Player] = (),
        *,
        code: str | None = None,
        begin: bool = True,
    ) -> str:
        """A new session; with ``begin`` the first game starts. Raises ValueError for
        options or players the game cannot take, before anything is stored."""
        spec = config.spec
        options = spec.make_options(config.options)
        config = config.model_copy(update={"game": spec.name, "options": spec.options_json(options)})
        names = tuple(p if isinstance(p, str) else p.name for p in players)
        if begin:
            spec.rules.new_game(names, options, 0, None)
        status = "active" if begin else "lobby"
        session_id = self.store.create_session(spec.name, config.model_dump(mode="json"), code, status)
        now = self.clock()
        with self.store.transaction():
            for p in players:
                player = p if isinstance(p, Player) else Player(p)
                seat = SeatInput(name=player.name, address=player.address, channel=player.channel)
                self._append(session_id, seat, now)
            if begin:
                self._append(session_id, Begin(seed=self._seed(session_id)), now)
        return session_id

    @staticmethod
    def _seed(session_id: str) -> int:
        # Games draw randomness only from this: one per session, kept in the log.
        return int(hashlib.sha256(session_id.encode()).hexdigest()[:8], 16)

    def table(self, session_id: str) -> Table:
        row = self.store.session(session_id)  # inside a transaction: read (and locked) once
        if row is None:
            raise KeyError(session_id)
        mine = self.store.memo(_TABLES)
        cached = mine.get(session_id) if mine is not None else None
        if cached is None:
            cached = self._cache.get(session_id)
        last = row.seq
        if cached is not None and cached.seq == last:
            table = cached
        elif cached is not None and cached.seq < last:
            table = cached
            for stored in self.store.inputs(session_id, after=cached.seq):
                table, _ = apply(table, stored)
        else:
            table = replay(SessionConfig.model_validate(row.config), self.store.inputs(session_id))
        if table is not cached:
            self._keep(session_id, table, mine)
        return table

    def _keep(self, session_id: str, table: Table, mine: dict[str, Table] | None) -> None:
        """Remember a table: for everyone at once outside a transaction, else in the
        transaction's memo, shared when (and only if) it commits."""
        if mine is None:
            self._cache.put(session_id, table)
            return
        if session_id not in mine:
            self.store.after_commit(lambda: self._cache.put(session_id, mine[session_id]))
        mine[session_id] = table

    def _append(self, session_id: str, item: BaseModel, now: float) -> list[Event]:
        """Log an input (inside the caller's transaction) and fold it into the cached table."""
        table = self.table(session_id)
        body = item.model_dump(mode="json")
        # Rule first, so an input the game refuses never reaches the log.
        new_table, events = apply(table, StoredInput(table.seq + 1, now, body))
        seq = self.store.append(session_id, body, now)
        assert seq == new_table.seq, "log out of step with the cached table"
        self._keep(session_id, new_table, self.store.memo(_TABLES))
        return events

    def join(
        self, session_id: str, name: str, address: str | None = None, channel: str | None = None
    ) -> Table:
        with self.store.transaction():
            self._append(session_id, SeatInput(name=name, address=address, channel=channel), self.clock())
            return self.table(session_id)

    def unseat(self, session_id: str, name: str) -> Table:
        with self.store.transaction():
            self._append(session_id, Unseat(name=name), self.clock())
            return self.table(session_id)

    def begin(self, session_id: str) -> Reply:
        """Start a game with the seated players (creator's START, or a new game)."""
        with self.store.transaction():
            return self._begin(session_id, self.table(session_id), self.clock())

    def _begin(self, session_id: str, table: Table, now: float) -> Reply:
        g = load(table.lang)
        self._append(session_id, Begin(seed=self._seed(session_id) + table.games), now)
        self.store.set_status(session_id, "active")
        table = self.table(session_id)
        reply = Reply(session_id, accepted=True)
        reply.news.append(g.phrase("new_game", players=", ".join(table.names)))
        reply.events.append({"type": "new_game", "players": list(table.names), "game": table.games})
        self._after_ruling(table, reply)
        return reply

    # -- requests --------------------------------------------------------------------------

    def handle(
        self,
        session_id: str,
        text: str,
        speaker: str | None = None,
        *,
        key: str | None = None,
        hearing: SpeechText | None = None,
    ) -> Reply:
        """Referee one utterance as words: typed, texted, or a phone's speech (``hearing``:
        what its recogniser heard, with a confidence). ``speaker`` None means a shared
        device: moves are taken as the current player's. A repeated ``key`` returns the
        first reply unchanged."""
        with self.store.transaction():
            if key is not None and (saved := self.store.reply(key)) is not None:
                return Reply.from_json(saved)
            said = hearing.alternatives[0] if hearing is not None and hearing.alternatives else text
            reply = self._handle(session_id, said, speaker, hearing, self.clock())
            if key is not None:
                self.store.save_reply(key, session_id, reply.to_json())
            return reply

    def handle_heard(self, session_id: str, heard: HeardMeaning, speaker: str | None = None) -> Reply:
        """Referee what a listener heard (``host/listening/``): its meaning is ruled as it
        is, never turned back into words. ``speaker`` as for :meth:`handle`."""
        with self.store.transaction():
            return self._handle(session_id, heard.text, speaker, heard, self.clock())

    def act(self, session_id: str, move: Any, text: str = "") -> Reply:
        """Rule a move given directly (setup from command-line options). Raises Refused
        with the answer a player would get if the rules refuse it."""
        with self.store.transaction():
            table = self.table(session_id)
            if not table.running:
                raise Refused(load(table.lang).phrase("no_game"))
            problem = table.spec.rules.refusal(table.state, move)
            if problem is not None:
                raise Refused(" ".join(refused(table, problem, Reply(session_id)).private))
            return self._rule(session_id, move, text, Reply(session_id), self.clock())

    def timeout(self, session_id: str, turn: int) -> Reply | None:
        """The turn numbered ``turn`` ran out. Stale or repeated timeouts do nothing."""
        with self.store.transaction():
            table = self.table(session_id)
            if not table.running or table.state.turn != turn:
                return None
            if not table.spec.rules.on_timeout(table.state)[1]:
                return None  # no turn clock in this game
            reply = Reply(session_id, accepted=True)
            events = self._append(session_id, TimeOut(turn=turn), self.clock())
            self._announce(self.table(session_id), events, reply)
            return reply

    def leave(self, session_id: str, player: str) -> Reply:
        with self.store.transaction():
            return self._leave(session_id, self.table(session_id), player, self.clock())

    def _leave(self, session_id: str, table: Table, player: str, now: float) -> Reply:
        reply = Reply(session_id)
        g = load(table.lang)
        if table.player(player) is None:
            reply.answer.append(g.phrase("not_playing", player=player))
            return reply
        reply.accepted = True
        move = Leave(player)
        if table.running and table.spec.rules.refusal(table.state, move) is None:
            events = self._append(session_id, Play(move=table.spec.encode_move(move)), now)
            self._announce(self.table(session_id), events, reply)
        else:
            # Out of the game already, or no game running: off the table for the next one.
            self._append(session_id, Unseat(name=player), now)
            reply.news.append(g.phrase("left", player=player))
            reply.events.append({"type": "left", "player": player})
        return reply

    # -- one utterance -----------------------------------------------------------------------

    def _handle(self, session_id: str, said: str, speaker: str | None, hearing: Spoken, now: float) -> Reply:
        table = self.table(session_id)
        g = load(table.lang)
        reply = Reply(session_id)
        if speaker is not None and table.player(speaker) is None:
            reply.answer.append(g.phrase("not_playing", player=speaker))
            return reply
        asked = table.asked
        if asked is not None and (
            (asked.command is None and not table.running)
            or table.state is None
            or table.state.turn != asked.turn
            or asked.lapsed(now)
        ):
            self._append(session_id, Drop(), now)  # the question went stale, or unanswered
            table, asked = self.table(session_id), None
        if asked is not None and not (speaker is None or not asked.player or speaker == asked.player):
            asked = None  # not theirs to answer
        talk = table.spec.talk
        open_mic = isinstance(hearing, HeardMeaning) and hearing.open_mic
        if asked is not None and asked.command is not None:
            if isinstance(hearing, HeardMeaning):
                words = answer_words(hearing.meaning)
            else:
                words = frozenset(parse(said, table.lang).commands)
            answered = self._answer_command(
                session_id, table, asked.command, words, speaker, reply, now, open_mic=open_mic
            )
            if answered is not None:
                return answered
            asked = None
        asked_move = asked.move if asked is not None else None
        if isinstance(hearing, HeardMeaning):
            proposal = heard_proposal(table, hearing.meaning, asked_move)
        else:
            proposal = talk.read(said, table.state, table.names, speaker, asked_move, table.lang)
        if isinstance(proposal, Answer):
            if asked is None:  # yes or no, and nothing was asked (of this speaker)
                reply.events.append({"type": "not_understood", "text": said[:200]})
                return not_understood(table, reply)
            if proposal.yes:
                return self._judge(session_id, table, asked.move, said, None, reply, now)
            self._append(session_id, Drop(), now)
            player = asked.player or (speaker or "")
            reply.events.append(
                {"type": "not_confirmed", "player": player, **move_fields(table.spec, asked.move)}
            )
            return not_understood(table, reply)
        if isinstance(proposal, Command):
            if table.state is not None and command_read_back(
                proposal.name, open_mic=open_mic, unsure=_unsure(table, hearing), running=table.running
            ):
                return self._ask(
                    session_id,
                    table,
                    None,
                    reply,
                    now,
                    command=proposal.name,
                    player=speaker,
                    shared=speaker is None,
                    again=open_mic,
                    hearing=hearing,
                )
            return self._command(session_id, table, proposal.name, speaker, reply, now)
        if isinstance(proposal, Unclear) and not proposal.about_move:
            return unclear(table, proposal, reply)
        if not table.running:
            reply.answer.append(g.phrase("game_finished" if table.state is not None else "no_game"))
            return reply
        acting = table.to_act()
        # Answered even when heard doubtfully: "Waiting for Ann." interrupts no more than a
        # read-back would and cannot change the game; not answering left a pitched voice's
        # move out of turn, kept only by the lenient gate, unanswered (tests/table/test_speakers.py).
        if speaker is not None and acting and speaker not in acting:
            current = table.current_player or ", ".join(sorted(acting))
            reply.events.append({"type": "not_your_turn", "player": speaker, "current": current})
            reply.answer.append(g.phrase("not_your_turn", player=current))
            reply.turn, reply.next_player = table.state.turn, table.current_player
            return reply
        if isinstance(proposal, Unclear):
            return unclear(table, proposal, reply)
        assert isinstance(proposal, Moves)
        if len(proposal.candidates) > 1:
            return unclear(table, talk.ambiguous(proposal.candidates, table.lang), reply)
        move = proposal.candidates[0]
        # Words said after "Did you say ...?" were said twice: no second question.
        heard = hearing if asked is None else None
        return self._judge(session_id, table, move, said, heard, reply, now, shared=speaker is None)

    def _judge(
        self,
        session_id: str,
        table: Table,
        move: Any,
        text: str,
        hearing: Spoken,
        reply: Reply,
        now: float,
        *,
        shared: bool = False,
    ) -> Reply:
        spec, state = table.spec, table.state
        problem = spec.rules.refusal(state, move)
        # A doubtful hearing at a table is evidence, not a move: a refusal of it, said over the
        # table, answers talk ("Ann you look great tonight" heard as "two blue cards ten").
        doubtful = isinstance(hearing, HeardMeaning) and hearing.doubtful
        if problem is not None and not doubtful:
            if table.asked is not None and table.asked.move == move:
                self._append(session_id, Drop(), now)  # asked about, said again or yes: refused now
            fields = {k: json_value(v) for k, v in problem.fields.items()}
            reply.events.append({"type": "refused", "reason": problem.reason, **fields})
            reply.turn, reply.next_player = state.turn, table.current_player
            return refused(table, problem, reply)
        if hearing is not None and (
            doubtful
            or needs_confirmation(
                spec.talk,
                state,
                move,
                table.lang,
                unsure=_unsure(table, hearing),
                readings=other_readings(table, hearing),
            )
        ):
            return self._ask(session_id, table, move, reply, now, shared=shared, hearing=hearing)
        return self._rule(session_id, move, text, reply, now)

    def _ask(
        self,
        session_id: str,
        table: Table,
        move: Any,
        reply: Reply,
        now: float,
        *,
        command: str | None = None,
        player: str | None = None,
        shared: bool = False,
        again: bool = False,
        hearing: Spoken = None,
    ) -> Reply:
        """Speech: a costly move heard unsurely, or a command that takes back or ends
        something, is read back before it counts. ``shared``: heard at a shared microphone,
        so the question names whose move (or leave) it is. ``again``: the command must be
        said again to count (see :meth:`_answer_command`)."""
        spec = table.spec
        lapse = hearing.lapse if isinstance(hearing, HeardMeaning) else None
        if command is not None:
            who = player or (table.current_player or "" if command == "leave" and table.running else "")
            ask = Ask(command=command, player=who, turn=table.state.turn, lapse=lapse)
            self._append(session_id, ask, now)
            what = load(table.lang).commands[command][0]
            fields: dict[str, Any] = {"command": command}
        else:
            who = spec.rules.owner(move) or ""
            ask = Ask(move=spec.encode_move(move), player=who, turn=table.state.turn, lapse=lapse)
            self._append(session_id, ask, now)
            what = spec.talk.move_text(move, table.lang)
            fields = move_fields(spec, move)
        reply.confirm = what
        reply.events.append({"type": "confirm", "player": who, "what": what, **fields})
        reply.answer.append(confirm_line(table.lang, what, who if shared else "", again=again))
        reply.turn, reply.next_player = table.state.turn, table.current_player
        return reply

    def _rule(self, session_id: str, move: Any, text: str, reply: Reply, now: float) -> Reply:
        spec = self.table(session_id).spec
        events = self._append(session_id, Play(move=spec.encode_move(move), text=text[:200]), now)
        reply.accepted = True
        self._announce(self.table(session_id), events, reply)
        return reply

    # -- commands ------------------------------------------------------------------------------

    def _answer_command(
        self,
        session_id: str,
        table: Table,
        command: str,
        words: frozenset[str],
        speaker: str | None,
        reply: Reply,
        now: float,
        *,
        open_mic: bool = False,
    ) -> Reply | None:
        """Yes or no to "Did you say undo?", or the command said again (``words``: the
        commands said); None: the words are read as they stand. By an open microphone only
        the command said again confirms it: a "that's right" at a table may be about
        anything."""
        if "no" not in words:
            if command in words or ("yes" in words and not open_mic):
                self._append(session_id, Drop(), now)
                return self._command(session_id, self.table(session_id), command, speaker, reply, now)
            if "yes" in words:  # at an open microphone: the reminder, the question kept
                what = load(table.lang).commands[command][0]
                reply.answer.append(load(table.lang).phrase("confirm_again", what=what))
                return reply
            return None
        # "No": nothing is taken back or ended, and the question is closed, so a later
        # "yes" about something else cannot answer it.
        self._append(session_id, Drop(), now)
        reply.events.append({"type": "not_confirmed", "player": speaker or "", "command": command})
        return not_understood(table, reply)

    def _command(
        self, session_id: str, table: Table, name: str, speaker: str | None, reply: Reply, now: float
    ) -> Reply:
        answered = self._run_command(session_id, table, name, speaker, reply, now)
        event = next((e for e in answered.events if e.get("type") == "command"), None)
        if event is not None and answered.private:
            event["answer"] = answered.private  # --json carries every answer too, as written
        return answered

    def _run_command(
        self, session_id: str, table: Table, name: str, speaker: str | None, reply: Reply, now: float
    ) -> Reply:
        lang = table.lang
        g = load(lang)
        talk, state = table.spec.talk, table.state
        reply.events.append({"type": "command", "command": name})
        if name == "help":
            reply.answer.append(talk.help(lang))
        elif name == "rules":
            reply.answer.append(talk.rules(table.options, lang))
        elif name == "undo":
            return self._undo(session_id, table, speaker, reply, now)
        elif name == "new_game":
            if table.running:
                reply.answer.append(g.phrase("game_running"))
            elif not table.spec.seats(len(table.players)):
                reply.answer.append(g.phrase("need_players", count=table.spec.min_players))
            else:
                begun = self._begin(session_id, table, now)
                begun.events[:0] = reply.events
                return begun
        elif name == "leave":
            player = speaker or table.current_player
            if player is None:
                reply.answer.append(talk.help(lang))
            else:
                left = self._leave(session_id, table, player, now)
                left.events[:0] = reply.events
                return left
        elif name == "finish":
            problem = table.spec.rules.refusal(state, End(speaker)) if table.running else None
            if not table.running:
                reply.answer.append(g.phrase("game_finished" if state is not None else "no_game"))
            elif problem is not None:
                reply.events.append({"type": "refused", "reason": problem.reason})
                refused(table, problem, reply)
            else:
                events = self._append(session_id, Play(move=table.spec.encode_move(End(speaker))), now)
                reply.accepted = True
                self._announce(self.table(session_id), events, reply)
        elif state is None:
            reply.answer.append(g.phrase("no_game"))
        elif name == "whose_turn":
            reply.answer_prompt = talk.prompt(state, lang)
        elif name == "repeat":
            reply.answer.extend(describe_events(table, table.last_events))
            if table.running:
                reply.answer_prompt, reply.prompt_apart = talk.prompt(state, lang), True
        elif name == "status":
            reply.answer.append(talk.status(state, lang))
        else:  # a command this game's talk proposed but the host does not know
            reply.events[-1] = {"type": "not_understood", "text": name}
            not_understood(table, reply)
        return reply

    def _undo(self, session_id: str, table: Table, speaker: str | None, reply: Reply, now: float) -> Reply:
        g = load(table.lang)
        live = [m for m in table.moves if m.seq not in table.undone]
        grace = table.config.undo_grace
        if grace is None:
            reply.answer.append(g.phrase("undo_off"))
            return reply
        if not live or not is_game_move(live[-1].move):
            reply.answer.append(g.phrase("undo_nothing"))
            return reply
        last = live[-1]
        owner = table.spec.rules.owner(last.move)
        if speaker is not None and owner is not None and speaker != owner:
            what = table.spec.talk.move_text(last.move, table.lang)
            reply.answer.append(g.phrase("undo_not_yours", player=owner, number=what))
            return reply
        if now - last.at > grace:
            reply.answer.append(g.phrase("undo_too_late"))
            return reply
        events = self._append(session_id, Undo(target=last.seq, player=speaker), now)
        reply.accepted = True
        self._announce(self.table(session_id), events, reply)
        return reply

    # -- announcing ------------------------------------------------------------------------------

    def _announce(self, table: Table, events: list[Event], reply: Reply) -> None:
        reply.news.extend(describe_events(table, events))
        reply.events.extend(event_json(table.spec, e) for e in events)
        self._after_ruling(table, reply)

    def _after_ruling(self, table: Table, reply: Reply) -> None:
        """Close a reply with what the table must do next, or the result."""
        state = table.state
        reply.turn = state.turn
        if state.is_over:
            reply.game_over = True
            said_over = any(e["type"] == "game_over" for e in reply.events)
            if not said_over and state.outcome is not None:
                reply.prompt = prompt_text(table)  # a game's prompt after its end is its result
            return
        event = turn_event(table)
        assert event is not None
        reply.next_player = table.current_player
        reply.prompt = prompt_text(table)
        reply.events.append(event)

"""One text, start to end: keywords, the lobby (NEW, JOIN, START), and everything else a
player texts handed to the referee; the answer for the sender and the news for the others.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from games.base import GameSpec, default_game
from grammars import Grammar, language_named, languages, load
from grammars.reader import CommandSaid, parse
from host import pins
from host.answers import prompt_text
from host.channels.sms.budget import TextBudget
from host.channels.sms.keywords import (
    CHANNEL,
    HELP,
    NOT_IN_NAMES,
    OPT_IN,
    OPT_OUT,
    RULES_FILLERS,
    UNKNOWN_WORD_MAX,
    NewAsked,
    Words,
    chosen_options,
    game_named,
    new_keywords,
    option_word,
    read_new,
    seat_range,
    texted_new,
)
from host.channels.sms.text import NAME_MAX, fit, sanitize_name, turn_prefix
from host.config import Settings
from host.lobby import CODE_DIGITS, Joined, Lobby, Member, host_number
from host.notify import Notifiers
from host.outbound import Outbound
from host.referee import Referee
from host.reply import Reply
from host.session import SessionConfig, Table

log = logging.getLogger(__name__)

MAX_BODY = 1600  # Twilio's own limit for one message; anything longer is not a person typing
# What the referee reads of one text: no move or question is longer, and an answer that
# quotes what it could not read ("I didn't catch a move in ...") stays a text or two.
MAX_SAID = 320
MAX_PLAYERS = 10  # an SMS game's seats when the game itself sets no limit (Up-or-Down)
MAX_NUMBER = 10**7  # larger numbers are typing accidents, not moves (see _member)
_LANGUAGE_KEY = "sms-lang:"  # a texter's chosen language, kept as a stored reply under this key


@dataclass
class SmsAnswer:
    """What one text brings about: the sender's messages (TwiML) and the replies everyone
    else is told about."""

    messages: list[str] = field(default_factory=list)
    tell: list[tuple[Reply, str | None]] = field(default_factory=list)  # (reply, excluded address)
    session_id: str | None = None


class SmsChannel:
    """The SMS channel's service (``app.state.sms``)."""

    def __init__(
        self, settings: Settings, referee: Referee, lobby: Lobby, outbound: Outbound, notifiers: Notifiers
    ) -> None:
        self.settings = settings
        self.referee = referee
        self.lobby = lobby
        self.outbound = outbound
        self.notifiers = notifiers
        self.store = referee.store
        self.g: Grammar = load(settings.lang)  # GAMEHOST_LANG's, for a text that could not be read
        self.budget = TextBudget(self.store, settings)

    # -- one incoming text -----------------------------------------------------------------

    def receive(
        self, address: str, host: str | None, body: str, key: str | None, token: str | None = None
    ) -> SmsAnswer:
        """Everything one text does, in one transaction; a repeated ``key`` (the signed
        MessageSid) or idempotency ``token`` is answered as the first time and changes nothing."""
        stored_key = f"sms:{key}" if key else None
        token_key = f"sms-token:{token}" if token and token != key else None
        keys = [k for k in (stored_key, token_key) if k is not None]
        with self.store.transaction():
            # Both keys in one look (on PostgreSQL locked first: a retry on another worker
            # waits for the first's reply) and, in the same round trip, the sender, their
            # game's members, opt-outs, our numbers and the game's row: nothing below reads
            # them again.
            saved = self.store.replies(*keys, also=self.lobby.reading_game_of(address))
            for k in keys:
                if k in saved:
                    return SmsAnswer(list(saved[k].get("messages", [])))
            now = self.referee.clock()
            if host:
                self.lobby.texted(address, host, now)
            member = self.lobby.member(address)  # known already: read with the replies
            game = member.session_id if member is not None else None
            answer = self._over_budget(address, host, member, body, now) or self._dispatch(
                address, host, body[:MAX_BODY], key
            )
            # The others' messages go into the outbox in this same transaction: the move
            # and the news of it are committed together (a sender thread delivers them).
            self.tell(answer.tell)
            # Counted where the text came in: a stranger's NEW or JOIN answer is on the budget
            # numbers in no game share, so a flood of NEW from many numbers is held to it.
            self.budget.count(address, game, len(answer.messages), now)
            for k in keys:
                self.store.save_reply(k, answer.session_id, {"messages": answer.messages})
        return answer

    def _over_budget(
        self, address: str, host: str | None, member: Member | None, text: str, now: float
    ) -> SmsAnswer | None:
        """None when the text may be acted on; else told once (in the texter's language)
        that it came in over a text budget (``budget.py``), then nothing. An opt-out is
        always taken."""
        words = Words.of(text)
        keyword, _, written_in = words.keyword_said()
        if keyword in OPT_OUT:
            return None
        over = self.budget.over(address, member.session_id if member is not None else None, now)
        if over is None:
            return None
        log.warning(
            "text from %s over the %s budget: %s", address, over.spent, "told" if over.tell else "silent"
        )
        if not over.tell:
            return SmsAnswer()
        g = load(self._lang(address, host, member, written_in))
        return SmsAnswer(fit([g.phrase("sms_over_budget")]))

    def _dispatch(self, address: str, host: str | None, text: str, key: str | None) -> SmsAnswer:
        words = Words.of(text)
        keyword, after, written_in = words.keyword_said()
        if keyword in OPT_OUT:
            # Twilio (or the carrier) confirms the opt-out itself; we only stop talking.
            left = self.lobby.opt_out(address)
            log.info("%s opted out", address)
            if left is None:
                return SmsAnswer()
            self._stamp(left)
            return SmsAnswer(tell=[(left, address)], session_id=left.session_id)
        member = self.lobby.member(address)
        switch = language_named(text) if keyword is None else None
        if switch is not None:
            self.store.save_reply(_LANGUAGE_KEY + address, None, {"lang": switch})
            log.info("%s texts in %s", address, switch)
        g = load(self._lang(address, host, member, written_in))
        if keyword in HELP:
            return self._say(member, self._help(g, member))
        if self.lobby.opted_out(address):
            if keyword in OPT_IN:
                self.lobby.opt_in(address)
                log.info("%s opted in", address)
                return self._say(None, [g.phrase("sms_opted_in")])
            return SmsAnswer()  # nothing more until START/YES/UNSTOP
        if member is None:
            return self._stranger(g, address, keyword, words, after)
        if switch is not None and switch != g.lang:
            # The game goes on in its own language; the texter's is for their next game.
            return self._say(member, [load(switch).phrase("sms_language_next")])
        return self._member(g, member, keyword, words, after, text, key)

    def _lang(self, address: str, host: str | None, member: Member | None, written_in: str | None) -> str:
        """The language to answer a text in: the game's, for someone in one; else the one
        whose keyword they texted ("새 게임"); else the one they switched to by naming it;
        else the one of the number of ours they texted; else GAMEHOST_LANG."""
        if member is not None:
            row = self.store.session(member.session_id)
            if row is not None and str(row.config.get("lang", "")) in languages():
                return str(row.config["lang"])
        if written_in is not None:
            return written_in
        chosen = self.store.reply(_LANGUAGE_KEY + address)
        if chosen is not None and chosen.get("lang") in languages():
            return str(chosen["lang"])
        return self.settings.lang_for(host)

    # -- not in a game ---------------------------------------------------------------------

    def _stranger(self, g: Grammar, address: str, keyword: str | None, words: Words, after: int) -> SmsAnswer:
        if keyword == "NEW":
            return self._create(g, address, words, after)
        if keyword == "JOIN":
            return self._join(g, address, words, after)
        if keyword == "RULES":
            return self._rules(g, None, words, after)
        if keyword in ("START", "STATUS", "LEAVE"):
            return self._say(None, [g.phrase("sms_not_in_game")])
        return self._say(None, [g.phrase("sms_welcome", games=new_keywords(g.lang))])

    def _create(
        self, g: Grammar, address: str, words: Words, after: int, default: str | None = None
    ) -> SmsAnswer:
        """NEW [game] [option words] [name]; ``default``: the name when none is typed."""
        asked = read_new(words, after, g.lang)
        refused = self._refusal(g, asked)
        if refused is not None:
            return self._say(None, [refused])
        return self._open(g, address, asked.spec, asked.options, asked.name, default)

    def _refusal(self, g: Grammar, asked: NewAsked) -> str | None:
        """Why a NEW text starts nothing: a word that reads as a game's or an option's name
        the host does not know, or a name with characters no name has (None: it starts one)."""
        spec, command = asked.spec, texted_new(asked)
        if asked.unknown is not None:
            if asked.named or asked.options:
                return g.phrase("sms_no_option", game=spec.title, word=asked.unknown, command=command)
            return g.phrase("sms_no_game_named", word=asked.unknown, games=new_keywords(g.lang))
        odd = "".join(dict.fromkeys(c for c in asked.name if c in NOT_IN_NAMES))
        if odd:
            return g.phrase("sms_name_characters", chars=odd, command=command)
        return None

    def _open(
        self,
        g: Grammar,
        address: str,
        spec: GameSpec[Any, Any, Any],
        options: dict[str, object],
        typed: str,
        default: str | None = None,
        before: list[str] | None = None,
    ) -> SmsAnswer:
        """A new game in the lobby with ``address`` its creator; ``before``: lines said first."""
        name = sanitize_name(typed) or default or g.phrase("player_name", number=1)
        config = SessionConfig(
            game=spec.name,
            options=options,
            lang=g.lang,
            undo_grace=self.settings.sms_undo_grace,
            confirm_below=self.settings.confirm_below,
            # A game without a turn clock plays at the table's pace.
            turn_timeout=self.settings.sms_turn_timeout if spec.timed else None,
        )
        seated = self.lobby.member(address)
        try:
            joined = self.lobby.create(address, name, CHANNEL, config)
        except ValueError as exc:  # options the game refuses (a deck file that does not load)
            return self._say(None, [f"{spec.title}: {exc}"])
        log.info("%s made game %s (%s, %s)", address, joined.session_id, spec.name, options)
        reused = seated is not None and seated.session_id == joined.session_id
        if reused:  # their open lobby again (Lobby.create): its game, options and their name
            table = self.referee.table(joined.session_id)
            spec, options, name = table.spec, dict(table.config.options), joined.name
        how = chosen_options(spec, options)
        fields = {"code": joined.code, "name": name, "game": spec.title, "seats": seat_range(spec)}
        if how:
            line = g.phrase("sms_created_with", options=how, **fields)
        elif spec.default:
            line = g.phrase("sms_created", **fields)
        else:
            line = g.phrase("sms_created_game", **fields)
        # An open lobby given again keeps its name and PIN (told when it was made).
        told = [line] if reused else [*self._renamed(g, typed, name), line, *self._pin(g, address)]
        answer = self._say(None, [*(before or []), *told])
        answer.session_id = joined.session_id
        return answer

    def _pin(self, g: Grammar, address: str) -> list[str]:
        """A new seat's PIN for calls (``host/pins.py``), told only to its own number."""
        pin = pins.issue(self.store, address)
        return [g.phrase("sms_pin", pin=pin)] if pin else []

    def _renamed(self, g: Grammar, asked: str, name: str) -> list[str]:
        """Telling someone whose name cannot be texted (no letter in it) the one they play
        under, and someone whose name was too long where it was cut."""
        if not asked.strip():
            return []
        if not sanitize_name(asked):
            return [g.phrase("sms_name_replaced", name=name)]
        if sanitize_name(asked, limit=MAX_BODY) != name:
            return [g.phrase("sms_name_cut", count=NAME_MAX, name=name)]
        return []

    def _join(
        self, g: Grammar, address: str, words: Words, after: int, default: str | None = None
    ) -> SmsAnswer:
        code, i = "", after
        while i < len(words.raw) and len(code) < CODE_DIGITS:
            key = words.keys[i]
            if key == "CODE" and not code:
                i += 1
                continue
            if not key.isdigit():
                break
            code += key
            i += 1
        if not code:
            return self._say(None, [g.phrase("sms_join_how")])
        code = code[:12]
        row = self.store.session_by_code(code)
        table = self.referee.table(row.id) if row is not None and row.status != "closed" else None
        if table is not None and len(table.players) >= _seats(table) and not table.running:
            return self._say(None, [g.phrase("sms_full", count=_seats(table))])
        typed = " ".join(words.raw[i:])
        odd = "".join(dict.fromkeys(c for c in typed if c in NOT_IN_NAMES))
        if odd:
            return self._say(None, [g.phrase("sms_name_characters", chars=odd, command=f"JOIN {code}")])
        asked = sanitize_name(typed)
        taken = table.names if table is not None else ()
        if not asked and default and default.casefold() not in {n.casefold() for n in taken}:
            asked = default  # the name they played under last time
        if row is not None and str(row.config.get("lang", "")) in languages():
            g = load(str(row.config["lang"]))  # joining by code: the game's language from here on
        name = asked or _default_name(g, taken)
        result = self.lobby.join(address, code, name, CHANNEL)
        if not isinstance(result, Joined):
            key = {
                "no_such_game": "sms_no_such_game",
                "already_in_game": "sms_in_game",
                "started": "sms_started",
                "name_taken": "sms_name_taken",
                "too_many_tries": "sms_too_many_tries",
                "full": "sms_full",
            }[result]
            seats = _seats(table) if table is not None else MAX_PLAYERS
            return self._say(None, [g.phrase(key, code=code, name=name, count=seats)])
        table = self.referee.table(result.session_id)
        players = ", ".join(table.names)
        creator = table.players[0].name
        log.info("%s joined game %s as %s", address, result.session_id, name)
        joined_line = g.phrase("sms_joined", code=code, name=name, players=players, creator=creator)
        answer = self._say(None, [*self._renamed(g, typed, name), joined_line, *self._pin(g, address)])
        news = Reply(result.session_id, news=[g.phrase("sms_joined_others", name=name, players=players)])
        answer.tell.append((news, address))
        answer.session_id = result.session_id
        return answer

    # -- in a game -------------------------------------------------------------------------

    def _member(
        self,
        g: Grammar,
        member: Member,
        keyword: str | None,
        words: Words,
        after: int,
        text: str,
        key: str | None,
    ) -> SmsAnswer:
        session_id = member.session_id
        table = self.referee.table(session_id)
        in_lobby = table.state is None
        lang = table.config.lang
        if keyword == "LEAVE":
            return self._leave(g, member)
        if keyword is None and table.running and any(abs(n) > MAX_NUMBER for n in parse(text, lang).numbers):
            # A typing accident, not a move (which the rules would rule a mistake); nor could
            # it be told to anyone in one text.
            typo = Reply(session_id, answer=[g.phrase("not_understood")], answer_prompt=prompt_text(table))
            return self._say(member, typo.private)
        if keyword == "JOIN":
            if not in_lobby and not table.running:
                # The old game is over: moving on to another one needs no LEAVE first.
                left = self._leave(g, member)
                joined = self._join(g, member.address, words, after, default=member.name)
                joined.tell[:0] = left.tell
                return joined
            return self._say(member, [g.phrase("sms_in_game", code=self._code(session_id))])
        if keyword == "RULES":
            return self._rules(g, member, words, after, table)
        if in_lobby:
            creator = table.players[0]
            if keyword == "START":
                if creator.address != member.address:
                    return self._say(member, [g.phrase("sms_only_creator", creator=creator.name)])
                need = table.spec.min_players
                if len(table.players) < need:
                    return self._say(member, [g.phrase("need_players", count=need)])
                return self._ruled(member, self.referee.begin(session_id))
            if keyword == "NEW" and creator.address == member.address:
                return self._create(g, member.address, words, after)  # their open lobby again
            if keyword == "NEW":
                return self._say(member, [g.phrase("sms_in_game", code=self._code(session_id))])
            if keyword is None and parse(text, lang).intent() == CommandSaid("leave"):
                return self._leave(g, member)  # the referee reads nothing before the game
            # Nothing else means anything before START; in particular the referee's
            # "new game" must not let anyone but the creator begin.
            lobby_line = g.phrase(
                "sms_lobby", code=self._code(session_id), players=", ".join(table.names), creator=creator.name
            )
            return self._say(member, [lobby_line])
        over = not table.running
        asks_new = keyword in ("NEW", "START")
        if over and (asks_new or (keyword is None and parse(text, lang).intent() == CommandSaid("new_game"))):
            moved = self._next_game(g, member, table, words, after if asks_new else len(words.raw))
            if moved is not None:
                return moved
        if asks_new:
            # Over: a rematch with the same table ("winner opens the next game").
            # Running: the referee says a game is running.
            text = g.commands["new_game"][0]
        elif keyword == "STATUS":
            text = g.commands["status"][0]
        # No key of its own: this text's answer, stored under its MessageSid in this same
        # transaction (``receive``), is what a retry finds.
        if len(text) > MAX_SAID:
            text = text[:MAX_SAID].rsplit(" ", 1)[0]
        reply = self.referee.handle(session_id, text, member.name)
        if self.lobby.left(member.address, reply):  # "leave the game": ruled by the referee
            return self._left(g, member, reply)
        return self._ruled(member, reply)

    def _next_game(
        self, g: Grammar, member: Member, table: Table, words: Words, after: int
    ) -> SmsAnswer | None:
        """NEW (or "new game") once a game is over: None for a rematch with the same table
        (the referee's); another game named, or too few players left to play again: out of
        the old game and into a new lobby of that game (of the same one and its options,
        with any option words typed), the sender its creator, under the same name unless
        another is typed."""
        asked = read_new(words, after, g.lang)
        other = asked.named and asked.spec.name != table.spec.name
        if not other and asked.unknown is None and table.spec.seats(len(table.players)):
            return None
        refused = self._refusal(g, asked)
        if refused is not None:
            return self._say(member, [refused])  # still in the old game
        left = self._leave(g, member)
        if other:
            answer = self._open(g, member.address, asked.spec, asked.options, asked.name, member.name)
        else:  # "NEW", "new game", "NEW TRAINING": the same game, with what was typed
            before = [g.phrase("sms_next_game")]
            options = {**table.config.options, **asked.options}
            answer = self._open(g, member.address, table.spec, options, asked.name, member.name, before)
        answer.tell[:0] = left.tell
        return answer

    def _leave(self, g: Grammar, member: Member) -> SmsAnswer:
        """LEAVE (or an old game left for a new one): out of the game and its members."""
        return self._left(g, member, self.lobby.leave(member.address))

    def _left(self, g: Grammar, member: Member, reply: Reply | None) -> SmsAnswer:
        """Out of the game: the sender is told so, the others the referee's news."""
        log.info("%s left game %s", member.address, member.session_id)
        answer = self._say(None, [g.phrase("sms_left")])
        if reply is not None:
            self._stamp(reply)
            answer.tell.append((reply, member.address))
        answer.session_id = member.session_id
        return answer

    def _ruled(self, member: Member, reply: Reply) -> SmsAnswer:
        """The referee's reply: all of it to the sender, the public part to the others."""
        self._stamp(reply)
        answer = SmsAnswer(fit(reply.lines, turn_prefix(reply.turn)), session_id=member.session_id)
        if reply.public:
            answer.tell.append((reply, member.address))
        return answer

    def _turn(self, session_id: str) -> int | None:
        state = self.referee.table(session_id).state
        return state.turn if state is not None else None

    def _help(self, g: Grammar, member: Member | None) -> list[str]:
        """HELP: outside a game how to start or join one; in a lobby how friends join and
        who starts; in a game the game's own help, whose turn it is and the texts that
        leave or end it; after one how to go on."""
        if member is None:
            return [g.phrase("sms_help", games=new_keywords(g.lang))]
        table = self.referee.table(member.session_id)
        code = self._code(member.session_id)
        if table.state is None:
            players, creator = ", ".join(table.names), table.players[0].name
            return [
                g.phrase("sms_lobby", code=code, players=players, creator=creator),
                g.phrase("sms_help_lobby", code=code),
            ]
        now = prompt_text(table) or ""
        if not table.running:
            return [now, g.phrase("sms_help_over")]
        lines = [table.spec.talk.help(table.lang), now, g.phrase("sms_help_playing")]
        if table.config.undo_grace:
            lines.append(g.phrase("sms_help_undo", seconds=f"{table.config.undo_grace:g}"))
        return lines

    def _stamp(self, reply: Reply) -> None:
        """Replies that did not move the game still carry the current turn number."""
        if reply.turn is None:
            try:
                reply.turn = self._turn(reply.session_id)
            except KeyError:
                return

    def _say(self, member: Member | None, lines: list[str]) -> SmsAnswer:
        turn = self._turn(member.session_id) if member is not None else None
        return SmsAnswer(fit(lines, turn_prefix(turn)))

    def _rules(
        self, g: Grammar, member: Member | None, words: Words, after: int, table: Table | None = None
    ) -> SmsAnswer:
        """The rules of the game named ("RULES BLOFA", also during another game), else of the
        game being played, else of the default game; in full, over numbered texts. A word
        that names no game ("RULES chess") is answered with the games there are."""
        turn = self._turn(member.session_id) if member is not None else None
        keys = words.keys
        asked = [i for i in range(after, len(keys)) if keys[i] and keys[i] not in RULES_FILLERS]
        whole = game_named(" ".join(words.keys[i] for i in asked))  # "RULES UP OR DOWN"
        named = [whole] if whole else [s for i in asked if (s := game_named(words.keys[i])) is not None]
        lang = table.lang if table is not None else g.lang
        spec = named[0] if named else table.spec if table is not None else default_game()
        options: dict[str, object] = {}
        unknown = []
        for i in asked:
            chosen = spec.option_words.get(option_word(lang, words.keys[i]))
            if chosen is not None:
                options.update(chosen)
            elif not spec.known_as(words.keys[i]) and not named:
                unknown.append(words.raw[i])
        if unknown:
            word = unknown[0][:UNKNOWN_WORD_MAX]
            return SmsAnswer(
                fit([g.phrase("sms_no_game_named", word=word, games=new_keywords(g.lang))], turn_prefix(turn))
            )
        if options or named or table is None:
            text = spec.talk.rules(spec.make_options(options), lang)
        else:
            text = spec.talk.rules(table.options, lang)
        return SmsAnswer(fit([text], turn_prefix(turn), numbered=True))

    def _code(self, session_id: str) -> str:
        row = self.store.session(session_id)
        return row.code if row is not None and row.code else "?"

    # -- telling the others ----------------------------------------------------------------

    def tell(self, items: list[tuple[Reply, str | None]]) -> None:
        for reply, exclude in items:
            self.notifiers.fan_out(reply, exclude=exclude)

    def notify(self, member: Member, reply: Reply) -> None:
        """The ``sms`` notifier: a REST message (or outbox entry) per segment-sized chunk,
        from the number of ours the member last texted."""
        from_ = host_number(self.store, member.address)
        bodies = fit(reply.public, turn_prefix(reply.turn))
        for body in bodies:
            self.outbound.send_sms(member.address, body, from_=from_)
        self.budget.count(member.address, reply.session_id, len(bodies), self.referee.clock())


def _seats(table: Table) -> int:
    """How many a game by text seats: the game's own limit, else the channel's."""
    limit = table.spec.max_players
    return min(limit, MAX_PLAYERS) if limit is not None else MAX_PLAYERS


def _default_name(g: Grammar, taken: tuple[str, ...]) -> str:
    used = {n.casefold() for n in taken}
    n = len(taken) + 1
    while g.phrase("player_name", number=n).casefold() in used:
        n += 1
    return g.phrase("player_name", number=n)

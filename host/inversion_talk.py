"""The !nversion side of the referee: table talk in, one move (or an answer) out.

``Referee.handle`` hands a card-game session's utterance here. What was said is read
against the phase of the game (suits, lane, who starts, bidding, playing): the parser
proposes (``host/card_language.py``), the engine judges (``games/inversion.py``), and the
move is written to the session's log before anything is announced.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from games import inversion as inv
from games.cards import RANKS, Card
from games.core import json_value
from grammars import load
from host import inversion_phrasing as words
from host.card_language import CardTalk, parse_cards, suit_words

# Referee imports this module when a card game needs it, so this import is not circular.
from host.referee import Act, describe_events

if TYPE_CHECKING:
    from host.referee import Hearing, Referee, Reply, Table

# General commands answered the same way in every game (host/referee.py ``_command``).
SHARED_COMMANDS = ("undo", "new_game", "leave", "finish")
ANSWERS = ("yes", "no")


def has_content(talk: CardTalk) -> bool:
    return bool(talk.cards or talk.suits or talk.numbers or talk.bids or talk.passed or talk.players)


class CardTalker:
    def __init__(self, referee: Referee, session_id: str, table: Table, now: float) -> None:
        self.referee = referee
        self.session_id = session_id
        self.table = table
        self.now = now
        self.lang = table.config.lang
        self.g = load(self.lang)

    # -- entry -----------------------------------------------------------------------------

    def handle(self, text: str, speaker: str | None, hearing: Hearing | None, reply: Reply) -> Reply:
        said = hearing.alternatives[0] if hearing is not None and hearing.alternatives else text
        talk = parse_cards(said, self.lang, players=self.table.names)
        state = self.table.cards
        row = self.referee.store.session(self.session_id)
        pending = row.pending if row is not None else None
        # A setup question (no player) is the whole table's: anyone may answer it.
        if (
            pending is not None
            and state is not None
            and (speaker is None or not pending["player"] or speaker == pending["player"])
        ):
            answered = self._resolve_pending(pending, state, talk, reply)
            if answered is not None:
                return answered
        commands = [c for c in talk.commands if c not in ANSWERS]
        if commands and not has_content(talk):
            return self._command(commands[0], speaker, reply)
        if state is None or state.is_over:
            if talk.commands and not has_content(talk):
                return self._command(talk.commands[0], speaker, reply)
            reply.private.append(self.g.phrase("game_finished" if state else "no_game"))
            return reply
        if commands:
            return self._not_understood(talk, state, reply)
        proposal = self._propose(talk, state, speaker, reply)
        if proposal is None:
            return reply
        return self._judge(proposal, state, talk.text, hearing, reply)

    # -- reading ---------------------------------------------------------------------------

    def _propose(
        self, talk: CardTalk, state: inv.State, speaker: str | None, reply: Reply
    ) -> inv.Move | None:
        """The move the words make in this phase; None after answering in ``reply``."""
        player = speaker or state.current_player
        phase = state.phase
        current = state.current_player
        if speaker is not None and current is not None and speaker != current:
            reply.events.append({"type": "not_your_turn", "player": speaker, "current": current})
            reply.private.append(self.g.phrase("not_your_turn", player=current))
            return None
        if phase is inv.Phase.SUITS and talk.suits and not talk.cards:
            return inv.ChooseSuits(talk.suits)
        if phase is inv.Phase.LANE and talk.cards and not (talk.numbers or talk.suits or talk.bids):
            return inv.LayLane(talk.cards)
        if phase is inv.Phase.FIRST and len(set(talk.players)) == 1 and not talk.cards:
            return inv.ChooseFirst(talk.players[0])
        if phase is inv.Phase.BIDDING and player is not None and not talk.cards:
            amounts = tuple(dict.fromkeys(talk.bids or talk.numbers))
            if talk.passed and not amounts:
                return inv.Declare(player, None)
            if len(amounts) == 1 and not talk.passed:
                return inv.Declare(player, amounts[0])
            if amounts or talk.passed:
                passed = [words.move_text(inv.Declare(player, None), self.lang)] if talk.passed else []
                return self._ambiguous([*map(str, amounts), *passed], reply)
        if phase is inv.Phase.PLAYING and player is not None:
            cards = tuple(dict.fromkeys(talk.cards))
            if len(cards) == 1:
                return inv.PlayCard(player, cards[0])
            if len(cards) > 1:
                return self._ambiguous([words.card_text(c, self.lang) for c in cards], reply)
            return self._half_card(talk, state, reply)
        if phase is inv.Phase.LANE:
            return self._half_card(talk, state, reply)
        self._not_understood(talk, state, reply)
        return None

    def _half_card(self, talk: CardTalk, state: inv.State, reply: Reply) -> inv.Move | None:
        """A number or a suit without the rest of the card: ask for the rest."""
        suit = state.follow.suit if state.follow is not None else (state.suits or (None,))[0]
        numbers = tuple(dict.fromkeys(talk.numbers))
        if len(numbers) == 1 and numbers[0] in RANKS and suit is not None and not talk.suits:
            example = words.card_text(Card(numbers[0], suit), self.lang)
            reply.events.append({"type": "which_card", "rank": numbers[0]})
            reply.private.append(self.g.phrase("inv_which_card", rank=numbers[0], example=example))
            return None
        if numbers and not any(n in RANKS for n in numbers):
            reply.events.append({"type": "not_a_card", "text": talk.text})
            reply.private.append(self.g.phrase("inv_not_a_card", turn=words.prompt(state, self.lang)))
            return None
        if len(talk.suits) == 1 and not numbers:
            example = words.card_text(Card(9, talk.suits[0]), self.lang)
            reply.events.append({"type": "which_card", "suit": talk.suits[0].value})
            reply.private.append(
                self.g.phrase("inv_which_of_suit", suit=suit_words(talk.suits[0], self.lang), example=example)
            )
            return None
        self._not_understood(talk, state, reply)
        return None

    def _ambiguous(self, options: list[str], reply: Reply) -> inv.Move | None:
        reply.events.append({"type": "ambiguous", "options": options})
        reply.private.append(self.g.phrase("inv_ambiguous", cards=f" {self.g.phrases['or']} ".join(options)))
        return None

    def _not_understood(self, talk: CardTalk, state: inv.State, reply: Reply) -> Reply:
        reply.events.append({"type": "not_understood", "text": talk.text})
        reply.private.append(self.g.phrase("not_understood", turn=words.prompt(state, self.lang)))
        return reply

    # -- judging ---------------------------------------------------------------------------

    def _judge(
        self, move: inv.Move, state: inv.State, text: str, hearing: Hearing | None, reply: Reply
    ) -> Reply:
        problem = inv.refusal(state, move)
        if problem is not None:
            fields = {k: json_value(v) for k, v in problem.fields.items()}
            reply.events.append({"type": "refused", "reason": problem.reason, **fields})
            reply.private.append(words.refusal_text(problem, state, self.lang))
            reply.turn, reply.next_player = state.turn, state.current_player
            return reply
        if hearing is not None and (
            hearing.confidence is None or hearing.confidence < self.table.config.confirm_below
        ):
            return self._ask(move, state, reply)
        return self.rule(move, text, reply)

    def rule(self, move: inv.Move, text: str, reply: Reply) -> Reply:
        self.referee.store.set_pending(self.session_id, None)
        events = self.referee._append(self.session_id, Act.of(move, text), self.now)
        reply.accepted = True
        self.referee._announce(self.referee.table(self.session_id), events, reply)
        return reply

    def _ask(self, move: inv.Move, state: inv.State, reply: Reply) -> Reply:
        """Speech: a move heard with low confidence is read back before it counts."""
        act = Act.of(move)
        what = words.move_text(move, self.lang)
        # Setup questions, who starts too (its player is the one named), are anyone's to answer.
        player = "" if isinstance(move, inv.ChooseFirst) else getattr(move, "player", None) or ""
        self.referee.store.set_pending(
            self.session_id, {"player": player, "act": act.model_dump(mode="json"), "turn": state.turn}
        )
        reply.events.append({"type": "confirm", "player": player, "what": what})
        reply.private.append(self.g.phrase("inv_confirm", what=what))
        reply.turn, reply.next_player = state.turn, state.current_player
        return reply

    def _resolve_pending(
        self, pending: dict[str, Any], state: inv.State, talk: CardTalk, reply: Reply
    ) -> Reply | None:
        """Answer "Did you say the 9 of hearts?"; None lets the words be read anew."""
        if state.turn != pending.get("turn") or "act" not in pending:
            self.referee.store.set_pending(self.session_id, None)
            return None
        commands = set(talk.commands)
        if "yes" in commands and "no" not in commands and not has_content(talk):
            act = Act.model_validate(pending["act"])
            return self.rule(act.move(), talk.text, reply)
        if ("no" in commands or "undo" in commands) and not has_content(talk):
            # "Undo" while asked means "not that", not "take back the move before".
            self.referee.store.set_pending(self.session_id, None)
            reply.events.append({"type": "not_confirmed", "player": pending["player"]})
            reply.private.append(self.g.phrase("not_understood", turn=words.prompt(state, self.lang)))
            return reply
        if has_content(talk):
            # "No, the ten of hearts": a correction said after the question; read it afresh
            # without asking again, the player has now said it twice.
            proposal = self._propose(talk, state, pending["player"] or None, reply)
            if proposal is None:
                return reply
            return self._judge(proposal, state, talk.text, None, reply)
        return None

    # -- commands --------------------------------------------------------------------------

    def _command(self, name: str, speaker: str | None, reply: Reply) -> Reply:
        state = self.table.cards
        if name in SHARED_COMMANDS:
            return self.referee._command(self.session_id, self.table, name, speaker, reply, self.now)
        reply.events.append({"type": "command", "command": name})
        if name == "help":
            reply.private.append(self.g.phrase("inv_help"))
        elif name == "rules":
            reply.private.append(self.g.phrase("inv_rules"))
        elif state is None:
            reply.private.append(self.g.phrase("no_game"))
        elif name == "whose_turn":
            reply.private.append(words.prompt(state, self.lang))
        elif name == "repeat":
            reply.private.extend(describe_events(self.table, self.table.last_events))
            if not state.is_over:
                reply.private.append(words.prompt(state, self.lang))
        elif name == "status":
            reply.private.append(words.status(state, self.lang))
        else:  # yes / no with nothing to confirm
            reply.events[-1] = {"type": "not_understood", "text": name}
            reply.private.append(self.g.phrase("not_understood", turn=words.prompt(state, self.lang)))
        return reply


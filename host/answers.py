"""What the referee says, as parts of a :class:`~host.reply.Reply`: the JSON line of an
event or a turn, the turn prompt, and the answers to words it cannot act on (not
understood, unclear, refused). The turn prompt that closes an answer is always a value of
its own (``Reply.answer_prompt``), never written into the answer's text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.base import GameSpec, Unclear
from games.core import Event, MoveUndone, Refusal, event_to_json
from grammars import load
from host.reply import Reply
from host.session import Table


def event_json(spec: GameSpec[Any, Any, Any], event: Event) -> dict[str, Any]:
    """The JSON line of any event: the game's, or the host's undo (moves by the game's codec)."""
    if isinstance(event, MoveUndone):
        fields = {k: v for k, v in spec.encode_move(event.move).items() if k != "move"}
        return {"type": event.type, "player": event.player, **fields}
    return event_to_json(event)


def move_fields(spec: GameSpec[Any, Any, Any], move: Any) -> dict[str, Any]:
    """A move's own fields for a JSON line (``number``, ``cards``...), by the game's codec."""
    return {k: v for k, v in spec.encode_move(move).items() if k not in ("move", "action", "player")}


def prompt_text(table: Table) -> str | None:
    """What the table must do next (or the result); None before a game."""
    return table.spec.talk.prompt(table.state, table.lang) if table.state is not None else None


def describe_events(table: Table, events: Sequence[Event]) -> list[str]:
    return table.spec.talk.describe(events, table.options, table.lang)


def turn_event(table: Table) -> dict[str, Any] | None:
    """The ``turn`` JSON line for a running game."""
    if not table.running:
        return None
    event: dict[str, Any] = {"type": "turn", "player": table.current_player, "turn": table.state.turn}
    acting = table.to_act()
    if len(acting) > 1:
        event["players"] = sorted(acting)
    return event


def unclear(table: Table, words: Unclear, reply: Reply) -> Reply:
    """Words with nothing to act on: the game's answer, then the turn prompt if it says so."""
    if words.event:
        reply.events.append(dict(words.event))
    if words.text:
        reply.answer.append(words.text)
    if words.then_prompt:
        reply.answer_prompt = prompt_text(table)
    return reply


def not_understood(table: Table, reply: Reply) -> Reply:
    """ "I didn't catch that.", then what the table must do now."""
    reply.answer.append(load(table.lang).phrase("not_understood"))
    reply.answer_prompt = prompt_text(table)
    return reply


def refused(table: Table, problem: Refusal, reply: Reply) -> Reply:
    """Why the rules refuse a move, then what is allowed now if the game says it follows."""
    talk = table.spec.talk
    why = talk.refusal_text(problem, table.state, table.lang)
    if why:
        reply.answer.append(why)
    if table.running and talk.prompt_follows(problem):
        reply.answer_prompt = prompt_text(table)
    return reply

"""Events to words, per language, from ``grammars/<lang>/phrases.yaml``. Pure functions.

>>> from games import up_or_down as ud
>>> g, events = ud.play(ud.new_game(("Ann", "Bob", "Cy")), 53)
>>> [describe(e) for e in events] + [prompt(g)]
['Ann said 53.', 'Bob: an odd number above 53 or an even number below 53.']
"""

from __future__ import annotations

from collections.abc import Callable

from games import up_or_down as ud
from games.core import (
    Event,
    GameOver,
    MistakeCounted,
    Mode,
    MoveMade,
    MoveUndone,
    Outcome,
    PlayerLeft,
    PlayerOut,
    TurnPassed,
)
from grammars import Grammar, load

NumberStyle = Callable[[int], str]


def digits(n: int) -> str:
    return str(n)


def _counts(g: Grammar, mistakes: tuple[tuple[str, int], ...]) -> str:
    return ", ".join(g.phrase("counts_item", player=p, count=c) for p, c in mistakes)


def outcome_text(outcome: Outcome, lang: str = "en") -> str:
    g = load(lang)
    assert isinstance(outcome, ud.UpOrDownOutcome)
    if outcome.winner is not None:
        return g.phrase("winner", winner=outcome.winner)
    if outcome.mistakes:
        if outcome.last_mistake is None:
            return g.phrase("game_over_training_clean")
        return g.phrase(
            "game_over_training",
            last_mistake=outcome.last_mistake,
            counts=_counts(g, outcome.mistakes),
        )
    if outcome.reason == "players_left":
        return g.phrase("game_over_left")
    return g.phrase("game_over_requested")


def describe(event: Event, lang: str = "en", number: NumberStyle = digits) -> str:
    """One line saying what happened. Mistakes that put a player out are said together
    with the move (``describe_all`` merges them)."""
    g = load(lang)
    if isinstance(event, MoveMade):
        return g.phrase("move", player=event.player, number=number(event.number))
    if isinstance(event, MistakeCounted):
        return g.phrase("mistake_training", player=event.player, number="", count=event.mistakes)
    if isinstance(event, PlayerOut):
        key = {"timeout": "timeout_out", "left": "left_out"}.get(event.reason, "mistake_out")
        return g.phrase(key, player=event.player, number="")
    if isinstance(event, TurnPassed):
        return g.phrase("timeout_pass", player=event.player)
    if isinstance(event, PlayerLeft):
        return g.phrase("left", player=event.player)
    if isinstance(event, MoveUndone):
        return g.phrase("undo", player=event.player, number=number(event.number))
    if isinstance(event, GameOver):
        return outcome_text(event.outcome, lang)
    return ""


def describe_all(events: list[Event], lang: str = "en", number: NumberStyle = digits) -> list[str]:
    """Lines for a ruling: a wrong number and its consequence become one sentence."""
    g = load(lang)
    lines: list[str] = []
    i = 0
    while i < len(events):
        event = events[i]
        following = events[i + 1] if i + 1 < len(events) else None
        if isinstance(event, MoveMade) and not event.valid and following is not None:
            said = number(event.number)
            if isinstance(following, PlayerOut):
                lines.append(g.phrase("mistake_out", player=event.player, number=said))
                i += 2
                continue
            if isinstance(following, MistakeCounted):
                lines.append(
                    g.phrase(
                        "mistake_training",
                        player=event.player,
                        number=said,
                        count=following.mistakes,
                    )
                )
                i += 2
                continue
        lines.append(describe(event, lang, number))
        i += 1
    return [line for line in lines if line]


def constraint_text(state: ud.State, lang: str = "en", number: NumberStyle = digits) -> str:
    """What the current player may say, addressed to them."""
    g = load(lang)
    player = state.current_player
    o = state.options
    if state.last is None:
        return g.phrase("turn_first", player=player, low=number(o.low), high=number(o.high))
    c = ud.constraint(state.last, o)
    fields = {
        "player": player,
        "up": g.phrases[c.up],
        "down": g.phrases[c.down],
        "last": number(c.last),
    }
    if c.up_possible and c.down_possible:
        return g.phrase("turn_both", **fields)
    return g.phrase("turn_up" if c.up_possible else "turn_down", **fields)


def prompt(state: ud.State, lang: str = "en", number: NumberStyle = digits) -> str:
    if state.outcome is not None:
        return outcome_text(state.outcome, lang)
    return constraint_text(state, lang, number)


def status(state: ud.State, lang: str = "en", number: NumberStyle = digits) -> str:
    g = load(lang)
    if state.outcome is not None:
        return outcome_text(state.outcome, lang)
    if state.last is None:
        return g.phrase("status_first", turn=state.turn, players=", ".join(state.in_play))
    if state.options.mode is Mode.TRAINING:
        return g.phrase(
            "status_training",
            turn=state.turn,
            last=number(state.last),
            counts=_counts(g, tuple(zip(state.players, state.mistakes, strict=True))),
        )
    out = [p for p, s in zip(state.players, state.seats, strict=True) if s != ud.SEAT_IN]
    return g.phrase(
        "status_tournament",
        turn=state.turn,
        last=number(state.last),
        players=", ".join(state.in_play),
        out=", ".join(out) or g.phrases["none"],
    )


def rules(options: ud.Options, lang: str = "en", number: NumberStyle = digits) -> str:
    return load(lang).phrase("rules", low=number(options.low), high=number(options.high))

"""Up-or-Down's words: numbers and commands in, events and prompts out, per language
(``grammar/<lang>/words.yaml`` over ``grammars/<lang>/``). Pure functions, and :data:`TALK`
for the game protocol.

>>> from games.up_or_down import rules as ud
>>> g, events = ud.play(ud.new_game(("Ann", "Bob", "Cy")), 53)
>>> [describe(e) for e in events] + [prompt(g)]
['Ann said 53.', 'Bob: an odd number above 53 or an even number below 53.']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import games.up_or_down.rules as ud
from games.base import (
    Answer,
    Command,
    FactView,
    Figure,
    LineView,
    Listening,
    Meaning,
    Moves,
    PartView,
    Proposal,
    ScoreView,
    SpanView,
    Talk,
    Unclear,
    View,
)
from games.core import Event, GameOver, MoveUndone, Outcome, Refusal
from games.up_or_down.rules import (
    MistakeCounted,
    Mode,
    MoveMade,
    PlayerLeft,
    PlayerOut,
    Say,
    TurnPassed,
)
from games.up_or_down.words import load, voice_phrase
from grammars import Grammar
from grammars.reader import (
    Ambiguous,
    CommandSaid,
    NumberSaid,
    Utterance,
    confusable,
    heard_in_echo,
    number_phrases,
    parse,
    spoken,
    to_words,
)

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
    if outcome.still_in:
        # A tournament ended before one player was left: nobody won.
        return g.phrase("game_over_still_in", players=", ".join(outcome.still_in))
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
        return g.phrase("mistake_count", player=event.player, count=event.mistakes)
    if isinstance(event, PlayerOut):
        key = {"timeout": "timeout_out", "left": "left_out"}.get(event.reason, "out")
        return g.phrase(key, player=event.player)
    if isinstance(event, TurnPassed):
        return g.phrase("timeout_pass", player=event.player)
    if isinstance(event, PlayerLeft):
        return g.phrase("left", player=event.player)
    if isinstance(event, MoveUndone) and isinstance(event.move, Say):
        return g.phrase("undo", player=event.player, number=number(event.move.number))
    if isinstance(event, GameOver):
        return outcome_text(event.outcome, lang)
    return ""


def why(move: MoveMade, options: ud.Options, lang: str = "en", number: NumberStyle = digits) -> str:
    """Which rule a wrong number broke, in words ("54 is even, so it must be below 53.")."""
    g = load(lang)
    broken = ud.fault(move.previous, move.number, options)
    if broken is None:
        return ""
    parity = g.phrases[ud.parity(move.number)]
    last = number(move.previous) if move.previous is not None else ""
    if broken != "outside" and move.previous is not None and not options.low <= move.previous <= options.high:
        # After a number outside the range the prompt named only the parity left.
        c = ud.constraint(move.previous, options)
        broken, parity = "parity", g.phrases[c.up if c.up_possible else c.down]
    return g.phrase(
        f"why_{broken}",
        number=number(move.number),
        parity=parity,
        last=last,
        low=number(options.low),
        high=number(options.high),
    )


def describe_all(
    events: list[Event], lang: str = "en", number: NumberStyle = digits, options: ud.Options | None = None
) -> list[str]:
    """Lines for a ruling: a wrong number, why it is wrong and its consequence become one line."""
    g = load(lang)
    options = options or ud.Options()
    lines: list[str] = []
    i = 0
    while i < len(events):
        event = events[i]
        following = events[i + 1] if i + 1 < len(events) else None
        if isinstance(event, MoveMade) and not event.valid and following is not None:
            said = number(event.number)
            reason = why(event, options, lang, number)
            if isinstance(following, PlayerOut):
                lines.append(g.phrase("mistake_out", player=event.player, number=said, why=reason))
                i += 2
                continue
            if isinstance(following, MistakeCounted):
                lines.append(
                    g.phrase(
                        "mistake_training",
                        player=event.player,
                        number=said,
                        why=reason,
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
    if not o.low <= c.last <= o.high:
        # After a number outside the range only one parity is left, anywhere in the range.
        parity = g.phrases[c.up if c.up_possible else c.down]
        return g.phrase("turn_range", player=player, parity=parity, low=number(o.low), high=number(o.high))
    fields = {
        "player": player,
        "up": g.phrases[c.up],
        "down": g.phrases[c.down],
        "last": number(c.last),
    }
    if c.up_possible and c.down_possible:
        return g.phrase("turn_both", **fields)
    return g.phrase("turn_up" if c.up_possible else "turn_down", **fields)


def allowed_spans(state: ud.State, lang: str = "en") -> list[SpanView]:
    """The stretches of the range the next number may come from, each of one parity.

    >>> g, _ = ud.play(ud.new_game(("Ann", "Bob")), 53)
    >>> allowed_spans(g)
    [{'low': 2, 'high': 52, 'text': 'even'}, {'low': 55, 'high': 99, 'text': 'odd'}]
    """
    o, last, g = state.options, state.last, load(lang)
    if last is None:
        return [SpanView(low=o.low, high=o.high, text="")]
    spans = []
    # Below: the other parity; above: the last number's own.
    top = min(last - 1, o.high)
    top -= (top - last) % 2 == 0
    bottom = o.low + ((o.low - last) % 2 == 0)
    if bottom <= top:
        spans.append(SpanView(low=bottom, high=top, text=g.phrases[ud.parity(bottom)]))
    first = max(last + 1, o.low)
    first += (first - last) % 2 != 0
    end = o.high - ((o.high - last) % 2 != 0)
    if first <= end:
        spans.append(SpanView(low=first, high=end, text=g.phrases[ud.parity(first)]))
    return spans


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


def spoken_turn(state: ud.State, lang: str = "en") -> str:
    """Whose turn and what fits, plainly, for the ear: "odd above fifty three, or even
    below it" (``grammar/<lang>/words.yaml``, ``spoken``).

    >>> state, _ = ud.play(ud.new_game(("Ann", "Bob")), 53)
    >>> spoken_turn(state)
    'Bob, your turn: odd above fifty three, or even below it.'
    """
    player = spoken(state.current_player, lang)
    o = state.options
    words = load(lang).phrases
    if state.last is None:
        low, high = to_words(o.low, lang), to_words(o.high, lang)
        return voice_phrase(lang, "turn_first", player=player, low=low, high=high)
    c = ud.constraint(state.last, o)
    if not o.low <= c.last <= o.high:
        low, high = to_words(o.low, lang), to_words(o.high, lang)
        parity = words[c.up if c.up_possible else c.down]
        return voice_phrase(lang, "turn_range", player=player, parity=parity, low=low, high=high)
    fields = {"player": player, "up": words[c.up], "down": words[c.down], "last": to_words(c.last, lang)}
    if c.up_possible and c.down_possible:
        return voice_phrase(lang, "turn_both", **fields)
    return voice_phrase(lang, "turn_up" if c.up_possible else "turn_down", **fields)


# -- the game protocol ---------------------------------------------------------------------------

#: Numbers beyond the range a player might still say (and must be ruled out for).
BEYOND = 5
#: Above this many numbers a recogniser's phrase list holds number words, not whole numbers.
MAX_NUMBER_PHRASES = 200
ANSWERS = ("yes", "no")
# Weight of a reading past a stray unit word next to it (see UpOrDownTalk.hear).
STRAY = 0.5


def number_range(low: int, high: int) -> list[int]:
    """Numbers a player might say for a ``low..high`` game, wrong ones included."""
    numbers = {*range(low - BEYOND if low > 1 else low, high + BEYOND + 1)}
    if low >= 0:
        numbers.add(0)
        numbers = {n for n in numbers if n >= 0}
    return sorted(numbers)


def _number_words(lang: str) -> list[str]:
    n = load(lang).numbers
    return [*n.units, *n.teens, *n.tens, *n.small_multipliers, *n.large_multipliers, *n.minus]


def number_list(options: ud.Options, lang: str) -> list[str]:
    """Phrases for the numbers a recogniser should hear in a game with ``options``. A huge
    range gets the number words (a loose word model still says any number) and the first
    numbers as phrases (hints for a recogniser that wants whole phrases)."""
    numbers = number_range(options.low, options.high)
    if len(numbers) <= MAX_NUMBER_PHRASES:
        return number_phrases(numbers, lang)
    return [*number_phrases(numbers[:MAX_NUMBER_PHRASES], lang), *_number_words(lang)]


def _ambiguous(numbers: Sequence[int], lang: str) -> Unclear:
    g = load(lang)
    said = f" {g.phrases['or']} ".join(str(n) for n in numbers)
    event = {"type": "ambiguous", "numbers": list(numbers)}
    return Unclear(g.phrase("ambiguous", numbers=said), event, about_move=False)


class UpOrDownTalk(Talk[ud.State, Say, ud.Options]):
    # Logistic calibration of a hearing's confidence, fitted by tests/bench/bench_speech.py
    # --fit on espeak-ng Korean saying 1..100 in five voices, clean and noisy.
    calibration: tuple[float, float, float] | None = (-1.601, 0.044, 0.845)

    def read(
        self,
        text: str,
        state: ud.State | None,
        players: tuple[str, ...],
        speaker: str | None,
        asked: Say | None,
        lang: str,
    ) -> Proposal:
        utterance = parse(text, lang)
        if asked is not None:
            answer = self._answer(utterance, asked)
            if answer is not None:
                return answer
        intent = utterance.intent()
        running = state is not None and not state.is_over
        g = load(lang)
        if isinstance(intent, CommandSaid) and intent.name not in ("yes", "no"):
            return Command(intent.name)
        if isinstance(intent, NumberSaid):
            player = speaker or (state.current_player if state is not None else "")
            return Moves((Say(player, intent.value),))
        if isinstance(intent, Ambiguous):
            return _ambiguous(intent.numbers, lang)
        # Nothing to act on, or yes / no with nothing asked.
        event = {"type": "not_understood", "text": intent.name if isinstance(intent, CommandSaid) else text}
        if running:
            return Unclear(g.phrase("not_understood"), event, False, then_prompt=True)
        return Unclear(g.phrase("not_understood_wait"), event, False)

    @staticmethod
    def _answer(utterance: Utterance, asked: Say) -> Proposal | None:
        """Words said to "Did you say fifteen?"; None: they are read as they stand."""
        numbers = utterance.distinct_numbers
        commands = set(utterance.commands)
        if (numbers == (asked.number,) and "no" not in commands) or (
            not numbers and "yes" in commands and "no" not in commands
        ):
            return Answer(True)
        if not numbers and ("no" in commands or "undo" in commands):
            # "Undo" while asked means "not that": nothing was ruled yet.
            return Answer(False)
        if len(numbers) == 1:
            # "No, fifty": a correction, said twice now.
            return Moves((Say(asked.player, numbers[0]),))
        return None

    def describe(self, events: Sequence[Event], options: ud.Options, lang: str) -> list[str]:
        return describe_all(list(events), lang, options=options)

    def prompt(self, state: ud.State, lang: str) -> str:
        return prompt(state, lang)

    def spoken_prompt(self, state: ud.State, lang: str) -> str:
        return spoken_turn(state, lang) if not state.is_over else prompt(state, lang)

    def status(self, state: ud.State, lang: str) -> str:
        return status(state, lang)

    def view(self, state: ud.State, lang: str) -> View:
        # The last number huge, and where the next may lie drawn on the range; the prompt
        # above the board already says it in words.
        o = state.options
        line = LineView(low=o.low, high=o.high, spans=allowed_spans(state, lang))
        if state.last is not None:
            line["at"] = state.last
        last: int | str = "—" if state.last is None else state.last
        main = PartView(label="Last number", big=True, number=last, line=line)
        view = View(facts=[FactView(label="Turn", value=state.turn)], parts=[main])
        out = [p for p, s in zip(state.players, state.seats, strict=True) if s != ud.SEAT_IN]
        if out:
            view["out"] = out
        if o.mode is Mode.TRAINING:
            mistakes: dict[str, Figure] = dict(zip(state.players, state.mistakes, strict=True))
            view["scores"] = [ScoreView(label="Mistakes", values=mistakes, big=True)]
        return view

    def rules(self, options: ud.Options, lang: str) -> str:
        return rules(options, lang)

    def help(self, lang: str) -> str:
        return load(lang).phrase("help")

    def prompt_follows(self, refusal: Refusal) -> bool:
        return False  # whose turn it is, who is out, or that the game is over says it all

    def refusal_text(self, refusal: Refusal, state: ud.State, lang: str) -> str:
        g = load(lang)
        if refusal.reason == "not_your_turn":
            return g.phrase("not_your_turn", player=refusal.fields["player"])
        if refusal.reason in ("not_playing", "not_in_play"):
            return g.phrase("not_playing", player=refusal.fields["player"])
        return g.phrase("game_finished")

    def move_text(self, move: Say, lang: str) -> str:
        return str(move.number)

    def ambiguous(self, candidates: tuple[Say, ...], lang: str) -> Unclear:
        return _ambiguous([m.number for m in candidates], lang)

    def costly(self, state: ud.State, move: Say) -> bool:
        return not ud.is_valid(state.last, move.number, state.options)

    def likely(self, state: ud.State, move: Say) -> bool:
        return ud.is_valid(state.last, move.number, state.options)

    def confusable(self, move: Say, lang: str) -> tuple[Say, ...]:
        return tuple(Say(move.player, n) for n in sorted(confusable(move.number, lang)))

    def echo_confusable(self, move: Say, lang: str, *, echoing: bool = True) -> tuple[Say, ...]:
        return tuple(Say(move.player, n) for n in sorted(heard_in_echo(move.number, lang, echoing=echoing)))

    # -- speech --

    def listen_for(self, state: ud.State, players: tuple[str, ...], lang: str, confirming: bool) -> Listening:
        return Listening(tuple(number_list(state.options, lang)))

    def vocabulary(self, players: tuple[str, ...], options: ud.Options, lang: str) -> list[str]:
        return number_list(options, lang)

    def hear(
        self, text: str, state: ud.State | None, players: tuple[str, ...], confirming: bool, lang: str
    ) -> tuple[Meaning, float]:
        """The decoder's loose word model puts short words next to what was said (a breath,
        the hiss of an "s"): a lone unit beside a longer number ("사 삼십 이"), or beside a
        command other than yes/no ("게임 끝 이"), is taken for such a word and the rest is
        read, less surely (``STRAY``). "아니 오십 사" is a correction: the number."""
        utterance = parse(text, lang)
        intent, trust = utterance.intent(), 1.0
        numbers = utterance.distinct_numbers
        commands = tuple(dict.fromkeys(utterance.commands))
        if len(numbers) == 1 and commands == ("no",):
            intent = NumberSaid(numbers[0])
        elif len(numbers) == 2 and not commands and min(numbers) < 10 <= max(numbers):
            intent, trust = NumberSaid(max(numbers)), STRAY
        elif len(numbers) == 1 and 0 <= numbers[0] < 10 and len(commands) == 1 and commands[0] not in ANSWERS:
            intent, trust = CommandSaid(commands[0]), STRAY
        if isinstance(intent, NumberSaid):
            player = state.current_player if state is not None and not state.is_over else ""
            return Say(player, intent.value), trust
        if isinstance(intent, CommandSaid):
            return Command(intent.name), trust
        return None, trust


TALK = UpOrDownTalk()

"""A small stand-in for the host: text lines through ``talk.read`` -> ``rules`` -> ``talk.describe``.

Lines are ``"Name: words"`` (the speaker) or bare words (a shared device: the move is the
player's whose turn it is). Enough of the host to script whole games in tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product

from games.base import Answer, Command, Moves, Unclear
from games.blofa import SPEC
from games.blofa.rules import (
    Challenge,
    Claim,
    Colour,
    Keep,
    Move,
    Options,
    Pass,
    Phase,
    PlayCards,
    Reveal,
    State,
    colour_of,
    new_game,
    play,
    refusal,
    to_act,
)
from games.blofa.talk import TALK, _mixes


@dataclass
class Table:
    players: tuple[str, ...]
    options: Options = field(default_factory=Options)
    lang: str = "en"
    state: State = field(init=False)
    history: list[State] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    transcript: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.state = new_game(self.players, self.options)
        self.transcript.append(TALK.prompt(self.state, self.lang))

    def say(self, line: str) -> list[str]:
        speaker: str | None = None
        text = line
        name, sep, rest = line.partition(":")
        if sep and name.strip() in self.players:
            speaker, text = name.strip(), rest.strip()
        out = self._answer(text, speaker)
        self.transcript += [f"> {line}", *out]
        return out

    def _answer(self, text: str, speaker: str | None) -> list[str]:
        proposal = TALK.read(text, self.state, self.players, speaker, None, self.lang)
        if isinstance(proposal, Unclear):
            # The host follows the answer with the turn prompt when it says so.
            prompt = f" {TALK.prompt(self.state, self.lang)}" if proposal.then_prompt else ""
            return [proposal.text + prompt]
        if isinstance(proposal, Answer):
            return ["(nothing to answer)"]
        if isinstance(proposal, Command):
            return self._command(proposal.name)
        assert isinstance(proposal, Moves)
        if len(proposal.candidates) > 1:
            return [TALK.ambiguous(proposal.candidates, self.lang).text]
        return self.make(proposal.candidates[0])

    def make(self, move: Move) -> list[str]:
        wrong = refusal(self.state, move)
        if wrong is not None:
            why = TALK.refusal_text(wrong, self.state, self.lang)
            if TALK.prompt_follows(wrong) and not self.state.is_over:
                return [f"{why} {TALK.prompt(self.state, self.lang)}"]
            return [why]
        self.history.append(self.state)
        self.moves.append(move)
        self.state, events = play(self.state, move)
        lines = TALK.describe(events, self.options, self.lang)
        if not self.state.is_over:
            lines.append(TALK.prompt(self.state, self.lang))
        return lines

    def _command(self, name: str) -> list[str]:
        if name == "undo" and self.history:
            self.state = self.history.pop()
            self.moves.pop()
            return ["Taken back.", TALK.prompt(self.state, self.lang)]
        if name == "status":
            return [TALK.status(self.state, self.lang)]
        if name == "help":
            return [TALK.help(self.lang)]
        if name == "rules":
            return [TALK.rules(self.options, self.lang)]
        return [TALK.prompt(self.state, self.lang)]


def legal_moves(state: State) -> list[Move]:
    """Every move the rules allow now (for property tests; values of a reveal included)."""
    out: list[Move] = []
    if state.phase is Phase.PLAY:
        player = state.players[state.seat]
        out += [PlayCards(player, mix, d) for mix in _mixes(1) + _mixes(2) for d in state.allowed_sums]
        out += [Pass(player, c) for c in Colour] + [Challenge(player)]
    elif state.phase is Phase.REVEAL:
        colours = state.plays[-1].colours
        for values in product(range(6), repeat=len(colours)):
            if all(colour_of(v) is c for v, c in zip(values, colours, strict=True)):
                out.append(Reveal(values))
    elif state.phase is Phase.KEEP:
        player = state.players[state.seat]
        out += [Keep(player, c) for c in Colour] + [Keep(player, Colour.BLUE, rule=True)]
    elif state.phase is Phase.CHECK:
        out += [Claim(p, h) for p in sorted(to_act(state)) for h in (False, True)]
    return [m for m in out if refusal(state, m) is None]


__all__ = ["SPEC", "TALK", "Table", "legal_moves"]

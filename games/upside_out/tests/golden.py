"""A whole Upside-Out game as table lines, for the host's golden machinery.

``golden_script()`` gives (players, options, "Name: words" lines): refusals, commands, a
Mirror and a Counter, a reversal, secrets queued behind the card that revealed them, a
discard paid with a secret, a fourth copy of a face refused, and two players knocked out at
the same turn's end.
``transcript()`` runs it through this game's own talk and rules the way a host would,
so the game's tests can check the script stays whole without the host.
"""

from __future__ import annotations

from typing import Any

from games.base import Command, Moves, Unclear
from games.core import IllegalMove
from games.upside_out import SPEC
from games.upside_out.rules import Options, State, UpsideOutRules


def golden_script() -> tuple[list[str], dict[str, Any], list[str]]:
    players = ["Ann", "Bob", "Cy"]
    lines = [
        "Bob: draw",  # refused: nobody has started
        "Cy: I'll tell a secret",
        "Cy: plays Windfall",  # Cy draws 2; Ann and Bob each owe a discard
        "Cy: draw",  # refused: the effect is still being carried out
        "Ann: discards one",
        "Bob: count",
        "Bob: mirror",  # Cy faces Bob's discard after Windfall
        "Cy: discards one",
        "Ann: plays U-Turn",  # reversed: Cy is next
        "Cy: plays Confession",  # Bob and Ann owe a secret each
        "Bob: counter",
        "Ann: reveals Shortcut",  # queued behind Confession
        "Bob: whose turn",
        "Bob: plays Purge",  # Ann and Cy owe two cards each
        "Ann: discards two",
        "Cy: reveals a secret, me: draw one; everyone else: nothing",  # in lieu of two cards
        "Ann: plays Confession",
        "Cy: reveals Hush",
        "Bob: reveals Hush",
        "Cy: plays fish",  # not in the deck
        "Cy: plays Confession",
        "Bob: reveals Hush",  # the third Hush: no more of them (each face has 3 copies)
        "Ann: reveals Hush",  # refused: all three are face up
        "Ann: reveals Shuffle Feet",
        "Bob: plays, me: nothing; everyone else: reveal one",  # three Confessions are out
        "Ann: discards two",  # refused: Ann owes a secret, not cards
        "Ann: reveals Shuffle Feet",
        "Cy: reveals Shuffle Feet",  # Ann and Cy are out together; Bob wins
        "Ann: draw",  # refused: the game is over
    ]
    return players, {}, lines


def transcript(
    players: list[str], options: dict[str, Any], lines: list[str], lang: str = "en", say: str | None = None
) -> tuple[list[str], State]:
    """What a host would say to each line (read in ``lang``, said in ``say``), and the final state."""
    heard, lang = lang, say or lang
    rules, talk = SPEC.rules, SPEC.talk
    opts: Options = SPEC.make_options(options)
    names = tuple(players)
    state: State = rules.new_game(names, opts, 0, None)
    # The protocol has no opening events yet: the deal and the first question come from here.
    out = talk.describe(UpsideOutRules().opening_events(state), opts, lang)
    for line in lines:
        out.append(f"> {line}")
        speaker, _, text = line.partition(": ")
        said = talk.read(text, state, names, speaker, None, heard)
        if isinstance(said, Command):
            out.append(talk.status(state, lang) if said.name == "status" else talk.prompt(state, lang))
        elif isinstance(said, Unclear):
            # The host follows the answer with the turn prompt when it says so.
            prompt = f" {talk.prompt(state, lang)}" if said.then_prompt else ""
            out.append(said.text + prompt)
        elif isinstance(said, Moves) and len(said.candidates) > 1:
            out.append(talk.ambiguous(said.candidates, lang).text)
        elif isinstance(said, Moves):
            try:
                state, events = rules.play(state, said.candidates[0])
            except IllegalMove as exc:
                why = talk.refusal_text(exc.refusal, state, lang)
                follows = talk.prompt_follows(exc.refusal) and not state.is_over
                out.append(f"{why} {talk.prompt(state, lang)}" if follows else why)
                continue
            out.extend(talk.describe(events, opts, lang))
            if not state.is_over:
                out.append(talk.prompt(state, lang))
    return out, state


if __name__ == "__main__":
    lines, final = transcript(*golden_script())
    print("\n".join(lines))

"""Every card game by voice at an English table (issue 23): !nversion, Blófa Cards and
Upside-Out, each a whole legal game of 20 or more moves said by Piper's joe voice into
`gamehost table GAME --audio FILE.wav --json --quiet`, with ordinary table talk between
the moves and, after some of it, someone else's "yes" / "that's right" (espeak-ng).

The talk is what people say around a card table: greetings, food, jokes, comments on the
play, and the game's own words inside ordinary sentences ("I have to leave at nine",
"I doubt it will rain tomorrow", "are you done with that plate"). It must make no ruling
and no question: the rulings are exactly the game's, and no confirmation is ever asked,
so the "yes" after the talk has nothing to answer.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from host.cli import app
from host.speech.audio import SAMPLE_RATE, write_wav
from tests import voices
from tests.speech.conftest import silence, trim

runner = CliRunner()

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")

#: What the host says to players that is not a game event: none of it may follow talk.
HOST_ACTS = {"confirm", "not_confirmed", "command", "refused", "not_your_turn", "not_understood",
             "left", "new_game"}  # fmt: skip


# -- speech ------------------------------------------------------------------------------------


def joe(text: str) -> bytes:
    """Piper's joe voice, the same audio every run (no sampling noise). Synthesis is slow
    (Piper takes about 0.7 s a second of speech on 2 cores): tests/voices.py keeps it."""
    return trim(voices.piper(text))


def someone_else(text: str) -> bytes:
    """Another player across the table: espeak-ng's American voice."""
    return trim(voices.espeak(text, "en-us"))


@dataclass(frozen=True)
class Line:
    kind: str  # "move", "talk" or "yes"
    text: str


def move(text: str) -> Line:
    return Line("move", text)


def talk(text: str) -> Line:
    return Line("talk", text)


def yes(text: str = "yes") -> Line:
    return Line("yes", text)


LEAD, GAP = 0.8, 1.1  # seconds of silence before the first line and after each


def record(tmp_path: Path, lines: Sequence[Line]) -> tuple[Path, list[float]]:
    """One WAV of the whole game, and where each line starts (seconds)."""
    pcm, starts, at = [silence(LEAD)], [], LEAD
    for line in lines:
        said = someone_else(line.text) if line.kind == "yes" else joe(line.text)
        starts.append(at)
        pcm += [said, silence(GAP)]
        at += len(said) / 2 / SAMPLE_RATE + GAP
    path = tmp_path / "game.wav"
    write_wav(path, b"".join([*pcm, silence(1.0)]))
    return path, starts


HEARD = re.compile(r"\[\s*([0-9.]+) s\] (.*)")  # -v: "[  12.34 s] heard 'draw' -> ..."


@dataclass(frozen=True)
class Run:
    lines: Sequence[Line]
    events: list[dict[str, Any]]
    heard: list[list[str]]  # per line: what the host heard while (or just after) it was said

    def of(self, *kinds: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] in kinds]

    def report(self) -> str:
        """The counts, and each line with what was heard of it (``-v``)."""
        count = {k: sum(1 for x in self.lines if x.kind == k) for k in ("move", "talk", "yes")}
        out = [f"{count['move']} moves, {count['talk']} talk sentences, {count['yes']} yeses:"]
        for line, heard in zip(self.lines, self.heard, strict=True):
            out.append(f"  {line.kind} {line.text!r}: {'; '.join(heard) or '-'}")
        return "\n".join(out)


def table(tmp_path: Path, game: str, lines: Sequence[Line], *args: str) -> Run:
    audio, starts = record(tmp_path, lines)
    db = str(tmp_path / "t.db")
    result = runner.invoke(
        app, ["table", game, "--db", db, "--json", "--quiet", "-v", "--audio", str(audio), *args]
    )
    assert result.exit_code == 0, result.stderr
    events = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
    heard: list[list[str]] = [[] for _ in lines]
    for found in HEARD.finditer(result.stderr):
        # A hearing is stamped when it ends, after its line started and before the next.
        at = float(found.group(1))
        index = max((i for i, s in enumerate(starts) if s < at), default=0)
        heard[index].append(found.group(2))
    return Run(lines, events, heard)


def assert_talk_ignored(run: Run) -> None:
    """No confirmation asked, no command answered, nothing refused: talk did nothing."""
    acts = [e for e in run.events if e["type"] in HOST_ACTS]
    asked = sum(1 for e in acts if e["type"] == "confirm")
    assert acts == [], f"{len(acts)} acts besides the moves ({asked} questions): {acts}\n" + run.report()
    chat = [(x, heard) for x, heard in zip(run.lines, run.heard, strict=True) if x.kind != "move"]
    taken = [f"{x.text!r}: {heard}" for x, heard in chat if any(" -> " in h for h in heard)]
    assert taken == [], f"{len(taken)} of {len(chat)} talk lines were acted on:\n" + run.report()


# -- !nversion ---------------------------------------------------------------------------------

# A dealt game (hearts, spades and clubs; Ann and Bob hold 10 cards each): every card follows
# suit, makes 11 with the follow card (4 inversions), or is played off suit by a player who
# holds none of it. Ann takes 6 tricks to 4.
INVERSION_LANE = "9S,6H,4S,4H,8S,1H,2S,10S,3H,7S"
INVERSION_GAME = [
    talk("evening all, thanks for having us"),
    move("six of spades"),
    move("one of spades"),
    talk("could somebody pass me the crisps please"),
    move("ten of hearts"),
    talk("I have to leave at nine tonight"),
    yes("that's right"),
    move("two of hearts"),
    move("eight of clubs"),
    move("seven of clubs"),
    talk("why do cows wear bells? because their horns don't work"),
    move("five of hearts"),
    move("nine of hearts"),
    talk("that was a sneaky move"),
    yes(),
    move("three of spades"),
    talk("my grandmother had a garden spade older than me"),
    move("seven of hearts"),
    move("five of spades"),
    talk("we went to the seaside for ten days in july"),
    move("eight of hearts"),
    talk("is there any more of that cheese left"),
    yes("yeah"),
    move("five of clubs"),
    move("six of clubs"),
    talk("the clubs in this town close at two in the morning"),
    move("nine of clubs"),
    move("one of clubs"),
    talk("my brother turned thirty last week"),
    yes("that's right"),
    move("three of clubs"),
    move("ten of clubs"),
    talk("oh no, I spilled my water"),
    move("two of clubs"),
    move("four of clubs"),
    talk("well played, both of you"),
    yes(),
]


def test_a_spoken_inversion_game(tmp_path: Path) -> None:
    setup = ("--suits", "H,S,C", "--lane", INVERSION_LANE, "--first", "Ann")
    run = table(tmp_path, "inversion", INVERSION_GAME, "--players", "Ann,Bob", *setup)
    why = run.report()
    played = [(e["player"], e["card"]) for e in run.of("card_played")]
    assert played == [
        ("Ann", "6S"), ("Bob", "1S"), ("Ann", "10H"), ("Bob", "2H"), ("Ann", "8C"), ("Bob", "7C"),
        ("Ann", "5H"), ("Bob", "9H"), ("Bob", "3S"), ("Ann", "7H"), ("Bob", "5S"), ("Ann", "8H"),
        ("Ann", "5C"), ("Bob", "6C"), ("Bob", "9C"), ("Ann", "1C"), ("Ann", "3C"), ("Bob", "10C"),
        ("Bob", "2C"), ("Ann", "4C"),
    ], why  # fmt: skip
    inversions = [(e["trick"], e["player"], e["card"], e["took"]) for e in run.of("inversion")]
    assert inversions == [
        (3, "Bob", "7C", "4S"), (5, "Bob", "3S", "8S"), (8, "Ann", "1C", "10S"), (10, "Ann", "4C", "7S"),
    ], why  # fmt: skip
    tricks = [(e["trick"], e["winner"], e["card"], e["reason"]) for e in run.of("trick_won")]
    assert tricks == [
        (1, "Ann", "6S", "follow_suit"), (2, "Ann", "10H", "follow_suit"), (3, "Ann", "8C", "inversion"),
        (4, "Bob", "9H", "follow_suit"), (5, "Bob", "8S", "inversion"), (6, "Ann", "8H", "follow_suit"),
        (7, "Bob", "6C", "highest"), (8, "Ann", "10S", "inversion"), (9, "Bob", "10C", "highest"),
        (10, "Ann", "7S", "inversion"),
    ], why  # fmt: skip
    assert run.of("revoke") == [], why
    assert [e["total"] for e in run.of("cards_accounted")] == [30], why
    (over,) = run.of("game_over")
    assert (over["winner"], over["tricks"]) == ("Ann", {"Ann": 6, "Bob": 4}), why
    assert_talk_ignored(run)


# -- Blófa Cards -------------------------------------------------------------------------------

# Ann deals. Trick 1: Bob bluffs 3 with two blue cards (2 and 0), Cy calls it and captures
# the rule card. Trick 2: three passes, Cy's 2 stands. Tricks 3 and 4: true declarations
# challenged. Three tricks without a capture end the game (--dry-tricks 3); Dana still holds
# a rule card and is eliminated; Cy wins with 9 VP (3 won, 6 for the capture).
BLOFA_GAME = [
    talk("hi everyone, is this seat taken"),
    move("one card yellow one"),
    talk("I painted my kitchen yellow last spring"),
    move("two card blue three"),
    talk("you look like you're bluffing, but I can never tell"),
    yes(),
    move("challenge"),
    move("two and zero"),
    talk("these biscuits are amazing"),
    move("keep rule card"),
    move("one card blue two"),
    move("pass blue"),
    talk("please pass the napkins to the left"),
    yes("that's right"),
    move("pass"),
    move("pass"),
    talk("my car is blue, and it's always dirty"),
    move("keep blue"),
    talk("I doubt it will rain tomorrow"),
    yes("yeah"),
    move("one card yellow one"),
    talk("the train was twenty minutes late again"),
    move("two card blue and yellow three"),
    move("one card blue four"),
    move("challenge"),
    move("four"),
    talk("let me keep my glasses on for this one"),
    move("keep yellow"),
    talk("my son is learning to count to five"),
    yes("that's right"),
    move("two card yellow two"),
    move("one card yellow three"),
    talk("I told a joke about cards once, nobody dealt with it"),
    move("one card blue four"),
    move("challenge"),
    move("four"),
    move("keep yellow"),
    talk("that was close"),
    move("no rule card"),
    move("no rule card"),
    move("no rule card"),
    move("i hold a rule card"),
    talk("we should play this again next friday"),
    yes(),
]


BLOFA_RULED = ("declared", "passed", "challenge", "revealed", "kept", "captured", "claim")


def blofa_value(e: dict[str, Any]) -> object:
    """What a ruled Blófa move said: the colours and sum, a pile, whom, values, a count."""
    match e["type"]:
        case "declared":
            return ("+".join(e["colours"]), e["declared"])
        case "passed":
            return e["pile"]
        case "challenge":
            return e["declarer"]
        case "revealed":
            return tuple(e["values"])
        case "kept":
            return e["colour"]
        case "captured":
            return e["captured"]
    return e["holds"]  # claim


def test_a_spoken_blofa_game(tmp_path: Path) -> None:
    run = table(tmp_path, "blofa", BLOFA_GAME, "--players", "Ann,Bob,Cy,Dana", "--dry-tricks", "3")
    why = run.report()
    ruled = [(e["type"], e.get("player", e.get("declarer")), blofa_value(e)) for e in run.of(*BLOFA_RULED)]
    assert ruled == [
        ("declared", "Ann", ("yellow", 1)),
        ("declared", "Bob", ("blue+blue", 3)),
        ("challenge", "Cy", "Bob"),
        ("revealed", "Bob", (2, 0)),
        ("captured", "Cy", 1),
        ("declared", "Cy", ("blue", 2)),
        ("passed", "Dana", "blue"),
        ("passed", "Ann", "yellow"),
        ("passed", "Bob", "blue"),
        ("kept", "Cy", "blue"),
        ("declared", "Cy", ("yellow", 1)),
        ("declared", "Dana", ("blue+yellow", 3)),
        ("declared", "Ann", ("blue", 4)),
        ("challenge", "Bob", "Ann"),
        ("revealed", "Ann", (4,)),
        ("kept", "Ann", "yellow"),
        ("declared", "Ann", ("yellow+yellow", 2)),
        ("declared", "Bob", ("yellow", 3)),
        ("declared", "Cy", ("blue", 4)),
        ("challenge", "Dana", "Cy"),
        ("revealed", "Cy", (4,)),
        ("kept", "Cy", "yellow"),
        ("claim", "Ann", False),
        ("claim", "Bob", False),
        ("claim", "Cy", False),
        ("claim", "Dana", True),
    ], why
    clashes = [(e["winner"], e["loser"], e["lied"]) for e in run.of("clash")]
    assert clashes == [("Cy", "Bob", True), ("Ann", "Bob", False), ("Cy", "Dana", False)], why
    tricks = [(e["player"], e["reason"]) for e in run.of("trick_won")]
    assert tricks == [("Cy", "clash"), ("Cy", "passes"), ("Ann", "clash"), ("Cy", "clash")], why
    assert [e["reason"] for e in run.of("rule_card_check")] == ["dry"], why
    (over,) = run.of("game_over")
    assert over["winner"] == "Cy", why
    assert over["vp"] == {"Ann": 5, "Bob": 0, "Cy": 9, "Dana": -1}, why
    assert over["eliminated"] == ["Dana"], why
    assert over["scoring"] == [{"capturer": "Cy", "across": "Ann", "right": "Bob"}], why
    assert_talk_ignored(run)


# -- Upside-Out --------------------------------------------------------------------------------

# The sample deck, Ann first. Draws, plays facing either way ("turned"), discards and gifts
# answered in the words the recogniser listens for ("discards one", "gives one"), secrets
# revealed instead of discarding, a Nap that skips Ann, a Counter, and Bob's last secret
# revealed to Ann's Confession: Bob is out, Ann wins.
UPSIDE_OUT_GAME = [
    talk("hello all, sorry I'm late"),
    move("draw"),
    move("draw"),
    talk("who wants popcorn, I made a big bowl"),
    move("plays windfall"),
    talk("the mirror in my hallway cracked yesterday"),
    move("discards one"),
    move("plays confession"),
    talk("I'll tell you a secret, I hate olives"),
    yes("that's right"),
    move("reveals a secret shortcut"),
    move("plays purge"),
    talk("can you draw me a map to the station later"),
    move("reveals a secret hush"),
    move("plays tax"),
    talk("the tax office sent me another letter"),
    yes(),
    move("gives one"),
    move("plays backfire turned"),
    move("discards two"),
    talk("my daughter is taking a nap upstairs"),
    move("reveals a secret nap"),
    talk("are you done with that plate"),
    move("plays gift"),
    move("gives one"),
    talk("this scarf was a gift from my aunt"),
    yes("yeah"),
    move("draw"),
    talk("what do you call a sleeping dinosaur? a dino snore"),
    move("plays landslide turned"),
    move("discards one"),
    talk("the kitchen counter is covered in flour"),
    move("counter"),
    move("plays scavenge"),
    talk("my team plays on saturday at three"),
    yes("that's right"),
    move("plays confession"),
    move("reveals a secret spring clean"),
    talk("that's fine by me, we can eat later"),
    move("discards one"),
    move("discards one"),
    talk("nice one, you got him there"),
]


UPSIDE_OUT_RULED = ("drew", "played", "revealed", "discarded", "donated", "reacted", "skipped")


def upside_out_value(e: dict[str, Any]) -> object:
    """What an Upside-Out ruling was: a count, the card and its side facing its player,
    the recipient, the reaction and what it answered."""
    match e["type"]:
        case "drew" | "discarded":
            return e["count"]
        case "played":
            return (e["card"], *e["you"])
        case "revealed":
            return e["card"]
        case "donated":
            return e["to"]
        case "reacted":
            return (e["kind"], e["what"])
    return None  # skipped


def test_a_spoken_upside_out_game(tmp_path: Path) -> None:
    run = table(tmp_path, "upside-out", UPSIDE_OUT_GAME, "--players", "Ann,Bob", "--first", "Ann")
    why = run.report()
    ruled = [
        (e["type"], e["player"], upside_out_value(e))
        for e in run.of(*UPSIDE_OUT_RULED)
        if not (e["type"] == "discarded" and e["resolved"])  # a played card done: not a move
    ]
    assert ruled == [
        ("drew", "Ann", 1),
        ("drew", "Bob", 1),
        ("played", "Ann", ("Windfall", "draw 2")),
        ("drew", "Ann", 2),
        ("discarded", "Bob", 1),
        ("played", "Bob", ("Confession", "nothing")),
        ("revealed", "Ann", "Shortcut"),
        ("drew", "Ann", 1),
        ("played", "Ann", ("Purge", "nothing")),
        ("revealed", "Bob", "Hush"),
        ("played", "Bob", ("Tax", "nothing")),
        ("donated", "Ann", "Bob"),
        ("played", "Ann", ("Backfire", "discard 2")),  # turned: the discard faces Ann
        ("discarded", "Ann", 2),
        ("revealed", "Bob", "Nap"),
        ("drew", "Bob", 1),
        ("played", "Bob", ("Gift", "donate 1 to next")),
        ("donated", "Bob", "Ann"),
        ("drew", "Ann", 1),
        ("skipped", "Ann", None),
        ("drew", "Bob", 1),
        ("played", "Ann", ("Landslide", "discard 1")),
        ("discarded", "Ann", 1),
        ("reacted", "Bob", ("counter", "discard 2")),
        ("played", "Bob", ("Scavenge", "draw 1 from discard")),
        ("drew", "Bob", 1),
        ("played", "Ann", ("Confession", "nothing")),
        ("revealed", "Bob", "Spring Clean"),
        ("discarded", "Bob", 1),
        ("discarded", "Ann", 1),
    ], why
    assert [e["player"] for e in run.of("knocked_out")] == ["Bob"], why
    (over,) = run.of("game_over")
    assert (over["winner"], over["secrets"]) == ("Ann", {"Ann": 2, "Bob": 0}), why
    assert_talk_ignored(run)

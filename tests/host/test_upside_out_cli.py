"""``gamehost play upside-out`` as the issue lists it: the table lines, every --json event
kind, the 30-second opening clock (``wait 30`` in a script, or the terminal left idle),
and a bad ``--deck`` refused when the options are read."""

from __future__ import annotations

import json
import queue
from collections.abc import Iterator
from pathlib import Path

from typer.testing import CliRunner

from games.upside_out.tests.golden import golden_script
from host.cli import app
from host.deadline import SkipClock, Watch, timed_lines
from host.referee import Referee
from host.session import SessionConfig
from host.store import Store
from tests.clock import Clock

runner = CliRunner()
ALONE = {"type": "opening", "question": "alone"}


def play(tmp_path: Path, stdin: str, *args: str) -> tuple[int, str, str]:
    argv = ["play", "upside-out", "--db", str(tmp_path / "g.db"), *args]
    result = runner.invoke(app, argv, input=stdin)
    return result.exit_code, result.stdout, " ".join(result.stderr.split())


def events(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def test_the_issues_lines_in_the_terminal(tmp_path: Path) -> None:
    lines = [
        "Ann: draw",
        "Bob: plays Windfall",
        "Cy: mirror",
        "Ann: discards one",
        "Bob: discards one",
        "whose turn",
        "Cy: plays, me: draw two; everyone else: discard one",
        "Ann: counter",
        "Bob: reveals a secret, me: draw one; everyone else: nothing",
        "count",
        "Ann: plays Purge",
        "Bob: discards two",
    ]
    code, out, _ = play(tmp_path, "\n".join(lines) + "\n", "--players", "Ann,Bob,Cy", "--first", "Ann")
    assert code == 0
    for said in (
        "Ann draws 1.",
        "Bob plays Windfall.",
        "Cy mirrors discard 1: Bob faces it next.",
        "Cy plays a card: draw 2 for Cy; discard 1 for the others.",
        "Ann counters discard 1.",
        "Bob discards 2.",
        "Ann 3 cards/3 secrets, Bob 5 cards/2 secrets, Cy 4 cards/3 secrets; deck 57, discard 7.",
    ):
        assert said in out, said
    assert "Traceback" not in out


def test_every_json_event_the_issue_names(tmp_path: Path) -> None:
    players, _, lines = golden_script()
    code, out, _ = play(tmp_path, "\n".join(lines) + "\n", "--players", ",".join(players), "--json")
    assert code == 0
    # The three Jackpots (draw 3, everyone else draw 1), then draws until the deck runs out
    # and is reshuffled (a fourth Jackpot would be refused: each face has 3 copies).
    jackpots = ["Ann: plays Jackpot", "Bob: plays Jackpot", "Cy: plays Jackpot"]
    jackpots += ["Ann: draw", "Bob: draw", "Cy: draw"] * 17
    code, more, _ = play(
        tmp_path, "\n".join(jackpots) + "\n", "--players", "Ann,Bob,Cy", "--first", "Ann", "--json"
    )
    assert code == 0
    kinds = {str(e["type"]) for e in events(out) + events(more)}
    assert kinds >= {
        "played",
        "effect",
        "drew",
        "discarded",
        "revealed",
        "reversed",
        "reshuffled",
        "knocked_out",
        "turn",
        "refused",
        "counts",
        "game_over",
    }
    [over] = [e for e in events(out) if e["type"] == "game_over"]
    assert over["winner"] == "Bob"
    refused = [e for e in events(out) if e["type"] == "refused"]
    assert all(e.get("reason") for e in refused)


def test_wait_30_asks_the_second_question_once(tmp_path: Path) -> None:
    code, out, _ = play(
        tmp_path, "wait 29\nwait 1\n(30 seconds pass)\nCy: me\nwait 60\n", "--players", "Ann,Bob,Cy", "--json"
    )
    assert code == 0
    got = events(out)
    assert got.count(ALONE) == 1
    assert got.index(ALONE) < got.index({"type": "first", "player": "Cy", "order": ["Cy", "Ann", "Bob"]})
    code, out, _ = play(tmp_path, "", "--players", "Ann,Bob,Cy", "--json", "--say", "wait 30", "--say", "Bob")
    assert code == 0 and events(out)[0] == ALONE and events(out)[2]["player"] == "Bob"


def test_no_second_question_after_a_claim(tmp_path: Path) -> None:
    code, out, _ = play(tmp_path, "wait 29\nAnn: me\nwait 30\n", "--players", "Ann,Bob,Cy", "--json")
    assert code == 0 and ALONE not in events(out)
    code, out, _ = play(tmp_path, "wait 60\n", "--players", "Ann,Bob", "--first", "Bob", "--json")
    assert code == 0 and events(out) == [{"type": "turn", "player": "Bob", "turn": 1}]


def test_the_clock_fires_while_the_terminal_is_idle() -> None:
    clock = Clock()
    referee = Referee(Store(":memory:"), SkipClock(clock))
    session = referee.create(SessionConfig(game="upside-out"), ["Ann", "Bob"])
    watch = Watch(referee, session)
    typed: queue.Queue[str | None] = queue.Queue()

    def terminal() -> Iterator[str]:
        while (line := typed.get()) is not None:
            yield line

    lines = timed_lines(terminal(), watch)
    clock.advance(30)
    assert next(lines) is None  # nobody typed: the time ran out
    reply = watch.due()
    assert reply is not None and ALONE in reply.events
    assert watch.due() is None and watch.remaining() is None  # once; the second question waits
    typed.put("Ann: me\n")
    assert next(lines) == "Ann: me\n"
    typed.put(None)
    assert list(lines) == []


def test_a_bad_deck_is_refused_with_its_file_and_fault(tmp_path: Path) -> None:
    deck = tmp_path / "ours.yaml"
    deck.write_text("title: ours\ncards:\n  - {name: Dance, you: dance, others: nothing}\n")
    code, out, err = play(tmp_path, "draw\n", "--players", "Ann,Bob", "--deck", str(deck))
    assert code == 2 and out == ""
    assert f"gamehost: --deck: {deck}:3: cards.0.you: unknown effect 'dance'" in err  # the flag typed
    code, _, err = play(tmp_path, "", "--players", "Ann,Bob", "--opt", f"deck={tmp_path / 'none.yaml'}")
    assert code == 2 and f"deck: {tmp_path / 'none.yaml'}: no such deck file (bundled decks: sample)" in err
    code, out, _ = play(tmp_path, "draw\n", "--players", "Ann,Bob", "--deck", "sample", "--first", "Ann")
    assert code == 0 and "Ann draws 1." in out


def test_a_new_game_after_the_first_player_left_asks_who_starts(tmp_path: Path) -> None:
    # It raised ValueError "first: 'Bob' is not playing" (traceback, exit 1).
    lines = "Bob: leave\nfinish\nnew game\n"
    code, out, err = play(tmp_path, lines, "--players", "Ann,Bob,Cy", "--first", "Bob", "--json")
    assert code == 0 and "Traceback" not in err
    got = events(out)
    assert {"type": "new_game", "players": ["Ann", "Cy"], "game": 2} in got
    assert got[-1] == {"type": "turn", "player": None, "turn": 1}  # the opening question waits

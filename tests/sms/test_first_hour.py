"""What a newcomer texts in the first hour (issue 42): no dead end after a game, a word the
host does not know never becomes a name, and HELP in a game says what to text now."""

from __future__ import annotations

from pathlib import Path

import pytest

from host.channels.sms.keywords import new_keywords
from tests.clock import Clock
from tests.sms.conftest import PHONES, Sms, build
from tests.twilio_helpers import FakeTwilio

GAMES = "NEW, NEW TRAINING, NEW BLOFA, NEW INVERSION, NEW UPSIDEOUT"


def code_in(answer: list[str]) -> str:
    said = " ".join(answer)
    assert "is ready" in said, answer
    return said.split("Friends text JOIN ")[1].split()[0].rstrip(".")


def session_of(sms: Sms, phone: str) -> str:
    member = sms.app.state.lobby.member(phone)
    assert member is not None, f"{phone} is in no game"
    return str(member.session_id)


# -- 3: after a game, NEW leads somewhere ---------------------------------------------------


@pytest.mark.parametrize("again", ["NEW", "new game", "START", "New game please"])
def test_new_with_nobody_else_left_opens_a_new_game_to_join(sms: Sms, again: str) -> None:
    ann, bob = sms.new_game(2)
    assert sms.text(bob, "STOP") == []
    assert sms.last(ann) == "#2 Bob left and is out. Ann wins! Ann opens the next game: text NEW."
    old = session_of(sms, ann)
    answer = sms.text(ann, again)
    assert answer[0] == "Too few players are left to play again, so this is a new game."
    code = code_in(answer)
    assert f"Friends text JOIN {code} to this number. You are Ann." in " ".join(answer)
    assert session_of(sms, ann) != old and not sms.table(ann).running
    cy = PHONES[2]
    assert sms.text(cy, f"JOIN {code} Cy")[0].startswith(f"You joined game {code} as Cy.")
    assert sms.text(ann, "START")[0].startswith("#1 New game: Ann, Cy.")


def test_new_after_a_training_game_keeps_training(sms: Sms) -> None:
    ann, bob = sms.new_game(2, mode="TRAINING")
    sms.text(bob, "LEAVE")
    sms.text(ann, "finish")
    answer = " ".join(sms.text(ann, "NEW"))
    assert "is ready: Up-or-Down (training), 2 to 10 players." in answer
    assert sms.table(ann).options.mode == "training"


def test_new_after_a_game_with_enough_players_is_still_a_rematch(sms: Sms) -> None:
    ann, _bob, cy = sms.new_game(3)
    sms.text(cy, "STOP")
    assert "finish" in sms.text(ann, "HELP")[0]
    sms.text(ann, "finish")
    old = session_of(sms, ann)
    assert sms.text(ann, "NEW")[0].startswith("#")
    assert session_of(sms, ann) == old and sms.table(ann).running


def test_new_naming_another_game_after_one_moves_on(sms: Sms) -> None:
    ann, bob, _cy = sms.new_game(3)
    sms.text(ann, "finish")
    answer = sms.text(ann, "NEW BLOFA")
    assert "is ready: Blofa Cards, 4 players." in answer[0] and "You are Ann." in answer[0]
    assert sms.table(ann).spec.name == "blofa"
    assert sms.last(bob) == "#1 Ann left the game."
    # An unknown word after a game keeps the player where they were.
    assert sms.text(bob, "NEW CHESS Bob") == [f"#1 There is no game CHESS. Games by text: {GAMES}."]
    assert not sms.table(bob).running


# -- 4: a word the host does not know is no name ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("NEW CHESS Zed", f"There is no game CHESS. Games by text: {GAMES}."),
        ("new chess Zed", f"There is no game chess. Games by text: {GAMES}."),
        ("NEW INVERSON Ann", f"There is no game INVERSON. Games by text: {GAMES}."),
        ("NEW BLOFA TRAINING Ann", "Blofa Cards has no TRAINING. Text NEW BLOFA and your name."),
        (
            "NEW UPSIDEOUT /etc/passwd Ann",
            "A name has letters, digits, spaces and - ' . only, not /. Text NEW UPSIDEOUT and another name.",
        ),
        (
            "NEW <script>Ann</script>",
            "A name has letters, digits, spaces and - ' . only, not <>/. Text NEW and another name.",
        ),
        ("RULES chess", f"There is no game chess. Games by text: {GAMES}."),
    ],
)
def test_a_word_the_host_does_not_know_is_answered_not_taken_as_a_name(
    sms: Sms, text: str, answer: str
) -> None:
    assert sms.text(PHONES[0], text) == [answer]
    assert sms.app.state.lobby.member(PHONES[0]) is None


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("NEW Mary Ann", "Mary Ann"),
        ("NEW ANN LEE", "ANN LEE"),
        ("NEW CHESS", "CHESS"),
        ("NEW van Gogh", "van Gogh"),
        ("new zoe o'brien", "zoe o'brien"),
        ("NEW Ann!", "Ann"),
    ],
)
def test_names_are_still_names(sms: Sms, text: str, name: str) -> None:
    assert f"You are {name}. Text START" in sms.text(PHONES[0], text)[0]


def test_a_name_with_characters_no_name_has_is_refused_on_join_too(sms: Sms) -> None:
    code = code_in(sms.text(PHONES[0], "NEW Ann"))
    assert sms.text(PHONES[1], f"JOIN {code} /etc/passwd") == [
        f"A name has letters, digits, spaces and - ' . only, not /. Text JOIN {code} and another name."
    ]
    assert sms.app.state.lobby.member(PHONES[1]) is None


def test_a_long_name_is_cut_and_the_player_told(sms: Sms) -> None:
    answer = sms.text(PHONES[0], "NEW Christopher Robin")
    assert answer[0] == "A name has at most 12 letters, so you play as Christopher."


def test_new_training_says_it_is_a_training_game(sms: Sms) -> None:
    answer = sms.text(PHONES[0], "NEW TRAINING")
    assert answer[0].startswith("Game ") and ": Up-or-Down (training), 2 to 10 players." in answer[0]
    assert sms.table(PHONES[0]).options.mode == "training"
    # The default way to play is no news.
    assert ": Up-or-Down" not in sms.text(PHONES[1], "NEW TOURNAMENT Bob")[0]


def test_rules_name_a_game_or_say_there_is_none(sms: Sms) -> None:
    rules = "Text a number. After an odd number"
    assert sms.text(PHONES[0], "RULES up or down")[0].startswith(rules)
    assert sms.text(PHONES[0], "rules of the game")[0].startswith(rules)
    assert sms.text(PHONES[0], "RULES for blofa")[0].startswith(("1/", "Each"))
    _ann, bob = sms.new_game(2)
    assert sms.text(bob, "RULES chess") == [f"#1 There is no game chess. Games by text: {GAMES}."]
    assert new_keywords("en") == GAMES


# -- 5: HELP in a game says what to text now --------------------------------------------------


def test_help_in_a_game_says_whose_turn_what_to_text_and_how_to_stop(sms: Sms) -> None:
    ann, bob = sms.new_game(2)
    helped = " ".join(sms.text(bob, "HELP"))
    assert "On your turn text a number." in helped
    assert "Ann: any number from 1 to 100." in helped  # whose turn
    for word in ("FINISH", "LEAVE", "STATUS", "STOP"):
        assert word in helped
    assert "a new game" not in helped  # not the lobby's help
    assert "UNDO" not in helped  # off unless GAMEHOST_SMS_UNDO_GRACE is set
    sms.text(ann, "finish")
    over = " ".join(sms.text(bob, "HELP"))
    assert "Game over" in over or "wins" in over
    assert "Text NEW to play again" in over


def test_help_in_a_lobby_says_how_friends_join(sms: Sms) -> None:
    code = code_in(sms.text(PHONES[0], "NEW Ann"))
    helped = " ".join(sms.text(PHONES[0], "help"))
    assert f"Game {code}. Players: Ann. Ann texts START to begin." in helped
    assert f"Friends text JOIN {code} to this number." in helped


def test_help_names_undo_when_texts_can_take_moves_back(
    tmp_path: Path, fake: FakeTwilio, clock: Clock
) -> None:
    sms = build(tmp_path, fake, clock, sms_undo_grace=20)
    try:
        ann, _bob = sms.new_game(2)
        assert "UNDO takes your move back within 20 s." in " ".join(sms.text(ann, "HELP"))
    finally:
        sms.app.state.store.close()

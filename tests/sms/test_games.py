"""Whole games over the webhook: every phone hears every move, in turn-numbered texts."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from games.up_or_down import rules as ud
from host.channels.sms.text import fits_one_segment
from tests.sms.conftest import HOST_NUMBER, PHONES, Clock, Sms, build
from tests.twilio_helpers import TEST_ACCOUNT_SID, FakeTwilio


def move(sms: Sms, phones: list[str], phone: str, body: str) -> list[str]:
    """``phone`` texts ``body``: its answer, checked to be what every other phone was sent."""
    before = {p: len(sms.inbox(p)) for p in phones}
    answer = sms.text(phone, body)
    assert answer and all(fits_one_segment(m) for m in answer), answer
    for other in phones:
        if other == phone or sms.app.state.lobby.member(other) is None:
            continue
        assert sms.inbox(other)[before[other] :] == answer, f"{other} was told something else"
    assert len(sms.inbox(phone)) == before[phone]  # the sender is answered in TwiML only
    return answer


def valid(sms: Sms, phone: str, rng: random.Random) -> int:
    game = sms.table(phone).state
    assert game is not None
    return rng.choice(ud.valid_numbers(game))


def wrong(sms: Sms, phone: str) -> int:
    game = sms.table(phone).state
    assert game is not None and game.last is not None
    return next(n for n in range(1, 101) if not ud.is_valid(game.last, n, game.options))


def current_phone(sms: Sms, phones: list[str]) -> str:
    game = sms.table(phones[0]).state
    assert game is not None
    return next(p for p in phones if sms.app.state.lobby.member(p).name == game.current_player)


def test_two_players_tournament_to_the_end(sms: Sms) -> None:
    ann, bob = phones = sms.new_game(2)
    assert sms.last(bob) == "#1 New game: Ann, Bob. Ann: any number from 1 to 100."
    assert move(sms, phones, ann, "fifty") == [
        "#2 Ann said 50. Bob: an even number above 50 or an odd number below 50."
    ]
    assert move(sms, phones, bob, "  52!! ") == [
        "#3 Bob said 52. Ann: an even number above 52 or an odd number below 52."
    ]
    assert move(sms, phones, ann, "I'll go 53") == [
        "#4 Ann said 53. Wrong: 53 is odd, so it must be below 52. "
        "Ann is out. Bob wins! Bob opens the next game: text NEW."
    ]
    assert not sms.table(ann).running
    # Every REST message really went through the SDK, from the number the players texted.
    assert sms.fake is not None
    assert {m["From"] for m in sms.fake.messages} == {HOST_NUMBER}
    assert {m["account_sid"] for m in sms.fake.messages} == {TEST_ACCOUNT_SID}
    # A rematch: the winner opens.
    assert move(sms, phones, bob, "new game")[0].startswith("#1 New game: Ann, Bob. Bob: any number")


def test_three_players_tournament_with_numbers_out_of_turn(sms: Sms) -> None:
    ann, bob, cy = phones = sms.new_game(3)
    move(sms, phones, ann, "50")
    # Cy is not next: a short answer to Cy only, nothing changes.
    before = {p: len(sms.inbox(p)) for p in phones}
    assert sms.text(cy, "49") == ["#2 Waiting for Bob."]
    assert {p: len(sms.inbox(p)) for p in phones} == before
    assert sms.table(ann).state.turn == 2  # type: ignore[union-attr]
    assert move(sms, phones, bob, "51")[0].startswith(
        "#3 Bob said 51. Wrong: 51 is odd, so it must be below 50. Bob is out. Cy:"
    )
    assert sms.text(bob, "47") == ["#3 Waiting for Cy."]
    # The chain goes on from Bob's wrong 51.
    assert move(sms, phones, cy, "fifty three")[0].startswith("#4 Cy said 53. Ann: an odd number above 53")
    assert move(sms, phones, ann, "54") == [
        "#5 Ann said 54. Wrong: 54 is even, so it must be below 53. "
        "Ann is out. Cy wins! Cy opens the next game: text NEW."
    ]
    assert sms.text(bob, "status") == ["#5 Cy wins! Cy opens the next game: text NEW."]


@pytest.mark.parametrize("mode", ["TRAINING", "TOURNAMENT"])
def test_six_players_with_the_longest_names(sms: Sms, mode: str) -> None:
    names = [f"{c * 11}{i}" for i, c in enumerate("ABCDEF")]
    phones = sms.new_game(6, mode, names)
    rng = random.Random(6)
    turns = []
    for i in range(40):
        if not sms.table(phones[0]).running:
            break
        phone = current_phone(sms, phones)
        game = sms.table(phone).state
        assert game is not None
        number = wrong(sms, phone) if game.last is not None and i % 3 == 2 else valid(sms, phone, rng)
        answer = move(sms, phones, phone, str(number))
        turns.append(int(answer[0].split()[0][1:]))
    assert turns == sorted(turns) and len(set(turns)) == len(turns)
    if mode == "TRAINING":
        assert sms.table(phones[0]).running  # mistakes only count
        end = move(sms, phones, phones[3], "finish")
        assert any("Mistakes:" in m for m in end)
    else:
        assert not sms.table(phones[0]).running  # every third move put someone out
    assert sms.fake is not None
    assert all(fits_one_segment(m["Body"]) for m in sms.fake.messages)


def test_training_mistakes_count_and_the_player_tries_again(sms: Sms) -> None:
    ann, bob = phones = sms.new_game(2, "TRAINING")
    move(sms, phones, ann, "50")
    assert move(sms, phones, bob, "51") == [
        "#3 Bob said 51. That doesn't fit: 51 is odd, so it must be below 50. Mistake 1 for Bob. Try again."
        " Bob: an even number above 50 or an odd number below 50."
    ]
    assert sms.table(ann).running


def test_a_name_that_cannot_be_texted_is_replaced_and_the_player_told(sms: Sms) -> None:
    created = sms.text(PHONES[0], "NEW 🎲🃏")
    assert created[0] == "Your name cannot be sent by text, so you play as Player 1."
    code = created[1].split()[1]
    assert "You are Player 1." in created[1]
    joined = sms.text(PHONES[1], f"JOIN {code} 🎲")
    assert (
        joined[0].startswith("Your name cannot be sent by text, so you play as Player 2. You joined game")
        and "as Player 2. Players: Player 1, Player 2." in joined[0]
    )
    # A name that only loses some letters keeps the rest, as the others see it too.
    assert "as Zoe." in sms.text(PHONES[2], f"JOIN {code} Zoë")[0]


def test_join_problems_are_explained(sms: Sms) -> None:
    ann = PHONES[0]
    code = sms.text(ann, "new ann")[0].split()[1]
    other = "000000" if code != "000000" else "111111"
    assert sms.text(PHONES[1], f"join {other}") == [
        f"No game has the code {other}. Check it and text JOIN again."
    ]
    assert sms.text(PHONES[1], "join") == ["To join, text JOIN and the 6-digit code, like JOIN 123456 Ann."]
    assert sms.text(PHONES[1], f"join {code} ANN") == [
        f"That game already has a player named ANN. Text JOIN {code} and another name."
    ]
    # Spaces inside the code, punctuation, a default name.
    assert sms.text(PHONES[1], f"Join: {code[:3]} {code[3:]}")[0].startswith(
        f"You joined game {code} as Player 2. Players: ann, Player 2."
    )
    # One game at a time per number.
    second = sms.text(PHONES[2], "NEW")[0].split()[1]
    assert sms.text(PHONES[1], f"JOIN {second}") == [
        f"You are in game {code}. Text LEAVE first to start or join another."
    ]
    assert sms.text(PHONES[1], "NEW") == [
        f"You are in game {code}. Text LEAVE first to start or join another."
    ]
    assert sms.text(PHONES[1], "START") == ["Only ann can start this game."]
    assert sms.text(PHONES[1], "50")[0] == f"Game {code}. Players: ann, Player 2. ann texts START to begin."
    # Started games take nobody new.
    sms.text(ann, "start")
    assert sms.text(PHONES[3], f"JOIN {code}") == [
        "That game has started already. Text NEW to start your own."
    ]


def test_too_many_wrong_codes_are_refused(sms: Sms) -> None:
    answers = [sms.text(PHONES[1], f"JOIN {100000 + i}")[0] for i in range(6)]
    assert answers[-1] == "Too many wrong codes from this number. Try again in an hour."


def test_start_needs_two_players(sms: Sms) -> None:
    sms.text(PHONES[0], "NEW")
    assert sms.text(PHONES[0], "START") == ["A game needs at least 2 players."]


def test_leave_mid_game_and_join_another(sms: Sms) -> None:
    ann, bob, cy = phones = sms.new_game(3)
    move(sms, phones, ann, "50")
    before = len(sms.inbox(ann))
    assert sms.text(bob, "leave") == ["You left the game. Text NEW to start another or JOIN and a code."]
    assert sms.inbox(ann)[before:] == [
        "#3 Bob left and is out. Cy: an even number above 50 or an odd number below 50."
    ]
    assert sms.inbox(cy)[-1] == sms.inbox(ann)[-1]
    assert sms.app.state.lobby.member(bob) is None
    assert sms.text(bob, "status") == [
        "You are not in a game. Text NEW to start one or JOIN and a code to join one."
    ]
    assert sms.text(bob, "NEW training Bobby")[0].startswith("Game ")


LEFT = "You left the game. Text NEW to start another or JOIN and a code."


def test_leaving_said_in_words_is_ruled_by_the_referee_and_leaves_as_leave_does(sms: Sms) -> None:
    ann, bob, _cy = phones = sms.new_game(3)
    move(sms, phones, ann, "50")
    before = len(sms.inbox(ann))
    assert sms.text(bob, "I'm leaving") == [LEFT]
    assert sms.inbox(ann)[before:] == [
        "#3 Bob left and is out. Cy: an even number above 50 or an odd number below 50."
    ]
    assert sms.app.state.lobby.member(bob) is None
    # Before the game the referee reads nothing: the lobby takes the words as LEAVE.
    dee = PHONES[3]
    code = sms.text(dee, "NEW Dee")[0].split()[1]
    eve = PHONES[4]
    sms.text(eve, f"JOIN {code} Eve")
    assert sms.text(eve, "count me out") == [LEFT]
    assert sms.app.state.lobby.member(eve) is None


def test_a_finished_game_is_left_for_a_new_one_by_joining(sms: Sms) -> None:
    ann, bob = phones = sms.new_game(2)
    move(sms, phones, ann, "50")
    move(sms, phones, bob, "51")  # Bob is out, Ann wins
    code = sms.text(PHONES[4], "NEW Eve")[0].split()[1]
    assert sms.text(ann, f"join {code}")[0].startswith(f"You joined game {code} as Ann")


def test_opt_out_leaves_the_game_and_silences_the_number(sms: Sms) -> None:
    ann, bob, cy = phones = sms.new_game(3)
    move(sms, phones, ann, "50")
    assert sms.text(bob, "Stop.") == []  # Twilio and the carrier confirm; we only stop
    assert sms.app.state.lobby.member(bob) is None
    assert sms.inbox(ann)[-1].startswith("#3 Bob left and is out. Cy:")
    quiet = len(sms.inbox(bob))
    move(sms, [ann, cy], cy, "49")
    assert sms.text(bob, "52") == []
    assert sms.text(bob, "NEW") == []
    assert len(sms.inbox(bob)) == quiet  # nothing more, not even the others' moves
    # HELP and INFO are always answered.
    assert "STOP opts out" in sms.text(bob, "help")[0]
    assert "STOP opts out" in sms.text(bob, "INFO")[0]
    # START opts back in (it is not "begin the game" for a number that opted out).
    assert sms.text(bob, "start") == [
        "Texts are back on. Text NEW to start a game or JOIN and a code. STOP opts out."
    ]
    assert sms.text(bob, "NEW")[0].startswith("Game ")


@pytest.mark.parametrize(
    "word", ["STOP", "stopall", "Unsubscribe", "CANCEL", "end", "QUIT", "revoke", "OptOut"]
)
def test_every_opt_out_word_is_an_opt_out_never_a_command(sms: Sms, word: str) -> None:
    ann, bob = sms.new_game(2)
    assert sms.text(bob, word) == []
    assert sms.app.state.lobby.opted_out(bob)
    assert not sms.table(ann).running  # Bob left, so Ann won
    for back in ("UNSTOP", "yes", "START"):
        sms.app.state.lobby.opt_out(bob)
        assert sms.text(bob, back)[0].startswith("Texts are back on.")


def test_the_creators_start_begins_and_an_opted_out_start_opts_in(sms: Sms) -> None:
    code = sms.text(PHONES[0], "NEW Ann")[0].split()[1]
    sms.text(PHONES[1], "STOP")
    assert sms.text(PHONES[1], "START")[0].startswith("Texts are back on.")
    sms.text(PHONES[1], f"JOIN {code} Bob")
    assert sms.text(PHONES[0], "start")[0] == "#1 New game: Ann, Bob. Ann: any number from 1 to 100."


def test_help_rules_status_at_any_point(sms: Sms) -> None:
    assert "NEW" in sms.text(PHONES[0], "help")[0]
    assert sms.text(PHONES[0], "rules")[0].startswith("Text a number.")
    code = sms.text(PHONES[0], "NEW Ann")[0].split()[1]
    assert sms.text(PHONES[0], "STATUS please") == [f"Game {code}. Players: Ann. Ann texts START to begin."]
    sms.text(PHONES[1], f"JOIN {code} Bob")
    sms.text(PHONES[0], "START")
    assert sms.text(PHONES[1], "rules")[0].startswith("#1 Text a number.")
    assert sms.text(PHONES[1], "status") == ["#1 Turn 1. No number yet. Players: Ann, Bob."]
    # Every game that can be texted, with the default game's other way to play.
    games = "NEW, NEW TRAINING, NEW BLOFA, NEW INVERSION, NEW UPSIDEOUT"
    assert sms.text(PHONES[2], "help")[0].startswith(f"{games}: a new game.")
    # In a game, HELP is the game's (tests/sms/test_first_hour.py).
    assert sms.text(PHONES[1], "help")[0].startswith("#1 On your turn text a number.")
    welcome = f"Games by text: {games}. JOIN and a code joins one. HELP for help."
    assert sms.text(PHONES[2], "hello") == [welcome]
    assert sms.text(PHONES[1], "whose turn?") == ["#1 Ann: any number from 1 to 100."]
    assert sms.text(PHONES[0], "undo") == ["#1 Taking back moves is off in this game."]


def test_without_credentials_the_others_messages_go_to_the_outbox(tmp_path: Path, clock: Clock) -> None:
    sms = build(tmp_path, None, clock)
    code = sms.text(PHONES[0], "NEW Ann")[0].split()[1]
    sms.text(PHONES[1], f"JOIN {code} Bob")
    sms.text(PHONES[0], "START")
    items = sms.app.state.outbound.items()
    assert [(i.kind, i.to, i.status) for i in items] == [
        ("sms", PHONES[0], "stored"),
        ("sms", PHONES[1], "stored"),
    ]
    assert items[-1].body == "#1 New game: Ann, Bob. Ann: any number from 1 to 100."


def test_a_failed_rest_send_does_not_fail_the_move(sms: Sms, fake: FakeTwilio) -> None:
    ann, bob, cy = sms.new_game(3)
    fake.fail_to.add(cy)
    assert sms.text(ann, "50")[0].startswith("#2 Ann said 50.")
    assert sms.inbox(bob)[-1].startswith("#2 Ann said 50.")
    failed = [i for i in sms.app.state.outbound.items() if i.status == "dead"]  # a 4xx: no retry
    assert [i.to for i in failed] == [cy]

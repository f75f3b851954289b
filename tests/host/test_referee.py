"""The referee over a real SQLite log: turns, announcements, undo, confirmation, replay."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from games.base import Command
from games.blofa import rules as blofa
from games.up_or_down import rules as ud
from host.confirm import confirm_line
from host.heard import HeardMeaning, SpeechText
from host.referee import Referee
from host.session import SessionConfig
from host.store import Store
from tests.clock import Clock


def start(referee: Referee, players: str = "Ann,Bob,Cy", **config: object) -> str:
    return referee.create(SessionConfig.model_validate(config), players.split(","))


def test_announcement_says_what_happened_and_who_is_next(referee: Referee) -> None:
    sid = start(referee)
    reply = referee.handle(sid, "fifty three", "Ann")
    assert reply.public == ["Ann said 53.", "Bob: an odd number above 53 or an even number below 53."]
    assert reply.accepted and reply.next_player == "Bob" and reply.turn == 2
    types = [e["type"] for e in reply.events]
    assert types == ["move", "turn"]
    assert reply.events[0] == {"type": "move", "player": "Ann", "number": 53, "valid": True, "previous": None}


def test_only_the_current_player_may_move(referee: Referee) -> None:
    sid = start(referee)
    reply = referee.handle(sid, "10", "Cy")
    assert reply.private == ["Waiting for Ann."] and not reply.accepted
    assert referee.table(sid).state == ud.new_game(("Ann", "Bob", "Cy"))


def test_not_understood_and_ambiguous_change_nothing(referee: Referee) -> None:
    sid = start(referee)
    before = referee.store.last_seq(sid)
    r1 = referee.handle(sid, "what a lovely evening", "Ann")
    r2 = referee.handle(sid, "fifty three no fifty four", "Ann")
    assert r1.private[0].startswith("I didn't catch that. Ann: any number")
    assert r2.private == ["I heard 53 or 54. Which one? Say just one number."]
    assert referee.store.last_seq(sid) == before
    assert [e["type"] for e in r1.events] == ["not_understood"]


def test_tournament_game_to_a_winner(referee: Referee) -> None:
    sid = start(referee)
    referee.handle(sid, "5", "Ann")
    referee.handle(sid, "7", "Bob")
    out = referee.handle(sid, "8", "Cy")
    assert out.public[0] == "Cy said 8. Wrong: 8 is even, so it must be below 7. Cy is out."
    assert out.next_player == "Ann"
    over = referee.handle(sid, "9", "Ann")  # after 8 (even) an odd number must be below
    assert over.game_over and "Bob wins!" in over.public[-1]
    assert over.events[-1] == {"type": "game_over", "reason": "last_player_in", "winner": "Bob"}
    again = referee.handle(sid, "new game", "Ann")
    assert again.next_player == "Bob"  # the winner opens the next game


def test_training_game_results(referee: Referee) -> None:
    sid = start(referee, "Ann,Bob", mode="training")
    referee.handle(sid, "10", "Ann")
    wrong = referee.handle(sid, "11", "Bob")
    assert wrong.next_player == "Bob" and "Mistake 1 for Bob" in wrong.public[0]
    referee.handle(sid, "12", "Bob")
    over = referee.handle(sid, "finish", "Ann")
    assert over.events[-1] == {
        "type": "game_over",
        "reason": "requested",
        "last_mistake": "Bob",
        "mistakes": {"Ann": 0, "Bob": 1},
    }


def test_undo_within_grace_and_not_after(referee: Referee, clock: Clock) -> None:
    sid = start(referee, undo_grace=10)
    referee.handle(sid, "53", "Ann")
    clock.now += 5
    taken = referee.handle(sid, "undo", "Ann")
    assert taken.public[0] == "Ann took back 53." and taken.next_player == "Ann"
    referee.handle(sid, "54", "Ann")
    clock.now += 11
    late = referee.handle(sid, "undo", "Ann")
    assert late.private == ["Too late to take that back."] and referee.table(sid).state.last == 54  # type: ignore[union-attr]


def test_undo_of_a_mistake_brings_the_player_back(referee: Referee) -> None:
    sid = start(referee, "Ann,Bob,Cy")
    referee.handle(sid, "10", "Ann")
    referee.handle(sid, "11", "Bob")
    assert "Bob" not in referee.table(sid).state.in_play  # type: ignore[union-attr]
    referee.handle(sid, "undo", "Bob")
    game = referee.table(sid).state
    assert game is not None and "Bob" in game.in_play and game.current_player == "Bob" and game.last == 10


def test_undo_is_only_for_whoever_moved_and_can_be_off(referee: Referee) -> None:
    sid = start(referee)
    referee.handle(sid, "10", "Ann")
    assert referee.handle(sid, "undo", "Bob").private == ["Only Ann can take back 10."]
    off = start(referee, undo_grace=None)
    referee.handle(off, "10", "Ann")
    assert referee.handle(off, "undo", "Ann").private == ["Taking back moves is off in this game."]


def test_a_repeated_key_gets_the_same_reply_and_moves_once(referee: Referee) -> None:
    sid = start(referee)
    first = referee.handle(sid, "10", "Ann", key="SM1")
    second = referee.handle(sid, "10", "Ann", key="SM1")
    assert first == second
    assert referee.table(sid).state.turn == 2  # type: ignore[union-attr]


def test_a_low_confidence_mistake_is_confirmed_before_ruling(referee: Referee) -> None:
    sid = start(referee)
    referee.handle(sid, "10", "Ann")  # Bob needs even above 10 or odd below 10
    asked = referee.handle(sid, "fifteen", "Bob", hearing=SpeechText(("fifteen",), 0.4))
    assert asked.confirm == "15" and asked.private == ["Did you say 15?"] and not asked.accepted
    corrected = referee.handle(sid, "no fifty", "Bob", hearing=SpeechText(("no fifty",), 0.9))
    assert corrected.public[0] == "Bob said 50." and corrected.accepted


def test_undo_while_asked_cancels_the_question_not_the_move_before(referee: Referee) -> None:
    sid = start(referee)
    referee.handle(sid, "10", "Ann")
    referee.handle(sid, "fifteen", hearing=SpeechText(("fifteen",), 0.4))
    cancelled = referee.handle(sid, "undo", hearing=SpeechText(("undo",), 0.9))
    assert not cancelled.accepted and cancelled.events[0]["type"] == "not_confirmed"
    game = referee.table(sid).state
    assert game is not None and game.last == 10 and game.current_player == "Bob"


def test_a_confirmed_mistake_is_ruled(referee: Referee) -> None:
    sid = start(referee)
    referee.handle(sid, "10", "Ann")
    referee.handle(sid, "fifteen", "Bob", hearing=SpeechText(("fifteen",), 0.95))  # 50 valid: confusable
    ruled = referee.handle(sid, "yes", "Bob", hearing=SpeechText(("yes",), 0.9))
    assert ruled.public[0] == "Bob said 15. Wrong: 15 is odd, so it must be below 10. Bob is out."


def test_a_confident_clear_mistake_is_ruled_at_once(referee: Referee) -> None:
    sid = start(referee)
    referee.handle(sid, "10", "Ann")
    ruled = referee.handle(sid, "eleven", "Bob", hearing=SpeechText(("eleven",), 0.95))
    assert ruled.public[0] == "Bob said 11. Wrong: 11 is odd, so it must be below 10. Bob is out."


def test_timeouts_apply_once_per_turn(referee: Referee) -> None:
    sid = start(referee)
    first = referee.timeout(sid, 1)
    assert first is not None and first.public[0] == "Ann ran out of time and is out."
    assert referee.timeout(sid, 1) is None


def test_sessions_resume_from_the_file(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "log.sqlite3"
    referee = Referee(Store(path), clock)
    sid = start(referee)
    referee.handle(sid, "10", "Ann")
    referee.handle(sid, "12", "Bob")
    referee.store.close()
    again = Referee(Store(path), clock)
    game = again.table(sid).state
    assert game is not None and game.last == 12 and game.current_player == "Cy"
    assert again.handle(sid, "14", "Cy").public[0] == "Cy said 14."


def test_a_shaky_command_that_takes_back_or_ends_is_read_back(referee: Referee) -> None:
    sid = start(referee, "Ann,Bob")
    referee.handle(sid, "53", "Ann")
    asked = referee.handle(sid, "undo", hearing=SpeechText(("undo",), 0.4))
    assert not asked.accepted and asked.private == ["Did you say undo?"]
    assert asked.events[-1] == {"type": "confirm", "player": "", "what": "undo", "command": "undo"}
    kept = referee.handle(sid, "no", hearing=SpeechText(("no",), 0.9))
    assert not kept.accepted and referee.table(sid).state.last == 53  # type: ignore[union-attr]
    referee.handle(sid, "finish", hearing=SpeechText(("finish",), 0.3))
    ended = referee.handle(sid, "yes", hearing=SpeechText(("yes",), 0.9))
    assert ended.accepted and not referee.table(sid).running
    # Typed, a command is taken as it stands.
    sid = start(referee, "Ann,Bob")
    referee.handle(sid, "53", "Ann")
    assert referee.handle(sid, "undo").accepted


def test_no_to_a_read_back_command_drops_the_question(referee: Referee) -> None:
    # "No" to "Did you say undo?" is an answer: the question is dropped, and a "yes" said
    # later about something else takes nothing back.
    sid = start(referee, "Ann,Bob")
    referee.handle(sid, "53", "Ann")
    assert referee.handle(sid, "undo", hearing=SpeechText(("undo",), 0.4)).private == ["Did you say undo?"]
    kept = referee.handle(sid, "no", hearing=SpeechText(("no",), 0.9))
    assert not kept.accepted and kept.events == [{"type": "not_confirmed", "player": "", "command": "undo"}]
    assert referee.table(sid).asked is None
    later = referee.handle(sid, "yes", hearing=SpeechText(("yes",), 0.9))
    assert not later.accepted and referee.table(sid).state.last == 53  # type: ignore[union-attr]
    # The same heard by a table's open microphone.
    heard = HeardMeaning(Command("undo"), 0.9, text="undo", open_mic=True)
    assert referee.handle_heard(sid, heard).private == ["undo? Say undo again to be sure."]
    said_no = referee.handle_heard(sid, HeardMeaning(Command("no"), 0.9, text="no", open_mic=True))
    assert said_no.events == [{"type": "not_confirmed", "player": "", "command": "undo"}]
    assert referee.table(sid).asked is None


def test_a_valid_number_that_might_have_been_undo_is_asked_about(referee: Referee) -> None:
    sid = start(referee, "Ann,Bob")
    referee.handle(sid, "53", "Ann")
    asked = referee.handle(sid, "20", "Bob", hearing=SpeechText(("20", "undo"), 0.5))
    assert not asked.accepted and asked.private == ["Did you say 20?"]
    sure = referee.handle(sid, "20", "Bob", hearing=SpeechText(("20", "undo"), 0.9))
    assert sure.accepted and sure.news[0] == "Bob said 20."  # said again: ruled


def test_a_question_at_an_open_microphone_lapses_and_changes_nothing(referee: Referee, clock: Clock) -> None:
    sid = start(referee)
    referee.handle(sid, "10", "Ann")
    heard = HeardMeaning(ud.Say("Bob", 15), 0.4, text="fifteen", open_mic=True, lapse=8.0)
    asked = referee.handle_heard(sid, heard)
    assert asked.private == ["Bob, 15?"] and not asked.accepted
    clock.advance(9)  # nobody answered; later a "yes" about something else
    late = referee.handle_heard(sid, HeardMeaning(Command("yes"), 0.95, text="yes", open_mic=True, lapse=8.0))
    table = referee.table(sid)
    assert not late.accepted and table.asked is None
    assert table.state is not None and table.state.last == 10 and table.state.current_player == "Bob"
    # Within the lapse the same question is answered.
    referee.handle_heard(sid, heard)
    clock.advance(5)
    fifty = HeardMeaning(ud.Say("Bob", 50), 0.95, text="no fifty", open_mic=True, lapse=8.0)
    ruled = referee.handle_heard(sid, fifty)
    assert ruled.accepted and ruled.public[0] == "Bob said 50."
    # A phone call's question (no lapse) waits.
    asked = referee.handle(sid, "fifty one", "Cy", hearing=SpeechText(("fifty one",), 0.4))
    assert asked.private == ["Did you say 51?"]
    clock.advance(60)
    assert referee.handle(sid, "yes", "Cy", hearing=SpeechText(("yes",), 0.95)).accepted


def test_a_read_back_names_the_player_once() -> None:
    assert confirm_line("en", "15", "Bob") == "Bob, 15?"
    assert confirm_line("en", "Ann plays Bury", "Ann") == "Did you say Ann plays Bury?"
    assert confirm_line("en", "leave", "Ann", again=True) == "Ann, leave? Say leave again to be sure."
    # Korean move words that name the player already: not named twice.
    assert confirm_line("ko", "Cy: 패스 파랑", "Cy") == "Cy: 패스 파랑, 맞아요?"


def test_a_doubtful_hearing_of_a_move_the_rules_refuse_is_asked_about_before_it_is_refused(
    referee: Referee,
) -> None:
    # At a table's microphone, talk heard doubtfully as a move nobody may make now was
    # refused over the table ("Ann you look great tonight" as "two blue cards ten": "You hold
    # 1 blue and 2 yellow"). A doubtful hearing is read back first; the refusal follows a yes.
    sid = start(referee, "Ann,Bob,Cy,Di", game="blofa")
    state = referee.table(sid).state
    assert state is not None and not state.plays
    opener = state.players[state.seat]
    passing = blofa.Pass(opener, blofa.Colour.BLUE)  # nobody may pass before the trick opens
    assert blofa.refusal(state, passing) is not None
    heard = HeardMeaning(passing, 0.9, text="pass blue", open_mic=True, lapse=8.0, doubtful=True)
    asked = referee.handle_heard(sid, heard)
    assert asked.confirm and not asked.accepted and asked.private[0].endswith("?")
    assert [e["type"] for e in asked.events] == ["confirm"]
    yes = referee.handle_heard(sid, HeardMeaning(Command("yes"), 0.95, text="yes", open_mic=True))
    assert [e["type"] for e in yes.events] == ["refused"] and not yes.accepted
    assert referee.table(sid).asked is None  # answered: a later yes confirms nothing
    # Asked again, and the move said again: refused, and the question answered.
    referee.handle_heard(sid, heard)
    again = referee.handle_heard(sid, replace(heard, doubtful=False))
    assert [e["type"] for e in again.events] == ["refused"] and referee.table(sid).asked is None
    # Heard surely, it is refused at once, as typed.
    sure = referee.handle_heard(sid, replace(heard, doubtful=False))
    typed = referee.handle(sid, "pass blue", opener)
    assert [e["type"] for e in sure.events] == ["refused"] and sure.private == typed.private
    assert referee.table(sid).state == state

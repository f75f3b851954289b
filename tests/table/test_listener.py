"""The Listener: phrase lists per state, re-reading N-best lists, confirmation, undo, muting."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from games.base import Command, Listening
from games.up_or_down import rules as ud
from grammars import languages, load
from grammars.reader import CommandSaid, parse
from host.channels.table import Loudspeaker, TableRunner
from host.confirm import MOVE_SHARE, RIVAL_SHARE
from host.listening import doubts as listening_doubts
from host.listening import phrases as listening_phrases
from host.listening.doubts import REPLY_TO_TALK_S
from host.listening.listener import Heard, Listener
from host.listening.phrases import ListenForCache, listen_for, phrase_list, talk_list
from host.listening.reading import UNCALIBRATED_CONFIDENCE, Reading, calibrate, read
from host.referee import Referee
from host.reply import Reply
from host.session import SessionConfig, Table
from host.speech.audio import AudioDeviceError, pcm_chunks
from host.speech.hearing import Hearing
from host.speech.model import SpeechModel
from tests.speech.conftest import silence
from tests.table.conftest import PLAYERS, Clock, Say, hearing, meant, said, table_for, white_noise


def game_after(last: int) -> ud.State:
    game, _ = ud.play(ud.new_game(PLAYERS), last)
    return game


def reading(heard: Hearing, game: ud.State | None = None, **kw: object) -> Reading:
    """Read with no prior (as for a question) unless ``game`` is a game in progress."""
    if game is None:
        return read(heard, table_for("up-or-down", ud.new_game(PLAYERS)), "confirming", **kw)  # type: ignore[arg-type]
    return read(heard, table_for("up-or-down", game), "playing", **kw)  # type: ignore[arg-type]


def hear(listener: Listener, pcm: bytes) -> list[Heard]:
    return list(listener.hear(pcm_chunks(pcm)))


# --- phrase lists ---------------------------------------------------------------------------


def test_phrase_list_follows_the_state() -> None:
    g = load("ko")
    table = table_for("up-or-down", ud.new_game(("민수", "지영")), players=("민수", "지영"))
    playing = phrase_list(table, "playing")
    confirming = phrase_list(table, "confirming")
    idle = phrase_list(table, "idle")
    numbers = [parse(p, "ko").numbers for p in playing if parse(p, "ko").numbers]
    # the whole range, wrong numbers a little beyond it, and zero
    assert {n for (n,) in numbers} == {0, *range(1, 106)}
    assert "오십 삼" in playing and "영" in playing and "백 오" in playing
    assert "민수" in playing and not set(g.decoys) & set(playing)
    # the decoys and the answers are what talk decodes as while playing ("응" with no
    # question waiting is talk, not 이), with those that sound like an answer left out
    # while a question waits
    answers = {w for p in (*g.commands["yes"], *g.commands["no"]) for w in p.split()}
    assert set(g.decoys) | answers == set(talk_list(table, "playing"))
    assert not answers & set(talk_list(table, "confirming"))
    assert not set(g.answer_lookalikes) & set(talk_list(table, "confirming"))
    assert not {"네", "아니요"} & set(playing)  # yes/no only answer a question
    assert {"네", "아니요", "오십 삼"} <= set(confirming)
    assert "새 게임" not in confirming and not set(g.answer_lookalikes) & set(confirming)
    assert "새 게임" in idle and not any(parse(p, "ko").numbers for p in idle)


@pytest.mark.parametrize("lang", languages())
def test_speech_data_means_what_it_should(lang: str) -> None:
    g = load(lang)
    for name, phrases in g.speech_commands.items():
        for phrase in phrases:
            assert parse(phrase, lang).intent() == CommandSaid(name), phrase
    for decoy in g.decoys:
        u = parse(decoy, lang)
        assert not u.numbers and not u.commands, decoy


def test_decoys_and_commands_are_in_the_korean_model(ko_model: SpeechModel) -> None:
    g = load("ko")
    assert ko_model.missing_words(g.decoys) == []
    assert ko_model.missing_words(p for ps in g.speech_commands.values() for p in ps) == []


def test_missing_words_are_reported_once(
    referee: Referee, korean_session: str, ko_model: SpeechModel, caplog: pytest.LogCaptureFixture
) -> None:
    listener = Listener(referee, korean_session, ko_model)
    assert listener.missing_words == ("ann", "bob", "cy")
    assert caplog.text.count("lacks 3 words") == 1
    assert not {"ann", "bob", "cy"} & set(listener.phrases())


# --- reading the N-best list ----------------------------------------------------------------


def test_alternatives_with_the_same_meaning_pool_their_share() -> None:
    got = reading(hearing(("오십 삼", 0.4), ("오십 사", 0.35), ("오십삼", 0.25)))
    assert said(got) == 53
    assert got.share == pytest.approx(0.65)
    assert got.text == "오십 삼" and [meant(m) for m in got.others] == [54]
    assert got.top


def test_a_close_call_goes_to_the_allowed_number() -> None:
    # After 53 (odd): 54 is a mistake, 55 is allowed.
    close = hearing(("오십 사", 0.55), ("오십 오", 0.45))
    assert said(reading(close)) == 54
    got = reading(close, game_after(53))
    assert said(got) == 55 and not got.top
    # ...but a clear mistake stays a mistake
    clear = hearing(("오십 사", 0.9), ("오십 오", 0.1))
    assert said(reading(clear, game_after(53))) == 54


def test_stray_syllables_and_corrections() -> None:
    got = reading(
        hearing(
            ("사 삼십 이", 1.0),
        ),
    )
    assert said(got) == 32 and got.text == "사 삼십 이"  # the words heard, as the log keeps them
    assert got.share == 1.0 and not got.top
    assert (
        said(
            reading(
                hearing(
                    ("게임 끝 이", 1.0),
                ),
            )
        )
        == "finish"
    )
    assert (
        said(
            reading(
                hearing(
                    ("아니 오십 사", 1.0),
                ),
            )
        )
        == 54
    )
    assert (
        said(
            reading(
                hearing(
                    ("네", 1.0),
                ),
            )
        )
        == "yes"
    )


@pytest.mark.parametrize(
    "alternatives",
    [
        (("", 0.7), ("오", 0.3)),  # the empty path: nothing was said
        (("어디 저 이 여기 뭐 누가", 0.6), ("어디 저 여기", 0.4)),  # decoys
        (("육 일 오 이 칠", 1.0),),  # a string of numbers
        (("이 사", 1.0),),  # two units: noise
        (("민수 이", 1.0),),  # a name and a syllable
    ],
)
def test_chatter_is_ignored(alternatives: tuple[tuple[str, float], ...]) -> None:
    g = load("ko")
    table = table_for("up-or-down", ud.new_game(("민수", "지영")), players=("민수", "지영"))
    got = read(hearing(*alternatives), table, "confirming", decoys=g.decoys)
    assert got.ignored is not None and got.meaning is None


def test_confidence_grows_with_the_share() -> None:
    calibration = table_for("up-or-down", None).spec.talk.calibration
    values = [calibrate(s, top, calibration) for top in (False, True) for s in (0.2, 0.5, 0.8, 0.99)]
    assert all(0 < v < 1 for v in values)
    assert values[:4] == sorted(values[:4]) and values[4:] == sorted(values[4:])


def test_without_a_calibration_a_share_is_a_confidence_only_where_the_recogniser_says_so() -> None:
    # A game with no calibration: pocketsphinx's share stands; Vosk's sure-looking 1.0 is
    # capped below GAMEHOST_CONFIRM_BELOW, so a costly move it hears is read back.
    assert calibrate(1.0, True, None) == 1.0
    capped = calibrate(1.0, True, None, shares_are_confidences=False)
    assert capped == UNCALIBRATED_CONFIDENCE < SessionConfig().confirm_below
    assert calibrate(0.3, True, None, shares_are_confidences=False) == 0.3
    calibration = table_for("up-or-down", None).spec.talk.calibration
    fitted = calibrate(0.9, True, calibration)
    assert calibrate(0.9, True, calibration, shares_are_confidences=False) == fitted


# --- refereeing -------------------------------------------------------------------------------


def test_a_would_be_mistake_is_confirmed_and_no_takes_it_back(
    referee: Referee, korean_session: str, ko_model: SpeechModel, say: Say
) -> None:
    referee.handle(korean_session, "오십삼")  # Ann 53; Bob speaks next
    listener = Listener(referee, korean_session, ko_model)
    (asked,) = hear(listener, silence(0.5) + say("이십오") + silence(1.2))  # 25: a mistake
    assert asked.reply is not None and asked.reply.confirm == "25"
    assert asked.reply.lines == ["Bob, 25 맞아요?"]  # a shared microphone: whose move it is
    assert "아니요" in listener.phrases() and "새 게임" not in listener.phrases()
    (answer,) = hear(listener, say("아니요") + silence(1.2))
    assert answer.reply is not None and not answer.reply.accepted
    assert answer.reply.events[0] == {"type": "not_confirmed", "player": "Bob", "number": 25}
    table = referee.table(korean_session)
    assert table.state is not None and table.state.current_player == "Bob" and table.state.last == 53
    assert "아니요" not in listener.phrases()  # back to listening for moves


def test_undo_within_the_grace_period(
    referee: Referee, korean_session: str, ko_model: SpeechModel, clock: Clock
) -> None:
    listener = Listener(referee, korean_session, ko_model)
    assert listener.handle(
        hearing(
            ("오십 삼", 1.0),
        )
    ).reply.accepted  # type: ignore[union-attr]
    clock.now += 10
    # Undo takes something back: heard as unsurely as a recogniser hears, it is read back.
    asked = listener.handle(hearing(("무르기", 1.0))).reply
    assert asked is not None and not asked.accepted and asked.confirm == load("ko").commands["undo"][0]
    assert referee.table(korean_session).state.last == 53  # type: ignore[union-attr]
    # At an open microphone a "네" could be anyone's, about anything: the command said again
    # confirms it.
    reminded = listener.handle(hearing(("네", 1.0))).reply
    assert reminded is not None and not reminded.accepted
    assert referee.table(korean_session).state.last == 53  # type: ignore[union-attr]
    undone = listener.handle(hearing(("무르기", 1.0))).reply
    assert undone is not None and undone.accepted
    assert {"type": "undo", "player": "Ann", "number": 53} in undone.events
    listener.handle(
        hearing(
            ("오십 삼", 1.0),
        )
    )
    clock.now += 31  # past SessionConfig.undo_grace
    listener.handle(hearing(("무르기", 1.0)))
    late = listener.handle(hearing(("무르기", 1.0))).reply
    assert late is not None and not late.accepted and late.lines == [load("ko").phrase("undo_too_late")]


def test_off_topic_audio_is_not_answered(
    referee: Referee, korean_session: str, ko_model: SpeechModel, say: Say
) -> None:
    listener = Listener(referee, korean_session, ko_model)
    before = referee.store.last_seq(korean_session)
    pcm = silence(0.5)
    for part in (
        say("이번 판은 내가 이길 거야"),
        say("잠깐만 기다려 줘"),
        say("en:hold on a second"),
        white_noise(1.0, level=3000),
    ):
        pcm += part + silence(1.2)
    heard = hear(listener, pcm)
    assert all(h.reply is None and h.ignored for h in heard), [(h.hearing.text, h.reply) for h in heard]
    assert referee.store.last_seq(korean_session) == before


def test_two_commands_joined_are_talk_and_one_said_alone_is_answered(
    referee: Referee, korean_session: str, ko_model: SpeechModel
) -> None:
    # The bench's "반칙 아니야" (espeak-ng): Vosk joined 규칙 (rules) and 되돌려 (undo), read
    # as the rules at share 0.46, and the host recited them over the table's talk.
    listener = Listener(referee, korean_session, ko_model, report_missing=False)
    listener.handle(hearing(("오십 삼", 1.0)))
    joined = listener.handle(hearing(("규칙 되돌려", 0.5), ("규칙", 0.5)))
    assert joined.reading is not None and joined.reading.meaning == Command("rules")
    assert joined.reply is None and joined.ignored == "not a whole phrase"
    alone = listener.handle(hearing(("규칙", 1.0)))
    assert alone.reply is not None and alone.reply.lines


def test_after_the_game_only_commands_are_heard(referee: Referee, ko_model: SpeechModel, say: Say) -> None:
    session = referee.create(SessionConfig(lang="ko"), ("민수", "지영"))
    referee.handle(session, "10")
    referee.handle(session, "11")  # a mistake by 지영: 민수 wins
    listener = Listener(referee, session, ko_model)
    assert not any(parse(p, "ko").numbers for p in listener.phrases())
    heard = hear(
        listener,
        silence(0.5)
        + say("오십삼")
        + silence(1.2)
        + say("새게임")
        + silence(2.0)  # the read-back is heard before it is answered (BEFORE_QUESTION_S)
        + say("새게임")
        + silence(1.2),
    )
    replies = [h.reply for h in heard if h.reply is not None]
    # A new game is read back at a table before it counts; said again, it starts.
    assert len(replies) == 2 and replies[0].confirm == "새 게임"
    assert {"type": "new_game", "players": ["민수", "지영"], "game": 2} in replies[1].events


# --- the host never hears itself ---------------------------------------------------------------


def test_input_is_ignored_while_the_host_speaks(
    referee: Referee, korean_session: str, ko_model: SpeechModel, say: Say
) -> None:
    listener = Listener(referee, korean_session, ko_model)
    with listener.muting():
        assert listener.muted
        assert hear(listener, silence(0.3) + say("오십삼") + silence(1.2)) == []
    assert not listener.muted
    listener.muted = True
    assert hear(listener, say("오십삼") + silence(1.2)) == []
    listener.muted = False
    game = referee.table(korean_session).state
    assert game is not None and game.last is None


def test_the_announcement_occupies_stream_time(
    referee: Referee, korean_session: str, ko_model: SpeechModel, say: Say
) -> None:
    played: list[float] = []
    loudspeaker = Loudspeaker("ko", 16000, player=lambda pcm, rate: played.append(len(pcm) / 2 / rate))
    replies: list[Reply] = []
    ignored: list[tuple[float, str]] = []
    runner = TableRunner(
        Listener(referee, korean_session, ko_model),
        replies.append,
        loudspeaker,
        on_ignored=lambda at, why: ignored.append((at, why)),
    )
    runner.announce(referee.handle(korean_session, "오십삼"))  # "Ann, 53. Bob: ..." takes seconds
    assert played and played[0] > 2.0
    # Bob answers while the host is still talking (heard by nobody), then again after it.
    runner.run(pcm_chunks(say("사십삼") + silence(played[0] + 0.5) + say("오십") + silence(1.2)))
    _, reply = replies
    assert [e for e in reply.events if e["type"] == "move"] == [
        {"type": "move", "player": "Bob", "number": 50, "valid": True, "previous": 53}
    ]
    assert len(played) == 2  # the ruling was spoken too
    # -v says why the first "사십삼" got no answer, once, while it was said.
    ((at, why),) = ignored
    assert why == "host speaking" and 0.1 < at < played[0]


def test_with_no_sound_card_the_opening_does_not_eat_the_first_move(
    referee: Referee, korean_session: str, ko_model: SpeechModel, say: Say
) -> None:
    def no_device(pcm: bytes, rate: int) -> None:
        time.sleep(0.5)  # opening the device takes a while before it fails
        raise AudioDeviceError("no output device")

    replies: list[Reply] = []
    loudspeaker = Loudspeaker("ko", 16000, player=no_device)
    # A microphone (live): what it captured while the host tried to speak is still the room's.
    runner = TableRunner(Listener(referee, korean_session, ko_model), replies.append, loudspeaker, live=True)
    runner.announce(Reply(korean_session, news=["게임을 시작합니다."]))
    runner.run(pcm_chunks(silence(0.2) + say("오십삼") + silence(1.2)))
    moves = [e for r in replies for e in r.events if e["type"] == "move"]
    assert [m["number"] for m in moves] == [53]


def test_with_no_sound_card_an_announcement_drops_no_input() -> None:
    def no_device(pcm: bytes, rate: int) -> None:
        raise AudioDeviceError("no output device")

    loudspeaker = Loudspeaker("ko", 16000, player=no_device)
    assert loudspeaker.say("오십삼") == 0.0 and not loudspeaker.can_play  # the room heard nothing
    assert loudspeaker.say("사십") == 0.0


def test_listen_for_is_asked_once_per_game_state(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[bool] = []
    real = listen_for

    def counting(table: Table, confirming: bool) -> Listening:
        asked.append(confirming)
        return real(table, confirming)

    monkeypatch.setattr(listening_phrases, "listen_for", counting)
    cache = ListenForCache()
    first = table_for("up-or-down", game_after(53))
    assert cache(first, False) is cache(first, False)
    cache(first, True)
    assert asked == [False, True]
    later = table_for("up-or-down", game_after(40))
    assert cache(later, False).moves == real(later, False).moves
    assert asked == [False, True, False]  # a new state is asked afresh


def test_the_table_voice_starts_with_the_first_sentence() -> None:
    played: list[tuple[float, int]] = []
    speaker = Loudspeaker(
        "en", 16000, player=lambda pcm, rate: played.append((time.perf_counter(), len(pcm)))
    )
    started = time.perf_counter()
    seconds = speaker.say("Bob said seventy one. Ann, your turn: a number below seventy one.")
    finished = time.perf_counter()
    assert len(played) == 2  # one piece per sentence, each played as soon as it is made
    assert played[0][0] - started < finished - started - 0.02  # before the second was made
    assert seconds == pytest.approx(sum(n for _, n in played) / 2 / 16000)


def test_an_announcement_drops_what_was_said_over_it_however_the_input_comes(
    referee: Referee, korean_session: str, ko_model: SpeechModel, say: Say
) -> None:
    """A browser's microphone frames arrive in batches when the decoder is behind: the
    input the host's answer covers is the input after the point of the ruling, not after
    the end of the batch the ruling was made in."""
    played: list[float] = []
    loudspeaker = Loudspeaker("ko", 16000, player=lambda pcm, rate: played.append(len(pcm) / 2 / rate))
    replies: list[Reply] = []
    runner = TableRunner(Listener(referee, korean_session, ko_model), replies.append, loudspeaker)
    # Ann's move, Bob's said over the host's answer ("Ann, 53. Bob: ..." takes seconds), and
    # Bob's again once the host is done: all in one chunk, as a batch of queued frames.
    over = say("사십삼")
    runner.feed(
        silence(0.5) + say("오십삼") + silence(1.0) + over + silence(6.0) + say("오십") + silence(1.2)
    )
    runner.run([])
    assert played and played[0] > 1.0 + len(over) / 2 / 16000
    moves = [e for r in replies for e in r.events if e["type"] == "move"]
    assert [(m["player"], m["number"]) for m in moves] == [("Ann", 53), ("Bob", 50)]


def test_a_reply_to_talk_is_not_asked_about_as_a_move(
    referee: Referee, ko_model: SpeechModel, say: Say, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Someone's "네" or "응" right after a sentence of talk comes out as a lone 이 (2: a
    # move at the start of a game), which was read back: "Ann, 2 맞아요?" after 4 of 75
    # Korean talk sentences (tests/bench/bench_table_talk.py).
    talk = silence(0.6)
    for sentence, reply in (("물 한 잔 주세요", "네"), ("응 알았어", "맞아요"), ("늦어서 미안해요", "응"),
                            ("반칙 아니야", "네")):  # fmt: skip
        talk += say(sentence) + silence(1.0) + say(reply) + silence(1.5)
    window = REPLY_TO_TALK_S

    def answered(seconds: float) -> tuple[list[str], int]:
        """What the host answered, and how many moves it ruled."""
        monkeypatch.setattr(listening_doubts, "REPLY_TO_TALK_S", seconds)
        session = referee.create(SessionConfig(lang="ko", undo_grace=30.0), PLAYERS)
        listener = Listener(referee, session, ko_model)
        replies = [h.hearing.text for h in hear(listener, talk) if h.reply is not None]
        return replies, sum(s.body.get("kind") == "play" for s in referee.store.inputs(session))

    # Without the rule the next sentence's "네" even answered the question: Ann played 2.
    assert answered(-1.0)[0], "the talk no longer ends in a lone syllable: this test needs other audio"
    assert answered(window) == ([], 0)


def test_a_phrase_only_the_lenient_gate_kept_is_a_move_heard_unsurely_or_talk() -> None:
    # "I mean, it's not like" was heard as the talk words "i mean" by the gate and as
    # "i'm leaving" by the lenient one: a command is never taken from such a hearing, and a
    # move is taken as unsure (a costly one is read back).
    table = table_for("up-or-down", game_after(50), "en", ("Ann", "Bob", "Cy"))
    for text, words in (("i'm leaving", "i mean"), ("whose turn", "who's her"), ("yes", "yeah")):
        plain = read(hearing((text, 1.0)), table, "playing")
        kept = read(replace(hearing((text, 1.0)), near_talk=words), table, "playing")
        assert kept.meaning is None and kept.ignored == "talk" and kept.text == words, (text, kept)
        assert plain.ignored != "talk"
    plain = read(hearing(("twelve", 1.0)), table, "playing")
    kept = read(replace(hearing(("twelve", 1.0)), near_talk="where old"), table, "playing")
    assert kept.meaning == plain.meaning and said(kept) == 12
    assert kept.confidence == 0.0 < plain.confidence


@pytest.mark.parametrize(
    ("second", "share", "asked"),
    [
        ("오십 칠", 0.22, True),  # 57 is allowed after 53 too: one of the two is a wrong number
        ("오십 사", 0.22, False),  # 54 is a mistake now: players seldom make it
        ("오십 칠", 0.1, False),  # too weak to doubt the first
    ],
)
def test_a_move_with_a_close_rival_move_is_read_back(
    referee: Referee, ko_model: SpeechModel, second: str, share: float, asked: bool
) -> None:
    # espeak-ng's "ten" in white noise was heard as "two" (0.77) over "ten" (0.21), both
    # allowed, and ruled at once: a wrong number in the chain costs more than a read-back.
    session = referee.create(SessionConfig(lang="ko", undo_grace=30.0), PLAYERS)
    listener = Listener(referee, session, ko_model)
    listener.handle(hearing(("오십 삼", 1.0)))
    heard = listener.handle(hearing(("오십 오", 1.0 - share), (second, share)))
    plays = [s.body["move"] for s in referee.store.inputs(session) if s.body.get("kind") == "play"]
    assert heard.reading.share >= MOVE_SHARE and said(heard.reading) == 55
    assert (heard.reading.rival >= RIVAL_SHARE) is asked
    assert len(plays) == (1 if asked else 2), plays

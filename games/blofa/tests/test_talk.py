"""Blófa table talk: the grammar test files, words out, speech phrases, a whole scripted game."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

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
    decode,
    encode,
    new_game,
    play,
    refusal,
    to_act,
)
from games.blofa.talk import GRAMMAR, BlofaGrammar, BlofaTalk, _first, _play_words, _say, grammar
from games.blofa.tests.golden import golden_script
from games.blofa.tests.table import Table, legal_moves
from grammars import GrammarError, load_file
from grammars.reader import to_words

P = ("Ann", "Bob", "Cy", "Dana")
B, Y = Colour.BLUE, Colour.YELLOW
TALK = BlofaTalk()
LANGS = SPEC.languages
SMS = 160


def moment(name: str) -> State:
    g = new_game(P, Options())
    steps: dict[str, list[Any]] = {
        "open": [],
        "first_pass": [PlayCards("Ann", (B,), 2)],
        "second_pass": [PlayCards("Ann", (B,), 2), Pass("Bob", Y)],
        "reveal": [PlayCards("Ann", (B,), 2), Challenge("Bob")],
        "keep": [PlayCards("Ann", (B, Y), 2), Challenge("Bob"), Reveal((2, 1))],
    }
    if name == "check":
        g = new_game(P, Options(dry_tricks=1))
        steps[name] = [PlayCards("Ann", (B,), 2), Challenge("Bob"), Reveal((2,)), Keep("Ann", B)]
    for move in steps[name]:
        g, _ = play(g, move)
    return g


CASES = [
    (lang, case)
    for lang in LANGS
    for case in yaml.safe_load((GRAMMAR / lang / "tests.yaml").read_text(encoding="utf-8"))
]


@pytest.mark.parametrize(("lang", "case"), CASES, ids=[f"{lang}:{c['at']}:{c['text']}" for lang, c in CASES])
def test_sentence(lang: str, case: dict[str, Any]) -> None:
    state = moment(case["at"])
    got = TALK.read(case["text"], state, P, case.get("speaker"), None, lang)
    if "move" in case:
        assert got == Moves((decode(case["move"]),))
    elif "moves" in case:
        assert got == Moves(tuple(decode(m) for m in case["moves"]))
    elif "command" in case:
        assert got == Command(case["command"])
    elif "answer" in case:
        assert got == Answer(case["answer"])
    else:
        assert case.get("unclear") and isinstance(got, Unclear)


def test_the_test_files_cover_every_kind_of_move() -> None:
    kinds = {c["move"]["move"] for _, c in CASES if "move" in c}
    assert kinds == {"play", "pass", "challenge", "reveal", "keep", "claim"}
    assert moment("check").phase is Phase.CHECK


@pytest.mark.parametrize("lang", LANGS)
def test_languages_say_the_same_things(lang: str) -> None:
    assert set(grammar(lang).say) == set(grammar("en").say)


def test_every_refusal_has_words() -> None:
    source = (Path(__file__).parents[1] / "rules.py").read_text(encoding="utf-8")
    reasons = set(re.findall(r'Refusal\("(\w+)"', source))
    assert len(reasons) > 15
    for lang in LANGS:
        assert {f"refuse_{r}" for r in reasons} <= set(grammar(lang).say), lang


def test_a_broken_grammar_file_names_its_line(tmp_path: Path) -> None:
    text = (GRAMMAR / "en" / "words.yaml").read_text(encoding="utf-8")
    text = text.replace("  blue: [blue,", "  blue: 7\n  x: [blue,")
    (tmp_path / "words.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(GrammarError, match=r"words\.yaml:\d+: words"):
        load_file(tmp_path / "words.yaml", BlofaGrammar)


def test_no_rule_card_is_a_claim_but_no_alone_is_an_answer() -> None:
    state = moment("check")
    asked = Pass("Bob", Y)
    assert TALK.read("no", state, P, "Bob", asked, "en") == Answer(False)
    assert TALK.read("no rule card", state, P, "Bob", asked, "en") == Moves(
        (decode({"move": "claim", "player": "Bob", "holds": False}),)
    )


def test_words_out_for_a_whole_game_are_short_and_keep_secrets() -> None:
    players, options, lines = golden_script()
    table = Table(players, SPEC.make_options(options))
    for line in lines:
        table.say(line)
    assert table.state.is_over and table.state.outcome is not None
    assert table.state.outcome.winner == "Dana"
    said = [t for t in table.transcript if not t.startswith("> ")]
    assert all(len(t) <= SMS for t in said), max(said, key=len)
    # Values are asked for only after a challenge flips the cards.
    for t in said:
        if "values" in t and "say" in t.lower():
            assert "Flip" in t or "flip" in t or "flipped" in t, t
    text = "\n".join(table.transcript)
    for expected in (
        "Did you mean Bob: pass blue or Bob: pass yellow?",
        "you must draw blue",
        "No pass: the yellow pile is empty",
        "must take it as the rule card",
        "Rule card: Dana +6, Bob +4, Cy +2.",
        "Dana wins Blofa Cards!",
        "Taken back.",
    ):
        assert expected in text


def test_the_scripted_game_replays_from_its_moves() -> None:
    players, options, lines = golden_script()
    table = Table(players, SPEC.make_options(options))
    for line in lines:
        table.say(line)
    again = new_game(players, SPEC.make_options(options))
    for move in table.moves:
        again, _ = play(again, SPEC.decode_move(SPEC.encode_move(move)))
    assert again == table.state


def _states() -> list[State]:
    players, options, lines = golden_script()
    table = Table(players, SPEC.make_options(options))
    out = [table.state]
    for line in lines:
        table.say(line)
        out.append(table.state)
    return [s for i, s in enumerate(out) if i == 0 or s != out[i - 1]]


def words(move: Move, lang: str) -> str:
    """A move in the reader's own words, the player named first ("Bob pass blue")."""
    match move:
        case PlayCards(player, colours, declared):
            return f"{player} {_play_words(colours, declared, lang)}"
        case Pass(player, pile):
            return f"{player} {_first(lang, 'pass')} {_first(lang, str(pile))}"
        case Challenge(player):
            return f"{player} {_first(lang, 'challenge')}"
        case Reveal(values):
            return f" {_say(lang, 'and')} ".join(to_words(v, lang) for v in values)
        case Keep(player, colour, rule):
            what = _first(lang, "rule") if rule else _first(lang, str(colour))
            return f"{player} {_say(lang, 'keep_words', keep=_first(lang, 'keep'), what=what)}"
        case Claim(player, holds):
            return f"{player} {_first(lang, 'holds' if holds else 'holds_not')}"
    raise TypeError(move)


@pytest.mark.parametrize("lang", LANGS)
def test_a_move_in_the_readers_words_is_heard_as_that_move(lang: str) -> None:
    for state in _states():
        for move in legal_moves(state):
            said = words(move, lang)
            meaning, trust = TALK.hear(said, state, P, False, lang)
            assert meaning == move, (said, state.phase)
            assert trust == 1.0


@pytest.mark.parametrize("lang", LANGS)
def test_listened_phrases_are_moves_now_and_in_the_vocabulary(lang: str) -> None:
    vocabulary = set(TALK.vocabulary(P, Options(), lang))
    for state in _states():
        phrases = TALK.listen_for(state, P, lang, confirming=False).moves
        assert set(phrases) <= vocabulary
        for phrase in phrases:
            assert isinstance(TALK.read(phrase, state, P, None, None, lang), Moves), phrase


@pytest.mark.parametrize("lang", LANGS)
def test_sums_past_twenty_are_heard_and_read(lang: str) -> None:
    # A trick's declarations grow by 1 or 2 a play, up to 2 * CARDS. Korean sums are
    # listened for as a recogniser spells them ("이십 이": few are one word of its model)
    # and read written together too ("이십이").
    g = new_game(P, Options())
    while g.allowed_sums != (21, 22):
        who = sorted(to_act(g))[0]
        colour = B if g.hands[g.seat].blue else Y
        g, _ = play(g, PlayCards(who, (colour,), g.allowed_sums[1]))
    phrases = TALK.listen_for(g, P, lang, confirming=False).moves
    assert set(phrases) <= set(TALK.vocabulary(P, Options(), lang))
    declared = set()
    for phrase in phrases:
        said = TALK.read(phrase, g, P, None, None, lang)
        if isinstance(said, Moves) and isinstance(said.candidates[0], PlayCards):
            declared.add(said.candidates[0].declared)
    assert declared == {21, 22}
    who = sorted(to_act(g))[0]
    written = words(PlayCards(who, (B,), 22), lang)  # the reader's own words: "이십이"
    assert TALK.read(written, g, P, None, None, lang) == Moves((PlayCards(who, (B,), 22),)), written


def test_prompts_for_every_moment() -> None:
    for name in ("open", "first_pass", "second_pass", "reveal", "keep", "check"):
        state = moment(name)
        for lang in LANGS:
            text = TALK.prompt(state, lang)
            assert text and len(text) <= SMS
            assert not re.search(r"\d", TALK.spoken_prompt(state, lang))
    assert "declaring 3 or 4" in TALK.prompt(moment("first_pass"), "en")
    assert "pass (draw blue)" in TALK.prompt(moment("second_pass"), "en")
    assert "Ann: flip your one blue card" in TALK.prompt(moment("reveal"), "en")


def test_refusals_say_what_was_wrong_and_what_is_allowed() -> None:
    state = moment("first_pass")
    wrong = refusal(state, PlayCards("Bob", (Y,), 6))
    assert wrong is not None
    text = TALK.refusal_text(wrong, state, "en")
    assert text.startswith("Declare 3 or 4, not 6.") and TALK.prompt_follows(wrong)
    assert "Bob:" in TALK.prompt(state, "en")


def test_a_play_of_three_cards_is_refused_not_shrunk() -> None:
    # "You play 1 or 2 cards": "three blue cards, two" is three cards, refused, and the
    # hands stay as they are.
    state = moment("open")
    got = TALK.read("three blue cards, two", state, P, "Ann", None, "en")
    assert isinstance(got, Moves) and len(got.candidates) == 1
    wrong = refusal(state, got.candidates[0])
    assert wrong is not None and wrong.reason == "card_count"
    assert TALK.refusal_text(wrong, state, "en").startswith("Play 1 or 2 cards, not 3.")


def test_flipped_values_that_cannot_be_the_cards_are_asked_again() -> None:
    state = moment("reveal")  # Ann's one blue card was challenged
    got = TALK.read("five", state, P, None, None, "en")
    assert isinstance(got, Moves) and got.candidates == (Reveal((5,)),)
    wrong = refusal(state, got.candidates[0])
    assert wrong is not None
    text = TALK.refusal_text(wrong, state, "en")
    assert text == "blue cannot be 5: say the flipped values again." and TALK.prompt_follows(wrong)
    assert TALK.refusal_text(wrong, state, "ko")


def test_status_rules_help() -> None:
    state = moment("second_pass")
    assert "Piles: blue 1, yellow 0" in TALK.status(state, "en")
    assert "Bob 2b 3y" in TALK.status(state, "en")
    assert "4 tricks" in TALK.rules(Options(), "en")
    assert "pass yellow" in TALK.help("en")


def test_ambiguous_and_costly() -> None:
    question = TALK.ambiguous((Pass("Bob", B), Pass("Bob", Y)), "en")
    assert question.text == "Did you mean Bob: pass blue or Bob: pass yellow?"
    assert question.event["type"] == "ambiguous"
    state = moment("first_pass")
    assert TALK.costly(state, Challenge("Bob")) and not TALK.costly(state, Pass("Bob", B))
    assert TALK.costly(moment("open"), PlayCards("Ann", (Y, Y), 1))  # face down: does not come back
    assert SPEC.likely(state, Pass("Bob", B)) and not SPEC.likely(state, Pass("Cy", B))
    assert TALK.calibration is None


def test_unclear_words_say_so() -> None:
    got = TALK.read("banana", moment("open"), P, "Ann", None, "en")
    assert isinstance(got, Unclear) and "banana" in got.text and not got.about_move
    assert got.event["type"] == "unclear"


# The GSM 03.38 basic set: an English line outside it would go out as UCS-2 (70 a segment).
GSM7 = set(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    "ÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)


def test_english_lines_are_gsm7() -> None:
    players, options, lines = golden_script()
    table = Table(players, SPEC.make_options(options))
    for line in lines:
        table.say(line)
    for text in table.transcript:
        assert set(text) <= GSM7, (text, set(text) - GSM7)
    for key, text in grammar("en").say.items():
        assert set(text) - set("{}") <= GSM7, key


def test_a_game_that_ends_dry_asks_who_holds_a_rule_card() -> None:
    table = Table(P, Options(dry_tricks=1))
    for line in ("Ann: one blue card, two", "Bob: challenge", "two", "Ann: keep blue"):
        table.say(line)
    assert table.state.phase is Phase.CHECK
    assert table.transcript[-1].startswith("Game over: Ann, Bob, Cy and Dana, say")
    assert table.say("Ann: no rule card") == ["Ann has no rule card.", TALK.prompt(table.state, "en")]
    assert table.say("Bob: I hold a rule card")[0] == "Bob holds a rule card."
    refused = table.say("Bob: no rule card")[0]
    assert refused.startswith("Bob has already said.")
    table.say("Cy: I have a rule card")
    out = table.say("Dana: I don't have a rule card")
    # The third rule card is in the blue pile (one card there): nothing to flag.
    assert out == [
        "Dana has no rule card.",
        "Eliminated (holding a rule card): Bob and Cy.",
        "Final VP: Ann 1, Bob -1, Cy 0, Dana 0.",
        "Ann wins Blofa Cards!",
    ]
    assert table.state.outcome is not None and table.state.outcome.to_json()["eliminated"] == ["Bob", "Cy"]


WORDS = [
    "one",
    "two",
    "a",
    "blue",
    "yellow",
    "card",
    "cards",
    "pass",
    "challenge",
    "keep",
    "rule",
    "no",
    "I",
    "hold",
    "and",
    "zero",
    "five",
    "Dana",
    "take",
    "back",
    "파랑",
    "장",
    "이",
    "패스",
    "'s",
    ",",
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=6)), max_size=8),
    st.sampled_from(["open", "first_pass", "second_pass", "reveal", "keep", "check"]),
    st.sampled_from(LANGS),
    st.sampled_from([None, *P]),
)
def test_any_words_read_as_a_proposal(words: list[str], at: str, lang: str, speaker: str | None) -> None:
    state = moment(at)
    got = TALK.read(" ".join(words), state, P, speaker, None, lang)
    assert isinstance(got, Moves | Command | Answer | Unclear)
    if isinstance(got, Moves):
        assert got.candidates
        for move in got.candidates:
            assert decode(encode(move)) == move
            refusal(state, move)  # the rules can judge every candidate
    _meaning, trust = TALK.hear(" ".join(words), state, P, False, lang)
    assert 0.0 <= trust <= 1.0


def test_confusable_numbers() -> None:
    assert TALK.confusable(PlayCards("Ann", (B,), 2), "en") == (PlayCards("Ann", (B,), 10),)
    assert TALK.confusable(Reveal((2, 3)), "en") == (Reveal((10, 3)),)
    assert TALK.confusable(Pass("Ann", B), "en") == ()
    # Noise masks the first sound of a teen: "thirteen" was heard as "fourteen" (confusions.yaml).
    assert PlayCards("Ann", (B,), 13) in TALK.confusable(PlayCards("Ann", (B,), 14), "en")
    assert PlayCards("Ann", (B,), 14) in TALK.confusable(PlayCards("Ann", (B,), 13), "en")
    # Korean swaps the words of some digits wherever they stand (grammars/ko/confusions.yaml).
    assert TALK.confusable(PlayCards("Ann", (B,), 13), "ko") == (PlayCards("Ann", (B,), 14),)
    assert TALK.confusable(Reveal((4, 2)), "ko") == (Reveal((3, 2)), Reveal((4, 1)), Reveal((4, 7)))


def test_what_a_room_that_echoes_makes_of_a_declared_number() -> None:
    # "two card yellow one" was heard ending "two" in rooms that echo (confusions.yaml echoes).
    assert TALK.echo_confusable(PlayCards("Ann", (B,), 2), "en") == (PlayCards("Ann", (B,), 1),)
    assert TALK.echo_confusable(PlayCards("Ann", (B,), 1), "en") == ()
    assert TALK.echo_confusable(PlayCards("Ann", (B,), 2), "ko") == ()
    assert TALK.echo_confusable(Pass("Ann", B), "en") == ()
    # A room that only rings makes "five" of "nine" (echoes.ringing_units), not "two" of "one".
    nine = PlayCards("Ann", (B,), 9)
    assert TALK.echo_confusable(nine, "en", echoing=False) == (PlayCards("Ann", (B,), 5),)
    # Any room that rings makes "eleven" of "twelve" (echoes.ringing_numbers).
    eleven = PlayCards("Ann", (B,), 11)
    assert TALK.echo_confusable(eleven, "en", echoing=False) == (PlayCards("Ann", (B,), 12),)
    assert TALK.echo_confusable(PlayCards("Ann", (B,), 2), "en", echoing=False) == ()


def test_golden_lines_all_name_their_speaker() -> None:
    players, _, lines = golden_script()
    assert all(line.split(":")[0] in players for line in lines)


def test_flags_in_words() -> None:
    from games.blofa.rules import Flagged

    lines = TALK.describe([Flagged("claims", limit=1, missing=2)], Options(), "en")
    assert lines == [
        "Check that: 2 rule card(s) uncaptured, but those claiming one and the blue pile hold only 1 blue."
    ]
    assert TALK.describe([Flagged("claims", limit=0, missing=1)], Options(), "ko")

"""Upside-Out talk: the grammar test files, words out, speech and the three kinds of "no"."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from games.base import Command, Listening, Moves, Unclear
from games.core import Refusal
from games.upside_out import SPEC
from games.upside_out.rules import (
    Discard,
    Donate,
    Draw,
    Options,
    Play,
    React,
    Reveal,
    State,
    UpsideOutRules,
    decode,
    encode,
)
from games.upside_out.talk import UpsideOutTalk, words_for
from games.upside_out.tests.golden import golden_script, transcript
from grammars import load_file

R = UpsideOutRules()
T = UpsideOutTalk()
P3 = ("Ann", "Bob", "Cy")
GRAMMAR = Path(__file__).parent.parent / "grammar"
LANGS = SPEC.languages


class Case(BaseModel):
    model_config = ConfigDict(extra="forbid")
    said: str
    speaker: str | None = "Ann"
    options: dict[str, Any] = Field(default_factory=lambda: {"first": "Ann"})
    before: list[str] = Field(default_factory=list)
    move: dict[str, Any] | None = None
    moves: list[dict[str, Any]] | None = None
    command: str | None = None
    unclear: str | None = None


class Cases(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cases: list[Case]


def state_after(case: Case) -> State:
    state = R.new_game(P3, SPEC.make_options(case.options), 0, None)
    for line in case.before:
        speaker, _, text = line.partition(": ")
        said = T.read(text, state, P3, speaker, None, "en")
        assert isinstance(said, Moves), line
        state, _ = R.play(state, said.candidates[0])
    return state


def cases(lang: str) -> list[Case]:
    return load_file(GRAMMAR / lang / "tests.yaml", Cases).cases


@pytest.mark.parametrize(
    ("lang", "case"), [(lang, c) for lang in LANGS for c in cases(lang)], ids=lambda v: getattr(v, "said", v)
)
def test_grammar_cases(lang: str, case: Case) -> None:
    state = state_after(case)
    said = T.read(case.said, state, P3, case.speaker, None, lang)
    if case.command is not None:
        assert said == Command(case.command)
    elif case.unclear is not None:
        assert isinstance(said, Unclear) and said.event["reason"] == case.unclear
        prompt = f" {T.prompt(state, lang)}" if said.then_prompt else ""
        assert said.text and len(said.text + prompt) <= 160
    else:
        want = [case.move] if case.move is not None else case.moves
        assert want is not None
        assert isinstance(said, Moves), said
        assert [encode(m) for m in said.candidates] == [encode(decode(m)) for m in want]


def test_every_language_has_every_phrase() -> None:
    en = words_for("en").phrases
    for lang in LANGS:
        phrases = words_for(lang).phrases
        assert set(phrases) == set(en), lang
        for key, text in phrases.items():
            assert set(re.findall(r"{(\w+)}", text)) <= set(re.findall(r"{(\w+)}", en[key])), (lang, key)


def test_every_refusal_has_words() -> None:
    source = (Path(__file__).parent.parent / "rules.py").read_text()
    reasons = set(re.findall(r'Refusal\(\s*"(\w+)"', source))
    assert len(reasons) > 10
    state = R.new_game(P3, Options(first="Ann"), 0, None)
    fields = {"player": "Bob", "waiting": ("Bob",), "kind": "mirror", "owed": "discard", "count": 2}
    fields |= {"hand": 1, "to": "Cy", "question": "secret", "card": "Windfall", "copies": 3}
    for lang in LANGS:
        for reason in reasons:
            text = T.refusal_text(Refusal(reason, fields), state, lang)
            written = f"{text} {T.prompt(state, lang)}" if T.prompt_follows(Refusal(reason, fields)) else text
            assert text and len(written) <= 160 and "{" not in written


def test_the_golden_game_is_said_in_short_lines_in_both_languages() -> None:
    players, options, lines = golden_script()
    for lang in LANGS:
        said, state = transcript(players, options, lines, say=lang)
        assert state.is_over
        assert all(len(line) <= 160 for line in said)
    english, _ = transcript(players, options, lines)
    assert "Turn order reversed: Ann, Cy, Bob." in english
    assert "Ann reveals Shortcut; it waits for 1 card(s) before it." in english
    assert "Bob mirrors discard 1: Cy faces it next." in english
    assert "Ann has no secrets left and is out. Order: Bob, Cy." in english
    assert english[-3:] == ["Bob wins Upside-Out!", "> Ann: draw", "The game is over."]


def test_status_counts_everything() -> None:
    state = R.new_game(P3, Options(first="Ann"), 0, None)
    text = T.status(state, "en")
    assert text.startswith(
        "Ann 4 cards/3 secrets, Bob 4 cards/3 secrets, Cy 4 cards/3 secrets; deck 63, discard 0"
    )
    state4 = R.new_game(
        ("Annabelle", "Bartholomew", "Cyrillus", "Dominique"), Options(first="Cyrillus"), 0, None
    )
    assert len(T.status(state4, "en")) <= 160


def test_prompts_follow_the_game() -> None:
    state = R.new_game(P3, Options(), 0, None)
    assert "secret" in T.prompt(state, "en")
    state, _ = R.on_timeout(state)
    assert "alone" in T.prompt(state, "en")
    state = R.new_game(P3, Options(first="Bob"), 0, None)
    assert T.prompt(state, "en") == "Bob: draw or play a card."
    said = T.read("plays purge", state, P3, "Bob", None, "en")
    assert isinstance(said, Moves)
    state, _ = R.play(state, said.candidates[0])
    assert T.prompt(state, "en") == "Waiting for Cy to discard 2 or reveal, Ann to discard 2 or reveal."


def test_ambiguous_asks_which() -> None:
    question = T.ambiguous((Discard("Bob", 2), Discard("Bob", 3)), "en")
    assert question.text == "Which one: Bob discards 2 or Bob discards 3?"
    assert question.event["type"] == "ambiguous"


def test_listening_offers_the_moves_possible_now() -> None:
    state = R.new_game(P3, Options(first="Ann"), 0, None)
    heard = T.listen_for(state, P3, "en", False)
    # As a recogniser's dictionary spells them: lower case, "U-Turn" as "u turn".
    assert isinstance(heard, Listening) and "draw" in heard.moves and "plays windfall" in heard.moves
    assert "plays u turn" in heard.moves and "plays u turn turned" in heard.moves
    assert "mirror" not in heard.moves
    state, _ = R.play(state, Play("Ann", T_card("purge")))
    heard = T.listen_for(state, P3, "en", False)
    assert "mirror" in heard.moves and "discards two" in heard.moves and "draw" not in heard.moves
    vocabulary = T.vocabulary(P3, Options(), "en")
    assert "plays windfall" in vocabulary and "reveals a secret hush" in vocabulary and "mirror" in vocabulary
    assert set(heard.moves) <= set(vocabulary) and "everyone else" not in vocabulary  # never listened for
    opening = T.listen_for(R.new_game(P3, Options(), 0, None), P3, "en", False)
    assert "bob starts" in opening.moves  # a shared microphone does not know who said "me"


def T_card(name: str) -> Any:
    said = T.read(f"plays {name}", None, P3, "Ann", None, "en")
    assert isinstance(said, Moves)
    return said.candidates[0].card


#: Each meaning in the reader's own words, the player named first.
SAID = {
    "en": ("Ann draw", "Ann plays Windfall, me: draw 2; everyone else: discard 1",
           "Ann plays Windfall, me: discard 1; everyone else: draw 2",
           "Ann plays Tribute, me: draw 1; everyone else: donate 1 to me",
           "Ann plays Rummage, me: draw 2 from the discard pile; everyone else: draw 1 from the discard pile",
           "Bob discards 2", "Cy counter", "whose turn", "status", "yes"),
    "ko": ("Ann 뽑기", "Ann 낸다 Windfall, 나: 뽑기 2; 나머지: 버리기 1",
           "Ann 낸다 Windfall, 나: 버리기 1; 나머지: 뽑기 2",
           "Ann 낸다 Tribute, 나: 뽑기 1; 나머지: 주기 1 나에게",
           "Ann 낸다 Rummage, 나: 뽑기 2 버린 더미에서; 나머지: 뽑기 1 버린 더미에서",
           "Bob 버리기 2", "Cy 카운터", "누구 차례", "점수", "네"),
    "es": ("Ann roba", "Ann juega Windfall, yo: robar 2; los demás: descartar 1",
           "Ann juega Windfall, yo: descartar 1; los demás: robar 2",
           "Ann juega Tribute, yo: robar 1; los demás: dar 1 a mí",
           "Ann juega Rummage, yo: robar 2 de los descartes; los demás: robar 1 de los descartes",
           "Bob descarta 2", "Cy contra", "a quién le toca", "estado", "sí"),
}  # fmt: skip


@pytest.mark.parametrize("lang", LANGS)
def test_words_are_heard_as_the_same_meaning(lang: str) -> None:
    state = R.new_game(P3, Options(first="Ann"), 0, None)
    meanings = [
        Draw("Ann"),
        Play("Ann", T_card("windfall")),
        Play("Ann", T_card("windfall turned")),
        Play("Ann", T_card("tribute")),
        Play("Ann", T_card("rummage")),
        Discard("Bob", 2),
        React("Cy", "counter"),
        Command("whose_turn"),
        Command("status"),
        Command("yes"),  # a read-back's answer, as the listener takes it
    ]
    for meaning, words in zip(meanings, SAID[lang], strict=True):
        heard, trust = T.hear(words, state, P3, meaning == Command("yes"), lang)
        assert heard == meaning, (words, heard)
        assert trust == 1.0
    assert T.hear("lovely weather", state, P3, False, lang) == (None, 0.0)


def test_costly_likely_and_confusable() -> None:
    state = R.new_game(P3, Options(first="Ann"), 0, None)
    assert not T.costly(state, Draw("Ann")) and T.costly(state, Play("Ann", T_card("hush")))
    assert SPEC.likely(state, Draw("Ann")) and not SPEC.likely(state, Draw("Bob"))
    assert T.confusable(Draw("Ann"), "en") == ()
    assert all(isinstance(m, Discard) for m in T.confusable(Discard("Ann", 15), "en"))
    assert T.calibration is None


def test_a_card_is_known_by_name_unless_described_on_the_fly() -> None:
    # By name, a room that echoes hears one card for another surely (host/confirm.py).
    hush = T_card("hush")
    assert T.by_name(Play("Ann", hush)) and T.by_name(Reveal("Ann", hush))
    assert not T.by_name(Play("Ann", replace(hush, name="")))
    assert not T.by_name(Draw("Ann")) and not T.by_name(Discard("Ann", 2)) and not T.by_name(Donate("Ann", 1))


def test_describe_skips_quiet_events_and_says_the_rest() -> None:
    state = R.new_game(P3, Options(first="Ann"), 0, None)
    state, events = R.play(state, Play("Ann", T_card("nap")))
    lines = T.describe(events, Options(), "en")
    assert lines[0] == "Ann plays Nap."
    assert "Bob misses their next turn." in lines and "Bob is skipped." in lines
    assert not any("counts" in line for line in lines)


def test_rules_are_whole_and_help_fits_one_text() -> None:
    # The rules name the deck in full ("Sample deck (invented for testing)"); they were cut at
    # 160 characters ("Deck: Sample deck (inven..."): a channel that texts splits them instead.
    for lang in LANGS:
        rules = T.rules(Options(), lang)
        assert "..." not in rules and "Sample deck (invented for testing)" in rules
        assert len(T.help(lang)) <= 160


def test_me_after_the_start_is_the_opening_answer_refused_not_a_blank_card() -> None:
    # "me" answers "who will tell the group a personal secret?"; once someone went first
    # it is refused, and the hand does not lose a card.
    state = R.new_game(P3, Options(first="Ann"), 0, None)
    said = T.read("me", state, P3, "Ann", None, "en")
    assert isinstance(said, Moves) and len(said.candidates) == 1
    refused = R.refusal(state, said.candidates[0])
    assert refused is not None and refused.reason == "already_started"
    assert T.refusal_text(refused, state, "en").startswith("The game has started; Ann went first.")
    blank = T.read("plays, me", state, P3, "Ann", None, "en")
    assert isinstance(blank, Unclear) and blank.event["reason"] == "which_card"


def test_undo_is_said_as_a_person_says_it() -> None:
    from games.core import MoveUndone
    from games.upside_out.rules import Reveal, Start

    windfall = SPEC.talk.read("plays Windfall", None, P3, "Ann", None, "en")
    assert isinstance(windfall, Moves)
    moves = [
        (React("Cy", "counter"), "Cy took back the Counter."),
        (windfall.candidates[0], "Ann took back playing Windfall."),
        (Draw("Bob"), "Bob took back the draw."),
        (Discard("Bob", 2), "Bob took back discarding 2."),
        (Donate("Bob", 1, "Cy"), "Bob took back giving 1 to Cy."),
        (Start("Cy"), "Taken back: Cy starts."),
    ]
    for move, line in moves:
        assert T.describe([MoveUndone(R.owner(move), move)], Options(), "en") == [line]
        assert T.describe([MoveUndone(R.owner(move), move)], Options(), "ko")
    shown = T.describe([MoveUndone("Ann", Reveal("Ann", windfall.candidates[0].card))], Options(), "en")
    assert shown == ["Ann took back revealing Windfall."]


def test_a_knock_out_together_is_said_as_the_json_has_it() -> None:
    from games.core import GameOver
    from games.upside_out.rules import UpsideOutcome

    outcome = UpsideOutcome("all_out", (), (("Ann", 0), ("Bob", 0)), ("Ann", "Bob"))
    assert outcome.winner is None and outcome.to_json()["winners"] == []
    assert T.describe([GameOver(outcome)], Options(), "en") == [
        "Ann, Bob went out together: nobody is left, so nobody wins."
    ]


def test_a_gift_to_someone_not_at_the_table_is_not_given_elsewhere() -> None:
    state = R.new_game(P3, Options(first="Ann"), 0, None)
    state, _ = R.play(state, Play("Ann", T_card("tax")))
    said = T.read("gives one to Zed", state, P3, "Bob", None, "en")
    assert isinstance(said, Unclear) and said.event["reason"] == "unknown_recipient"
    assert said.text.startswith("'zed' is not at this table.")
    ok = T.read("gives one to Ann", state, P3, "Bob", None, "en")
    assert isinstance(ok, Moves) and ok.candidates[0] == Donate("Bob", 1, "Ann")


def test_a_special_card_revealed_as_a_secret_does_nothing() -> None:
    state = R.new_game(P3, Options(first="Ann"), 0, None)
    state, _ = R.play(state, Play("Ann", T_card("confession")))
    said = T.read("reveals Mirror", state, P3, "Bob", None, "en")
    assert isinstance(said, Moves)
    card = said.candidates[0].card
    assert card.name == "Mirror" and [str(s) for s in (*card.you, *card.others)] == ["nothing", "nothing"]

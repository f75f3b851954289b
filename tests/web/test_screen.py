"""The table screen's words and regions (``/t/<code>``), as served over the SMS host: whose
turn with its clock, the last ruling large and the rulings in the order they were made, the
result with its winner, the players' channel's wording, Korean. The browser suite draws
the same pages in Chromium (``test_browser.py``)."""

from __future__ import annotations

import re

import pytest

from host.channels.web.labels import labels
from host.session import SessionConfig
from tests.sms.conftest import Sms
from tests.web.test_pages import code_of, text_of
from tests.web.test_views import GAMES, boards


def region(html: str, name: str) -> str:
    """The words of one region of the page (``<section id=...>`` or ``<div id=...>``)."""
    match = re.search(rf'<(section|div|ol) id="{name}"[^>]*>(.*?)</\1>', html, re.S)
    assert match, f"no region {name}"
    return text_of(match[2]).strip()


def play_to_the_end(sms: Sms, phones: list[str]) -> None:
    """Ann 50, Bob 50 (the same number: a mistake, out): Ann wins."""
    by_name = {sms.table(phones[0]).names[i]: phone for i, phone in enumerate(phones)}
    for _ in range(2):
        player = sms.table(phones[0]).current_player
        assert player is not None
        sms.text(by_name[player], "50")


def test_the_rulings_read_in_the_order_they_were_made_the_last_one_large(sms: Sms) -> None:
    phones = sms.new_game(2)
    code = code_of(sms, phones[0])
    first = sms.table(phones[0]).current_player
    second = "Bob" if first == "Ann" else "Ann"
    by_name = dict(zip(["Ann", "Bob"], phones, strict=True))
    sms.text(by_name[first], "50")
    sms.text(by_name[second], "49")
    page = sms.client.get(f"/t/{code}").text
    earlier = region(page, "rulings")
    assert earlier.index("New game: Ann, Bob.") < earlier.index(f"{first} said 50.")
    assert region(page, "last") == f"{second} said 49."
    assert re.search(r'<div id="last" class="last" role="log" aria-live="polite">', page)  # read out
    # Lines within one ruling keep their order too: the mistake, then who is out, then the winner.
    sms.text(by_name[first], "49")
    last = region(sms.client.get(f"/t/{code}").text, "last")
    assert last.index(f"{first} said 49.") < last.index(f"{second} wins!")


def test_what_may_come_next_is_said_once_and_drawn_on_the_range(sms: Sms) -> None:
    phones = sms.new_game(2)
    code = code_of(sms, phones[0])
    first = sms.table(phones[0]).current_player
    sms.text(phones[["Ann", "Bob"].index(first or "")], "53")
    words = text_of(sms.client.get(f"/t/{code}").text)
    # "Allowed" repeated the banner word for word; the range drawn says it without words.
    assert words.count("An odd number above 53 or an even number below 53.") == 1
    assert "Allowed" not in words
    page = sms.client.get(f"/t/{code}").text
    assert 'aria-label="1–100; even 2–52; odd 55–99"' in page


def test_the_result_screen_names_the_winner(sms: Sms) -> None:
    phones = sms.new_game(2)
    code = code_of(sms, phones[0])
    play_to_the_end(sms, phones)
    winner = sms.table(phones[0]).state.outcome.winner
    page = sms.client.get(f"/t/{code}").text
    turn = region(page, "turn")
    assert turn.startswith(f"{winner} wins!"), turn
    assert "To act" not in turn and "—" not in turn  # it said "To act: —"
    assert '<body class="live over">' in page
    assert re.search(rf'<li class="player winner">\s*<span class="name">{winner}</span>', page)
    loser = "Bob" if winner == "Ann" else "Ann"
    assert re.search(rf'<li class="player out">\s*<span class="name">{loser}</span>', page)


def test_after_an_sms_game_the_page_says_to_text(sms: Sms) -> None:
    phones = sms.new_game(2)
    code = code_of(sms, phones[0])
    play_to_the_end(sms, phones)
    told = sms.inbox(phones[1])[-1] if sms.inbox(phones[1]) else ""
    words = text_of(sms.client.get(f"/t/{code}").text)
    assert "text NEW" in words and "say new game" not in words.lower()
    assert "text NEW" in " ".join([told, *sms.text(phones[0], "STATUS")])  # what the phones were told
    # A table that talks is told to say it.
    referee = sms.app.state.referee
    session = referee.create(SessionConfig(), ["Ann", "Bob"], code="515151")
    for number in ("50", "50"):
        referee.handle(session, number, None)
    assert "say new game" in text_of(sms.client.get("/t/515151").text)


def test_the_turn_clock_counts_down_from_the_last_move(sms: Sms) -> None:
    phones = sms.new_game(2)
    code = code_of(sms, phones[0])
    sms.clock.advance(90)  # 90 s after START: 8:30 of the SMS turn's 10 minutes are left
    page = sms.client.get(f"/t/{code}").text
    clock = re.search(
        r'<p id="clock" class="time" data-ends="([\d.]+)" data-now="([\d.]+)"[^>]*>([^<]+)</p>', page
    )
    assert clock, region(page, "turn")
    ends, now, shown = float(clock[1]), float(clock[2]), clock[3]
    assert (ends - now, shown) == (510.0, "8:30")
    assert "Time left" in region(page, "turn")
    # A game with no turn clock shows none.
    sms.app.state.referee.create(SessionConfig(), ["Ann", "Bob"], code="616161")
    assert 'id="clock"' not in sms.client.get("/t/616161").text


def test_a_korean_page_names_a_korean_font(sms: Sms) -> None:
    sms.app.state.referee.create(SessionConfig(lang="ko"), ["민수", "지아"], code="717171")
    page = sms.client.get("/t/717171").text
    assert '<html lang="ko">' in page and "차례" in page and "마지막 수" in page
    css = sms.client.get("/static/web/table.css").text
    rule = re.search(r":lang\(ko\)[^{]*\{[^}]*font-family:([^;]+);", css)
    assert rule, "no font for Korean"
    for font in ('"Noto Sans KR"', '"Apple SD Gothic Neo"', '"Malgun Gothic"'):
        assert font in rule[1]


@pytest.mark.parametrize("lang", ["ko"])
def test_every_board_label_has_words_in_each_language(lang: str) -> None:
    own = labels(lang)
    english = labels("en")
    assert set(english["page"]) <= set(own["page"]), "page words missing"
    missing: set[str] = set()
    for spec in GAMES:
        if lang not in spec.languages:
            continue
        for _, board in boards(spec):
            used = [f["label"] for f in board.get("facts", [])]
            used += [s["label"] for s in board.get("scores", [])]
            used += [p["label"] for p in board.get("parts", [])]
            missing |= {label for label in used if label not in own["board"]}
    assert not missing, f"grammars/{lang}/web.yaml has no words for {sorted(missing)}"

"""``RULES`` by text: the game named (also during another game), else the one being played;
a long answer whole, over numbered texts of one segment each."""

from __future__ import annotations

import re

from games.base import find_game
from host.channels.sms.text import fits_one_segment
from tests.sms.conftest import PHONES, Sms


def whole(messages: list[str]) -> str:
    """The answer's text without its "#turn " and "n/m " tags."""
    return " ".join(re.sub(r"^(#\d+ )?(\d+/\d+ )?", "", message) for message in messages)


def test_long_rules_come_whole_over_numbered_texts(sms: Sms) -> None:
    messages = sms.text(PHONES[5], "RULES upside-out")
    assert len(messages) >= 2 and all(fits_one_segment(m) for m in messages)
    assert [m.split()[0] for m in messages] == [f"{i}/{len(messages)}" for i in range(1, len(messages) + 1)]
    said = whole(messages)
    assert "..." not in said  # it was cut at "Deck: Sample deck (inven..."
    assert said.endswith("Deck: Sample deck (invented for testing).")
    spec = find_game("upside-out")
    assert said == spec.talk.rules(spec.make_options(), "en")


def test_rules_of_a_game_named_during_another(sms: Sms) -> None:
    phones = sms.new_game(2)  # Up-or-Down, running
    blofa = whole(sms.text(phones[0], "RULES BLOFA"))
    assert blofa.startswith("4 players.") and "Dealer first: the first seat." in blofa
    assert "Dealer first: -" not in blofa
    own = whole(sms.text(phones[0], "RULES"))
    assert own.startswith("Text a number.")  # the game being played: Up-or-Down's, texted
    assert sms.text(phones[0], "RULES")[0].startswith("#1 ")  # numbered like every game message

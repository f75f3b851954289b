"""The games added as folders play by text with no SMS code of their own: NEW BLOFA and
NEW UPSIDEOUT, each phone texting its own moves; what the host says to the table reaches
every phone, and an answer to one player goes to that player only."""

from __future__ import annotations

from tests.sms.conftest import PHONES, Sms
from tests.twilio_helpers import FakeTwilio


def start(sms: Sms, keyword: str, names: list[str]) -> list[str]:
    phones = PHONES[: len(names)]
    created = sms.text(phones[0], f"NEW {keyword} {names[0]}")
    code = created[0].split()[1]
    assert code.isdigit(), created
    for phone, name in zip(phones[1:], names[1:], strict=True):
        sms.text(phone, f"JOIN {code} {name}")
    return phones


def test_blofa_by_text(sms: Sms, fake: FakeTwilio) -> None:
    ann, bob, cy, dana = start(sms, "BLOFA", ["Ann", "Bob", "Cy", "Dana"])
    assert "New game: Ann, Bob, Cy, Dana." in sms.text(ann, "START")[0]
    assert sms.table(ann).spec.name == "blofa"
    played = sms.text(ann, "one blue card, two")
    assert "Ann plays one blue card, declares 2." in played[0]
    told = [m["Body"] for m in fake.messages if m["To"] == dana]
    assert any("Ann plays one blue card, declares 2." in body for body in told)
    # Out of turn: only the sender hears it.
    before = len(fake.messages)
    assert "Waiting for Bob." in sms.text(cy, "pass")[0]
    assert len(fake.messages) == before
    assert "Bob passes" in sms.text(bob, "pass yellow")[0]


def test_upside_out_by_text(sms: Sms) -> None:
    ann, bob = start(sms, "UPSIDEOUT", ["Ann", "Bob"])
    sms.text(ann, "START")
    assert sms.table(ann).spec.name == "upside-out"
    assert "Bob starts" in sms.text(bob, "me")[0]
    assert "Bob draws 1." in sms.text(bob, "draw")[0]

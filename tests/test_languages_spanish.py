"""Spanish, added as folders only (grammars/es/, games/<game>/grammar/es/): a Spanish SMS
game and a Spanish call from NEW to a win, ``gamehost play --lang es``, and a table in
Spanish refused in one line (no offline Spanish recogniser here)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from host.channels.sms.text import SEGMENT, gsm_length, is_gsm7
from host.cli import app as cli
from tests.clock import Clock
from tests.sms.conftest import HOST_NUMBER, PHONES, Sms
from tests.sms.conftest import build as build_sms
from tests.twilio_helpers import FakeTwilio
from tests.voice.conftest import Host
from tests.voice.conftest import build as build_voice

ANA, BETO = PHONES[0], PHONES[1]


@pytest.fixture
def sms(tmp_path: Path, fake: FakeTwilio) -> Iterator[Sms]:
    host = build_sms(tmp_path, fake, Clock(), number_langs={HOST_NUMBER: "es"})
    yield host
    host.app.state.store.close()


@pytest.fixture
def phone_host(tmp_path: Path, fake: FakeTwilio) -> Iterator[Host]:
    host = build_voice(tmp_path, fake, number_langs={HOST_NUMBER: "es"})
    yield host
    host.app.state.store.close()


def gsm_segments(messages: list[str]) -> list[str]:
    """Spanish spelled in GSM-7 (á as a, ñ and é kept): one 160-character segment each."""
    assert all(is_gsm7(m) and gsm_length(m) <= SEGMENT for m in messages), messages
    return messages


def test_a_spanish_sms_game_from_new_to_a_win(sms: Sms) -> None:
    created = gsm_segments(sms.text(ANA, "nuevo Ana"))
    code = re.search(r"\d{6}", created[0])[0]  # type: ignore[index]
    assert f"Tus amigos escriben UNIRME {code} a este numero. Eres Ana." in created[0]
    joined = gsm_segments(sms.text(BETO, f"unirme {code} Beto"))
    assert joined[0].startswith(f"Te uniste al juego {code} como Beto.")
    started = gsm_segments(sms.text(ANA, "empezar"))
    assert started[0].startswith("#1 Nuevo juego: Ana, Beto. Ana: cualquier numero del 1 al 100.")
    moved = gsm_segments(sms.text(ANA, "cincuenta y tres"))
    assert moved == ["#2 Ana dijo 53. Beto: un numero impar mayor que 53 o uno par menor que 53."]
    out = " ".join(gsm_segments(sms.text(BETO, "sesenta")))
    assert "Beto queda fuera" in out and "Ana gana!" in out and "escribe NUEVO" in out


def test_a_spanish_call_from_the_menu_to_a_win(phone_host: Host) -> None:
    phone = phone_host.phone("+15550400001")
    phone.call()
    assert phone.heard.startswith("Sube o Baja. Para empezar un juego, pulsa uno o di nuevo juego.")
    assert phone.gather.get("language") == "es-US"
    assert {s.get("voice") for s in phone.twiml.iter("Say")} == {"Polly.Lupe"}  # type: ignore[union-attr]
    phone.say("este teléfono")
    assert "del dos al ocho" in phone.heard
    phone.say("dos")
    phone.say("me llamo Ana")
    phone.say("Beto")
    assert phone.heard == ("Nuevo juego: Ana, Beto. Ana, te toca: cualquier número del uno al cien.")
    phone.say("cincuenta y tres")
    assert phone.heard == (
        "Ana dijo cincuenta y tres. Beto, te toca: impar mayor que cincuenta y tres, o par menor."
    )
    phone.press("60")
    said = phone.heard
    assert "Beto queda fuera" in said and "Ana gana!" in said


def test_gamehost_play_speaks_spanish(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        ["play", "up-or-down", "--players", "Ana,Beto", "--lang", "es", "--db", str(tmp_path / "g.sqlite3")],
        input="cincuenta y tres\nsesenta\n",
    )
    assert "Ana dijo 53." in result.output, result.output
    assert "Beto queda fuera" in result.output and "Ana gana!" in result.output


def test_a_spanish_table_is_refused_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "table",
            "up-or-down",
            "--players",
            "Ana,Beto",
            "--lang",
            "es",
            "--mic",
            "--db",
            str(tmp_path / "g.sqlite3"),
        ],
    )
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "Español (es) cannot be heard offline here" in lines[0], result.output

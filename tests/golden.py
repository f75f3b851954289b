"""Golden transcripts: each game's golden script (``games/<game>/tests/golden.py``) through
the referee and by text message, every input and every line said.

``tests/host/test_golden.py`` diffs them against ``games/<game>/tests/transcripts/*.txt``;
after an intended change of wording, regenerate and read the diff:

    python -m tests.golden --update
"""

from __future__ import annotations

import functools
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from games.blofa.tests import golden as blofa_golden
from games.inversion.tests import golden as inversion_golden
from games.up_or_down.tests import golden as up_or_down_golden
from games.upside_out.tests import golden as upside_golden
from host.referee import Referee
from host.session import SessionConfig
from host.store import Store
from tests.clock import Clock
from tests.sms.conftest import PHONES, build

Script = tuple[SessionConfig, list[str], list[str]]  # config, players, "Name: words" lines


def from_game(script: Callable[[], tuple[Sequence[str], dict[str, Any], list[str]]], game: str) -> Script:
    """A game folder's own golden script (``games/<game>/tests/golden.py``)."""
    players, options, lines = script()
    return SessionConfig(game=game, options=dict(options)), list(players), list(lines)


def _inversion(players: list[str], seed: int) -> Script:
    return from_game(functools.partial(inversion_golden.golden_script, players, seed), "inversion")


#: Each transcript's game folder (its golden module) and its script as the host plays it.
GOLDEN: dict[str, tuple[ModuleType, Callable[[], Script]]] = {
    "up-or-down-3p": (up_or_down_golden, lambda: from_game(up_or_down_golden.golden_script, "up-or-down")),
    "inversion-2p": (inversion_golden, lambda: _inversion(["Ann", "Bob"], 2)),
    "inversion-4p": (inversion_golden, lambda: _inversion(["Ann", "Bob", "Cy", "Dee"], 4)),
    "blofa-4p": (blofa_golden, lambda: from_game(blofa_golden.golden_script, "blofa")),
    "upside-out-3p": (upside_golden, lambda: from_game(upside_golden.golden_script, "upside-out")),
}
SCRIPTS: dict[str, Callable[[], Script]] = {name: script for name, (_, script) in GOLDEN.items()}


def transcript_file(name: str) -> Path:
    """Where a render is kept: beside its game's golden script, ``transcripts/<name>.txt``."""
    module, _ = GOLDEN[name.removesuffix("-sms")]
    return Path(module.__file__ or "").parent / "transcripts" / f"{name}.txt"


def render(name: str) -> str:
    config, players, lines = SCRIPTS[name]()
    clock = Clock(1_000_000.0)
    referee = Referee(Store(":memory:"), clock)
    session = referee.create(config, players)
    table = referee.table(session)
    out = [f"# {name}: players {', '.join(players)} (regenerate: python -m tests.golden --update)"]
    for line in lines:
        clock.now += 1
        speaker, _, words = line.partition(": ")
        reply = referee.handle(session, words, speaker)
        out.append(f"> {line}")
        out += [f"  {said}" for said in reply.public]
        out += [f"  (to {speaker}) {said}" for said in reply.private]
    table = referee.table(session)
    assert table.state is not None and table.state.is_over, f"{name}: the script did not finish the game"
    return "\n".join(out) + "\n"


def render_sms(name: str) -> str:
    """The same script by text message: each player texts from their own phone; what the
    sender is answered and what every other phone is sent (no Twilio account: the outbox)."""
    config, players, lines = SCRIPTS[name]()
    with tempfile.TemporaryDirectory() as folder:
        sms = build(Path(folder), None, Clock(1_000_000.0))
        phones = dict(zip(players, PHONES, strict=False))
        code = sms.text(phones[players[0]], f"NEW {config.game} {players[0]}")[0].split()[1]
        for player in players[1:]:
            sms.text(phones[player], f"JOIN {code} {player}")
        sms.text(phones[players[0]], "START")
        sent = len(sms.app.state.outbound.items(limit=10_000))
        out = [f"# {name} by SMS: players {', '.join(players)} (regenerate: python -m tests.golden --update)"]
        for line in lines:
            speaker, _, words = line.partition(": ")
            out.append(f"> {line}")
            out += [f"  (to {speaker}) {said}" for said in sms.text(phones[speaker], words)]
            items = sorted(sms.app.state.outbound.items(limit=10_000), key=lambda item: item.id)
            by_phone = {phone: player for player, phone in phones.items()}
            out += [f"  (to {by_phone[item.to]}) {item.body}" for item in items[sent:] if item.kind == "sms"]
            sent = len(items)
        assert not sms.table(phones[players[0]]).running, f"{name}: the script did not finish the game"
        sms.app.state.store.close()
    return "\n".join(out) + "\n"


RENDERS: dict[str, Callable[[str], str]] = {
    **{name: render for name in SCRIPTS},
    **{f"{name}-sms": lambda n, base=name: render_sms(base) for name in SCRIPTS},
}


def main() -> None:
    if sys.argv[1:] != ["--update"]:
        raise SystemExit("usage: python -m tests.golden --update")
    for name, make in RENDERS.items():
        path = transcript_file(name)
        path.parent.mkdir(exist_ok=True)
        path.write_text(make(name), encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()

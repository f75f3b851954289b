"""Golden transcripts: seeded games through the referee, every input and every line said.

``tests/host/test_golden.py`` diffs them against ``tests/transcripts/*.txt``; after an
intended change of wording, regenerate and read the diff:

    python -m tests.golden --update
"""

from __future__ import annotations

import random
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from games.blofa.tests import golden as blofa_golden
from games.up_or_down import rules as ud
from games.upside_out.tests import golden as upside_golden
from host.referee import Referee
from host.session import SessionConfig
from host.store import Store
from tests.clock import Clock
from tests.inversion_deals import dealt_game
from tests.sms.conftest import PHONES, build

FOLDER = Path(__file__).parent / "transcripts"
Script = tuple[SessionConfig, list[str], list[str]]  # config, players, "Name: words" lines


def up_or_down_script() -> Script:
    """A tournament of three with mistakes, commands, an undo and the winner."""
    rng = random.Random(11)
    players = ["Ann", "Bob", "Cy"]
    game = ud.new_game(players)
    lines: list[str] = []
    while not game.is_over:
        player = game.current_player
        valid = ud.valid_numbers(game)
        number = rng.choice(valid) if rng.random() < 0.8 else rng.randint(1, 100)
        lines.append(f"{player}: {number}")
        game, _ = ud.play(game, number)
    lines[1:1] = ["Bob: whose turn", "Cy: fifty and sixty", "Bob: umm"]
    lines[5:5] = ["Cy: score", "Ann: undo"]
    # The winner opens a rematch with a number outside the range; the chain goes on from it.
    lines += ["Cy: new game", "Cy: a million", "Ann: 54", "Bob: whose turn"]
    return SessionConfig(), players, lines


def inversion_script(players: list[str], seed: int) -> Script:
    """A dealt game with setup said out, one revoke, and a few things said wrong."""
    game = dealt_game(seed, players, revoke=True)
    setup = [
        f"{players[1]}: {' '.join(s.value + 's' for s in game.suits)}",
        f"{players[1]}: {' '.join(map(str, game.lane[:4]))}",
        f"{players[0]}: {', '.join(str(c) for c in game.lane[4:])}",
        f"{players[0]}: {players[0]}",
    ]
    lines = [*game.lines]
    noise = [f"{players[1]}: {game.lane[-1]}", f"{players[0]}: whose turn", f"{players[0]}: umm"]
    at = len(players) + 2 if len(players) > 2 else 1
    lines[at:at] = noise
    return SessionConfig(game="inversion"), players, [*setup, *lines, f"{players[0]}: score"]


def from_game(script: Callable[[], tuple[Sequence[str], dict[str, object], list[str]]], game: str) -> Script:
    """A game folder's own golden script (``games/<game>/tests/golden.py``)."""
    players, options, lines = script()
    return SessionConfig(game=game, options=dict(options)), list(players), list(lines)


SCRIPTS: dict[str, Callable[[], Script]] = {
    "up-or-down-3p": up_or_down_script,
    "inversion-2p": lambda: inversion_script(["Ann", "Bob"], 2),
    "inversion-4p": lambda: inversion_script(["Ann", "Bob", "Cy", "Dee"], 4),
    "blofa-4p": lambda: from_game(blofa_golden.golden_script, "blofa"),
    "upside-out-3p": lambda: from_game(upside_golden.golden_script, "upside-out"),
}


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
    FOLDER.mkdir(exist_ok=True)
    for name, make in RENDERS.items():
        (FOLDER / f"{name}.txt").write_text(make(name), encoding="utf-8")
        print(f"wrote {FOLDER / f'{name}.txt'}")


if __name__ == "__main__":
    main()

"""Whole !nversion games as "Name: words" lines, for the host's golden transcripts
(``tests/golden.py``, kept in ``transcripts/``): a dealt game with the setup said out, one
revoke, and a few things said wrong."""

from __future__ import annotations

from typing import Any

from games.inversion.tests.deals import dealt_game


def golden_script(players: list[str], seed: int) -> tuple[list[str], dict[str, Any], list[str]]:
    """Players in seating order, options as the CLI would give them, and the lines."""
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
    return players, {}, [*setup, *lines, f"{players[0]}: score"]

"""A whole Up-or-Down game as "Name: words" lines, for the host's golden transcripts
(``tests/golden.py``, kept in ``transcripts/``): a tournament of three with mistakes,
commands, an undo and the winner, who opens a rematch with a number outside the range."""

from __future__ import annotations

import random
from typing import Any

from games.up_or_down import rules as ud


def golden_script() -> tuple[list[str], dict[str, Any], list[str]]:
    """Players in seating order, options as the CLI would give them, and the lines."""
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
    # The chain goes on from a number outside the range.
    lines += ["Cy: new game", "Cy: a million", "Ann: 54", "Bob: whose turn"]
    return players, {}, lines

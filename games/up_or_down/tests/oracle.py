"""A second referee for Up-or-Down, written from the rule text alone (``docs/rules/
up-or-down.txt``) and the readings of its vague points in ``docs/up-or-down.md``.

It imports nothing of the game: moves are plain tuples, and what it rules is a plain
dict, so ``test_oracle.py`` can play the same random games through both referees and
compare every ruling.

Moves: ``("say", player, number)``, ``("leave", player)``, ``("end", player or None)``,
``("timeout",)``.
"""

from __future__ import annotations

from typing import Any

Move = tuple[Any, ...]


class UpOrDownOracle:
    def __init__(
        self,
        players: tuple[str, ...],
        low: int = 1,
        high: int = 100,
        training: bool = False,
        rounds: int | None = None,
        previous: UpOrDownOracle | None = None,
    ) -> None:
        self.players = players
        self.low, self.high = low, high
        self.training, self.rounds = training, rounds
        self.still = list(players)  # in the game, in seating order
        self.last: int | None = None  # the number the chain goes on from
        self.mistakes = dict.fromkeys(players, 0)
        self.last_mistake: str | None = None
        self.accepted = 0
        self.over = False
        self.result: dict[str, Any] = {}
        self.opener = self._opener(previous)
        self.current = self.opener

    def _opener(self, previous: UpOrDownOracle | None) -> str:
        """ "he/she gets to choose the first number for the next game": the winner; with no
        winner the opening moves one seat on. Who left is skipped, round the old table."""
        if previous is None:
            return self.players[0]
        old = previous.players
        winner = previous.result.get("winner")
        at = old.index(winner) if winner is not None else (old.index(previous.opener) + 1) % len(old)
        ring = old[at:] + old[:at]
        return next((p for p in ring if p in self.players), self.players[0])

    # -- the rule text ------------------------------------------------------------------

    def fits(self, n: int) -> bool:
        if not self.low <= n <= self.high:
            return False
        if self.last is None:
            return True
        if n == self.last:
            return False
        same_parity = n % 2 == self.last % 2
        return same_parity if n > self.last else not same_parity

    def _after(self, player: str) -> str:
        """The next player still in after ``player`` (who may just have gone out)."""
        i = self.players.index(player)
        for step in range(1, len(self.players) + 1):
            p = self.players[(i + step) % len(self.players)]
            if p in self.still:
                return p
        return player

    def _end(self, reason: str, winner: str | None = None) -> None:
        self.over = True
        self.result = {"reason": reason, "winner": winner}
        if self.training:
            self.result |= {"last_mistake": self.last_mistake, "mistakes": dict(self.mistakes)}
        elif winner is None:
            self.result["still_in"] = list(self.still)

    def _out(self, player: str) -> None:
        nxt = self._after(player)
        self.still.remove(player)
        if not self.training and len(self.still) == 1:
            self._end("last_player_in", self.still[0])
        elif len(self.still) < 2:
            self._end("players_left")
        elif player == self.current:
            self.current = nxt

    # -- rulings ------------------------------------------------------------------------

    def act(self, move: Move) -> bool:
        """Rule on ``move``; False: refused, nothing changes."""
        if self.over:
            return False
        kind = move[0]
        if kind == "say":
            _, player, n = move
            if player != self.current:
                return False
            self._say(player, n)
            return True
        if kind == "timeout":
            player = self.current
            if self.training:
                self.current = self._after(player)
            else:
                self.mistakes[player] += 1
                self.last_mistake = player
                self._out(player)
            return True
        if kind == "leave":
            player = move[1]
            if player not in self.still:  # not at this table, or already out
                return False
            self._out(player)
            return True
        if kind == "end":
            player = move[1]
            if player is not None and player not in self.still:
                return False
            self._end("requested")
            return True
        raise ValueError(move)

    def _say(self, player: str, n: int) -> None:
        if self.fits(n):
            self.last = n
            self.accepted += 1
            if self.rounds is not None and self.accepted >= self.rounds * len(self.still):
                self._end("rounds")
            else:
                self.current = self._after(player)
            return
        self.mistakes[player] += 1
        self.last_mistake = player
        if self.training:
            return  # "he/she gets to change his/her number to one that fits"
        self.last = n  # "P4 would continue the chain with P3's last response"
        self._out(player)

    def facts(self) -> dict[str, Any]:
        return {
            "to_act": [] if self.over else [self.current],
            "last": self.last,
            "in": list(self.still),
            "mistakes": dict(self.mistakes),
            "over": self.over,
            "result": dict(self.result),
        }

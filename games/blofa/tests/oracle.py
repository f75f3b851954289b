"""A second referee for Blófa Cards, written from the rule text alone (``docs/rules/
blofa.txt``) and the readings of its vague points in ``docs/blofa.md``.

It imports nothing of the game. Colours are "blue" and "yellow"; moves are tuples:
``("play", player, [colour, ...], declared)``, ``("pass", player, pile)``, ``("challenge",
player)``, ``("reveal", [value, ...])``, ``("keep", player, colour, rule)``, ``("claim",
player, holds)``, ``("leave", player)``, ``("end",)``. ``act`` rules on a move (False:
refused, nothing changes); ``facts`` is what the table knows, for ``test_oracle.py``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

# "0 -> 3 cards, 1 -> 5 cards, 2 -> 4 cards, 3 -> 3 cards, 4 -> 2 cards, 5 -> 1 card";
# "The blue cards are the even cards (4, 2, and 0.) The yellow cards are the odd cards."
HOW_MANY = {0: 3, 1: 5, 2: 4, 3: 3, 4: 2, 5: 1}
RULE_CARDS = 3
Move = tuple[Any, ...]


def colour(value: int) -> str:
    return "blue" if value % 2 == 0 else "yellow"


class BlofaOracle:
    def __init__(
        self, players: tuple[str, ...], dealer: str, protect_opening: bool = False, dry_end: int = 4
    ) -> None:
        self.players = players  # clockwise
        self.protect_opening, self.dry_end = protect_opening, dry_end
        self.hands = {p: {"blue": 2, "yellow": 2} for p in players}
        self.piles = {"blue": 1, "yellow": 1}
        self.vp = dict.fromkeys(players, 0)
        self.captures: list[str] = []
        self.dry = 0
        self.dealer = dealer
        self.step = "play"  # play, reveal, keep, check, over
        self.turn: str | None = dealer
        # The plays of this trick: who, the colours, the sum declared, the values once flipped.
        self.trick: list[tuple[str, list[str], int, list[int] | None]] = []
        self.passes = 0
        self.last_pile: str | None = None
        self.challenger: str | None = None
        self.claims: dict[str, bool] = {}
        self.flagged = False
        self.result: dict[str, Any] = {}

    def _left_of(self, player: str) -> str:
        """Clockwise: the next seat in the order given."""
        return self.players[(self.players.index(player) + 1) % 4]

    def _sums(self) -> tuple[int, int]:
        return (1, 2) if not self.trick else (self.trick[-1][2] + 1, self.trick[-1][2] + 2)

    def _last_three(self) -> list[tuple[str, int | None]]:
        cards: list[tuple[str, int | None]] = []
        for _, cols, _, vals in self.trick:
            cards += [(c, None if vals is None else vals[i]) for i, c in enumerate(cols)]
        return cards[-3:]

    # -- rulings ------------------------------------------------------------------------------

    def act(self, move: Move) -> bool:
        kind = move[0]
        if self.step == "over":
            return False
        if kind == "end":
            return self._over("ended")
        if kind == "leave":
            return move[1] in self.players and self._over("left")
        if kind in ("play", "pass", "challenge"):
            if self.step != "play" or move[1] != self.turn:
                return False
            if kind == "play":
                return self._play(move[1], list(move[2]), move[3])
            if kind == "pass":
                return self._pass(move[1], move[2])
            return self._challenge(move[1])
        if kind == "reveal":
            return self.step == "reveal" and self._reveal(list(move[1]))
        if kind == "keep":
            return self.step == "keep" and move[1] == self.turn and self._keep(move[1], move[2], move[3])
        if kind == "claim":
            return self.step == "check" and self._claim(move[1], move[2])
        raise ValueError(move)

    def _play(self, player: str, colours: list[str], declared: int) -> bool:
        hand = self.hands[player]
        # "You play 1 or 2 cards face down"; the declared sum is the last +1 or +2 (1 or 2 first)
        if not 1 <= len(colours) <= 2 or declared not in self._sums():
            return False
        if any(colours.count(c) > hand[c] for c in set(colours)):
            return False
        for c in colours:
            hand[c] -= 1
        self.trick.append((player, colours, declared, None))
        self.passes = 0
        self.turn = self._left_of(player)
        return True

    def _pass(self, player: str, pile: str) -> bool:
        if not self.trick:
            return False  # the dealer must open the trick
        if self.last_pile is not None and pile == self.last_pile:
            return False  # "you must draw for the pile that the last player did NOT draw from"
        if self.piles[pile] == 0:
            return False  # "If you can't draw from the supposed deck ... [it] is not an option"
        self.piles[pile] -= 1
        self.hands[player][pile] += 1
        self.last_pile = pile
        self.passes += 1
        self.turn = self._left_of(player)
        if self.passes == 3:  # "3 consecutive passes": the declarer wins the trick and 1 VP
            declarer = self.trick[-1][0]
            self.vp[declarer] += 1
            self._won(declarer)
        return True

    def holding(self, player: str) -> int:
        return self.hands[player]["blue"] + self.hands[player]["yellow"]

    def _can_pass(self) -> bool:
        return any(self.piles[p] and p != self.last_pile for p in ("blue", "yellow"))

    def _challenge(self, player: str) -> bool:
        if not self.trick:
            return False
        # Protected, unless it is the only option left (no card, no pile to draw from).
        protected = self.protect_opening and len(self.trick) == 1
        if protected and (self.holding(player) or self._can_pass()):
            return False
        self.step, self.turn, self.challenger = "reveal", None, player
        return True

    def _reveal(self, values: list[int]) -> bool:
        who, colours, declared, _ = self.trick[-1]
        if len(values) != len(colours) or any(v not in HOW_MANY for v in values):
            return False
        if sorted(colour(v) for v in values) != sorted(colours):
            return False  # not what those backs can be: asked again
        left = {**HOW_MANY, 0: HOW_MANY[0] - len(self.captures)}
        if any(n > left[v] for v, n in Counter(values).items()):
            return False
        pool = list(values)
        paired = []
        for c in colours:
            v = next(v for v in pool if colour(v) == c)
            pool.remove(v)
            paired.append(v)
        self.trick[-1] = (who, colours, declared, paired)
        assert self.challenger is not None
        lied = sum(values) != declared
        winner, loser = (self.challenger, who) if lied else (who, self.challenger)
        self.vp[winner] += 1
        self.vp[loser] -= 1
        self._won(winner)
        return True

    def _won(self, winner: str) -> None:
        self.step, self.turn, self.challenger = "keep", winner, None

    def _keep(self, player: str, kept: str, rule: bool) -> bool:
        choices = self._last_three()
        if not any(c == kept for c, _ in choices):
            return False
        blue = [v for c, v in choices if c == "blue"]
        if kept == "blue" and not rule and all(v == 0 for v in blue):
            return False  # a flipped 0 is a rule card: it must be captured
        maybe_zero = any(v in (None, 0) for v in blue)
        if rule and (kept != "blue" or not maybe_zero or len(self.captures) == RULE_CARDS):
            return False
        back = Counter(c for _, cols, _, _ in self.trick for c in cols)
        back[kept] -= 1
        if rule:
            self.captures.append(player)
            self.dry = 0
        else:
            self.hands[player][kept] += 1
            self.dry += 1
        for c in ("blue", "yellow"):
            self.piles[c] += back[c]
        self.trick, self.passes, self.last_pile = [], 0, None
        self.dealer = self.turn = player
        self.step = "play"
        if len(self.captures) == RULE_CARDS:
            return self._check("all_captured")
        if self.holding(player) == 0:
            return self._check("dealer_empty")
        if self.dry >= self.dry_end:
            return self._check("dry")
        return True

    def _check(self, reason: str) -> bool:
        self.step, self.turn, self.end_reason = "check", None, reason
        if len(self.captures) == RULE_CARDS:
            self.claims = dict.fromkeys(self.players, False)
            self._score()
        return True

    def _claim(self, player: str, holds: bool) -> bool:
        if player not in self.players or player in self.claims:
            return False
        left = RULE_CARDS - len(self.captures)
        if holds and (self.hands[player]["blue"] == 0 or sum(self.claims.values()) >= left):
            return False
        self.claims[player] = holds
        if len(self.claims) == 4:
            # The uncaptured rule cards lie on claimants' hands (any number each) or in the
            # blue pile; claims no such spread explains are flagged, and stand.
            room = self.piles["blue"] + sum(self.hands[p]["blue"] for p, h in self.claims.items() if h)
            self.flagged = left > room
            self._score()
        return True

    def _score(self) -> None:
        vp = dict(self.vp)
        for capturer in self.captures:
            i = self.players.index(capturer)
            vp[capturer] += 6
            vp[self.players[(i + 2) % 4]] += 4  # across
            vp[self.players[(i - 1) % 4]] += 2  # "the player that sits on the exact right"
        out = [p for p in self.players if self.claims.get(p)]
        standing = [p for p in self.players if p not in out]
        best = max((vp[p] for p in standing), default=None)
        top = [p for p in standing if vp[p] == best]
        self.step, self.turn = "over", None
        self.result = {
            "reason": self.end_reason,
            "winner": top[0] if len(top) == 1 else None,
            "vp": vp,
            "eliminated": out,
        }

    def _over(self, reason: str) -> bool:
        self.step, self.turn = "over", None
        self.result = {"reason": reason, "winner": None, "vp": dict(self.vp), "eliminated": []}
        return True

    def facts(self) -> dict[str, Any]:
        awaited = [self.turn] if self.turn is not None else []
        if self.step == "check":
            awaited = [p for p in self.players if p not in self.claims]
        return {
            "step": self.step,
            "to_act": sorted(awaited),
            "dealer": self.dealer,
            "hands": {p: (h["blue"], h["yellow"]) for p, h in self.hands.items()},
            "piles": (self.piles["blue"], self.piles["yellow"]),
            "vp": dict(self.vp),
            "captures": list(self.captures),
            "declared": self.trick[-1][2] if self.trick else None,
            "passes": self.passes,
            "flagged": self.flagged,
            "result": dict(self.result),
        }

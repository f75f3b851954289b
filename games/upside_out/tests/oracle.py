"""A second referee for Upside-Out, written from the rule text alone (``docs/rules/
upside-out.txt``) and the readings of its vague points in ``docs/upside-out.md``.

It imports nothing of the game. A card is ``(name, you, others)``: its name ("" for one
described on the fly) and its two sides as lists of steps in the deck files' words ("draw
2", "donate 1 to caster", "reverse"). Moves are tuples: ``("start", p)``, ``("draw", p)``,
``("play", p, card)``, ``("discard", p, n)``, ``("donate", p, n, to or None)``,
``("reveal", p, card)``, ``("react", p, kind)``, ``("leave", p)``, ``("end",)`` and
``("timeout",)`` (30 seconds passed with nobody answering). ``act`` rules on a move (False:
refused, nothing changes); ``facts`` is what the referee counts, for ``test_oracle.py``.

Like the host, it cannot see a card: it counts them (84 = 28 faces x 3 copies).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

COPIES = 3
CARDS = 28 * COPIES
DEALT, SECRETS = 7, 3
Card = tuple[str, list[str], list[str]]
Move = tuple[Any, ...]
_STEP = re.compile(r"^(\w+)(?: (\d+))?(?: from (discard))?(?: to (\w+))?$")


def specials(deck: str = "sample") -> dict[str, str]:
    """The special faces of a deck file, by their reaction: {"mirror": "Mirror", ...}."""
    path = Path(__file__).parents[1] / "decks" / f"{deck}.yaml"
    cards = yaml.safe_load(path.read_text(encoding="utf-8"))["cards"]
    return {c["special"]: c["name"] for c in cards if c.get("special")}


def step(text: str) -> tuple[str, int, bool, str]:
    """(kind, count, from the discard pile, recipient) of one step."""
    m = _STEP.match(text.strip())
    if m is None:
        raise ValueError(text)
    return m[1], int(m[2] or 0), bool(m[3]), m[4] or ""


class Pending:
    """A card waiting to be carried out: its near side's steps, then its far side's."""

    def __init__(self, name: str, caster: str, stages: list[tuple[str, str]], physical: bool) -> None:
        self.name, self.caster, self.physical = name, caster, physical
        self.stages = stages  # (who: "you", "others" or a player's name, step)


class Owed:
    def __init__(self, player: str, kind: str, count: int, step: str, card: str, caster: str, to: str | None):
        self.player, self.kind, self.count, self.step = player, kind, count, step
        self.card, self.caster, self.to = card, caster, to


class UpsideOutOracle:
    def __init__(self, players: tuple[str, ...], first: str | None = None) -> None:
        self.players = players
        self.hand = dict.fromkeys(players, DEALT - SECRETS)
        self.secrets = dict.fromkeys(players, SECRETS)
        self.deck = CARDS - DEALT * len(players)
        self.discard = 0
        self.known: dict[str, int] = {}  # faces known to lie in the discard pile
        self.out: list[str] = []
        self.skips = dict.fromkeys(players, 0)
        self.direction = 1
        self.step = "opening_secret" if first is None else "turn"
        self.current = first or players[0]
        self.queue: list[Pending] = []
        self.owed: list[Owed] = []
        self.result: dict[str, Any] = {}
        self.specials = specials()  # a reaction is a copy of its face, as is that card revealed

    # -- seats ------------------------------------------------------------------------------

    @property
    def active(self) -> list[str]:
        return [p for p in self.players if p not in self.out]

    def order_from(self, player: str) -> list[str]:
        """Everyone still in, in turn order from ``player`` (who may be out)."""
        i, n = self.players.index(player), len(self.players)
        seats = [self.players[(i + self.direction * k) % n] for k in range(n)]
        return [p for p in seats if p not in self.out]

    # -- what can be seen -------------------------------------------------------------------

    def face_up(self, face: str) -> int:
        resolving = sum(1 for c in self.queue if c.physical and c.name and "card:" + c.name == face)
        return self.known.get(face, 0) + resolving

    def _to_discard(self, face: str | None) -> None:
        self.discard += 1
        if face is not None:
            self.known[face] = self.known.get(face, 0) + 1

    # -- rulings ----------------------------------------------------------------------------

    def act(self, move: Move) -> bool:
        kind = move[0]
        if self.step == "over":
            return False
        if kind == "timeout":
            if self.step == "opening_secret":
                self.step = "opening_alone"  # "If no player ... within 30 seconds"
            return True
        if kind == "end":
            self._finish("ended", [])
            return True
        player = move[1]
        if player not in self.active:
            return False
        if kind == "leave":
            self._leave(player)
            return True
        if self.step in ("opening_secret", "opening_alone"):
            if kind != "start":
                return False
            self.step, self.current = "turn", player
            return True
        if kind == "start":
            return False
        if kind in ("draw", "play"):
            return self._turn(move)
        return self._answer(move)

    def _turn(self, move: Move) -> bool:
        player = move[1]
        if self.step != "turn" or player != self.current:
            return False
        if move[0] == "draw":
            if self.deck + self.discard == 0:
                return False
            self._draw(player, 1, False)
            self._end_turn()
            return True
        name, you, others = move[2]
        if self.hand[player] == 0 or (name and self.face_up("card:" + name) >= COPIES):
            return False
        self.hand[player] -= 1
        self.step = "resolving"
        self.queue.append(self._pending(name, player, you, others))
        self._run()
        return True

    def _pending(self, name: str, caster: str, you: list[str], others: list[str]) -> Pending:
        stages = [("you", s) for s in you if s != "nothing"]
        stages += [("others", s) for s in others if s != "nothing"]
        return Pending(name, caster, stages, True)

    def _answer(self, move: Move) -> bool:
        kind, player = move[0], move[1]
        owed = next((o for o in self.owed if o.player == player), None)
        if owed is None:
            return False
        hand = self.hand[player]
        if kind == "react":
            special = move[2]
            if hand == 0 or (special == "decoy" and owed.kind != "discard"):
                return False
            if special != "decoy" and owed.caster == player:
                return False  # Mirror and Counter answer someone else's card
            face = "card:" + self.specials[special]
            if self.face_up(face) >= COPIES:
                return False
            self.hand[player] -= 1
            self._to_discard(face)
            self.owed.remove(owed)
            if special == "mirror":  # the caster now faces the whole step, after the rest
                self.queue.append(Pending(owed.card, player, [(owed.caster, owed.step)], False))
        elif kind == "reveal":
            name, you, others = move[2]
            if owed.kind not in ("reveal", "discard") or self.secrets[player] == 0:
                return False
            if name and self.face_up("card:" + name) >= COPIES:
                return False
            self.secrets[player] -= 1
            self.queue.append(self._pending(name, player, you, others))
            # "in lieu of any number of cards remaining": one secret pays a whole discard
            left = min(owed.count - 1, self.secrets[player]) if owed.kind == "reveal" else 0
            self._settle(owed, left)
        else:
            n = move[2]
            if owed.kind != kind or not 1 <= n <= owed.count or n > hand:
                return False
            if kind == "discard":
                self.hand[player] -= n
                self.discard += n
                left = owed.count - n
                if left and self.hand[player] == 0 and self.secrets[player] == 0:
                    left = 0  # nothing left to pay with: the rest is cancelled
                self._settle(owed, left)
            else:
                to = move[3]
                if to is not None and (
                    (owed.to is not None and to != owed.to) or to == player or to not in self.active
                ):
                    return False
                to = to or owed.to
                if to is None:
                    return False  # "donate 1 to anyone": the giver must say to whom
                self.hand[player] -= n
                self.hand[to] += n
                self._settle(owed, owed.count - n if self.hand[player] else 0)
        self._run()
        return True

    def _settle(self, owed: Owed, left: int) -> None:
        if left > 0:
            owed.count = left
        else:
            self.owed.remove(owed)

    # -- carrying out cards -----------------------------------------------------------------

    def _run(self) -> None:
        """Resolve in order of play until someone owes an answer."""
        while not self.owed and self.queue:
            head = self.queue[0]
            if not head.stages:
                self.queue.pop(0)
                if head.physical:
                    self._to_discard("card:" + head.name if head.name else None)
                continue
            who, text = head.stages.pop(0)
            if who == "you":
                targets = [head.caster]
            elif who == "others":  # "in turn order from you", as the order stands now
                targets = [p for p in self.order_from(head.caster) if p != head.caster]
            else:
                targets = [who]
            self._carry(head, [t for t in targets if t not in self.out], text)
        if not self.owed and not self.queue and self.step == "resolving":
            self._end_turn()

    def _carry(self, card: Pending, targets: list[str], text: str) -> None:
        kind, count, from_discard, to = step(text)
        if kind == "reverse":
            if targets:
                self.direction = -self.direction  # the table's order turns once
            return
        for t in targets:
            if kind == "draw":
                self._draw(t, count, from_discard)
            elif kind == "skip":
                self.skips[t] += 1
            elif kind == "set":
                n = min(count, self.hand[t], SECRETS - self.secrets[t])
                self.hand[t] -= n
                self.secrets[t] += n
            elif kind == "discard" and (self.hand[t] or self.secrets[t]):
                self.owed.append(Owed(t, "discard", count, text, card.name, card.caster, None))
            elif kind == "reveal" and self.secrets[t]:
                n = min(count, self.secrets[t])
                self.owed.append(Owed(t, "reveal", n, text, card.name, card.caster, None))
            elif kind == "donate" and self.hand[t]:
                self.owed.append(
                    Owed(
                        t,
                        "donate",
                        min(count, self.hand[t]),
                        text,
                        card.name,
                        card.caster,
                        self._recipient(t, card.caster, to),
                    )
                )
            # reorder, reorient, nothing, and what cannot be done: no count changes

    def _recipient(self, giver: str, caster: str, to: str) -> str | None:
        to = to or ("caster" if caster != giver else "next")
        if to == "caster" and caster != giver and caster not in self.out:
            return caster
        order = self.order_from(giver)
        if to == "previous":
            return order[-1]
        if to in ("next", "caster"):
            return order[1]
        return None  # "any": the giver names them

    def _draw(self, player: str, count: int, from_discard: bool) -> None:
        if from_discard:
            got = min(count, self.discard)
            self.discard -= got
            if got:
                self.known = {}  # which cards were taken is the drawer's secret
            self.hand[player] += got
            return
        for _ in range(count):
            if self.deck == 0:
                if self.discard == 0:
                    return  # nothing to draw: the rest is cancelled
                # "flip the discard pile upside down, shuffle it, and use it as the new deck"
                self.deck, self.discard, self.known = self.discard, 0, {}
            self.deck -= 1
            self.hand[player] += 1

    # -- turns ------------------------------------------------------------------------------

    def _end_turn(self) -> None:
        gone = [p for p in self.active if self.secrets[p] == 0]
        for p in gone:  # "If you have no secrets remaining ... when a turn ends"
            self.discard += self.hand[p]
            self.hand[p] = 0
            self.out.append(p)
        self.step, self.queue, self.owed = "turn", [], []
        if len(self.active) == 1:
            self._finish("last_left", self.active)
        elif not self.active:
            self._finish("all_out", [], together=gone)
        else:
            self._advance()

    def _advance(self) -> None:
        n = len(self.players)
        seat = self.players.index(self.current)
        stuck = 0
        while True:
            seat = (seat + self.direction) % n
            p = self.players[seat]
            if p in self.out:
                continue
            if self.skips[p]:
                self.skips[p] -= 1
                continue
            if self.hand[p] == 0 and self.deck + self.discard == 0:
                stuck += 1
                if stuck >= len(self.active):
                    best = max(self.secrets[q] for q in self.active)
                    self._finish("stalled", [q for q in self.active if self.secrets[q] == best])
                    return
                continue
            self.current = p
            return

    def _leave(self, player: str) -> None:
        self.discard += self.hand[player] + self.secrets[player]
        self.hand[player] = self.secrets[player] = 0
        self.out.append(player)
        self.owed = [o for o in self.owed if o.player != player]
        if len(self.active) == 1:
            self._finish("left", self.active)
            return
        for o in self.owed:  # a donation owed to the leaver: where the card sends it now
            if o.to == player:
                o.to = self._recipient(o.player, o.caster, step(o.step)[3])
        if self.step == "resolving":
            self._run()
        elif self.step == "turn" and player == self.current:
            self._advance()

    def _finish(self, reason: str, winners: list[str], together: list[str] | None = None) -> None:
        self.step, self.owed = "over", []
        self.result = {"reason": reason, "winners": list(winners), "together": list(together or [])}

    # -- what the referee knows -------------------------------------------------------------

    def to_act(self) -> list[str]:
        if self.step in ("opening_secret", "opening_alone", "over"):
            return []
        if self.owed:
            return sorted({o.player for o in self.owed})
        return [self.current]

    def facts(self) -> dict[str, Any]:
        playing = self.step in ("turn", "resolving")
        return {
            "step": self.step,
            "to_act": self.to_act(),
            "order": self.order_from(self.current) if playing else None,
            "hands": dict(self.hand),
            "secrets": dict(self.secrets),
            "deck": self.deck,
            "discard": self.discard,
            "in_play": sum(1 for c in self.queue if c.physical),
            "out": list(self.out),
            "skips": dict(self.skips),
            "owed": sorted((o.player, o.kind, o.count, o.to or "") for o in self.owed),
            "result": dict(self.result),
        }

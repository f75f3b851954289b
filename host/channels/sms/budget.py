"""Text budgets: every text sent costs money, so texts out are counted per number and per
game a minute and in all an hour (``text_counts``, shared by every worker), and a text that
comes in when one of those is spent is not acted on (issue 43, item 7).

Over budget, the sender is told once (``sms_over_budget``) and then hears nothing until the
window turns. Numbers in no game share one game budget, so a flood of NEW or HELP from many
numbers (SMS pumping) is held to it; a stranger over that shared budget, or anyone when the
hour's ceiling is spent, is not even told (that telling would be the flood's own texts).
Windows are whole minutes and hours of the host's clock: a burst across a boundary may get
up to twice a budget. Two workers deciding at the same moment may each send one text's
worth over it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Literal

from host.config import Settings
from host.store import Store

MINUTE, HOUR = 60, 3600
NO_GAME = "-"  # the game scope of numbers in no game
_PRUNE_EVERY = 500  # counts written between two sweeps of windows long gone

Spent = Literal["number", "game", "hour"]

_UPSERT = (
    "INSERT INTO text_counts (scope, slot, n) VALUES (?, ?, ?)"
    " ON CONFLICT (scope, slot) DO UPDATE SET n = text_counts.n + excluded.n"
)


@dataclass(frozen=True)
class Over:
    """A spent budget, and whether its sender is to be told (the first time this window)."""

    spent: Spent
    tell: bool


class TextBudget:
    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.per_number = settings.sms_budget_per_number
        self.per_game = settings.sms_budget_per_game
        self.per_hour = settings.sms_budget_per_hour
        self._writes = itertools.count(1)

    @staticmethod
    def _scopes(address: str, session_id: str | None, now: float) -> dict[Spent, tuple[str, int]]:
        minute, hour = int(now // MINUTE), int(now // HOUR)
        return {
            "number": (f"n:{address}", minute),
            "game": (f"g:{session_id or NO_GAME}", minute),
            "hour": ("all", hour),
        }

    def over(self, address: str, session_id: str | None, now: float) -> Over | None:
        """Whether a text from ``address`` (in game ``session_id``) comes in over a budget
        (None: within all of them). Telling is counted here: a second text over the same
        budget in the same window is not told again."""
        limits: dict[Spent, int] = {"number": self.per_number, "game": self.per_game, "hour": self.per_hour}
        scopes = {k: v for k, v in self._scopes(address, session_id, now).items() if limits[k] > 0}
        if not scopes:
            return None
        told_key = (f"told:{address}", int(now // MINUTE))
        keys = [*scopes.values(), told_key]
        where = " OR ".join("(scope = ? AND slot = ?)" for _ in keys)
        rows = self.store.execute(
            f"SELECT scope, slot, n FROM text_counts WHERE {where}", [v for key in keys for v in key]
        )
        counts = {(r["scope"], int(r["slot"])): int(r["n"]) for r in rows}
        # The hour's ceiling first: past it even players are not told.
        order: tuple[Spent, ...] = ("hour", "number", "game")
        for spent in order:
            if spent in scopes and counts.get(scopes[spent], 0) >= limits[spent]:
                break
        else:
            return None
        stranger = session_id is None and spent == "game"
        tell = spent != "hour" and not stranger and told_key not in counts
        if tell:
            self.store.write(_UPSERT, (*told_key, 1))
        return Over(spent, tell)

    def count(self, address: str, session_id: str | None, texts: int, now: float) -> None:
        """``texts`` sent to ``address`` (a player of ``session_id``, or in no game)."""
        if texts <= 0:
            return
        scopes = self._scopes(address, session_id, now).values()
        self.store.write_many(_UPSERT, [(scope, slot, texts) for scope, slot in scopes])
        if next(self._writes) % _PRUNE_EVERY == 0:
            # Windows over an hour old count for nothing any more.
            self.store.write(
                "DELETE FROM text_counts WHERE scope != 'all' AND slot < ?", (int(now // MINUTE) - 61,)
            )
            self.store.write(
                "DELETE FROM text_counts WHERE scope = 'all' AND slot < ?", (int(now // HOUR) - 1,)
            )

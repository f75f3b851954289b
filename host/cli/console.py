"""Where the command line writes (Rich consoles, plain text) and how a command fails: one
``gamehost: ...`` line on stderr and exit code 2."""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console
from typer.core import TyperCommand, TyperGroup

out = Console(markup=False, highlight=False, soft_wrap=True)
err = Console(stderr=True, markup=False, highlight=False, soft_wrap=True)  # URLs stay whole


def fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"gamehost: {message}")
    return typer.Exit(code)


def _plain_flags(params: list[Any]) -> None:
    """A flag takes no value, so help shows none (Typer would show ``--json <bool>``)."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""


class Command(TyperCommand):
    def format_help(self, ctx: Any, formatter: Any) -> None:
        _plain_flags(self.get_params(ctx))
        super().format_help(ctx, formatter)


class Group(TyperGroup):
    def format_help(self, ctx: Any, formatter: Any) -> None:
        _plain_flags(self.get_params(ctx))
        super().format_help(ctx, formatter)

"""Where the command line writes (Rich consoles, plain text) and how a command fails: one
``gamehost: ...`` line on stderr and exit code 2, also for a wrong setting in the
environment or a flag Click cannot take."""

from __future__ import annotations

import re
from typing import Any

import typer
from rich.console import Console
from typer.core import TyperCommand, TyperGroup

from host.config import SettingsError, get_settings

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


_PYDANTIC = (
    (r"Input should be a valid integer.*", "must be a whole number"),
    (r"Input should be a valid number.*", "must be a number"),
    (r"Input should be a valid boolean.*", "must be true or false"),
    (r"Input should be ", "must be "),
)


def usage_line(exc: typer.TyperException) -> str:
    """Click's complaint about the command line (Typer's own Click: ``TyperException`` is
    its ``ClickException``) as one line, with where the options are."""
    ctx = getattr(exc, "ctx", None)
    command = "gamehost" if ctx is None or ctx.parent is None else f"gamehost {ctx.info_name}"
    format_message = getattr(exc, "format_message", None)
    message = (format_message() if format_message is not None else str(exc)).rstrip(".")
    for said, meant in _PYDANTIC:  # Typer checks a value with pydantic: say what it must be
        message = re.sub(said, meant, message)
    return f"{message[:1].lower()}{message[1:]} (see {command} --help)"


class Command(TyperCommand):
    def format_help(self, ctx: Any, formatter: Any) -> None:
        _plain_flags(self.get_params(ctx))
        super().format_help(ctx, formatter)

    def invoke(self, ctx: Any) -> Any:
        try:
            get_settings()  # a wrong setting is said before any command starts, whatever it reads
            return super().invoke(ctx)
        except SettingsError as exc:
            raise fail(str(exc)) from None


class Group(TyperGroup):
    def format_help(self, ctx: Any, formatter: Any) -> None:
        _plain_flags(self.get_params(ctx))
        super().format_help(ctx, formatter)

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except typer.TyperException as exc:
            raise fail(usage_line(exc)) from None

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except typer.TyperException as exc:  # a command's own flags, or no such command
            raise fail(usage_line(exc)) from None

"""The ``gamehost`` command line (Typer + Rich): the root and its commands, each in its own
module (play.py, table.py, serve.py, admin.py); options.py reads a game's own flags from
the registered games. ``main`` is the console script; ``python -m host`` runs it too."""

from __future__ import annotations

import logging
from importlib import metadata
from typing import Annotated

import typer

from host.cli import admin, play, serve, table
from host.cli.console import Command, Group, out
from host.cli.options import EXTRA_ARGS

app = typer.Typer(
    cls=Group,
    help="gamehost: a voice and text referee for table games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(show: bool) -> None:
    if show:
        out.print(f"gamehost {metadata.version('gamehost')}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """gamehost: a voice and text referee for table games."""


# In the order `gamehost --help` lists them.
app.command("games", cls=Command)(admin.games)
app.command("play", cls=Command, context_settings=EXTRA_ARGS)(play.play)
app.command("serve", cls=Command)(serve.serve)
app.command("migrate", cls=Command)(admin.migrate)
app.command("outbox", cls=Command)(admin.outbox)
app.command("mic", cls=Command)(admin.mic)
app.command("table", cls=Command, context_settings=EXTRA_ARGS)(table.table)


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    app()

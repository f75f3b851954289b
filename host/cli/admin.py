"""The host's own commands: ``games`` (what is refereed here), ``migrate``, ``outbox`` (what
the server sent) and ``mic`` (a link that makes a browser a game's table microphone)."""

from __future__ import annotations

import datetime
import json
from typing import Annotated
from xml.etree import ElementTree

import typer

from games.base import all_games
from host.channels.web import mic as table_mic
from host.cli.console import fail, out
from host.cli.database import DatabaseUrlOption, DbOption, db_settings, open_store
from host.cli.options import seats_text, sentence
from host.migrations import current, head
from host.outbound import Outbound
from host.store import Store, describe


def games(
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per game, per line.")] = False,
) -> None:
    """List the games this host referees, with their names, seats, channels and options."""
    for spec in all_games():
        seats = seats_text(spec)
        options = [
            {
                "name": o.name,
                "default": option_text(o.default) if o.default is not None else None,
                "help": o.help,
                "flags": list(o.flags),
            }
            for o in spec.option_info()
        ]
        if as_json:
            row = {
                "name": spec.name,
                "title": spec.title,
                "aliases": list(spec.aliases),
                "seats": seats,
                "channels": sorted(spec.channels),
                "languages": list(spec.languages),
                "options": options,
                "summary": spec.summary,
            }
            out.print(json.dumps(row, ensure_ascii=False))
            continue
        out.print(f"{spec.name} ({spec.title}): {spec.summary}")
        out.print(
            f"  also: {', '.join(spec.aliases) or '-'}; players {seats}; "
            f"channels {', '.join(sorted(spec.channels))}; languages {', '.join(spec.languages)}"
        )
        for o in options:
            flags = f" ({', '.join(o['flags'])})" if o["flags"] else ""
            # No default is said in the help's own words ("default: the first seat").
            default = f" Default: {o['default']}." if o["default"] is not None else ""
            out.print(f"  --opt {o['name']}=...{flags}: {sentence(str(o['help']))}{default}")


def option_text(value: object) -> str:
    """An option's value as it is typed: ``true``, not ``True``."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def migrate(
    db: DbOption = None,
    database_url: DatabaseUrlOption = None,
) -> None:
    """Create the database's tables or bring them up to date (serve does this too)."""
    target = db_settings(db, database_url).database
    try:
        store = Store(target, migrate=False)
        with store.connection() as conn:
            before = current(conn)
        changed = store.migrate()
    except Exception as exc:
        raise fail(f"cannot migrate the database {describe(target)}: {exc}") from None
    store.close()
    if changed:
        out.print(f"Migrated {describe(target)} from {before or 'no revision'} to {head()}.")
    else:
        out.print(f"{describe(target)} is up to date ({head()}).")


def outbox(
    db: DbOption = None,
    limit: Annotated[int, typer.Option(min=1, help="How many of the latest items.")] = 50,
    to: Annotated[str | None, typer.Option(help="Only items to this number or call.")] = None,
) -> None:
    """Show what the server sent, is sending, gave up on or (no Twilio credentials) stored."""
    settings = db_settings(db, None)
    store = open_store(settings.database)
    items = Outbound(settings, store).items(limit=limit, to=to)
    if not items:
        others = int(store.execute("SELECT COUNT(*) AS n FROM outbox")[0]["n"]) if to is not None else 0
        if others:
            many = "item" if others == 1 else "items"
            out.print(f"Nothing was sent to {to} (the outbox holds {others} {many} to other numbers).")
        else:
            out.print("The outbox is empty.")
        return
    whom = recipients(store)
    for item in items:
        when = datetime.datetime.fromtimestamp(item.at).strftime("%Y-%m-%d %H:%M:%S")
        state = OUTBOX_STATES.get(item.status, item.status)
        tries = f", {item.attempts} {'try' if item.attempts == 1 else 'tries'}" if item.attempts else ""
        sid = f", Twilio SID {item.sid}" if item.sid else ""
        to = f"{whom[item.to]} ({item.to})" if item.to in whom else item.to
        out.print(f"#{item.id} {when}  {item.kind} to {to}  {state}{tries}{sid}")
        # A call update's TwiML is not what the caller heard: its summary is (or, for rows
        # stored without one, the TwiML's words).
        said = item.said if item.kind != "call" or item.summary is not None else twiml_words(item.body)
        out.print(f"    said: {said}")
        if item.detail and item.status != "sent":
            out.print(f"    last error: {item.detail}")


def mic(
    code: Annotated[str, typer.Argument(help="The game's six-digit join code.")],
    off: Annotated[bool, typer.Option("--off", help="Mark the game as having no table microphone.")] = False,
    on: Annotated[bool, typer.Option("--on", help="Allow a table microphone again; print a link.")] = False,
    db: DbOption = None,
    database_url: DatabaseUrlOption = None,
) -> None:
    """Print a link that makes one browser the game's table microphone (it works once,
    within the hour, and revokes any link or microphone made before); --off: none at all."""
    if off and on:
        raise fail("--off and --on contradict each other")
    settings = db_settings(db, database_url)
    store = open_store(settings.database)
    row = store.session_by_code(code.strip())
    if row is None or row.status == "closed":
        raise fail(f"no open game has the code {code.strip()}")
    if off or on:
        table_mic.set_table_mic(store, row.id, allowed=on)
    if off:
        out.print(f"Game {row.code} has no table microphone now; its links and microphones stop working.")
        return
    try:
        key = table_mic.mint_link_key(store, row.id)
    except table_mic.NoTableMic:
        allow = f"gamehost mic {row.code} --on"
        raise fail(f"game {row.code} has no table microphone ({allow} allows one)") from None
    base = settings.public_url or "http://127.0.0.1:8000"
    out.print(f"Open this on the table's device within the hour (it works once) to make it game {row.code}'s")
    out.print("microphone; a new link revokes this one and any microphone made with it:")
    out.print(table_mic.link(base, str(row.code), key), soft_wrap=True)
    if settings.public_url is None:
        out.print("(GAMEHOST_PUBLIC_URL is not set: the address above assumes this machine, port 8000.)")


OUTBOX_STATES = {
    "stored": "stored (no Twilio credentials)",
    "unknown": "unknown (Twilio may have it: looked up there before any resend)",
}


def recipients(store: Store) -> dict[str, str]:
    """Who a phone number or a live call is: the player's name (and, for a call, number)."""
    whom: dict[str, str] = {}
    for row in store.execute("SELECT address, name, call_sid FROM members"):
        whom[str(row["address"])] = str(row["name"])
        if row["call_sid"]:
            whom[str(row["call_sid"])] = f"{row['name']}, {row['address']}"
    return whom


def twiml_words(twiml: str) -> str:
    """The words of a TwiML document (what ``<Say>`` says), without its markup."""
    try:
        root = ElementTree.fromstring(twiml)
    except ElementTree.ParseError:
        return twiml
    return " ".join(" ".join(root.itertext()).split())

"""A game's options and setup from the command line: ``--opt name=value``, each game's own
flags (an option's ``metadata["flag"]``, ``--range`` for options ``low`` and ``high``, the
setup steps a game declares in ``GameSpec.setup_flags``), and ``--say``.

The flags are read from the registered games: a new game's flags need no edit here.
"""

from __future__ import annotations

import enum
import functools
import inspect
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from games.base import GameSpec, OptionError, UnknownGame, all_games, find_game
from host.cli.console import fail

GameArgument = Annotated[str, typer.Argument(help="The game to referee (gamehost games lists them).")]
MaybeGameArgument = Annotated[
    str | None,
    typer.Argument(help="The game to referee (gamehost games lists them); with --resume, the saved one."),
]
OptOption = Annotated[
    list[str] | None,
    typer.Option("--opt", metavar="NAME=VALUE", help="A game option (gamehost games lists them)."),
]
SayOption = Annotated[
    list[str] | None,
    typer.Option("--say", metavar="TEXT", help='Table talk said first, e.g. "hearts clubs" (repeatable).'),
]
PlayersHelp = "Seating order, comma separated: Ann,Bob,Cy."
#: Typer takes flags no game declares (``--dealr Cy``) as extra arguments, so the error
#: names the game's own flags rather than Click's "No such option".
EXTRA_ARGS = {"allow_extra_args": True, "ignore_unknown_options": True}
#: The flag that sets a game's options ``low`` and ``high`` at once.
RANGE = "--range"


def has_range(spec: GameSpec[Any, Any, Any]) -> bool:
    return {"low", "high"} <= {o.name for o in spec.option_info()}


def seats_text(spec: GameSpec[Any, Any, Any], to: str = "-") -> str:
    """How many a game seats: "4", "2-4" (``to`` " to ": "2 to 4") or "2+"."""
    if spec.max_players is None:
        return f"{spec.min_players}+"
    if spec.max_players == spec.min_players:
        return str(spec.min_players)
    return f"{spec.min_players}{to}{spec.max_players}"


def sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


@dataclass(frozen=True)
class GameFlag:
    """A flag some registered game takes, with its help naming the games."""

    flag: str
    help: str


def game_flags() -> list[GameFlag]:
    """Every registered game's own flags, each once (``--first`` is one game's option and
    another's setup step)."""
    helps: dict[str, list[str]] = {}
    for spec in all_games():
        for option in spec.option_info():
            for flag in option.flags:
                helps.setdefault(flag, []).append(f"{option.help.rstrip('.')} ({spec.name})")
        if has_range(spec):
            helps.setdefault(RANGE, []).append(f"options low and high, e.g. 1-100 ({spec.name})")
        for step in spec.setup_flags:
            helps.setdefault(step.flag, []).append(f"said first: {step.help} ({spec.name})")
    return [GameFlag(flag, sentence("; ".join(texts))) for flag, texts in helps.items()]


def setup_flags() -> tuple[str, ...]:
    """The setup flags of every registered game, in the order a game asks them. Any game
    takes them, as table talk said first: one whose setup has no such step says so."""
    return tuple(dict.fromkeys(step.flag for spec in all_games() for step in spec.setup_flags))


def takes_game_flags(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` with every registered game's flags as options after ``--say`` (so help lists
    them), handed to it as ``game_flags``: {flag: value} of those given. A flag named like
    one of the command's own options is left to the command."""
    signature = inspect.signature(command, eval_str=True)
    own = [p for p in signature.parameters.values() if p.name != "game_flags"]
    taken = {p.name for p in own}
    by_name: dict[str, str] = {}
    added: list[inspect.Parameter] = []
    for flag in game_flags():
        name = flag.flag.removeprefix("--").replace("-", "_")
        if not name.isidentifier() or name in taken:
            continue
        metavar = "LOW-HIGH" if flag.flag == RANGE else None
        option = typer.Option(flag.flag, metavar=metavar, help=flag.help)
        added.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Annotated[str | None, option]
            )
        )
        by_name[name], taken = flag.flag, taken | {name}
    at = next((i + 1 for i, p in enumerate(own) if p.name == "say"), len(own))
    params = [*own[:at], *added, *own[at:]]
    params = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY) if p.kind is p.POSITIONAL_OR_KEYWORD else p
        for p in params
    ]

    @functools.wraps(command)
    def with_flags(**kwargs: Any) -> None:
        given = {by_name[n]: kwargs.pop(n) for n in list(kwargs) if n in by_name}
        command(**kwargs, game_flags={flag: value for flag, value in given.items() if value is not None})

    with_flags.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    return with_flags


def find(name: str) -> GameSpec[Any, Any, Any]:
    try:
        return find_game(name)
    except UnknownGame as exc:
        raise fail(str(exc)) from None


def parse_range(text: str) -> dict[str, object]:
    match = re.fullmatch(r"\s*(-?\d{1,18})\s*(?:-|\.\.|to)\s*(-?\d{1,18})\s*", text)
    if not match:
        raise fail(f"--range must look like 1-100, not {text!r}")
    low, high = int(match[1]), int(match[2])
    if high - low < 2:
        raise fail(f"--range {text}: needs at least three numbers, lowest first")
    return {"low": low, "high": high}


#: The longest player name the command line takes (a name is said and shown on a screen).
NAME_MAX = 20


def parse_players(text: str | None) -> list[str]:
    if text is None:
        raise fail("a new game needs its players in seating order: --players Ann,Bob")
    names = [n.strip() for n in text.split(",") if n.strip()]
    if len(names) < 2:
        raise fail("a game needs at least 2 players: --players Ann,Bob")
    folded = [n.casefold() for n in names]
    if len(set(folded)) != len(folded):
        raise fail(f"player names must differ: {text}")
    bad = [n for n in names if ":" in n or len(n) > NAME_MAX]
    if bad:
        shown = ", ".join(n if len(n) <= NAME_MAX else f"{n[:NAME_MAX]}... ({len(n)} letters)" for n in bad)
        raise fail(f"--players: a name has at most {NAME_MAX} letters and no colon: {shown}")
    return names


class Given:
    """Option values with how each was given ("--range 1-100", "--dealer Cy", "--opt low=5"),
    so an error names the flag a person typed, and one option given two ways is an error
    rather than one of them silently winning."""

    def __init__(self) -> None:
        self.values: dict[str, object] = {}
        self.how: dict[str, tuple[str, str]] = {}  # option -> (as typed, the flag alone)

    def put(self, name: str, value: object, how: str, flag: str) -> None:
        if name in self.values and str(self.values[name]) != str(value):
            raise fail(f"{self.how[name][0]} and {how} both set {name}: give it once")
        self.values[name], self.how[name] = value, (how, flag)

    def error(self, exc: OptionError) -> str:
        """``--dry-tricks x: must be a whole number``; the flag alone when the reason already
        says the value (a deck file's own error names the file)."""
        if exc.name not in self.how:
            return str(exc)
        how, flag = self.how[exc.name]
        return f"{flag if str(self.values[exc.name]) in exc.reason else how}: {exc.reason}"


def game_options(spec: GameSpec[Any, Any, Any], opts: list[str] | None, given: Given) -> dict[str, object]:
    """``--opt name=value`` and the option flags as the game's options, checked."""
    for opt in opts or []:
        name, eq, value = opt.partition("=")
        if not eq or not name.strip():
            raise fail(f"--opt takes name=value, not {opt!r}")
        option = name.strip().replace("-", "_")
        given.put(option, value.strip(), f"--opt {opt.strip()}", f"--opt {name.strip()}")
    try:
        spec.make_options(given.values)
    except OptionError as exc:
        raise fail(given.error(exc) if exc.name else together(spec, given, exc.reason)) from None
    except ValueError as exc:
        raise fail(str(exc)) from None
    return given.values


def together(spec: GameSpec[Any, Any, Any], given: Given, reason: str) -> str:
    """An error of the options together (``rounds are for training games``) with the flag
    that brings it (the one option given without which the rest are fine) and, when
    another option's value clears it, that fix: ``--rounds 3 needs --mode training: ...``."""

    def fine(values: dict[str, object]) -> bool:
        try:
            spec.make_options(values)
        except ValueError:
            return False
        return True

    culprits = [n for n in given.values if fine({k: v for k, v in given.values.items() if k != n})]
    if len(culprits) != 1:
        return reason
    how = given.how[culprits[0]][0]
    flags = {o.name: o.flags for o in spec.option_info()}
    for name, choices in option_choices(spec).items():
        for choice in choices if name not in given.values else ():
            if fine({**given.values, name: choice}):
                fix = f"{flags[name][0]} {choice}" if flags.get(name) else f"--opt {name}={choice}"
                return f"{how} needs {fix}: {reason}"
    return f"{how}: {reason}"


def option_choices(spec: GameSpec[Any, Any, Any]) -> dict[str, list[str]]:
    """The values of each option that has a few (an enum, a switch, a Literal), as typed."""
    found: dict[str, list[str]] = {}
    for name, kind in typing.get_type_hints(spec.options).items():
        if isinstance(kind, type) and issubclass(kind, enum.Enum):
            found[name] = [str(member.value) for member in kind]
        elif kind is bool:
            found[name] = ["true", "false"]
        elif typing.get_origin(kind) is typing.Literal:
            found[name] = [str(a) for a in typing.get_args(kind)]
    return found


def flagged(spec: GameSpec[Any, Any, Any], message: str) -> str:
    """A game's refusal that starts with an option's name (``first: 'Zed' is not playing``)
    with the option's flag instead, as the other errors say it."""
    for option in spec.option_info():
        if message.startswith(f"{option.name}: "):
            flag = option.flags[0] if option.flags else f"--opt {option.name}"
            return flag + message[len(option.name) :]
    return message


#: An argument that is a flag, ``--name``, ``-v`` or ``--name=value`` (not "-5", a number).
_FLAG = re.compile(r"--?[A-Za-z][\w-]*(?==|$)")


def flag_values(ctx: typer.Context) -> dict[str, str | None]:
    """``--name value`` and ``--name=value`` pairs from the arguments Typer did not know (a
    flag with no value after it: None); a flag of another command is an error saying whose."""
    args = ctx.args
    found: dict[str, str | None] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if not _FLAG.match(arg):
            raise fail(f"unexpected argument {arg!r}")
        flag, eq, value = arg.partition("=")
        others = other_commands(ctx, flag)
        if others:
            command = f"gamehost {ctx.info_name}"
            whose = " or ".join([", ".join(others[:-1]), others[-1]] if len(others) > 1 else others)
            raise fail(f"{flag} is a {whose} flag: `{command}` has no such option")
        if eq:
            found[flag] = value
        elif i + 1 < len(args) and not _FLAG.match(args[i + 1]):
            found[flag] = args[i + 1]
            i += 1
        else:
            found[flag] = None
        i += 1
    return found


def other_commands(ctx: typer.Context, flag: str) -> list[str]:
    """The other ``gamehost`` commands that have ``flag`` (``--quiet``: `gamehost table`)."""
    commands: dict[str, Any] = getattr(ctx.find_root().command, "commands", {})
    return [
        f"`gamehost {name}`"
        for name, command in commands.items()
        if command is not ctx.command
        and any(flag in (*param.opts, *param.secondary_opts) for param in command.params)
    ]


def options_and_setup(
    spec: GameSpec[Any, Any, Any],
    opts: list[str] | None,
    say: list[str] | None,
    flags: Mapping[str, str | None],
) -> tuple[dict[str, object], list[tuple[str, str]]]:
    """The game's options and the table talk to say first, from every way a command line
    gives them: ``--opt``, the game's flags (``--range`` among them), ``--say``."""
    by_flag = {flag: o.name for o in spec.option_info() for flag in o.flags}
    steps = setup_flags()

    def no_option(flag: str) -> typer.Exit:
        have = ", ".join(sorted([*by_flag, *([RANGE] if has_range(spec) else [])])) or "none"
        return fail(f"{spec.name} has no option {flag} (its flags: {have}; or --opt name=value)")

    range_ = flags.get(RANGE)
    if range_ and not has_range(spec):
        raise no_option(RANGE)
    given = Given()
    for name, value in (parse_range(range_) if range_ else {}).items():
        given.put(name, value, f"{RANGE} {range_}", RANGE)
    setup: list[tuple[str, str]] = []
    for flag, value in flags.items():
        if flag == RANGE:
            continue
        if flag not in by_flag and flag not in steps:
            raise no_option(flag)
        if value is None:
            raise fail(f"{flag} needs a value")
        if flag in by_flag:
            given.put(by_flag[flag], value, f"{flag} {value}", flag)
        else:
            setup.append((flag, value))
    setup.sort(key=lambda step: steps.index(step[0]))  # in the order the game asks them
    return game_options(spec, opts, given), [*setup, *(("--say", line) for line in say or [])]

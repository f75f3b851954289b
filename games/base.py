"""The game protocol: all the host knows of a game (OpenSpiel's ``register_game``).

A game is a folder under ``games/`` whose ``__init__`` builds one :class:`GameSpec` and
registers it. The host finds games with :func:`find_game` and :func:`all_games` and never
names one: a new game is a new folder and no edit in ``host/``.

Two halves, both pure (no I/O, no clock, randomness only from the seed given):

* :class:`Rules` judges and applies moves. ``refusal`` says why a move cannot be taken now
  (the rules forbid it: only that is ever a player's mistake in the game), ``play``
  applies it. Every game also takes the common :class:`~games.core.Leave` and
  :class:`~games.core.End` moves.
* :class:`Talk` turns words into a :class:`Proposal` and events into words. The parser
  proposes, the rules judge (python-chess ``parse_san`` over ``legal_moves``): a wrong
  move the table said must reach the rules to be refereed, so candidates include moves
  the rules will refuse or rule a mistake. It is four parts, each a base class with
  defaults for what most games share: :class:`Reader` (words in), :class:`Wording` (words
  out), :class:`Ear` (what to listen for, what a hearing means) and :class:`Cost` (what a
  mishearing costs). ``docs/new-game.md`` walks a new game through them.

>>> spec = find_game("up-or-down")
>>> spec is find_game("UpOrDown")
True
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from functools import cached_property
from typing import Any, Generic, Literal, Protocol, Required, TypeVar, runtime_checkable

from pydantic import TypeAdapter, ValidationError
from typing_extensions import TypedDict  # pydantic reads this one on 3.11

import games
from games.core import End, Event, Leave, Refusal
from grammars import load

S = TypeVar("S")
M = TypeVar("M")
Opt = TypeVar("Opt")
# Protocols take some of these only as arguments: mypy wants them contravariant there.
M_in = TypeVar("M_in", contravariant=True)
S_in = TypeVar("S_in", contravariant=True)
Opt_in = TypeVar("Opt_in", contravariant=True)

#: Where a game can be played: typed at a terminal, by SMS, on a phone call (speech and
#: keypad, no screen), at a table with one microphone.
CHANNELS = ("text", "sms", "voice", "table")


# -- what the words make -----------------------------------------------------------------------


@dataclass(frozen=True)
class Moves(Generic[M]):
    """Candidate moves: one is the move said; two or more, the table is asked which."""

    candidates: tuple[M, ...]


@dataclass(frozen=True)
class Command:
    """A general command: whose_turn, repeat, rules, status, help, undo, new_game, leave,
    finish (``grammars/<lang>/commands.yaml``)."""

    name: str


@dataclass(frozen=True)
class Answer:
    """Yes or no to a read-back ("Did you say ...?")."""

    yes: bool


#: Commands that mean something only as the answer to a read-back.
ANSWERS = ("yes", "no")


@dataclass(frozen=True)
class Unclear:
    """Nothing to act on: ``text`` says so; ``event`` is its JSON line. ``about_move``
    words tried to be a move, so someone out of turn is told whose turn it is.
    ``then_prompt``: what is allowed now (the turn prompt) follows ``text``; the host adds
    it as a value of its own (``Reply.answer_prompt``), never inside ``text``."""

    text: str
    event: Mapping[str, object]
    about_move: bool = True
    then_prompt: bool = False


Proposal = Moves[Any] | Command | Answer | Unclear


@dataclass(frozen=True)
class Listening:
    """What a recogniser should listen for now, besides the general commands and names:
    ``moves`` are phrases that make a move; ``left_out`` are decoy words that sound too
    much like them to be listened for at the same time."""

    moves: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()


#: What one speech alternative means: a move, a Command, an Unclear (words that name nothing
#: of this game, answered as typed: "queen of hearts" in !nversion), or None for nothing clear.
Meaning = Any


# -- the board on a screen ---------------------------------------------------------------------
#
# ``Talk.view`` returns a :class:`View`: JSON data in a small vocabulary the host draws
# without knowing the game (cards, a number, a number line, figures per player), so a new
# game gets a table screen with no edit in host/. Labels are English keys the page shows in
# the session's language (``grammars/<lang>/web.yaml``, ``board``); every other text is the
# game's own, already in that language. Only what the whole table may see: no hand, no
# hidden card.

#: Inks of a card face and colours of a card back the screen has.
CardColour = Literal["red", "black", "blue", "yellow", "green", "purple", "grey"]
#: How a card sits on the table: ``used`` played out (drawn faded), ``now`` the one in play
#: (drawn raised), ``empty`` a place still to be filled (drawn as an outline).
CardMark = Literal["used", "now", "empty"]


class CardView(TypedDict, total=False):
    """One card, or a stack of alike cards (``count``)."""

    text: Required[str]  # the card in words, for screen readers: "9 of hearts"
    rank: str  # the corner index: "9"
    suit: str  # the suit's symbol: "♥"
    name: str  # a card known by name ("Hush"), drawn instead of rank and suit
    colour: CardColour  # the ink of a face, or the colour of a back
    back: bool  # face down: only the back's colour is public
    count: int  # a stack of this many
    mark: CardMark
    caption: str  # under the card: who played it, what was declared


class SpanView(TypedDict):
    """A stretch of a number line, ends included, and what it allows in words ("odd")."""

    low: int
    high: int
    text: str


class LineView(TypedDict, total=False):
    low: Required[int]
    high: Required[int]
    at: int  # the number marked (may lie outside low..high)
    spans: list[SpanView]  # the stretches allowed now


class PartView(TypedDict, total=False):
    """One thing on the table, under its label: a number, text, cards, a number line."""

    label: Required[str]
    big: bool  # the game's main thing: drawn large
    number: int | str
    text: str
    cards: list[CardView]
    line: LineView


class FactView(TypedDict):
    """A short fact shown large at the top: ``Trick`` ``3 / 10``."""

    label: str
    value: int | str


#: One player's figure: a number, a word, or cards (a hand's backs by colour).
Figure = int | str | list[CardView]


class ScoreView(TypedDict, total=False):
    """A figure per player, shown by each name; a ``big`` one is the game's score."""

    label: Required[str]
    values: Required[dict[str, Figure]]
    big: bool


class View(TypedDict, total=False):
    facts: list[FactView]
    scores: list[ScoreView]
    parts: list[PartView]  # in reading order; the first is the one to see from across the room
    out: list[str]  # players out of this game (still seated, watching)


# -- the two halves ----------------------------------------------------------------------------


class Rules(Protocol[S, M_in, Opt_in]):
    def new_game(self, players: tuple[str, ...], options: Opt_in, seed: int, previous: S | None) -> S:
        """A game for ``players`` in seating order. ``previous`` is the table's last game,
        for who opens the next one. Raises ValueError for players the game cannot seat."""
        ...

    def to_act(self, state: S) -> frozenset[str]:
        """Who may make a move now; empty means anyone at the table (setup steps)."""
        ...

    def refusal(self, state: S, move: M_in | Leave | End) -> Refusal | None:
        """Why ``move`` cannot be taken now, or None."""
        ...

    def play(self, state: S, move: M_in | Leave | End) -> tuple[S, list[Event]]:
        """Apply ``move``; raises :class:`~games.core.IllegalMove` if it is refused."""
        ...

    def on_timeout(self, state: S) -> tuple[S, list[Event]]:
        """The awaited move did not come in time; no events: the game has no turn clock.
        The host calls it when the session's turn limit passes (``GameSpec.timed``) or when
        the game's own :meth:`Deadlines.deadline` does."""
        ...

    def owner(self, move: M_in) -> str | None:
        """Who may take ``move`` back; None: anyone at the table (a setup step)."""
        ...


@runtime_checkable
class Deadlines(Protocol[S_in]):
    """Rules that set their own clock for some steps (Upside-Out's opening question waits
    30 seconds) also have ``deadline``; rules without it use only the table's turn clock.
    Ask through :meth:`GameSpec.deadline`, which knows both kinds."""

    def deadline(self, state: S_in) -> float | None:
        """Seconds the step awaited in ``state`` may wait, from the last input, before the
        host calls ``on_timeout``; None: the table's turn clock applies, if it has one."""
        ...


# -- talk: words in, words out, the ear, cost ---------------------------------------------------
#
# A game's talk is one object made of four parts, split by direction the way hassil keeps
# recognising apart from responding. Each part is a base class: what every game must say is
# abstract, what most games share has a default. A new game subclasses :class:`Talk` and
# writes the 12 abstract members (``docs/new-game.md``).


class Reader(ABC, Generic[S, M]):
    """Words in: text (typed, texted, or a phone's speech) into a :class:`Proposal`."""

    @abstractmethod
    def read(
        self,
        text: str,
        state: S | None,
        players: tuple[str, ...],
        speaker: str | None,
        asked: M | None,
        lang: str,
    ) -> Proposal:
        """What ``text`` proposes. ``speaker`` None is a shared device: a move is the
        player's whose turn it is. ``asked``: the move of a read-back waiting for yes or no."""


class Wording(ABC, Generic[S, M, Opt]):
    """Words out: announcements, prompts, answers and the board on a screen."""

    @abstractmethod
    def describe(self, events: Sequence[Event], options: Opt, lang: str) -> list[str]:
        """Lines announcing ``events`` (a ruling's events together)."""

    @abstractmethod
    def prompt(self, state: S, lang: str) -> str:
        """What the table must do next; after the end, the result."""

    def spoken_prompt(self, state: S, lang: str) -> str:
        """``prompt`` for the ear (a phone call): plainer, numbers as words if it helps.
        By default the prompt itself."""
        return self.prompt(state, lang)

    @abstractmethod
    def status(self, state: S, lang: str) -> str:
        """The game so far, for the "status" command."""

    @abstractmethod
    def view(self, state: S, lang: str) -> View:
        """The public board for a screen the whole table sees (``/t/<code>``), in the
        vocabulary of :class:`View`. Never anything private: no hand, no hidden card."""

    @abstractmethod
    def rules(self, options: Opt, lang: str) -> str:
        """The rules in short, for the "rules" command."""

    @abstractmethod
    def help(self, lang: str) -> str:
        """What players can say, for the "help" command."""

    @abstractmethod
    def refusal_text(self, refusal: Refusal, state: S, lang: str) -> str:
        """Why a move was not taken, without what is allowed now: the host follows it with
        the turn prompt, a value of its own, when :meth:`prompt_follows` says so."""

    def prompt_follows(self, refusal: Refusal) -> bool:
        """Whether what is allowed now (the turn prompt) follows :meth:`refusal_text`. By
        default it does; a refusal that says it already ("Waiting for Ann.") says no."""
        return True

    @abstractmethod
    def move_text(self, move: M, lang: str) -> str:
        """A move in words, for read-backs and "only Ann can take back ..."."""

    @abstractmethod
    def ambiguous(self, candidates: tuple[M, ...], lang: str) -> Unclear:
        """The question when words fit more than one move."""


def heard_answer(text: str, lang: str) -> Command | None:
    """The grammar's yes or no, said as the recogniser spells it: the answer to a read-back
    as the listener takes it (a game that hears it in its own way still answers this)."""
    g = load(lang)
    spelled = g.speech_commands or g.commands
    said = " ".join(text.split())
    for answer in ANSWERS:
        if said in spelled.get(answer, g.commands[answer]):
            return Command(answer)
    return None


class Ear(Reader[S, M], Generic[S, M, Opt]):
    """What a recogniser listens for and what a hearing means and weighs."""

    #: Logistic calibration (intercept, log-odds of the pooled share, best path) of a
    #: hearing's confidence, fitted on recordings; None: the pooled share is the confidence.
    calibration: tuple[float, float, float] | None = None

    @abstractmethod
    def listen_for(self, state: S, players: tuple[str, ...], lang: str, confirming: bool) -> Listening:
        """The phrases that make a move now (and decoys to leave out); ``confirming``: a
        read-back waits for its answer."""

    @abstractmethod
    def vocabulary(self, players: tuple[str, ...], options: Opt, lang: str) -> list[str]:
        """Every move phrase a listener may ever use (checked once against the model)."""

    def hear(
        self, text: str, state: S | None, players: tuple[str, ...], confirming: bool, lang: str
    ) -> tuple[Meaning, float]:
        """What one recogniser alternative means (a move, a Command, an Unclear, or None) and
        how much to trust that relative to its share (stray words the decoder adds cost trust).

        By default what :meth:`read` proposes of the words as they stand, when that is one
        move or a command, trusted fully; while a read-back waits (``confirming``) also the
        grammar's yes and no, said as the recogniser spells them."""
        if confirming and (answer := heard_answer(text, lang)) is not None:
            return answer, 1.0
        proposal = self.read(text, state, players, None, None, lang)
        if isinstance(proposal, Moves) and len(proposal.candidates) == 1:
            return proposal.candidates[0], 1.0
        if isinstance(proposal, Command) and proposal.name not in ANSWERS:
            return proposal, 1.0
        return None, 0.0

    def confusable(self, move: M, lang: str) -> tuple[M, ...]:
        """Moves a recogniser might have heard instead (fifteen and fifty); by default none."""
        return ()

    def echo_confusable(self, move: M, lang: str, *, echoing: bool = True) -> tuple[M, ...]:
        """Moves a room that echoes may have heard as this one however surely it heard it
        (a ringing tail heard as one more word: "sixty" as "sixty eight"): there a move
        heard with one players would usually make now is read back. Not ``echoing``: those a
        room that rings less makes too ("forty five" as "forty nine"). By default none."""
        return ()

    def swallowed_endings(self, lang: str) -> tuple[str, ...]:
        """Last words of a spoken move that a room ringing on swallows but does not invent
        ("plays X turned" heard as "plays X"): when a move with one is heard first, the
        reading of its words without it is the same move, not a rival. By default none."""
        return ()

    def catch_alls(self, lang: str) -> tuple[str, ...]:
        """Words of the game's phrases that a recogniser hears for others in a room that
        rings (Upside-Out's "hush" for the names of other cards ending in a hush of their
        own): there a move heard with one is one often misheard (as :meth:`confusable`'s
        are), read back unless heard as surely as such a room can be, and never so where it
        is noisy too. By default none."""
        return ()

    def room_mixups(self, lang: str) -> tuple[tuple[str, str], ...]:
        """Last words of a move a recogniser hears for others in a room that rings however
        surely, the room's tail heard as part of them, as (heard, said) pairs (Upside-Out's
        "u turn" for "gift"): a move heard ending in the first whose words with the second
        are a move players would usually make now is read back there, as
        :meth:`echo_confusable`'s are. By default none."""
        return ()


class Cost(ABC, Generic[S, M]):
    """What a mishearing would cost, and what players usually do: the confirmation policy
    (``host/confirm.py``) and the listener's prior ask these."""

    def costly(self, state: S, move: M) -> bool:
        """Whether a misheard ``move`` would cost its mover: such a move heard unsurely is
        read back before it counts. By default every move is."""
        return True

    def by_name(self, move: M) -> bool:
        """Whether ``move`` is known by a name of its own (a card's name from the deck): one of
        many words the grammar gives no structure, unlike a number or a suit, which a room
        that echoes has the recogniser take for another name with the whole share. Such a
        move is read back there, and in a room that rings while any other likely reading is
        heard with it (``host/confirm.py``). By default none is."""
        return False

    def likely(self, state: S, move: M) -> bool | None:
        """Whether players usually make ``move`` now (allowed, not a mistake): a speech
        prior between close readings. None (the default): the rules decide, as
        :meth:`GameSpec.likely` asks them (a move they do not refuse is likely)."""
        return None


class Talk(Ear[S, M, Opt], Wording[S, M, Opt], Cost[S, M]):
    """Words in and out for one game, in every language it ships (``grammar/<lang>.yaml``):
    :class:`Reader`, :class:`Wording`, :class:`Ear` and :class:`Cost` together."""


# -- the game ------------------------------------------------------------------------------------


def _word(text: str) -> str:
    """Names compared loosely: "Up-or-Down", "up or down", "UpOrDown", "!nversion"."""
    return re.sub(r"[\W_]+", "", text).casefold()


class OptionError(ValueError):
    """An option value a game cannot take: which option (``name``) and why, in plain words
    (``reason``), so a command line can name the flag it came from."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}" if name else reason)
        self.name, self.reason = name, reason


def _plain(err: Any) -> str:
    """A pydantic error as a person reads it: "must be a whole number", not "Input should be
    a valid integer, unable to parse string as an integer"."""
    kind, ctx = str(err.get("type", "")), err.get("ctx") or {}
    if kind.startswith("int_"):
        return "must be a whole number"
    if kind.startswith("bool_"):
        return "must be true or false"
    if kind in ("enum", "literal_error") and "expected" in ctx:
        return f"must be {str(ctx['expected']).replace(chr(39), '')}"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        words = {"greater_than_equal": "at least", "greater_than": "more than",
                 "less_than_equal": "at most", "less_than": "less than"}[kind]  # fmt: skip
        limit = next(iter(ctx.values()), "")
        return f"must be {words} {limit}"
    message = str(err.get("msg", "")).removeprefix("Value error, ")
    return message[:1].lower() + message[1:] if kind != "value_error" else message


@dataclass(frozen=True)
class OptionInfo:
    name: str
    help: str
    default: object
    flags: tuple[str, ...]  # the CLI flags that set it besides --opt name=value


@dataclass(frozen=True)
class SetupFlag:
    """A command-line flag whose value is table talk said before the game starts
    (``--suits heart,spade,club``): a setup step the table could as well say aloud."""

    flag: str
    help: str  # what the value is, e.g. "the suits, e.g. heart,spade,club"


@dataclass(frozen=True)
class GameSpec(Generic[S, M, Opt]):
    """One game as the host sees it. ``options`` is a frozen dataclass whose fields carry
    ``metadata={"help": ..., "flag": "--dealer"}``; ``encode``/``decode`` turn the game's
    moves into the JSON the session log keeps and back."""

    name: str
    title: str
    aliases: tuple[str, ...]
    min_players: int
    max_players: int | None
    options: type[Opt]
    events: tuple[type[Event], ...]
    rules: Rules[S, M, Opt]
    talk: Talk[S, M, Opt]
    encode: Callable[[M], dict[str, Any]]
    decode: Callable[[dict[str, Any]], M]
    channels: frozenset[str] = frozenset(CHANNELS)
    languages: tuple[str, ...] = ("en",)
    summary: str = ""
    #: Whether turns run out (a turn timer applies on phones); a table game plays at its pace.
    timed: bool = False
    #: The game a host offers when none is named (one game says so).
    default: bool = False
    #: Words that set options when a game is started by a short message ("NEW TRAINING"):
    #: word -> option values.
    option_words: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    #: Command-line flags that say setup steps before the game, in the order the game asks
    #: them (an option's own flag is its field's ``metadata["flag"]``).
    setup_flags: tuple[SetupFlag, ...] = ()
    _names: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = frozenset(_word(n) for n in (self.name, self.title, *self.aliases))
        object.__setattr__(self, "_names", names)

    @cached_property
    def _adapter(self) -> TypeAdapter[Opt]:
        # Building an adapter costs more than using one: once per game, not per session.
        return TypeAdapter(self.options)

    def known_as(self, text: str) -> bool:
        return _word(text) in self._names

    def seats(self, count: int) -> bool:
        return count >= self.min_players and (self.max_players is None or count <= self.max_players)

    def likely(self, state: S, move: M) -> bool:
        """Whether players usually make ``move`` now: the talk's answer (:meth:`Cost.likely`),
        else whether the rules allow it."""
        said = self.talk.likely(state, move)
        return self.rules.refusal(state, move) is None if said is None else said

    @property
    def has_deadlines(self) -> bool:
        """Whether the rules set their own clock for some steps (:class:`Deadlines`)."""
        return isinstance(self.rules, Deadlines)

    def deadline(self, state: S) -> float | None:
        """Seconds the step awaited in ``state`` may wait before ``rules.on_timeout``, by the
        game's own clock; None: only the table's turn clock (``timed`` games with a session
        turn limit) applies, as for every game without :class:`Deadlines`."""
        rules = self.rules
        return rules.deadline(state) if isinstance(rules, Deadlines) else None

    def option_info(self) -> list[OptionInfo]:
        out = []
        for f in fields(self.options):  # type: ignore[arg-type]
            default = f.default if f.default is not MISSING else None
            flag = f.metadata.get("flag")
            out.append(OptionInfo(f.name, str(f.metadata.get("help", "")), default, (flag,) if flag else ()))
        return out

    def make_options(self, values: Mapping[str, object] | None = None) -> Opt:
        """Options from text or values; raises ValueError naming the option and the fault."""
        values = dict(values or {})
        known = {f.name for f in fields(self.options)}  # type: ignore[arg-type]
        unknown = sorted(set(values) - known)
        if unknown:
            have = ", ".join(sorted(known)) or "none"
            raise ValueError(f"{self.name} has no option {unknown[0]!r} (options: {have})")
        try:
            return self._adapter.validate_python(values)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise OptionError(where, _plain(err)) from None

    def options_json(self, options: Opt) -> dict[str, Any]:
        return dict(self._adapter.dump_python(options, mode="json"))

    def encode_move(self, move: M | Leave | End) -> dict[str, Any]:
        if isinstance(move, Leave):
            return {"move": "leave", "player": move.player}
        if isinstance(move, End):
            return {"move": "end", "player": move.player}
        return self.encode(move)

    def decode_move(self, data: Mapping[str, Any]) -> M | Leave | End:
        if data.get("move") == "leave":
            return Leave(str(data["player"]))
        if data.get("move") == "end":
            player = data.get("player")
            return End(None if player is None else str(player))
        return self.decode(dict(data))


# -- the registry ----------------------------------------------------------------------------------

_games: dict[str, GameSpec[Any, Any, Any]] = {}


class UnknownGame(LookupError):
    def __init__(self, name: str) -> None:
        known = ", ".join(sorted(_games)) or "none"
        super().__init__(f"unknown game {name!r}; known games: {known}")
        self.name = name


def register(spec: GameSpec[Any, Any, Any]) -> GameSpec[Any, Any, Any]:
    clash = [g.name for g in _games.values() if g.name != spec.name and g._names & spec._names]
    if clash:
        raise ValueError(f"{spec.name} shares a name or alias with {clash[0]}")
    _games[spec.name] = spec
    return spec


def find_game(name_or_alias: str) -> GameSpec[Any, Any, Any]:
    """A registered game by name, title or alias (case, spaces and punctuation ignored)."""
    _load_all()
    for spec in _games.values():
        if spec.known_as(name_or_alias):
            return spec
    raise UnknownGame(name_or_alias)


def default_game() -> GameSpec[Any, Any, Any]:
    """The game a bare "NEW" or a phone call's menu starts."""
    games_ = all_games()
    return next((g for g in games_ if g.default), games_[0])


def all_games() -> list[GameSpec[Any, Any, Any]]:
    _load_all()
    return list(_games.values())


def _load_all() -> None:
    """Import every game folder once: each folder's ``__init__`` registers its game."""
    for info in pkgutil.iter_modules(games.__path__):
        if info.ispkg and info.name not in _imported:
            importlib.import_module(f"games.{info.name}")
            _imported.add(info.name)


_imported: set[str] = set()

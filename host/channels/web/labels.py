"""The live page's words in the session's language: ``grammars/<lang>/web.yaml`` over the
English one (a language without the file, or a missing word, reads in English)."""

from __future__ import annotations

from functools import cache
from typing import Any

import yaml

from grammars import REFERENCE, ROOT


def _read(lang: str) -> dict[str, Any]:
    path = ROOT / lang / "web.yaml"
    if not path.is_file():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return data if isinstance(data, dict) else {}


@cache
def labels(lang: str) -> dict[str, dict[str, str]]:
    """``{"page": {key: words}, "board": {English board label: words}}``."""
    english, own = _read(REFERENCE), _read(lang)
    out: dict[str, dict[str, str]] = {}
    for part in ("page", "board"):
        merged = {**(english.get(part) or {}), **(own.get(part) or {})}
        out[part] = {str(k): str(v) for k, v in merged.items()}
    return out

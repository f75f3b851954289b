"""Golden transcripts (``tests/golden.py``): every game's wording and rulings, diffed against
``games/<game>/tests/transcripts/``."""

from __future__ import annotations

import difflib

import pytest

from tests.golden import RENDERS, transcript_file


@pytest.mark.parametrize("name", sorted(RENDERS))
def test_transcript_matches_the_golden_file(name: str) -> None:
    expected = transcript_file(name).read_text(encoding="utf-8")
    actual = RENDERS[name](name)
    diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), "golden", "now"))
    assert actual == expected, f"{name} changed (python -m tests.golden --update if intended):\n{diff}"

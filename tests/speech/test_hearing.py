"""Joining a recogniser's segments into one hearing (host/speech/hearing.py): pure logic,
no model needed."""

from __future__ import annotations

import numpy as np
import pytest

from host.speech.hearing import Alternative, Segment, WordTiming, combine, make_hearing


def alt(text: str, score: float, start: float = 0.0) -> Alternative:
    tokens = tuple(text.split())
    words = [WordTiming(t, start + i * 0.3, start + i * 0.3 + 0.2) for i, t in enumerate(tokens)]
    return Alternative(tokens, score, words)


def test_combine_joins_segments_of_one_utterance() -> None:
    first = Segment([alt("오십", 10.0), alt("오", 9.0)])
    second = Segment([alt("삼", 5.0, 1.0), alt("사", 4.5, 1.0)])
    combined = combine([first, second], max_alternatives=3)
    assert [" ".join(a.tokens) for a in combined] == ["오십 삼", "오십 사", "오 삼"]
    assert [a.score for a in combined] == [15.0, 14.5, 14.0]
    hearing = make_hearing(combined, speech_start=0.0, speech_end=1.2, emitted_at=1.9)
    assert hearing is not None
    assert [w.word for w in hearing.words] == ["오십", "삼"]
    assert hearing.latency == pytest.approx(0.7)


def test_make_hearing_shares_and_unknown() -> None:
    hearing = make_hearing(
        [alt("[unk]", 3.0), alt("오", 3.0 - np.log(3)), alt("[unk]", 1.0)],
        speech_start=0.0,
        speech_end=0.5,
        emitted_at=1.2,
    )
    assert hearing is not None
    # duplicates merge; shares are a softmax of the scores
    texts = [t for t, _ in hearing.alternatives]
    assert texts == ["[unk]", "오"]
    unk_share = (1 + np.exp(-2)) / (1 + np.exp(-2) + 1 / 3)
    assert hearing.confidence == pytest.approx(unk_share)
    assert hearing.unknown
    assert make_hearing([alt("", 1.0)], speech_start=0, speech_end=0, emitted_at=0) is None

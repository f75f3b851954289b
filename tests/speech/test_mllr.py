"""The shipped adaptation for rooms that ring (host/speech/mllr.py): the MLLR transform
and the adapted means, in sphinx's formats, close to the model (an adaptation, not a new
model), used only with the model they were made from; pocketsphinx loads them and still
hears a dry word with them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from host.speech import sphinx
from host.speech.hearing import Segment
from host.speech.mllr import (
    ROOM_MEANS,
    ROOM_TRANSFORM,
    fits,
    read_gauden,
    read_transform,
    write_gauden,
    write_transform,
)
from host.speech.model import SpeechModel, import_pocketsphinx, load_model
from host.speech.sphinx import decoder_config, jsgf
from tests import voices


def a_recognizer(model: SpeechModel) -> sphinx.SphinxRecognizer:
    return sphinx.SphinxRecognizer(model, phrases=["forty two", "fourteen"], talk=["the", "a"])


def forty_two(recognizer: sphinx.SphinxRecognizer) -> Segment:
    """Piper's "forty two" between pauses, heard."""
    recognizer.accept(bytes(3200) + voices.piper("forty two") + bytes(6400))
    return recognizer.finish()


def test_the_transform_is_one_class_of_three_13_wide_streams_near_the_identity() -> None:
    streams = read_transform(ROOM_TRANSFORM)
    assert [len(b) for _a, b in streams] == [13, 13, 13]
    for a, b in streams:
        assert np.isfinite(a).all() and np.isfinite(b).all()
        assert np.abs(np.diag(a) - 1).max() < 0.5
        assert not np.allclose(a, np.eye(13))  # estimated, not a placeholder


def test_written_and_read_back(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    streams = [(np.eye(3) + rng.normal(0, 0.1, (3, 3)), rng.normal(0, 1, 3)) for _ in range(2)]
    write_transform(tmp_path / "t", streams)
    for (a, b), (a2, b2) in zip(streams, read_transform(tmp_path / "t"), strict=True):
        assert np.allclose(a, a2, atol=1e-5) and np.allclose(b, b2, atol=1e-5)


@pytest.mark.parametrize("key", ["mllr", "mean"])
def test_pocketsphinx_loads_it_and_hears_a_dry_word(key: str) -> None:
    model = load_model(None, lang="en", engine="pocketsphinx")
    config = decoder_config(model, 16000)
    config[key] = str(ROOM_TRANSFORM if key == "mllr" else ROOM_MEANS)
    decoder = import_pocketsphinx().Decoder(config)
    decoder.add_jsgf_string("numbers", jsgf(["forty two", "fourteen", "forty", "twenty four"]))
    decoder.activate_search("numbers")
    decoder.start_utt()
    decoder.process_raw(bytes(3200) + voices.piper("forty two") + bytes(6400), False, True)
    decoder.end_utt()
    assert decoder.hyp().hypstr == "forty two"


def test_a_ringing_room_remakes_the_decoders_with_the_transform_and_keeps_the_mean(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # sphinx.RINGING_MLLR: the transform only once the room rings, taken between
    # utterances, the microphone's cepstral mean carried over.
    assert sphinx.RINGING_MLLR == ROOM_TRANSFORM
    model = load_model(None, lang="en", engine="pocketsphinx")
    recognizer = a_recognizer(model)
    dry = recognizer._decoder
    recognizer.cepstral_mean = "50,1,-2,18,-1,-3,-3,-11,0,-3,4,-2,-4"
    monkeypatch.setattr(sphinx, "RINGING_MEANS", None)  # the transform alone
    recognizer.room_rings(True)
    assert recognizer._decoder is not dry and recognizer._config["mllr"] == str(ROOM_TRANSFORM)
    assert recognizer.cepstral_mean.startswith("50")
    heard = forty_two(recognizer)
    assert not heard.talk and heard.alternatives[0].tokens == ("forty", "two")
    recognizer.room_rings(False)
    recognizer.reset()
    assert recognizer._config["mllr"] is None


def test_the_means_are_the_models_own_moved_a_little() -> None:
    model = Path(load_model(None, lang="en", engine="pocketsphinx").path)
    assert fits(ROOM_MEANS, model)
    original, adapted = read_gauden(model / "means"), read_gauden(ROOM_MEANS)
    assert [a.shape for a in adapted] == [o.shape for o in original]
    for o, a in zip(original, adapted, strict=True):
        assert np.isfinite(a).all() and not np.allclose(a, o)  # estimated, not a copy
        # near the model: most of each stream's spread is the model's own
        assert np.corrcoef(o.ravel(), a.ravel())[0, 1] > 0.9


def test_means_written_read_back_and_only_fit_the_model_they_came_from(tmp_path: Path) -> None:
    model = Path(load_model(None, lang="en", engine="pocketsphinx").path)
    streams = [s + 0.5 for s in read_gauden(model / "means")]
    write_gauden(model / "means", tmp_path / "means", streams)
    for a, b in zip(streams, read_gauden(tmp_path / "means"), strict=True):
        assert np.allclose(a, b, atol=1e-4)
    assert fits(tmp_path / "means", model)
    other = tmp_path / "other"
    other.mkdir()
    write_gauden(model / "means", other / "means", streams)  # another model's means
    assert not fits(tmp_path / "means", other)
    assert not fits(tmp_path / "missing", model)


def test_a_ringing_room_takes_the_adapted_means_and_a_dry_one_the_models(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert sphinx.RINGING_MEANS == ROOM_MEANS
    model = load_model(None, lang="en", engine="pocketsphinx")
    recognizer = a_recognizer(model)
    recognizer.room_rings(True)
    assert recognizer._config["mean"] == str(ROOM_MEANS) and recognizer._config["mllr"] is None
    heard = forty_two(recognizer)
    assert not heard.talk and heard.alternatives[0].tokens == ("forty", "two") and heard.room_adapted
    recognizer.room_rings(False)
    recognizer.reset()
    assert recognizer._config["mean"] == str(Path(model.path) / "means")
    assert not forty_two(recognizer).room_adapted
    # means made from another model's are not used: the transform is
    monkeypatch.setattr(sphinx, "fits", lambda means, model: False)
    recognizer.room_rings(True)
    recognizer.reset()
    assert recognizer._config["mllr"] == str(ROOM_TRANSFORM)
    assert not forty_two(recognizer).room_adapted

"""The shipped MLLR transform for rooms that ring (host/speech/mllr.py): sphinx's format,
close to the identity (an adaptation, not a new model), and pocketsphinx loads it and
still hears a dry word with it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from host.speech import sphinx
from host.speech.mllr import ROOM_TRANSFORM, read_transform, write_transform
from host.speech.model import import_pocketsphinx, load_model
from host.speech.sphinx import decoder_config, jsgf
from tests import voices


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


def test_pocketsphinx_loads_it_and_hears_a_dry_word() -> None:
    model = load_model(None, lang="en", engine="pocketsphinx")
    config = decoder_config(model, 16000)
    config["mllr"] = str(ROOM_TRANSFORM)
    decoder = import_pocketsphinx().Decoder(config)
    decoder.add_jsgf_string("numbers", jsgf(["forty two", "fourteen", "forty", "twenty four"]))
    decoder.activate_search("numbers")
    decoder.start_utt()
    decoder.process_raw(bytes(3200) + voices.piper("forty two") + bytes(6400), False, True)
    decoder.end_utt()
    assert decoder.hyp().hypstr == "forty two"


def test_a_ringing_room_remakes_the_decoders_with_the_transform_and_keeps_the_mean() -> None:
    # sphinx.RINGING_MLLR: the transform only once the room rings, taken between
    # utterances, the microphone's cepstral mean carried over.
    assert sphinx.RINGING_MLLR == ROOM_TRANSFORM
    model = load_model(None, lang="en", engine="pocketsphinx")
    recognizer = sphinx.SphinxRecognizer(model, phrases=["forty two", "fourteen"], talk=["the", "a"])
    dry = recognizer._decoder
    recognizer.cepstral_mean = "50,1,-2,18,-1,-3,-3,-11,0,-3,4,-2,-4"
    recognizer.room_rings(True)
    assert recognizer._decoder is not dry and recognizer._config["mllr"] == str(ROOM_TRANSFORM)
    assert recognizer.cepstral_mean.startswith("50")
    recognizer.accept(bytes(3200) + voices.piper("forty two") + bytes(6400))
    heard = recognizer.finish()
    assert not heard.talk and heard.alternatives[0].tokens == ("forty", "two")
    recognizer.room_rings(False)
    recognizer.reset()
    assert recognizer._config["mllr"] is None

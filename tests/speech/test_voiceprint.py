"""Who spoke (host/speech/voiceprint.py): the encoder against Resemblyzer's own results, and
real synthesised voices (Piper's joe, espeak-ng's male and female voices) told apart."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from games.up_or_down.rules import Say
from host.heard import HeardMeaning
from host.referee import Referee
from host.session import SessionConfig
from host.speech import voiceprint
from host.speech.audio import SAMPLE_RATE, as_int16, resample
from host.speech.voiceprint import Vector, Voices
from host.store import Store
from tests import voices
from tests.clock import Clock
from tests.speech.conftest import requires_espeak, silence

REFERENCE = Path(__file__).with_name("voiceprint_reference.npz")
MALE, FEMALE = "en-us+m3", "en-us+f2"


def _buzz(seconds: float, f0: float) -> npt.NDArray[np.float32]:
    """A vowel-like buzz, its pitch gliding: the signal voiceprint_reference.npz was made
    from with Resemblyzer 0.1.4 and PyTorch (normalize_volume, then embed_utterance)."""
    t = np.arange(int(SAMPLE_RATE * seconds)) / SAMPLE_RATE
    pitch = f0 * (1 + 0.15 * np.sin(2 * np.pi * 1.3 * t))
    phase = 2 * np.pi * np.cumsum(pitch) / SAMPLE_RATE
    wav = sum(np.sin(k * phase) / k * (1 + np.cos(2 * np.pi * k * 0.7 * t)) for k in range(1, 25))
    envelope = np.minimum(1, np.minimum(t, seconds - t) / 0.05)
    buzz: npt.NDArray[np.float32] = (0.1 * wav * envelope / np.abs(wav).max()).astype(np.float32)
    return buzz


@pytest.mark.parametrize(("name", "seconds", "f0"), [("short", 1.2, 120.0), ("long", 3.5, 210.0)])
def test_the_encoder_matches_resemblyzer_with_pytorch(name: str, seconds: float, f0: float) -> None:
    reference = np.load(REFERENCE)
    wav = voiceprint._raise_volume(_buzz(seconds, f0))
    mel = voiceprint.mel_spectrogram(wav)[::7]
    expected = reference[f"{name}_mel"]
    assert mel.shape == expected.shape
    assert np.abs(mel - expected).max() <= 1e-4 * expected.max()
    # one partial window (1.2 s, padded) and three (3.5 s)
    assert float(voiceprint._encode(wav) @ reference[f"{name}_embedding"]) > 0.9999


def _embed(pcm: bytes) -> Vector:
    embedding = voiceprint.embed(pcm)
    assert embedding is not None
    return embedding


@requires_espeak
def test_the_same_voice_scores_above_different_voices() -> None:
    joe = _embed(voices.piper("Ann"))
    male = _embed(voices.espeak("Dana", MALE))
    female = _embed(voices.espeak("Eve", FEMALE))
    for move in ("fifty three", "seventy one", "queen of spades"):
        said = {
            "joe": voices.piper(move),
            "male": voices.espeak(move, MALE),
            "female": voices.espeak(move, FEMALE),
        }
        heard = {who: _embed(pcm) for who, pcm in said.items()}
        assert float(np.linalg.norm(heard["joe"])) == pytest.approx(1.0, abs=1e-5)
        assert heard["joe"] @ joe > max(heard["joe"] @ male, heard["joe"] @ female)
        assert heard["male"] @ male > max(heard["male"] @ joe, heard["male"] @ female)
        assert heard["female"] @ female > max(heard["female"] @ joe, heard["female"] @ male)


@pytest.fixture(scope="module")
def names() -> dict[str, Vector]:
    """Three players' names, each said once."""
    if voiceprint.embed(voices.espeak("Dana", MALE)) is None:  # pragma: no cover - no espeak-ng
        pytest.skip("needs espeak-ng")
    return {player: _embed(_said(player, player)) for player in ("Ann", "Dana", "Eve")}


@pytest.fixture
def table(names: dict[str, Vector]) -> Voices:
    """The three players enrolled from their names."""
    table = Voices()
    for player, embedding in names.items():
        table.enrol(player, embedding)
    return table


def _said(player: str, text: str) -> bytes:
    return (
        voices.piper(text) if player == "Ann" else voices.espeak(text, MALE if player == "Dana" else FEMALE)
    )


@requires_espeak
@pytest.mark.parametrize("speaker", ["Ann", "Dana", "Eve"])
def test_a_move_is_named_for_its_speaker_on_turn_or_not(table: Voices, speaker: str) -> None:
    embedding = _embed(_said(speaker, "forty two"))
    alone = table.identify(embedding)
    assert (alone.player, alone.unsure) == (speaker, "")
    assert alone.score >= table.min_score and alone.margin >= table.min_margin
    assert table.identify(embedding, presumed=speaker).player == speaker
    for on_turn in {"Ann", "Dana", "Eve"} - {speaker}:
        out_of_turn = table.identify(embedding, presumed=on_turn)
        assert out_of_turn.player == speaker  # not the player on turn
        assert out_of_turn.margin == pytest.approx(out_of_turn.score - table.scores(embedding)[on_turn])


@requires_espeak
def test_the_referee_answers_a_move_in_another_players_voice_as_out_of_turn(
    table: Voices, tmp_path: Path
) -> None:
    # The hook the table needs: the voice named with the player on turn presumed is the
    # referee's ``speaker`` (None when unsure: a shared microphone, as before voices).
    store = Store(str(tmp_path / "game.sqlite3"))
    try:
        referee = Referee(store, Clock())
        sid = referee.create(SessionConfig.model_validate({"game": "up-or-down"}), ["Ann", "Dana", "Eve"])
        on_turn = referee.table(sid).current_player
        assert on_turn == "Ann"
        said = _embed(_said("Dana", "forty"))
        who = table.identify(said, presumed=on_turn)
        reply = referee.handle_heard(
            sid, HeardMeaning(Say(on_turn, 40), 0.95, text="forty", open_mic=True), who.player
        )
        assert reply.events == [{"type": "not_your_turn", "player": "Dana", "current": "Ann"}]
        assert not reply.accepted
        said = _embed(_said("Ann", "fifty three"))
        who = table.identify(said, presumed=on_turn)
        reply = referee.handle_heard(
            sid, HeardMeaning(Say("Ann", 53), 0.95, text="fifty three", open_mic=True), who.player
        )
        assert reply.accepted and who.player == "Ann"
        assert table.ruled("Ann", said) and table.counts()["Ann"] == 2
    finally:
        store.close()


def test_too_short_or_silent_audio_is_unsure() -> None:
    ann = voices.piper("Ann")
    samples = as_int16(ann)
    loud = np.flatnonzero(np.abs(samples) > 300)
    blip = silence(0.3) + samples[loud[0] : loud[0] + SAMPLE_RATE // 10].tobytes() + silence(0.3)
    short = voiceprint.voiceprint(blip)
    assert short.vector is None and short.unsure == "short" and short.speech_s < voiceprint.MIN_SPEECH_S
    assert voiceprint.embed(silence(1.0)) is None
    assert voiceprint.embed(b"") is None
    assert Voices().identify(None).unsure == "unheard"


def test_speech_buried_in_noise_is_unsure() -> None:
    speech = as_int16(silence(0.3) + voices.piper("fifty three") + silence(0.3)).astype(np.float64)
    level = float(np.sqrt(np.mean(speech[np.abs(speech) > 300] ** 2)))
    noise = np.random.default_rng(7).normal(0, level * 10 ** (-5 / 20), speech.size)  # 5 dB below
    noisy = voiceprint.voiceprint(np.clip(speech + noise, -32768, 32767).astype(np.int16))
    assert noisy.vector is None and noisy.unsure in ("noisy", "short")
    clean = voiceprint.voiceprint(speech.astype(np.int16))
    assert clean.vector is not None and clean.unsure == "" and clean.snr_db > voiceprint.MIN_SNR_DB


def test_audio_at_another_rate_gives_the_same_voice() -> None:
    pcm = voices.piper("seventy one")
    at_16k = _embed(pcm)
    at_22k = voiceprint.embed(resample(pcm, SAMPLE_RATE, 22050), 22050)
    assert at_22k is not None and float(at_16k @ at_22k) > 0.97


def _unit(*values: float) -> Vector:
    vector = np.zeros(256, dtype=np.float32)
    vector[: len(values)] = values
    return (vector / np.linalg.norm(vector)).astype(np.float32)


def test_the_presumed_speaker_is_named_when_closest_anyone_else_only_by_a_margin() -> None:
    table = Voices(min_score=0.5, min_margin=0.05)
    table.enrol("Ann", _unit(1, 0, 0))
    table.enrol("Bob", _unit(0, 1, 0))
    near_both = _unit(1, 0.97, 0)  # Ann's by a hair
    assert table.identify(near_both, presumed="Ann").player == "Ann"
    assert table.identify(near_both).unsure == "close"  # no one presumed: too close to call
    assert table.identify(near_both, presumed="Bob").unsure == "close"  # never ruled for Bob
    assert table.identify(_unit(1, 0.5, 0), presumed="Bob").player == "Ann"  # out of turn
    assert table.identify(_unit(0, 0, 1), presumed="Ann").unsure == "nobody"  # a stranger
    assert Voices().identify(_unit(1)).unsure == "no voices"


def test_contrast_compares_voices_as_they_differ_from_each_other() -> None:
    # A room draws every voice towards its own colour (the shared 2.0 of axis 3): by plain
    # cosine an utterance scores alike with every voice, by contrast it is clearly Bob's.
    table = Voices()
    for name, axis in (("Ann", 0), ("Bob", 1), ("Cy", 2)):
        table.enrol(name, _unit(*[1.0 if i == axis else 0.0 for i in range(3)], 2.0))
    bob = _unit(0.1, 0.5, 0.1, 2.0)
    plain = table.scores(bob)
    assert plain["Bob"] - plain["Ann"] < 0.1
    other, margin = table.contrast(bob, "Ann")
    assert other == "Bob" and margin > 1.0
    other, margin = table.contrast(_unit(0.6, 0.1, 0.1, 2.0), "Ann")  # Ann's own: no one is closer
    assert margin < 0
    assert table.contrast(bob)[0] == "Bob"  # no one presumed: the best voice, over the runner-up
    assert Voices().contrast(bob) == (None, 0.0)


def test_contrast_leaves_out_what_varies_within_each_voice() -> None:
    # Every player's utterances swing along axis 3 (the words said); a move swung far along
    # it is still its speaker's, and by more than without the swing left out.
    table = Voices()
    for name, axis in (("Ann", 0), ("Bob", 1)):
        base = [1.0 if i == axis else 0.0 for i in range(2)]
        table.enrol(name, _unit(*base, 1.0))
        for swing in (-1.0, 1.0, -1.0, 1.0, -1.0):
            table.refine(name, _unit(*base, swing))
    swung = _unit(0.6, 1.0, 3.0)
    other, margin = table.contrast(swung, "Ann")
    assert other == "Bob" and margin > 0.4  # 0.18 with the swing left in
    plain = table.scores(swung)
    assert plain["Bob"] - plain["Ann"] < 0.15


def test_refining_moves_a_voice_towards_its_moves() -> None:
    table = Voices()
    table.enrol("Ann", _unit(1, 0, 0))
    table.enrol("Bob", _unit(0, 1, 0))
    move = _unit(0.6, 0, 0.8)
    before = table.scores(move)["Ann"]
    table.refine("Ann", move)
    table.refine("Cy", _unit(0, 0, 1))  # a new player enrols from a move
    assert table.scores(move)["Ann"] > before
    assert table.counts() == {"Ann": 2, "Bob": 1, "Cy": 1}
    table.forget("Bob")
    assert table.players == ["Ann", "Cy"] and "Bob" not in table
    table.clear()
    assert table.players == []


def test_a_ruled_move_refines_its_players_voice_only_in_their_voice() -> None:
    table = Voices()
    table.enrol("Ann", _unit(1, 0, 0))
    table.enrol("Bob", _unit(0, 1, 0))
    assert not table.ready(["Ann", "Bob", "Cy"])
    assert table.ruled("Ann", _unit(1, 0.2, 0))  # sounds like Ann: her voice learns it
    assert not table.ruled("Ann", _unit(0, 1, 0))  # ruled hers, but in Bob's voice
    assert not table.ruled("Ann", None)
    assert table.ruled("Cy", _unit(0, 0, 1))  # no name heard: enrols from the move
    assert table.ready(["Ann", "Bob", "Cy"])
    assert table.counts() == {"Ann": 2, "Bob": 1, "Cy": 1}


def test_voices_never_show_their_numbers(caplog: pytest.LogCaptureFixture) -> None:
    embedding = _embed(voices.piper("Ann"))
    table = Voices()
    with caplog.at_level(logging.DEBUG):
        table.enrol("Ann", embedding)
        identity = table.identify(embedding, presumed="Ann")
        printed = voiceprint.voiceprint(voices.piper("Ann"))
    assert repr(table) == "Voices({'Ann': 1})"
    assert repr(printed).startswith("Voiceprint(speech_s=") and "vector" not in repr(printed)
    assert identity.player == "Ann" and "Ann" not in caplog.text  # nothing about voices logged
    assert not any(f"{value:.4f}" in caplog.text for value in embedding[:8])

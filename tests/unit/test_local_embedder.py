"""LocalEmbedder: all-MiniLM-L6-v2 built to ONNX from safetensors, int8, checked against numpy."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")
pytest.importorskip("onnx")

from engram.adapters.embeddings import local
from engram.adapters.embeddings import minilm_reference as ref
from engram.adapters.embeddings.local import LocalEmbedder
from engram.core import config

# Realistic memory-ish texts of different lengths and styles.
TEXTS = [
    "I moved to Lisbon in 2021 and I work remotely as a data engineer for a Dutch bank.",
    "My son is allergic to shellfish, so please never suggest recipes with shrimp.",
    "what's my wife's name again?",
    "The deployment failed because the IAM role lacked permission to read the secret.",
    "Meeting notes: agreed to ship the billing migration after the freeze; Ana owns the rollback plan, "
    "Luis will update the runbook, and we revisit the on-call rota next sprint.",
    "Paris is the capital of France.",
    "hi",
    "ERROR 2024-05-01T12:00:03Z worker-7 connection reset by peer (retry 3/5)",
    " ".join(["The quarterly report shows revenue growth across all regions, led by cloud services."] * 20),
]


@pytest.fixture(autouse=True)
def fresh_settings() -> Iterator[None]:
    """Settings are read once per process: each test sees the environment it sets, and leaves none behind."""
    config.reload_settings()
    yield
    config.reload_settings()


def setenv(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    config.reload_settings()


@pytest.fixture(scope="module")
def cache_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("engram-cache")


@pytest.fixture(scope="module")
def embedder(cache_base: Path) -> Iterator[LocalEmbedder]:
    # Build into a private cache so the test exercises the build and never reads a stale file.
    mp = pytest.MonkeyPatch()
    setenv(mp, "ENGRAM_MODEL_CACHE", str(cache_base / "engram-model-cache"))
    try:
        yield LocalEmbedder()
    finally:
        mp.undo()
        config.reload_settings()


@pytest.fixture(scope="module")
def weights() -> ref.WeightDict:
    return ref.load_weights()


def cos(a: list[float] | np.ndarray, b: list[float] | np.ndarray) -> float:
    return float(np.dot(np.asarray(a), np.asarray(b)))


def test_import_is_cheap_and_construction_is_lazy() -> None:
    code = (
        "import sys, engram.adapters.embeddings.local as m\n"
        "e = m.LocalEmbedder()\n"
        "heavy = [n for n in ('onnxruntime', 'tokenizers', 'onnx', 'numpy', 'safetensors') if n in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
    assert LocalEmbedder()._session is None


def test_shape_unit_norm_and_metadata(embedder: LocalEmbedder) -> None:
    vectors = embedder.embed(TEXTS)
    assert embedder.model_id == "all-minilm-l6-v2-int8"
    assert embedder.dimension == 384
    assert len(vectors) == len(TEXTS)
    for v in vectors:
        assert len(v) == 384
        assert all(isinstance(x, float) for x in v[:5])
        assert abs(np.linalg.norm(v) - 1.0) < 1e-5
    assert embedder.embed([]) == []


def test_matches_numpy_reference(embedder: LocalEmbedder, weights: ref.WeightDict) -> None:
    ids = [enc.ids for enc in embedder._load()[1].encode_batch(TEXTS)]
    assert max(len(i) for i in ids) == local.MAX_TOKENS == ref.MAX_TOKENS  # a truncated text is compared too
    expected = np.stack([ref.encode(weights, ref.pad_batch([i]))[0] for i in ids])
    got = embedder.embed_array(TEXTS)
    sims = (expected * got).sum(axis=1)
    assert sims.min() >= 0.99, sims
    assert sims.mean() >= 0.995, sims


def test_paraphrases_score_above_unrelated(embedder: LocalEmbedder) -> None:
    pairs = [
        ("I live in Berlin.", "My home is in Berlin, Germany."),
        ("My favourite food is sushi.", "I love eating sushi more than anything."),
        ("The meeting was moved to Friday.", "We rescheduled the meeting for Friday."),
        ("How do I reset my password?", "What are the steps to change a forgotten password?"),
    ]
    texts = [t for pair in pairs for t in pair]
    vec = dict(zip(texts, embedder.embed(texts), strict=True))
    for i, (a, b) in enumerate(pairs):
        related = cos(vec[a], vec[b])
        for j, (c, d) in enumerate(pairs):
            if i != j:
                assert related > cos(vec[a], vec[c]) + 0.2, (a, b, c)
                assert related > cos(vec[a], vec[d]) + 0.2, (a, b, d)


def test_batch_matches_single(embedder: LocalEmbedder) -> None:
    batch = embedder.embed(TEXTS)
    single = [embedder.embed([t])[0] for t in TEXTS]
    # Activations are quantized per token, so batch-mates (and their padding) cannot nudge a text:
    # the only difference left is float rounding in differently shaped matrix products.
    for b, s in zip(batch, single, strict=True):
        assert np.abs(np.asarray(b) - np.asarray(s)).max() < 1e-5
    # Same input, same output: order is restored after the length sort.
    assert embedder.embed(TEXTS) == batch
    assert embedder.embed(list(reversed(TEXTS))) == list(reversed(batch))


def test_a_text_gets_the_same_vector_in_any_batch(embedder: LocalEmbedder) -> None:
    others = [f"{TEXTS[i % 5]} (note {i}, about topic {i % 7})" for i in range(31)]
    long = " ".join(f"Paragraph {i}: the migration plan moves table {i} after the freeze." for i in range(40))[:2000]
    text = TEXTS[1]
    alone = embedder.embed_array([text])[0]
    in_32 = embedder.embed_array([*others[:5], text, *others[5:]])[5]
    beside_long = embedder.embed_array([long, text])[1]
    # Within float rounding: the batch-dependent int8 scales this replaced moved a vector by up to 0.011.
    assert np.abs(alone - in_32).max() < 1e-5
    assert np.abs(alone - beside_long).max() < 1e-5
    assert float(alone @ in_32) > 0.99999


def test_empty_and_very_long_texts(embedder: LocalEmbedder) -> None:
    long = " ".join(f"word{i} and some filler about topic {i % 7}" for i in range(3000))
    empty, lng, lng_plus = embedder.embed(["", long, long + " a completely different ending about pelicans"])
    assert abs(np.linalg.norm(empty) - 1) < 1e-5
    assert abs(np.linalg.norm(lng) - 1) < 1e-5
    # Truncated at 256 tokens: text beyond the cut cannot change the vector.
    assert cos(lng, lng_plus) > 0.9999
    assert len(embedder._load()[1].encode(long).ids) == local.MAX_TOKENS


def test_rejects_a_bare_string(embedder: LocalEmbedder) -> None:
    with pytest.raises(TypeError):
        embedder.embed("not a list")  # type: ignore[arg-type]


def test_first_load_is_thread_safe(embedder: LocalEmbedder) -> None:
    embedder.embed(["warm the shared cache"])  # model built; now race fresh instances on loading
    fresh = LocalEmbedder()
    results: list[list[list[float]]] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(fresh.embed(["thread safety check"]))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(r == results[0] for r in results)


def test_cache_is_reused_not_rebuilt(embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    embedder.embed(["x"])
    directory = local.ensure_model()
    assert (directory / local.MODEL_FILENAME).stat().st_size > 10_000_000

    def no_build(target: Path) -> None:
        raise AssertionError("rebuilt although the cache holds the model")

    monkeypatch.setattr(local, "_build_into", no_build)
    assert LocalEmbedder().embed(["reuse"])


def test_damaged_cache_file_is_rebuilt(
    embedder: LocalEmbedder, cache_base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder.embed(["x"])
    good = cache_base / "engram-model-cache"
    damaged = tmp_path / "cache"
    damaged.mkdir()
    (damaged / local.MODEL_FILENAME).write_bytes(b"truncated download")
    shutil.copy(good / local.TOKENIZER_FILENAME, damaged / local.TOKENIZER_FILENAME)
    rebuilt: list[Path] = []

    def fake_build(target: Path) -> None:  # the real build is covered above; copying is faster
        rebuilt.append(target)
        shutil.copy(good / local.MODEL_FILENAME, target / local.MODEL_FILENAME)

    setenv(monkeypatch, "ENGRAM_MODEL_CACHE", str(damaged))
    monkeypatch.setattr(local, "_build_into", fake_build)
    assert len(LocalEmbedder().embed(["recovered"])[0]) == 384
    assert rebuilt == [damaged]


def test_unusable_cache_dir_falls_back_to_temp(
    embedder: LocalEmbedder, cache_base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder.embed(["x"])  # the module cache under cache_base is built
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    # Running as root defeats permission-based tests; a path under a regular file fails for anyone.
    setenv(monkeypatch, "ENGRAM_MODEL_CACHE", str(blocker / "cache"))
    monkeypatch.setattr(tempfile, "tempdir", str(cache_base))
    monkeypatch.setattr(local, "_build_into", lambda target: pytest.fail("should reuse the temp cache"))
    assert local.ensure_model() == cache_base / "engram-model-cache"
    assert len(LocalEmbedder().embed(["fallback"])[0]) == 384


def test_factory_defaults_to_local(monkeypatch: pytest.MonkeyPatch) -> None:
    from engram.adapters.embeddings.factory import embedder_from_env

    monkeypatch.delenv("ENGRAM_EMBEDDER", raising=False)
    config.reload_settings()
    embedder_from_env.cache_clear()
    try:
        first = embedder_from_env()
        assert isinstance(first, LocalEmbedder)
        assert embedder_from_env() is first
        setenv(monkeypatch, "ENGRAM_EMBEDDER", "word2vec")
        embedder_from_env.cache_clear()
        with pytest.raises(ValueError):
            embedder_from_env()
    finally:
        embedder_from_env.cache_clear()

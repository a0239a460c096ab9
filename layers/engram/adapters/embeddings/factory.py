"""Pick the embedder from the environment, once per process (a Lambda container reuses it)."""

from __future__ import annotations

import functools
import os

from engram.adapters.embeddings.base import Embedder


@functools.cache
def embedder_from_env() -> Embedder:
    """`ENGRAM_EMBEDDER`: `local` (default, MiniLM int8 on onnxruntime) or `bedrock` (Titan v2).

    bedrock reads `ENGRAM_EMBED_DIM` (1024, 512 or 256; default 1024), `AWS_REGION` and the
    optional `ENGRAM_BEDROCK_ENDPOINT_URL` (VPC endpoint or a test stand-in). Construction is
    cheap for both: models and clients load on the first `embed` call.
    """
    kind = os.environ.get("ENGRAM_EMBEDDER", "local").strip().lower() or "local"
    if kind == "local":
        from engram.adapters.embeddings.local import LocalEmbedder

        return LocalEmbedder()
    if kind == "bedrock":
        from engram.adapters.embeddings.bedrock import BedrockTitanEmbedder

        raw_dim = os.environ.get("ENGRAM_EMBED_DIM", "1024").strip() or "1024"
        try:
            dimension = int(raw_dim)
        except ValueError:
            raise ValueError(f"ENGRAM_EMBED_DIM must be an integer, got {raw_dim!r}") from None
        return BedrockTitanEmbedder(
            dimension,
            region=os.environ.get("AWS_REGION") or None,
            endpoint_url=os.environ.get("ENGRAM_BEDROCK_ENDPOINT_URL") or None,
        )
    raise ValueError(f"ENGRAM_EMBEDDER must be 'local' or 'bedrock', got {kind!r}")

"""Pick the embedder from the settings, once per process (a Lambda container reuses it)."""

from __future__ import annotations

import functools

from engram.adapters.embeddings.base import Embedder
from engram.core.config import settings


@functools.cache
def embedder_from_env() -> Embedder:
    """`ENGRAM_EMBEDDER`: `local` (default, MiniLM int8 on onnxruntime) or `bedrock` (Titan v2).

    bedrock reads `ENGRAM_EMBED_MODEL`, `ENGRAM_EMBED_DIM` (1024, 512 or 256; default 1024), the
    region and the optional `ENGRAM_BEDROCK_ENDPOINT_URL` (VPC endpoint or a test stand-in).
    Construction is cheap for both: models and clients load on the first `embed` call.
    """
    s = settings()
    if s.embedder == "bedrock":
        from engram.adapters.embeddings.bedrock import BedrockTitanEmbedder

        return BedrockTitanEmbedder(
            s.embed_dim, model=s.embed_model, region=s.aws_region, endpoint_url=s.bedrock_endpoint_url
        )
    from engram.adapters.embeddings.local import LocalEmbedder

    return LocalEmbedder()

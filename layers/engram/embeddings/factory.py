"""The configured embedder, one per process."""

from __future__ import annotations

import os
from functools import cache

from engram.embeddings.base import Embedder


@cache
def embedder_from_env() -> Embedder:
    kind = os.environ.get("ENGRAM_EMBEDDER", "local")
    if kind == "bedrock":
        from engram.embeddings.bedrock import BedrockTitanEmbedder

        return BedrockTitanEmbedder(
            dimension=int(os.environ.get("ENGRAM_EMBED_DIM", "1024")),
            endpoint_url=os.environ.get("ENGRAM_BEDROCK_ENDPOINT_URL") or None,
            region=os.environ.get("AWS_REGION") or None,
        )
    from engram.embeddings.local import LocalEmbedder

    return LocalEmbedder()

"""The embedder interface every implementation satisfies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class EmbedderUnavailable(RuntimeError):
    """The embedding backend cannot answer now (model missing, service down, throttled)."""


class Embedder(Protocol):
    model_id: str  # recorded on every chunk, e.g. "minilm-l6-v2-int8" or "amazon.titan-embed-text-v2:0"
    dimension: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Unit-normalised vectors, one per text, in order. Raises EmbedderUnavailable."""
        ...

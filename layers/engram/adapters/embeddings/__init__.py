"""Embedders behind one interface; `engram.adapters.embeddings.factory.embedder_from_env` picks the configured one."""

from engram.adapters.embeddings.base import Embedder, EmbedderUnavailable

__all__ = ["Embedder", "EmbedderUnavailable"]

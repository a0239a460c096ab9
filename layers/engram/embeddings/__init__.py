"""Embedders behind one interface; `engram.embeddings.factory.embedder_from_env` picks the configured one."""

from engram.embeddings.base import Embedder, EmbedderUnavailable

__all__ = ["Embedder", "EmbedderUnavailable"]

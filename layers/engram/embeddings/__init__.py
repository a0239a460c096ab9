"""Embedders behind one interface; `embedder_from_settings` picks the configured one."""

from engram.embeddings.base import Embedder, EmbedderUnavailable

__all__ = ["Embedder", "EmbedderUnavailable"]

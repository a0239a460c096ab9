"""Engram core library: the memory domain, storage, search and embeddings.

Knows nothing of Lambda or HTTP; the handlers in functions/ and the local server call it.
"""

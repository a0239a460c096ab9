"""Memories: store, read, list, change, trash and restore."""

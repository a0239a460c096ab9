"""Text helpers every capability needs: what PostgreSQL can store, content hashes, UTF-8 cuts."""

from __future__ import annotations

import hashlib
from typing import Any


def storable_text(value: Any) -> Any:
    """PostgreSQL text cannot hold NUL and UTF-8 cannot encode a lone surrogate: refuse both here,
    with the field's name, instead of failing half-way in the database. Walks nested values without
    recursion, so no depth can crash it."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                raise ValueError("must not contain NUL (\\u0000) characters")
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError("is not valid Unicode (lone surrogate)") from None
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return value


def content_hash(content: str | bytes) -> bytes:
    """SHA-256 of the UTF-8 text: the dedupe key of memories and documents (str and its encoded bytes
    hash the same, so an uploaded object's digest is the document's content hash)."""
    return hashlib.sha256(content.encode() if isinstance(content, str) else content).digest()


def utf8_prefix(text: str, max_bytes: int) -> str:
    """The longest prefix of `text` that is at most `max_bytes` of UTF-8 (never half a character)."""
    raw = text[:max_bytes].encode()  # every character is >= 1 byte: max_bytes characters suffice
    if len(raw) <= max_bytes:
        return text[:max_bytes]
    cut = max_bytes
    while cut > 0 and (raw[cut] & 0xC0) == 0x80:  # the first byte left out continues a character
        cut -= 1
    return raw[:cut].decode("utf-8")

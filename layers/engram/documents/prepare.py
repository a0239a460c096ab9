"""Validating and classifying a document before it is stored: content type, size tier, synopsis. No SQL."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram.core.errors import EngramError, TooLarge
from engram.core.text import content_hash, utf8_prefix
from engram.documents.models import HARD_MAX_BYTES, ChunkingMode, DocumentOptions
from engram.documents.settings import document_settings

SYNOPSIS_HEAD_BYTES = 8 * 1024
SYNOPSIS_OUTLINE_BYTES = 2 * 1024
OUTLINE_MARKER = "\n\n--- Outline ---\n"
CONTENT_TYPES = {"text/markdown": "text/markdown", "text/x-markdown": "text/markdown", "text/plain": "text/plain"}
UPLOADS_ALTERNATIVE = "Upload it with POST /v1/documents/uploads (presigned S3 PUT, up to 50 MiB)."
HARD_LIMIT_ALTERNATIVE = "Documents are limited to 50 MiB: split or summarise it before storing."

_HEADING = re.compile(r"^#{1,2}[ \t]+\S.*$", re.MULTILINE)


class UnsupportedMediaType(EngramError):
    status = 415
    code = "unsupported_media_type"


def normalise_content_type(value: str) -> str:
    """'text/markdown; charset=utf-8' -> 'text/markdown'; anything but Markdown/plain text is 415."""
    base, _, params = value.partition(";")
    ctype = CONTENT_TYPES.get(base.strip().lower())
    charset = re.search(r"charset\s*=\s*\"?([\w-]+)", params, re.IGNORECASE)
    if ctype is None or (charset and charset.group(1).lower() not in ("utf-8", "utf8", "us-ascii")):
        raise UnsupportedMediaType(
            f"content type {value!r} is not supported: send text/markdown or text/plain in UTF-8",
            {"field": "content_type", "supported": sorted(set(CONTENT_TYPES.values()))},
        )
    return ctype


def classify(size_bytes: int) -> int:
    """The tier for a body of this many UTF-8 bytes; 413 above the hard limit."""
    s = document_settings()
    if size_bytes > HARD_MAX_BYTES:
        raise TooLarge("content", size_bytes, HARD_MAX_BYTES, HARD_LIMIT_ALTERNATIVE)
    if size_bytes <= s.document_tier0_max_bytes:
        return 0
    if size_bytes <= min(s.document_tier1_max_bytes, HARD_MAX_BYTES):
        return 1
    return 2


def build_synopsis(body: str) -> str:
    """First 8 KiB verbatim, then `--- Outline ---` with the h1/h2 headings, up to 2 KiB."""
    head = utf8_prefix(body, SYNOPSIS_HEAD_BYTES)
    lines: list[str] = []
    used = 0
    for m in _HEADING.finditer(body):
        line = m.group(0).rstrip()
        size = len(line.encode()) + 1
        if used + size > SYNOPSIS_OUTLINE_BYTES:
            break
        lines.append(line)
        used += size
    return head + (OUTLINE_MARKER + "\n".join(lines) if lines else "")


@dataclass
class Prepared:
    """A validated document, classified once, ready to store."""

    body: str
    size: int
    sha256: bytes
    content_type: str
    tier: int
    chunking: ChunkingMode
    options: DocumentOptions

    @property
    def memory_content(self) -> str:
        return self.body if self.tier == 0 else build_synopsis(self.body)

    @property
    def chunk_source(self) -> str:
        return self.memory_content if self.tier == 2 else self.body  # T0/T1: the body; T2: synopsis


def prepare(
    body: str, content_type: str, options: DocumentOptions, *, size: int | None = None, sha256: bytes | None = None
) -> Prepared:
    ctype = normalise_content_type(content_type)
    size = len(body.encode()) if size is None else size
    tier = classify(size)
    digest = sha256 or content_hash(body)
    return Prepared(
        body=body,
        size=size,
        sha256=digest,
        content_type=ctype,
        tier=tier,
        chunking=options.chunking or document_settings().document_chunking,
        options=options,
    )

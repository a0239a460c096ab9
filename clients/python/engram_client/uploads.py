"""The file side of `upload_document`: size and SHA-256, content type, the body read in blocks."""

from __future__ import annotations

import hashlib
import os
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from engram_client.models import ImportJob, UploadStatus

BLOCK_BYTES = 1 << 20  # read and sent 1 MiB at a time: a 50 MiB document never sits in memory whole

Stage = Literal["uploading", "processing", "ready", "failed"]


@dataclass(frozen=True)
class UploadProgress:
    """What `upload_document` and `import_file` report: bytes sent while `uploading`, then the
    server's status while `processing` (the file is checked and ingested or imported), then `ready`
    or `failed`. `upload_id` is the upload's or the import's id."""

    stage: Stage
    upload_id: str
    bytes_sent: int
    bytes_total: int
    status: UploadStatus | ImportJob | None = None


ProgressCallback = Callable[[UploadProgress], None]


@dataclass(frozen=True)
class LocalFile:
    path: Path
    size: int
    sha256: str  # hex, as POST /v1/documents/uploads takes it
    content_type: str


def content_type_for(path: Path) -> str:
    """The API takes Markdown and plain text (UTF-8): .md/.markdown are Markdown, the rest plain text."""
    return "text/markdown" if path.suffix.lower() in (".md", ".markdown") else "text/plain"


def describe(path: str | os.PathLike[str], content_type: str | None = None) -> LocalFile:
    """Size and SHA-256 of a file, read once in blocks."""
    file = Path(path)
    digest = hashlib.sha256()
    size = 0
    with file.open("rb") as f:
        while block := f.read(BLOCK_BYTES):
            digest.update(block)
            size += len(block)
    return LocalFile(file, size, digest.hexdigest(), content_type or content_type_for(file))


def blocks(file: LocalFile, report: Callable[[int], None]) -> Iterator[bytes]:
    """The file's bytes in blocks, reporting the total sent after each."""
    sent = 0
    with file.path.open("rb") as f:
        while block := f.read(BLOCK_BYTES):
            yield block
            sent += len(block)
            report(sent)


async def async_blocks(file: LocalFile, report: Callable[[int], None]) -> AsyncIterator[bytes]:
    """`blocks` for the async client. Each 1 MiB read is a short blocking call (a local file), not a
    thread hop per block."""
    for block in blocks(file, report):
        yield block

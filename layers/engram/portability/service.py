"""Export a tenant's data as a JSONL file through S3, and import such a file: the public face of
portability (engram.portability.export writes a file, engram.portability.plan validates one,
engram.portability.importing writes what it holds; engram.portability.records is the format)."""

from __future__ import annotations

from engram.portability.export import create_export, get_export, run_export
from engram.portability.importing import create_import, get_import, import_object

__all__ = [
    "create_export",
    "create_import",
    "get_export",
    "get_import",
    "import_object",
    "run_export",
]

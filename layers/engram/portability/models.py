"""Pydantic models of the export and import API: what callers send and what they get back."""

from __future__ import annotations

from datetime import datetime
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, Field

from engram.core.models import Namespace, Strict

ExportStatus = Literal["queued", "running", "ready", "failed"]
ImportStatus = Literal["pending", "done", "failed"]
IdPolicy = Literal["keep", "map"]


class ExportCreate(Strict):
    namespace: Namespace | None = Field(default=None, description="Export one namespace; default: all of them")


class ExportCounts(BaseModel):
    memories: int = 0
    versions: int = 0
    documents: int = Field(default=0, description="Memories that are documents (a Tier 2 one with its body)")
    links: int = 0
    conversations: int = 0
    messages: int = 0
    topics: int = 0
    evidence: int = Field(default=0, description="Turns cited as derived memories' evidence")
    extraction_settings: int = 0
    extraction_runs: int = Field(default=0, description="Extraction runs, with their actions")
    tasks: int = 0
    checkpoints: int = 0


class ExportJob(BaseModel):
    id: UUID
    status: ExportStatus
    namespace: str | None
    counts: ExportCounts | None = Field(description="What the file holds, once ready")
    bytes: int | None = Field(description="The file's size, once ready")
    error: str | None
    download_url: str | None = Field(description="A presigned GET of the JSONL file, once ready; it expires")
    expires_at: datetime | None = Field(description="When download_url stops working (GET again for a new one)")
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


class ImportCreate(Strict):
    size_bytes: int = Field(gt=0, description="The file's exact size: the upload URL is bound to it")
    sha256: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{64}$", description="Hex SHA-256 of the file: S3 refuses a body that differs"
    )
    namespace: Namespace | None = Field(
        default=None, description="Import every record into this namespace; default: each keeps its own"
    )
    id_policy: IdPolicy = Field(
        default="keep",
        description="keep: a record keeps its id when no other row has it, else gets a new one (links follow); "
        "map: every record gets a new id",
    )


class ImportCounts(BaseModel):
    memories: int = 0
    versions: int = 0
    documents: int = 0
    links: int = 0
    conversations: int = 0
    messages: int = 0
    evidence: int = 0
    extraction_settings: int = 0
    extraction_runs: int = 0
    tasks: int = 0
    checkpoints: int = 0


class Refusal(BaseModel):
    line: int = Field(description="1-based line number in the file")
    reason: str


class ImportReport(BaseModel):
    lines: int = Field(description="Record lines read (the header and blank lines not counted)")
    imported: ImportCounts
    deduplicated: ImportCounts = Field(
        description="Records already present (same content hash in the namespace, or the same conversation or link): "
        "not written again"
    )
    mapped_ids: int = Field(description="Records written under a new id because theirs was taken (or id_policy map)")
    topics_skipped: int = Field(
        description="Topic records: derived from vectors, rebuilt by the namespace's next consolidation run"
    )
    refused: list[Refusal] = Field(description="Lines that cannot be imported, and why (the first 1,000)")
    refused_count: int


class ImportJob(BaseModel):
    id: UUID
    status: ImportStatus
    namespace: str | None
    id_policy: IdPolicy
    size_bytes: int
    error: str | None = Field(description="Why the import failed; the report lists refused lines")
    report: ImportReport | None
    expires_at: datetime = Field(description="The upload URL works until then")
    created_at: datetime
    updated_at: datetime


class ImportTicket(ImportJob):
    upload_url: str = Field(description="Presigned S3 PUT for the JSONL file")
    headers: dict[str, str] = Field(description="Send these headers with the PUT, exactly")

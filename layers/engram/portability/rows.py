"""The typed rows portability's store returns: export and import jobs, and each record type as the
export reads it. No SQL."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from engram.portability.models import ExportStatus, IdPolicy, ImportStatus


@dataclass(frozen=True)
class ExportRow:
    id: UUID
    status: ExportStatus
    namespace: str | None
    counts: dict[str, int]
    bytes: int | None
    error: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    s3_key: str
    attempts: int


@dataclass(frozen=True)
class ImportRow:
    id: UUID
    status: ImportStatus
    namespace: str | None
    id_policy: IdPolicy
    size_bytes: int
    sha256: bytes | None
    error: str | None
    report: dict[str, Any] | None
    s3_key: str
    expires_at: datetime
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class MemoryExportRow:
    id: UUID
    namespace: str
    kind: str
    layer: str
    content: str
    importance: float
    tags: list[str]
    source: str | None
    metadata: dict[str, Any]
    access_count: int
    repetition_count: int
    last_accessed: datetime | None
    created_at: datetime
    updated_at: datetime | None
    valid_from: datetime | None
    valid_to: datetime | None
    status: str
    deleted_at: datetime | None
    version: int
    document_tier: int | None
    sha256: str
    versions: list[dict[str, Any]]
    chunks: list[dict[str, Any]] | None
    body: str | None
    content_type: str | None
    id_proof: str
    evidence: list[dict[str, Any]]
    critical: bool
    conflict_key: str | None


# The rows below are written to the file as they are read: their fields are the file's, in order.
@dataclass(frozen=True)
class LinkExportRow:
    id: UUID
    from_id: UUID
    to_id: UUID
    relation: str
    strength: float
    valid_from: datetime
    valid_to: datetime | None
    metadata: dict[str, Any]
    created_by: str
    run_id: UUID | None
    created_at: datetime | None
    ended_at: datetime | None
    ended_reason: str | None
    valid_to_before_end: datetime | None
    id_proof: str
    supersede_applied: bool
    superseded_valid_to_before: datetime | None
    superseded_valid_to_set: datetime | None


@dataclass(frozen=True)
class ConversationExportRow:
    id: UUID
    namespace: str
    title: str | None
    agent_id: str | None
    tags: list[str]
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime | None
    id_proof: str
    summary: str | None
    summary_updated_at: datetime | None
    extracted_seq: int


@dataclass(frozen=True)
class MessageExportRow:
    conversation_id: UUID
    seq: int
    role: str
    content: str
    tool_call_id: str | None
    tool_name: str | None
    metadata: dict[str, Any]
    created_at: datetime | None
    redacted_at: datetime | None


@dataclass(frozen=True)
class TaskExportRow:
    id: UUID
    conversation_id: UUID
    namespace: str
    goal: str
    agent_id: str | None
    status: str
    outcome: str | None
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime | None
    ended_at: datetime | None


@dataclass(frozen=True)
class CheckpointExportRow:
    task_id: UUID
    seq_to: int
    summary: str
    completed: list[str]
    pending: list[str]
    decisions: list[str]
    blockers: list[str]
    artifacts: list[dict[str, Any]]
    created_at: datetime


@dataclass(frozen=True)
class TopicExportRow:
    id: str
    namespace: str
    parent_id: str | None
    depth: int
    is_leaf: bool
    name: str
    keywords: list[str]
    member_ids: list[UUID]


@dataclass(frozen=True)
class ExtractionSettingsExportRow:
    namespace: str
    enabled: bool
    kinds: list[str]
    instructions: str | None
    updated_at: datetime


@dataclass(frozen=True)
class ExtractionRunExportRow:
    id: UUID
    id_proof: str
    namespace: str
    conversation_id: UUID | None
    seq_from: int | None
    seq_to: int | None
    input_text: str | None
    trigger: str
    dry_run: bool
    status: str
    reason: str | None
    attempts: int
    llm_calls: int
    llm_input_tokens: int
    llm_output_tokens: int
    summary_before: str | None
    summary_after: str | None
    summary_memory_id: UUID | None
    previous_summary_memory_id: UUID | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    undone_at: datetime | None
    actions: list[dict[str, Any]]

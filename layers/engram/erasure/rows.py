"""The typed rows erasure's store reads and writes: what goes with erased memories, the audit record,
a tenant's row counts. No SQL."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from engram.erasure.models import Cascade

# A consolidation action's before-image: JSON in, JSON out.
Image = dict[str, Any]


@dataclass(frozen=True)
class CopyCounts:
    """Rows that go with the erased memories and conversations, per ErasureCounts field."""

    versions: int
    chunks: int
    links: int
    documents: int
    document_pages: int
    uploads: int
    messages: int


@dataclass(frozen=True)
class TreeImage:
    """A topic-tree before-image (a rebuild's undo) of one consolidation action."""

    run_id: UUID
    seq: int
    before_image: dict[str, Any]


@dataclass(frozen=True)
class RetiredExport:
    id: UUID
    s3_key: str


@dataclass(frozen=True)
class TrashedMemory:
    tenant_id: UUID
    memory_id: UUID


@dataclass(frozen=True)
class NamedAction:
    """A consolidation action that names an erased memory, as it is before it loses their text."""

    run_id: UUID
    seq: int
    step: str
    action: str
    memory_ids: list[UUID]
    details: dict[str, Any]
    before_image: Image | None


@dataclass(frozen=True)
class NewErasure:
    """The audit record of one erasure, as it is written."""

    id: UUID
    scope: str
    actor: str
    key_id: UUID | None
    selector: dict[str, Any]
    dry_run: bool
    cascade: Cascade
    counts: dict[str, int]
    ids: dict[str, list[str]]
    namespaces: list[str] | None


@dataclass(frozen=True)
class TenantRows:
    """Rows of the transaction's tenant, per table that holds its data (a field per table, named as
    it): what the tenant's audit record keeps."""

    memories: int
    memory_versions: int
    chunks: int
    links: int
    documents: int
    document_pages: int
    document_uploads: int
    conversations: int
    messages: int
    consolidation_runs: int
    topics: int
    exports: int
    imports: int
    idempotency_keys: int
    api_keys: int
    task_runs: int
    task_checkpoints: int
    recall_events: int
    recall_feedback: int
    feedback_weights: int

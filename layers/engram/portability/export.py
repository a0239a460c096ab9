"""Export a tenant's data as a JSONL file through S3 (engram.portability.records says its format).

POST /v1/exports records a queued job and sends it to export-jobs; the export worker reads every
table in one repeatable-read snapshot through server-side cursors, writes the lines to a temporary
file (a big tenant never sits in memory) and uploads it (boto3 switches to a multipart upload past
8 MiB); GET /v1/exports/{id} then presigns a download of it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import IO, Any
from uuid import UUID

from aws_lambda_powertools import Logger

from engram.adapters import s3
from engram.adapters.queue import enqueue_export
from engram.core.db import Conn, reader_snapshot, tenant_transaction
from engram.core.errors import NotFound
from engram.core.idempotency import IdempotencyKey, remember, replay
from engram.portability import derivation_store, store, task_store
from engram.portability.bucket import CONTENT_TYPE, files_bucket
from engram.portability.models import ExportCounts, ExportCreate, ExportJob
from engram.portability.records import header_line, line
from engram.portability.rows import ExportRow, MemoryExportRow
from engram.portability.settings import portability_settings

logger = Logger()

EXPORTS_PREFIX = "exports/"
EXPORT_ATTEMPTS = 3  # deliveries of one export job before it is marked failed (a worker that keeps dying)


def export_key(tenant_id: UUID, export_id: UUID) -> str:
    return f"{EXPORTS_PREFIX}{tenant_id}/{export_id}.jsonl"


def _export_job(row: ExportRow) -> ExportJob:
    url, expires = None, None
    if row.status == "ready":
        expiry = portability_settings().export_url_expiry_s
        url = s3.client().generate_presigned_url(
            "get_object", ExpiresIn=expiry, Params={"Bucket": files_bucket(), "Key": row.s3_key}
        )
        expires = datetime.now(UTC) + timedelta(seconds=expiry)
    return ExportJob(
        id=row.id,
        status=row.status,
        namespace=row.namespace,
        counts=ExportCounts(**row.counts) if row.status == "ready" else None,
        bytes=row.bytes,
        error=row.error,
        download_url=url,
        expires_at=expires,
        created_at=row.created_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
    )


def create_export(tenant_id: UUID, req: ExportCreate, idempotency: IdempotencyKey | None = None) -> ExportJob:
    """A queued export job; a keyed retry gets the first answer and queues nothing."""
    files_bucket()
    with tenant_transaction(tenant_id) as conn:
        if (first := replay(conn, idempotency, ExportJob)) is not None:
            return first
        row = store.insert_export(conn, tenant_id, req.namespace, lambda export_id: export_key(tenant_id, export_id))
        queued = _export_job(row)
        remember(conn, idempotency, queued)
    if not enqueue_export(tenant_id, row.id):
        with tenant_transaction(tenant_id) as conn:
            store.settle_export(
                conn, row.id, counts=None, size=None, error="the export queue is unreachable: try again"
            )
            failed_row = store.export_row(conn, row.id)
            assert failed_row is not None
            failed = _export_job(failed_row)
            remember(conn, idempotency, failed)  # a retry is told what this answer says
        return failed
    return queued


def get_export(tenant_id: UUID, export_id: UUID) -> ExportJob:
    with tenant_transaction(tenant_id) as conn:
        row = store.export_row(conn, export_id)
    if row is None:
        raise NotFound(f"export {export_id} not found")
    return _export_job(row)


def _memory_line(row: MemoryExportRow) -> dict[str, Any]:
    document = None
    if row.document_tier is not None:
        document = {"tier": row.document_tier, "sha256": row.sha256, "chunks": row.chunks or []}
        if row.body is not None:
            document |= {"body": row.body, "content_type": row.content_type}
    return {
        "type": "memory",
        "id": row.id,
        "id_proof": row.id_proof,
        "namespace": row.namespace,
        "kind": row.kind,
        "layer": row.layer,
        "content": row.content,
        "importance": round(row.importance, 6),  # a `real`: 0.3 reads back as 0.30000001192...
        "tags": row.tags,
        "source": row.source,
        "metadata": row.metadata,
        "valid_from": row.valid_from,
        "valid_to": row.valid_to,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
        "last_accessed": row.last_accessed,
        "access_count": row.access_count,
        "repetition_count": row.repetition_count,
        "status": row.status,
        "deleted_at": row.deleted_at,
        "version": row.version,
        "versions": row.versions,
        "document": document,
        "evidence": row.evidence,
        "critical": row.critical,
        "conflict_key": row.conflict_key,
    }


def _plain_line(record_type: str, row: object) -> dict[str, Any]:
    """A row as its record: the row's fields are the record's (rows.py keeps them in the file's order)."""
    out: dict[str, Any] = {"type": record_type, **vars(row)}
    if record_type == "link":
        out["strength"] = round(out["strength"], 6)
    return out


# The records after the memories, in the file's order (an import reads them back in it): each with
# the ExportCounts field that counts it and the query that streams it.
_PLAIN_RECORDS: tuple[tuple[str, str, Callable[[Conn, str | None], Iterable[object]]], ...] = (
    ("link", "links", store.stream_links),
    ("conversation", "conversations", store.stream_conversations),
    ("message", "messages", store.stream_messages),
    ("task", "tasks", task_store.stream_tasks),
    ("checkpoint", "checkpoints", task_store.stream_checkpoints),
    ("topic", "topics", store.stream_topics),
    ("extraction_settings", "extraction_settings", derivation_store.stream_extraction_settings),
    ("extraction_run", "extraction_runs", derivation_store.stream_extraction_runs),
)


def write_export(
    tenant_id: UUID, namespace: str | None, out: IO[bytes], caught_up: Callable[[Conn], bool] | None = None
) -> ExportCounts:
    """The whole file into `out`, from one snapshot of the tenant's data: on the reader when there is
    one and it has replayed what `caught_up` looks for (the export's claim), else on the writer."""
    counts = ExportCounts()
    with reader_snapshot(tenant_id, caught_up) as conn:
        out.write(header_line(datetime.now(UTC), namespace, store.active_model(conn)))
        for memory in store.stream_memories(conn, namespace):
            out.write(line(_memory_line(memory)))
            counts.memories += 1
            counts.versions += len(memory.versions)
            counts.evidence += len(memory.evidence)
            counts.documents += memory.document_tier is not None
        for record_type, counted, stream in _PLAIN_RECORDS:
            n = 0
            for row in stream(conn, namespace):
                out.write(line(_plain_line(record_type, row)))
                n += 1
            setattr(counts, counted, n)
    return counts


def run_export(tenant_id: UUID, export_id: UUID) -> str:
    """The export worker's job; returns what happened (for logs and tests)."""
    with tenant_transaction(tenant_id) as conn:
        job = store.claim_export(conn, export_id)
    if job is None:
        return "duplicate"  # settled already (a repeated message), or not this tenant's
    if job.attempts > EXPORT_ATTEMPTS:  # earlier deliveries died mid-way (out of time or memory)
        with tenant_transaction(tenant_id) as conn:
            store.settle_export(
                conn,
                export_id,
                counts=None,
                size=None,
                error=f"the export did not finish in {EXPORT_ATTEMPTS} attempts: export one namespace at a time",
            )
        return "failed"
    try:
        with tempfile.TemporaryFile() as f:
            # The claim was committed after the request, and so after any erasure that came before it:
            # a snapshot that sees the claim cannot hold erased data.
            counts = write_export(
                tenant_id, job.namespace, f, lambda conn: store.export_claim_visible(conn, export_id, job.attempts)
            )
            size = f.tell()
            f.seek(0)
            s3.client().upload_fileobj(f, files_bucket(), job.s3_key, ExtraArgs={"ContentType": CONTENT_TYPE})
    except Exception:
        logger.exception("export failed", extra={"export_id": str(export_id)})
        with tenant_transaction(tenant_id) as conn:
            store.settle_export(
                conn, export_id, counts=None, size=None, error="the export could not be written: start a new one"
            )
        return "failed"
    with tenant_transaction(tenant_id) as conn:
        store.settle_export(conn, export_id, counts=counts.model_dump(), size=size, error=None)
    logger.info("export ready", extra={"export_id": str(export_id), "bytes": size, **counts.model_dump()})
    return "ready"

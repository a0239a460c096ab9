"""Jobs on SQS.

- embed-jobs: ingest enqueues chunk ids after commit; the embed worker drains them. A message
  names a tenant and up to `embed_batch_chunks` chunk ids. If sending fails after the rows are
  committed nothing is lost: the chunks stay pending (recall still finds them by keyword) and
  `engram backfill` re-enqueues them.
- export-jobs: one message per export, `{"tenant_id", "export_id"}`, sent after the job's row is
  committed; a job whose message could not be sent is marked failed at once (the caller starts
  another). A repeated message finds the export settled and does nothing.
- consolidate-jobs: one message per consolidation run, `{"tenant_id", "run_id"}`, sent after the
  run's row is committed (by the dispatcher, by POST /v1/consolidate, and by the worker for the
  continuation of a run that spent its time budget). A run whose message was lost stays
  `queued`; the dispatcher sends it again later. Sending a run twice is harmless: the worker
  never applies a step twice and acknowledges a finished run's message.
- extract-jobs: one message per window of a conversation's turns, `{"tenant_id", "conversation_id",
  "through_seq"}`, sent after the append (or the sweep) committed. A lost message leaves the turns
  unread and the sweep sends them again; a repeated one finds its run done and does nothing.
- upload-events: S3 sends the uploads bucket's ObjectCreated notifications here; an upload whose
  object arrived but was never ingested (its notification lost) gets it sent again. A repeated
  notification finds the upload settled and does nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any
from uuid import UUID

from aws_lambda_powertools import Logger

from engram.core.config import settings

logger = Logger()


@cache
def _sqs() -> Any:
    import boto3  # boto3 costs ~150 ms to import: only when a job is actually sent

    return boto3.client("sqs")


def embed_job_messages(tenant_id: UUID | str, chunk_ids: Sequence[UUID | str]) -> list[str]:
    size = settings().embed_batch_chunks
    ids = [str(c) for c in chunk_ids]
    return [json.dumps({"tenant_id": str(tenant_id), "chunk_ids": ids[i : i + size]}) for i in range(0, len(ids), size)]


def enqueue_embedding(tenant_id: UUID | str, chunk_ids: Sequence[UUID | str]) -> bool:
    """Send the jobs; False (logged) when the queue is not configured or unreachable."""
    if not chunk_ids:
        return True
    queue_url = settings().embed_queue_url
    if not queue_url:
        logger.warning("no embed queue configured; chunks stay pending", extra={"chunks": len(chunk_ids)})
        return False
    bodies = embed_job_messages(tenant_id, chunk_ids)
    try:
        for i in range(0, len(bodies), 10):  # SQS batch limit
            entries = [{"Id": str(n), "MessageBody": b} for n, b in enumerate(bodies[i : i + 10])]
            resp = _sqs().send_message_batch(QueueUrl=queue_url, Entries=entries)
            if resp.get("Failed"):
                raise RuntimeError(f"SQS refused {len(resp['Failed'])} messages")
    except Exception:  # any send failure: the chunks stay pending for backfill
        logger.exception("enqueue failed; chunks stay pending", extra={"chunks": len(chunk_ids)})
        return False
    return True


def consolidation_job_message(tenant_id: UUID | str, run_id: UUID | str) -> str:
    return json.dumps({"tenant_id": str(tenant_id), "run_id": str(run_id)})


def enqueue_consolidation(tenant_id: UUID | str, run_id: UUID | str) -> bool:
    """Send one run to consolidate-jobs; False (logged) when the queue is not configured or unreachable."""
    return not enqueue_consolidations([(tenant_id, run_id)])


def enqueue_consolidations(runs: Iterable[tuple[UUID | str, UUID | str]]) -> list[str]:
    """Send (tenant id, run id) pairs, ten per SQS call; returns the run ids that were not sent."""
    jobs = [(str(t), str(r)) for t, r in runs]
    if not jobs:
        return []
    queue_url = settings().consolidate_queue_url
    if not queue_url:
        logger.warning("no consolidate queue configured; runs stay queued", extra={"runs": len(jobs)})
        return [r for _, r in jobs]
    unsent: list[str] = []
    for i in range(0, len(jobs), 10):  # SQS batch limit
        part = jobs[i : i + 10]
        entries = [{"Id": str(n), "MessageBody": consolidation_job_message(t, r)} for n, (t, r) in enumerate(part)]
        try:
            resp = _sqs().send_message_batch(QueueUrl=queue_url, Entries=entries)
            unsent += [part[int(f["Id"])][1] for f in resp.get("Failed", [])]
        except Exception:  # the runs stay queued; the dispatcher sends them again
            logger.exception("enqueue failed; runs stay queued", extra={"runs": len(part)})
            unsent += [r for _, r in part]
    return unsent


def extraction_job_message(tenant_id: UUID | str, conversation_id: UUID | str, through_seq: int) -> str:
    return json.dumps(
        {"tenant_id": str(tenant_id), "conversation_id": str(conversation_id), "through_seq": through_seq}
    )


def enqueue_extractions(jobs: Iterable[tuple[UUID | str, UUID | str, int]]) -> int:
    """Send (tenant, conversation, through_seq) jobs, ten per SQS call; returns how many were sent (the
    rest stay unread and the sweep sends them again)."""
    bodies = [extraction_job_message(t, c, s) for t, c, s in jobs]
    queue_url = settings().extract_queue_url
    if not bodies or not queue_url:
        return 0
    sent = 0
    for i in range(0, len(bodies), 10):  # SQS batch limit
        entries = [{"Id": str(n), "MessageBody": b} for n, b in enumerate(bodies[i : i + 10])]
        try:
            resp = _sqs().send_message_batch(QueueUrl=queue_url, Entries=entries)
            sent += len(entries) - len(resp.get("Failed", []))
        except Exception:
            logger.exception("enqueue failed; the sweep sends these turns again", extra={"jobs": len(entries)})
    return sent


def enqueue_export(tenant_id: UUID | str, export_id: UUID | str) -> bool:
    """Send one export job; False (logged) when the queue is not configured or unreachable."""
    queue_url = settings().export_queue_url
    if not queue_url:
        logger.warning("no export queue configured", extra={"export_id": str(export_id)})
        return False
    try:
        _sqs().send_message(
            QueueUrl=queue_url, MessageBody=json.dumps({"tenant_id": str(tenant_id), "export_id": str(export_id)})
        )
    except Exception:
        logger.exception("enqueue failed", extra={"export_id": str(export_id)})
        return False
    return True


def resend_object_created(bucket: str, key: str, size: int, etag: str) -> bool:
    """Send an object's ObjectCreated notification to upload-events again, as S3 sent it; False
    (logged) when the queue is not configured or unreachable."""
    from engram.adapters.s3 import object_created_record

    queue_url = settings().upload_events_queue_url
    if not queue_url:
        logger.warning("no upload-events queue configured", extra={"key": key})
        return False
    body = json.dumps({"Records": [object_created_record(bucket, key, size, etag)]})
    try:
        _sqs().send_message(QueueUrl=queue_url, MessageBody=body)
    except Exception:
        logger.exception("could not send the notification again", extra={"key": key})
        return False
    return True

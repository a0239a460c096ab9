"""Embedding jobs on SQS: ingest enqueues chunk ids after commit; the embed worker drains them.

A message names a tenant and up to `embed_batch_chunks` chunk ids. If sending fails after the
rows are committed nothing is lost: the chunks stay pending (recall still finds them by
keyword) and `engram backfill` re-enqueues them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
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
    return [
        json.dumps({"tenant_id": str(tenant_id), "chunk_ids": ids[i : i + size]})
        for i in range(0, len(ids), size)
    ]


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

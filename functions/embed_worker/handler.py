"""SQS consumer: fills chunk vectors. Partial-batch responses: one bad message never holds the rest."""

from __future__ import annotations

from collections import defaultdict
from typing import Any
from uuid import UUID

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.parser.models import SqsRecordModel
from pydantic import BaseModel, Field, Json, ValidationError

from engram.adapters.embeddings.factory import embedder_from_env
from engram.indexing.vectors import embed_chunks
from engram.topics.service import assign_new_memories

logger = Logger()


class EmbedJob(BaseModel):
    tenant_id: UUID
    chunk_ids: list[UUID] = Field(min_length=1, max_length=500)


class EmbedJobRecord(SqsRecordModel):
    """An embed-jobs message: the SQS record, its body parsed as an EmbedJob (a bad body fails the record)."""

    body: Json[EmbedJob]


processor = BatchProcessor(event_type=EventType.SQS, model=EmbedJobRecord)


def embed_ahead(event: dict[str, Any]) -> None:
    """One embedding call per tenant for the whole SQS batch: bigger model batches, fewer
    transactions. Best effort: the per-record pass then finds those chunks done, and settles
    whatever is left record by record, with its own failures."""
    by_tenant: dict[UUID, list[UUID]] = defaultdict(list)
    for raw in event.get("Records", []):
        try:
            job = EmbedJobRecord.model_validate(raw).body
        except ValidationError:
            continue  # reported by the per-record pass
        by_tenant[job.tenant_id].extend(job.chunk_ids)
    for tenant_id, chunk_ids in by_tenant.items():
        try:
            embed_chunks(tenant_id, chunk_ids, embedder_from_env())
        except Exception as exc:  # retried per record below
            logger.warning("batch embedding failed; settling record by record", extra={"error": str(exc)})
            continue
        place_in_topics(tenant_id, chunk_ids)


def place_in_topics(tenant_id: UUID, chunk_ids: list[UUID]) -> None:
    """New memories join their namespace's topic tree (nearest leaf, else a leaf of their own). Best
    effort: the next consolidation rebuilds the tree with them anyway, so a failure only logs."""
    try:
        assign_new_memories(tenant_id, chunk_ids)
    except Exception as exc:
        logger.warning("topic assignment failed; the next rebuild places them", extra={"error": str(exc)})


def embed_record(record: EmbedJobRecord) -> int:
    written = embed_chunks(record.body.tenant_id, record.body.chunk_ids, embedder_from_env())
    if written:
        place_in_topics(record.body.tenant_id, record.body.chunk_ids)
    return written


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse:
    embed_ahead(event)
    return process_partial_response(event=event, record_handler=embed_record, processor=processor, context=context)

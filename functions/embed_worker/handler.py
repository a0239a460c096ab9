"""SQS consumer: fills chunk vectors. Partial-batch responses: one bad message never holds the rest."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from pydantic import BaseModel, Field

from engram.embeddings.factory import embedder_from_env
from engram.vectors import embed_chunks

logger = Logger()
processor = BatchProcessor(event_type=EventType.SQS)


class EmbedJob(BaseModel):
    tenant_id: UUID
    chunk_ids: list[UUID] = Field(min_length=1, max_length=500)


def embed_record(record: SQSRecord) -> int:
    job = EmbedJob.model_validate_json(record.body)
    written = embed_chunks(job.tenant_id, job.chunk_ids, embedder_from_env())
    logger.debug("embedded", extra={"tenant_id": str(job.tenant_id), "written": written})
    return written


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return process_partial_response(event=event, record_handler=embed_record, processor=processor, context=context)

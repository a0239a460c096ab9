"""SQS extract-jobs -> one window of a conversation's unread turns per message (batch size 1); the
work is engram.extraction.service.run_job.

Partial-batch responses: a message whose model call failed (late, overloaded, malformed) or whose
window another worker holds comes back after the visibility timeout, so retries back off; the run
records each attempt and fails after ENGRAM_EXTRACTION_MAX_ATTEMPTS (the turns stay, verbatim).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from pydantic import BaseModel, Field

from engram.adapters.embeddings.factory import embedder_from_env
from engram.extraction.service import run_job

logger = Logger()
processor = BatchProcessor(event_type=EventType.SQS)


class ExtractionJob(BaseModel):
    tenant_id: UUID
    conversation_id: UUID
    through_seq: int = Field(ge=1)


def extract_record(record: SQSRecord) -> str:
    job = ExtractionJob.model_validate_json(record.body)
    outcome = run_job(job.tenant_id, job.conversation_id, job.through_seq, embedder_from_env())
    logger.info("extraction job", extra={"conversation_id": str(job.conversation_id), "outcome": outcome})
    return outcome


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=extract_record, processor=processor, context=context)

"""SQS consolidate-jobs -> one consolidation cycle per message (batch size 1); the work is
engram.consolidation.dispatch.work_on_run.

Partial-batch responses: a message whose cycle raised is returned for retry alone, and after the
queue's maxReceiveCount lands in the dead-letter queue (its run marked failed). Each cycle logs
one "consolidation cycle" line with its status; the CDK app counts failed ones (an alarm).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from pydantic import BaseModel

from engram.consolidation.dispatch import work_on_run

logger = Logger()
processor = BatchProcessor(event_type=EventType.SQS)


class ConsolidationJob(BaseModel):
    tenant_id: UUID
    run_id: UUID


def consolidate_record(record: SQSRecord, lambda_context: Any = None) -> str:
    job = ConsolidationJob.model_validate_json(record.body)
    remaining = lambda_context.get_remaining_time_in_millis() / 1000 if lambda_context is not None else None
    receives = int(record.attributes.approximate_receive_count or 1)
    return work_on_run(job.tenant_id, job.run_id, remaining_s=remaining, receive_count=receives).status


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse:
    return process_partial_response(
        event=event, record_handler=consolidate_record, processor=processor, context=context
    )

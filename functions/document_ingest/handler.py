"""S3 ObjectCreated -> ingest the uploaded document; engram.documents.uploads does the work.

In AWS the events arrive through SQS (retries, a DLQ): Powertools partial-batch responses settle
each message on its own, parsed with Powertools' S3-through-SQS notification model. A direct S3
notification (async invoke) is accepted too. A rejected object fails its upload with the reason
and is deleted; an infrastructure error raises, so the event is retried.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.parser.models import S3Model

from engram.adapters.s3_events import ObjectNotification, created_objects
from engram.documents.uploads import ingest_object

logger = Logger()

processor = BatchProcessor(event_type=EventType.SQS, model=ObjectNotification)


def ingest_message(record: ObjectNotification) -> list[str]:
    return [ingest_object(bucket, key) for bucket, key in created_objects(record.body)]


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse | dict[str, list[str]]:
    records = event.get("Records") or []
    if records and records[0].get("eventSource") == "aws:sqs":
        return process_partial_response(
            event=event, record_handler=ingest_message, processor=processor, context=context
        )
    return {"outcomes": [ingest_object(bucket, key) for bucket, key in created_objects(S3Model.model_validate(event))]}

"""S3 ObjectCreated under imports/ (through SQS) -> import the file; engram.portability.service does the work.

Partial-batch responses settle each message on its own. A file that cannot be imported fails its job
with the reason (and its refused lines); an infrastructure error raises, so the event is retried and
the import, which kept nothing, starts again.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse

from engram.adapters.s3_events import ObjectNotification, created_objects
from engram.portability.service import import_object

logger = Logger()
processor = BatchProcessor(event_type=EventType.SQS, model=ObjectNotification)


def import_message(record: ObjectNotification) -> list[str]:
    return [import_object(bucket, key) for bucket, key in created_objects(record.body)]


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=import_message, processor=processor, context=context)

"""S3 ObjectCreated -> ingest the uploaded document; engram.documents.uploads does the work.

In AWS the events arrive through SQS (retries, a DLQ): Powertools partial-batch responses settle
each message on its own, parsed with Powertools' S3-through-SQS notification model. A direct S3
notification (async invoke) is accepted too. A rejected object fails its upload with the reason
and is deleted; an infrastructure error raises, so the event is retried.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import unquote_plus

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.parser.models import S3Model, S3SqsEventNotificationRecordModel
from pydantic import BaseModel, Json

from engram.documents.uploads import ingest_object

logger = Logger()


class S3TestEvent(BaseModel):
    """What S3 sends once when the notification is configured: nothing to ingest."""

    Event: Literal["s3:TestEvent"]


class UploadNotification(S3SqsEventNotificationRecordModel):
    """An uploads-queue message: S3's notification (a bad body fails the record), or its test event."""

    body: Json[S3Model | S3TestEvent]  # type: ignore[assignment]


processor = BatchProcessor(event_type=EventType.SQS, model=UploadNotification)


def created_objects(notification: S3Model | S3TestEvent) -> list[tuple[str, str]]:
    """(bucket, key) of every ObjectCreated record; S3 URL-encodes keys in notifications."""
    if isinstance(notification, S3TestEvent):
        return []
    return [
        (r.s3.bucket.name, unquote_plus(r.s3.object.key))
        for r in notification.Records
        if r.eventName.startswith("ObjectCreated") and r.s3.object is not None
    ]


def ingest_message(record: UploadNotification) -> list[str]:
    return [ingest_object(bucket, key) for bucket, key in created_objects(record.body)]


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse | dict[str, list[str]]:
    records = event.get("Records") or []
    if records and records[0].get("eventSource") == "aws:sqs":
        return process_partial_response(
            event=event, record_handler=ingest_message, processor=processor, context=context
        )
    return {"outcomes": [ingest_object(bucket, key) for bucket, key in created_objects(S3Model.model_validate(event))]}

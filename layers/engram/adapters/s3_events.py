"""S3 ObjectCreated notifications as functions receive them through SQS (document_ingest, import_worker).

Parsed with Powertools' S3-through-SQS notification model: a bad body fails its record. S3's one-off
test event (sent when the notification is configured) parses and names no object.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import unquote_plus

from aws_lambda_powertools.utilities.parser.models import S3Model, S3SqsEventNotificationRecordModel
from pydantic import BaseModel, Json


class S3TestEvent(BaseModel):
    """What S3 sends once when the notification is configured: nothing to ingest."""

    Event: Literal["s3:TestEvent"]


class ObjectNotification(S3SqsEventNotificationRecordModel):
    """A queue message: S3's notification (a bad body fails the record), or its test event."""

    body: Json[S3Model | S3TestEvent]  # type: ignore[assignment]


def created_objects(notification: S3Model | S3TestEvent) -> list[tuple[str, str]]:
    """(bucket, key) of every ObjectCreated record; S3 URL-encodes keys in notifications."""
    if isinstance(notification, S3TestEvent):
        return []
    return [
        (r.s3.bucket.name, unquote_plus(r.s3.object.key))
        for r in notification.Records
        if r.eventName.startswith("ObjectCreated") and r.s3.object is not None
    ]

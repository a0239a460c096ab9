"""S3 ObjectCreated (direct, or through SQS) -> ingest the uploaded document; engram.uploads does the work.

Each record is settled on its own: a rejected object fails its upload (with the reason) and is
deleted; an infrastructure error raises so the event is retried (SQS: that message only).
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger

from engram.uploads import ingest_object, s3_records

logger = Logger(service="engram")


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    failures: list[dict[str, str]] = []
    outcomes: list[str] = []
    for record in event.get("Records", []):
        try:
            for bucket, key in s3_records({"Records": [record]}):
                outcomes.append(ingest_object(bucket, key))
        except Exception:
            logger.exception("document ingest failed; the event will be retried")
            if record.get("eventSource") != "aws:sqs":
                raise
            failures.append({"itemIdentifier": record["messageId"]})
    return {"batchItemFailures": failures, "outcomes": outcomes}

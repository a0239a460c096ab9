"""S3: the client the document uploads use (presigned PUTs, HEAD/GET of uploaded objects)."""

from __future__ import annotations

from functools import cache
from typing import Any

from aws_lambda_powertools import Logger

logger = Logger()


@cache
def client() -> Any:
    import boto3  # only when an upload is presigned or ingested
    from botocore.config import Config

    return boto3.client("s3", config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))


def delete_object(bucket: str, key: str) -> None:
    """Best effort: the bucket's lifecycle rule removes whatever this could not."""
    try:
        client().delete_object(Bucket=bucket, Key=key)
    except Exception:
        logger.exception("could not delete uploaded object", extra={"key": key})

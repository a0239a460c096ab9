"""S3: the client the document uploads use (presigned PUTs, HEAD/GET of uploaded objects)."""

from __future__ import annotations

import time
from functools import cache
from typing import Any, Literal

from aws_lambda_powertools import Logger

from engram.core.config import settings

logger = Logger()


@cache
def client() -> Any:
    """Signs presigned URLs for the bucket's own Region: SigV4 on the virtual host
    `<bucket>.s3.<region>.amazonaws.com` (us-east-1 included), as AWS recommends. A URL on the
    global endpoint fails outside us-east-1 (a redirect that neither the signature nor a browser's
    CORS request survives), and botocore reads only AWS_DEFAULT_REGION, not the AWS_REGION of the
    settings. An endpoint override (the local stand-in) is addressed by path: `<bucket>.127.0.0.1`
    resolves nowhere."""
    import boto3  # only when an upload is presigned or ingested
    from botocore.config import Config

    s = settings()
    style: Literal["path", "virtual"] = "path" if s.s3_endpoint_url else "virtual"
    config = Config(signature_version="s3v4", s3={"addressing_style": style, "us_east_1_regional_endpoint": "regional"})
    return boto3.client("s3", region_name=s.aws_region, config=config)


def delete_object(bucket: str, key: str) -> None:
    """Best effort: the bucket's lifecycle rule removes whatever this could not."""
    try:
        client().delete_object(Bucket=bucket, Key=key)
    except Exception:
        logger.exception("could not delete uploaded object", extra={"key": key})


def head_object(bucket: str, key: str) -> dict[str, Any] | None:
    """The object's HEAD (ContentLength, ETag, ...), or None when there is no such object. Any other
    error (no permission, S3 unreachable) raises: the caller cannot tell whether the object is there."""
    from botocore.exceptions import ClientError

    try:
        head: dict[str, Any] = client().head_object(Bucket=bucket, Key=key)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
            return None
        raise
    return head


def object_created_record(
    bucket: str, key: str, size: int, etag: str, event_name: str = "ObjectCreated:Put"
) -> dict[str, Any]:
    """One S3 event notification record in the shape AWS documents, every field it always sends
    included (Powertools' S3 notification model requires them); the key URL-encoded, as S3 sends it."""
    from urllib.parse import quote_plus

    region = settings().aws_region or "us-east-1"
    return {
        "eventVersion": "2.1",
        "eventSource": "aws:s3",
        "awsRegion": region,
        "eventTime": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
        "eventName": event_name,
        "userIdentity": {"principalId": "AWS:ENGRAM"},
        "requestParameters": {"sourceIPAddress": "127.0.0.1"},
        "responseElements": {"x-amz-request-id": "ENGRAM", "x-amz-id-2": "ENGRAM"},
        "s3": {
            "s3SchemaVersion": "1.0",
            "configurationId": "uploads",
            "bucket": {"name": bucket, "arn": f"arn:aws:s3:::{bucket}", "ownerIdentity": {"principalId": "ENGRAM"}},
            "object": {"key": quote_plus(key), "size": size, "eTag": etag},
        },
    }

"""S3: the client the document uploads use (presigned PUTs, HEAD/GET of uploaded objects)."""

from __future__ import annotations

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

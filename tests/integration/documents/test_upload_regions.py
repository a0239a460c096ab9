"""Presigned uploads as a deployment signs them (no endpoint override), for a bucket outside
us-east-1: the URL names the bucket's own regional virtual host, and a PUT of the document to that
host with the ticket's headers lands in the bucket. The local moto server answers for S3: it is
sent the URL's path and query under the URL's Host, as DNS would route it to the bucket's Region."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote, urlsplit

import boto3
import pytest
import requests


@pytest.fixture
def bucket_in_region(stack: Any, request: pytest.FixtureRequest) -> Iterator[tuple[str, str, Any, str]]:
    """The deployed setting of one Region: AWS_REGION (and boto3's AWS_DEFAULT_REGION when the
    parameter says so), the uploads bucket created there, no endpoint override. Yields the Region,
    the bucket, a client of it, and the moto server's address."""
    region, variables = request.param
    bucket = f"engram-test-uploads-{region}"
    moto = stack.aws.s3().meta.endpoint_url
    bucket_s3 = boto3.client("s3", region_name=region, endpoint_url=moto)
    bucket_s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": region})
    with pytest.MonkeyPatch.context() as env:
        for name in ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_REGION", "AWS_DEFAULT_REGION"):
            env.delenv(name, raising=False)
        for name in variables:
            env.setenv(name, region)
        env.setenv("ENGRAM_UPLOADS_BUCKET", bucket)
        stack.refresh_settings()
        try:
            yield region, bucket, bucket_s3, moto
        finally:
            for listed in bucket_s3.list_objects_v2(Bucket=bucket).get("Contents", []):
                bucket_s3.delete_object(Bucket=bucket, Key=listed["Key"])
            bucket_s3.delete_bucket(Bucket=bucket)
    stack.refresh_settings()  # back to the local stack's moto server


@pytest.mark.parametrize(
    "bucket_in_region",
    [
        ("eu-west-1", ["AWS_REGION", "AWS_DEFAULT_REGION"]),
        ("eu-west-1", ["AWS_REGION"]),
        ("eu-north-1", ["AWS_REGION"]),
    ],
    indirect=True,
    ids=["eu-west-1-as-lambda", "eu-west-1-aws-region-only", "eu-north-1-aws-region-only"],
)
def test_a_presigned_upload_names_the_buckets_regional_host_and_the_put_lands(api, bucket_in_region):
    region, bucket, bucket_s3, moto = bucket_in_region
    body = b"# Field notes\n\nThe harbor signal was copper-coloured at dawn.\n"
    ticket = api.post("/v1/documents/uploads", {"size_bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()})
    assert ticket.status == 201, ticket.body
    url = urlsplit(ticket.body["url"])
    assert (url.scheme, url.netloc) == ("https", f"{bucket}.s3.{region}.amazonaws.com")
    key = url.path.lstrip("/")
    assert key.startswith("uploads/")  # virtual-hosted: the path is the key alone, no bucket
    # SigV4, scoped to the bucket's Region (a global-endpoint URL signed for us-east-1 fails there).
    assert f"/{region}/s3/aws4_request" in unquote(url.query)

    put = requests.put(
        f"{moto}{url.path}?{url.query}",
        data=body,
        headers={**ticket.body["headers"], "Host": url.netloc},
        timeout=30,
        allow_redirects=False,
    )
    assert put.status_code == 200, (put.status_code, put.headers, put.text)
    stored = bucket_s3.get_object(Bucket=bucket, Key=key)
    assert stored["Body"].read() == body
    assert stored["ContentType"] == ticket.body["headers"]["Content-Type"]

"""The console's Content-Security-Policy allows the browser to PUT exactly where presigned upload
URLs point: checked against URLs signed by a real S3 client, configured as the documents one is."""

from __future__ import annotations

from urllib.parse import urlsplit

import boto3
import pytest
from botocore.config import Config

from engram.core import config
from engram_http import console


def presigned_origin() -> str:
    # The same client configuration as engram.adapters.s3.client (signature v4, path-style).
    client = boto3.client("s3", config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))
    url = client.generate_presigned_url("put_object", Params={"Bucket": "engram-dev-uploads", "Key": "uploads/t/u"})
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


@pytest.fixture
def aws_without_endpoint(monkeypatch):
    for name in ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setattr(console, "settings", config.Settings)  # read afresh, not the process's cached settings
    return monkeypatch


@pytest.mark.parametrize("region", ["us-east-1", "eu-west-1", "ap-southeast-2"])
def test_the_policy_allows_where_aws_presigned_urls_point(aws_without_endpoint, region):
    aws_without_endpoint.setenv("AWS_REGION", region)
    aws_without_endpoint.setenv("AWS_DEFAULT_REGION", region)
    assert presigned_origin() in console.upload_origins()
    policy = console.content_security_policy(console.upload_origins())
    connect = next(d for d in policy.split("; ") if d.startswith("connect-src "))
    assert presigned_origin() in connect.split()[1:]


def test_an_endpoint_override_is_the_only_upload_origin(aws_without_endpoint):
    aws_without_endpoint.setenv("AWS_REGION", "us-east-1")
    aws_without_endpoint.setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:5123")
    assert console.upload_origins() == ["http://127.0.0.1:5123"] == [presigned_origin()]
    assert "connect-src 'self' http://127.0.0.1:5123;" in console.content_security_policy(console.upload_origins())

"""The console's Content-Security-Policy allows the browser to PUT exactly where presigned upload
URLs point: checked against URLs signed by the documents' own S3 client (engram.adapters.s3)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from engram.adapters import s3
from engram.core import config
from engram_http import console

BUCKET = "engram-dev-uploads"


def presigned_origin() -> str:
    s3.client.cache_clear()  # built afresh from this test's environment
    url = s3.client().generate_presigned_url("put_object", Params={"Bucket": BUCKET, "Key": "uploads/t/u"})
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


@pytest.fixture
def aws_without_endpoint(monkeypatch):
    for name in ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("ENGRAM_UPLOADS_BUCKET", BUCKET)
    # Settings read afresh from this environment, not the process's cached ones.
    monkeypatch.setattr(console, "settings", config.Settings)
    monkeypatch.setattr(s3, "settings", config.Settings)
    yield monkeypatch
    s3.client.cache_clear()  # the next user gets a client of the process's own settings


@pytest.mark.parametrize("region", ["us-east-1", "eu-west-1", "ap-southeast-2"])
@pytest.mark.parametrize("variable", ["AWS_REGION", "AWS_DEFAULT_REGION"])
def test_the_policy_allows_where_aws_presigned_urls_point(aws_without_endpoint, region, variable):
    aws_without_endpoint.setenv(variable, region)
    assert presigned_origin() == f"https://{BUCKET}.s3.{region}.amazonaws.com"
    assert console.upload_origins() == [presigned_origin()]
    policy = console.content_security_policy(console.upload_origins())
    connect = next(d for d in policy.split("; ") if d.startswith("connect-src "))
    assert presigned_origin() in connect.split()[1:]


def test_an_endpoint_override_is_the_only_upload_origin(aws_without_endpoint):
    aws_without_endpoint.setenv("AWS_REGION", "us-east-1")
    aws_without_endpoint.setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:5123")
    assert console.upload_origins() == ["http://127.0.0.1:5123"] == [presigned_origin()]
    assert "connect-src 'self' http://127.0.0.1:5123;" in console.content_security_policy(console.upload_origins())


def test_without_an_uploads_bucket_the_page_connects_to_its_own_api_only(aws_without_endpoint):
    aws_without_endpoint.delenv("ENGRAM_UPLOADS_BUCKET")
    assert console.upload_origins() == []
    assert "connect-src 'self';" in console.content_security_policy(console.upload_origins())

"""Events are parsed at the edge with Powertools' models: the authorizer's v2 event and simple
response, SQS records with typed JSON bodies (embed jobs, S3 notifications through SQS)."""

from __future__ import annotations

import json

from engram_local.aws import s3_notification_record, sqs_record
from engram_local.lambda_runtime import invoke


def _authorizer_event(authorization: str) -> dict:
    return {
        "version": "2.0",
        "type": "REQUEST",
        "routeKey": "GET /v1/stats",
        "rawPath": "/v1/stats",
        "rawQueryString": "",
        "routeArn": "arn:aws:execute-api:us-east-1:000000000000:api/$default/GET/v1/stats",
        "identitySource": [authorization],
        "headers": {"authorization": authorization},
        "requestContext": {"http": {"method": "GET", "path": "/v1/stats"}},
    }


def test_the_authorizer_answers_a_simple_response_with_the_callers_context(stack, tenant) -> None:
    ok = invoke("authorizer", _authorizer_event(f"Bearer {tenant.key}"))
    assert ok["isAuthorized"] is True
    assert ok["context"]["tenant_id"] == tenant.id and ok["context"]["scopes"] == "admin read write"
    for bad in ("Bearer egk_not-a-key", "Basic abc", "Bearer"):
        refused = invoke("authorizer", _authorizer_event(bad))
        no_tenant = {
            "tenant_id": "",
            "key_id": "",
            "scopes": "",
            "grant_id": "",
            "namespaces": "",
            "key_check": "authorizer",
        }
        assert refused == {"isAuthorized": True, "context": no_tenant}, bad


def test_upload_notifications_settle_per_record(stack) -> None:
    test_event = json.dumps({"Service": "Amazon S3", "Event": "s3:TestEvent", "Bucket": stack.uploads_bucket})
    not_ours = json.dumps(
        {"Records": [s3_notification_record("other-bucket", "elsewhere/x", 1, "e", event_name="ObjectRemoved:Delete")]}
    )
    event = {
        "Records": [
            sqs_record("test", test_event, "uploads"),
            sqs_record("garbage", "{not json", "uploads"),
            sqs_record("not-s3", json.dumps({"hello": "world"}), "uploads"),
            sqs_record("removed", not_ours, "uploads"),
        ]
    }
    result = invoke("document_ingest", event)
    assert result == {"batchItemFailures": [{"itemIdentifier": "garbage"}, {"itemIdentifier": "not-s3"}]}

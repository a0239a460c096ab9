"""Functions the route table will grow get their wiring from infra/profiles.py alone."""

from __future__ import annotations

from infra.profiles import UPLOAD_EVENTS_QUEUE
from infra.storage import UPLOADS_PREFIX


def _actions(statements) -> set[str]:
    found: set[str] = set()
    for st in statements:
        found |= {st["Action"]} if isinstance(st["Action"], str) else set(st["Action"])
    return found


def test_new_routes_appear_with_their_functions(future):
    keys = {r["Properties"]["RouteKey"] for r in future.resources("AWS::ApiGatewayV2::Route").values()}
    assert {"POST /v1/documents", "GET /v1/topics", "POST /v1/memories/{memory_id}/query"} <= keys
    for name in (
        "documents",
        "topics",
        "widgets",
        "document_ingest",
        "consolidation_dispatcher",
        "consolidation_worker",
    ):
        assert name in future.stack.functions.functions


def test_unknown_function_gets_database_access_only(future):
    actions = _actions(future.role_statements("widgets"))
    assert actions <= {
        "secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret",
        "xray:PutTraceSegments", "xray:PutTelemetryRecords",
    }  # fmt: skip


def test_documents_may_only_put_and_head_under_uploads(future):
    statements = future.role_statements("documents")
    s3 = [st for st in statements if any(a.startswith("s3:") for a in _actions([st]))]
    # PutObject signs the presigned PUT; GetObject lets a late GET of an upload HEAD its object.
    assert _actions(s3) == {"s3:PutObject", "s3:GetObject"}
    assert all(UPLOADS_PREFIX + "*" in str(st["Resource"]) for st in s3)


def test_documents_may_resend_an_uploads_notification(future):
    """Only to upload-events (an object that arrived but was never ingested), and it knows the queue."""
    function = future.json["Resources"][future.function_logical_id("documents")]
    variables = function["Properties"]["Environment"]["Variables"]
    assert "ENGRAM_UPLOAD_EVENTS_QUEUE_URL" in variables
    sends = [st for st in future.role_statements("documents") if "sqs:SendMessage" in _actions([st])]
    queues = {str(st["Resource"]) for st in sends}
    assert any("UploadEvents" in q for q in queues) and all("Consolidate" not in q for q in queues)


def test_document_ingest_gets_uploads_through_a_queue(future):
    (notifications,) = future.resources("Custom::S3BucketNotifications").values()
    every = notifications["Properties"]["NotificationConfiguration"]["QueueConfigurations"]
    config = [c for c in every if c["Filter"]["Key"]["FilterRules"] == [{"Name": "prefix", "Value": UPLOADS_PREFIX}]]
    assert len(config) == 1  # (imports/ notifies the import worker's queue: tests/infra/test_infra_portability.py)
    assert config[0]["Events"] == ["s3:ObjectCreated:*"]
    queue_id = config[0]["QueueArn"]["Fn::GetAtt"][0]
    queue = future.json["Resources"][queue_id]["Properties"]
    assert queue["QueueName"] == f"engram-prod-{UPLOAD_EVENTS_QUEUE}" and "RedrivePolicy" in queue
    (mapping,) = [
        m
        for m in future.resources("AWS::Lambda::EventSourceMapping").values()
        if m["Properties"]["FunctionName"] == {"Ref": future.function_logical_id("document_ingest")}
    ]
    assert mapping["Properties"]["EventSourceArn"] == {"Fn::GetAtt": [queue_id, "Arn"]}
    assert mapping["Properties"]["BatchSize"] == 1
    s3_actions = {a for a in _actions(future.role_statements("document_ingest")) if a.startswith("s3:")}
    assert s3_actions == {"s3:GetObject", "s3:DeleteObject"}


def test_consolidation_runs_on_a_schedule_through_its_own_queue(future):
    (schedule,) = future.resources("AWS::Scheduler::Schedule").values()
    assert schedule["Properties"]["ScheduleExpression"] == "rate(1 hour)"  # prod's setting
    assert schedule["Properties"]["Target"]["Arn"] == {
        "Fn::GetAtt": [future.function_logical_id("consolidation_dispatcher"), "Arn"]
    }
    names = {q["Properties"]["QueueName"] for q in future.resources("AWS::SQS::Queue").values()}
    assert {"engram-prod-consolidate-jobs", "engram-prod-consolidate-jobs-dlq"} <= names
    mappings = [
        m
        for m in future.resources("AWS::Lambda::EventSourceMapping").values()
        if m["Properties"]["FunctionName"] == {"Ref": future.function_logical_id("consolidation_worker")}
    ]
    assert len(mappings) == 1 and mappings[0]["Properties"]["BatchSize"] == 1
    assert "sqs:SendMessage" in _actions(future.role_statements("consolidation_dispatcher"))

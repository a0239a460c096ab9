"""Exports and imports in the CDK app: the routes on their function behind the authorizer, the export
worker on its own queue, the import worker on the imports/ ObjectCreated notifications, each role
limited to its prefix of the uploads bucket, and the lifecycle that expires the files."""

from __future__ import annotations

from engram_http.route_table import ROUTES
from infra.profiles import EXPORT_QUEUE, EXPORTS_PREFIX, IMPORT_EVENTS_QUEUE, IMPORTS_PREFIX

PORTABILITY_ROUTES = {
    "POST /v1/exports",
    "GET /v1/exports/{export_id}",
    "POST /v1/imports",
    "GET /v1/imports/{import_id}",
}


def _as_list(value):
    return value if isinstance(value, list) else [value]


def _object_grants(synth, function: str) -> dict[str, set[str]]:
    """The S3 actions a function's role has, by the key pattern they apply to."""
    grants: dict[str, set[str]] = {}
    for st in synth.role_statements(function):
        actions = [a for a in _as_list(st["Action"]) if a.startswith("s3:")]
        for resource in _as_list(st["Resource"]):
            pattern = resource["Fn::Join"][1][-1] if isinstance(resource, dict) and "Fn::Join" in resource else resource
            grants.setdefault(str(pattern), set()).update(actions)
    return {k: v for k, v in grants.items() if v}


def _queue(synth, name: str) -> str:
    (queue_id,) = [k for k, q in synth.resources("AWS::SQS::Queue").items() if q["Properties"]["QueueName"] == name]
    return queue_id


def _mapping(synth, function: str) -> dict:
    (mapping,) = [
        m["Properties"]
        for m in synth.resources("AWS::Lambda::EventSourceMapping").values()
        if m["Properties"]["FunctionName"] == {"Ref": synth.function_logical_id(function)}
    ]
    return mapping


def _function(synth, function: str) -> dict:
    return synth.json["Resources"][synth.function_logical_id(function)]["Properties"]


def test_the_routes_go_to_the_portability_function_behind_the_authorizer(dev):
    assert {f"{r.method} {r.path}" for r in ROUTES if r.function == "portability"} == PORTABILITY_ROUTES
    authorizer_id = dev.key_authorizer_id()
    routes = {r["Properties"]["RouteKey"]: r["Properties"] for r in dev.resources("AWS::ApiGatewayV2::Route").values()}
    for key in PORTABILITY_ROUTES:
        props = routes[key]
        assert props["AuthorizationType"] == "CUSTOM" and props["AuthorizerId"] == {"Ref": authorizer_id}, key
        integration_id = props["Target"]["Fn::Join"][1][1]["Ref"]
        uri = dev.json["Resources"][integration_id]["Properties"]["IntegrationUri"]
        assert uri["Fn::GetAtt"][0] == dev.function_logical_id("portability"), key


def test_the_route_function_queues_exports_and_signs_only_its_two_prefixes(prod):
    assert _object_grants(prod, "portability") == {
        f"/{EXPORTS_PREFIX}*": {"s3:GetObject"},
        f"/{IMPORTS_PREFIX}*": {"s3:PutObject"},
    }
    queue = _queue(prod, f"engram-prod-{EXPORT_QUEUE}")
    sends = [
        r
        for st in prod.role_statements("portability")
        if "sqs:SendMessage" in _as_list(st["Action"])
        for r in _as_list(st["Resource"])
    ]
    assert sends == [{"Fn::GetAtt": [queue, "Arn"]}]
    assert _function(prod, "portability")["Environment"]["Variables"]["ENGRAM_EXPORT_QUEUE_URL"] == {"Ref": queue}


def test_the_export_worker_drains_export_jobs_one_at_a_time_and_writes_exports_only(prod):
    queue = _queue(prod, f"engram-prod-{EXPORT_QUEUE}")
    assert "RedrivePolicy" in prod.json["Resources"][queue]["Properties"]
    mapping = _mapping(prod, "export_worker")
    assert mapping["EventSourceArn"] == {"Fn::GetAtt": [queue, "Arn"]}
    assert mapping["BatchSize"] == 1 and mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert _object_grants(prod, "export_worker") == {f"/{EXPORTS_PREFIX}*": {"s3:PutObject", "s3:AbortMultipartUpload"}}
    props = _function(prod, "export_worker")
    assert props["Timeout"] == 900 and props["EphemeralStorage"] == {"Size": 10240}
    # 6x the function timeout, so a long export's message is not handed to a second worker meanwhile
    assert prod.json["Resources"][queue]["Properties"]["VisibilityTimeout"] == 6 * 900


def test_the_import_worker_gets_imports_through_a_queue_and_may_enqueue_embeddings(prod):
    (notifications,) = prod.resources("Custom::S3BucketNotifications").values()
    (config,) = [
        c
        for c in notifications["Properties"]["NotificationConfiguration"]["QueueConfigurations"]
        if c["Filter"]["Key"]["FilterRules"] == [{"Name": "prefix", "Value": IMPORTS_PREFIX}]
    ]
    queue = _queue(prod, f"engram-prod-{IMPORT_EVENTS_QUEUE}")
    assert config["Events"] == ["s3:ObjectCreated:*"] and config["QueueArn"] == {"Fn::GetAtt": [queue, "Arn"]}
    mapping = _mapping(prod, "import_worker")
    assert mapping["EventSourceArn"] == {"Fn::GetAtt": [queue, "Arn"]} and mapping["BatchSize"] == 1
    assert _object_grants(prod, "import_worker") == {f"/{IMPORTS_PREFIX}*": {"s3:GetObject", "s3:DeleteObject"}}
    actions = {a for st in prod.role_statements("import_worker") for a in _as_list(st["Action"])}
    assert "sqs:SendMessage" in actions  # embed-jobs, for the imported chunks


def test_export_and_import_files_expire(prod):
    (bucket,) = [
        b["Properties"]
        for b in prod.resources("AWS::S3::Bucket").values()
        if any(
            r.get("Id") == "expire-uploads" for r in b["Properties"].get("LifecycleConfiguration", {}).get("Rules", [])
        )
    ]
    rules = {r["Id"]: r for r in bucket["LifecycleConfiguration"]["Rules"]}
    assert rules["expire-exports"]["Prefix"] == EXPORTS_PREFIX and rules["expire-exports"]["ExpirationInDays"] == 7
    assert rules["expire-imports"]["Prefix"] == IMPORTS_PREFIX and rules["expire-imports"]["ExpirationInDays"] >= 1

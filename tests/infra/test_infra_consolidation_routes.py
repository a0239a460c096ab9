"""The consolidation route function: its routes behind the authorizer, and a role that reaches the
database and may send to consolidate-jobs only (the work runs in the worker, not here)."""

from __future__ import annotations

from engram_http.route_table import ROUTES
from infra.functions import function_name

CONSOLIDATION_ROUTES = {
    "POST /v1/consolidate",
    "GET /v1/consolidation-runs",
    "GET /v1/consolidation-runs/{run_id}",
    "POST /v1/consolidation-runs/{run_id}/undo",
}


def _as_list(value):
    return value if isinstance(value, list) else [value]


def test_the_consolidation_routes_go_to_their_function_behind_the_authorizer(dev):
    assert {f"{r.method} {r.path}" for r in ROUTES if r.function == "consolidation"} == CONSOLIDATION_ROUTES
    function_id = dev.function_logical_id("consolidation")
    authorizer_id = dev.key_authorizer_id()
    routes = {r["Properties"]["RouteKey"]: r["Properties"] for r in dev.resources("AWS::ApiGatewayV2::Route").values()}
    for key in CONSOLIDATION_ROUTES:
        props = routes[key]
        assert props["AuthorizationType"] == "CUSTOM" and props["AuthorizerId"] == {"Ref": authorizer_id}, key
        integration_id = props["Target"]["Fn::Join"][1][1]["Ref"]
        uri = dev.json["Resources"][integration_id]["Properties"]["IntegrationUri"]
        assert uri["Fn::GetAtt"][0] == function_id, key


def test_the_consolidation_function_may_only_enqueue_runs(prod):
    (fn,) = [
        f
        for f in prod.resources("AWS::Lambda::Function").values()
        if f["Properties"].get("FunctionName") == function_name(prod.stack.functions.config, "consolidation")
    ]
    props = fn["Properties"]
    assert props["Handler"] == "handler.handler"
    assert "ENGRAM_CONSOLIDATE_QUEUE_URL" in props["Environment"]["Variables"]
    statements = prod.role_statements("consolidation")
    actions = {a for st in statements for a in _as_list(st["Action"])}
    assert not any(a.startswith(("s3:", "bedrock:")) for a in actions), actions
    (queue,) = [
        k
        for k, q in prod.resources("AWS::SQS::Queue").items()
        if q["Properties"]["QueueName"] == "engram-prod-consolidate-jobs"
    ]
    sends = [r for st in statements if "sqs:SendMessage" in _as_list(st["Action"]) for r in _as_list(st["Resource"])]
    assert sends == [{"Fn::GetAtt": [queue, "Arn"]}]

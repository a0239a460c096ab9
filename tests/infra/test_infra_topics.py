"""The topics function: its routes behind the authorizer, the embedding model for prime, Claude only
when the LLM level allows it, and nothing of the queues or the uploads bucket."""

from __future__ import annotations

from engram_http.route_table import ROUTES
from infra.functions import function_name

TOPIC_ROUTES = {
    "GET /v1/topics",
    "POST /v1/topics/lookup",
    "GET /v1/topics/{topic_id}",
    "GET /v1/resume",
    "POST /v1/prime",
}


def _as_list(value):
    return value if isinstance(value, list) else [value]


def test_the_topic_routes_go_to_the_topics_function_behind_the_authorizer(dev):
    assert {f"{r.method} {r.path}" for r in ROUTES if r.function == "topics"} == TOPIC_ROUTES
    topics_id = dev.function_logical_id("topics")
    authorizer_id = dev.key_authorizer_id()
    routes = {r["Properties"]["RouteKey"]: r["Properties"] for r in dev.resources("AWS::ApiGatewayV2::Route").values()}
    for key in TOPIC_ROUTES:
        props = routes[key]
        assert props["AuthorizationType"] == "CUSTOM" and props["AuthorizerId"] == {"Ref": authorizer_id}, key
        integration_id = props["Target"]["Fn::Join"][1][1]["Ref"]
        uri = dev.json["Resources"][integration_id]["Properties"]["IntegrationUri"]
        assert uri["Fn::GetAtt"][0] == topics_id, key


def test_the_topics_function_reaches_the_database_and_the_embedding_model_only(dev):
    (fn,) = [
        f
        for f in dev.resources("AWS::Lambda::Function").values()
        if f["Properties"].get("FunctionName") == function_name(dev.stack.functions.config, "topics")
    ]
    props = fn["Properties"]
    assert props["Handler"] == "handler.handler"
    assert props["Description"] == "topic tree, resume and prime"
    assert props["VpcConfig"]["SubnetIds"]
    assert props["Timeout"] <= 29
    statements = dev.role_statements("topics")
    actions = {a for st in statements for a in _as_list(st["Action"])}
    assert not any(a.startswith(("sqs:", "s3:")) for a in actions), actions
    invoke = [str(st["Resource"]) for st in statements if "bedrock:InvokeModel" in _as_list(st["Action"])]
    assert invoke and all("titan-embed" in r and "anthropic" not in r for r in invoke)  # dev: LLM off


def test_the_topics_function_may_call_claude_where_the_llm_is_on(prod):
    statements = prod.role_statements("topics")
    resources = [str(st["Resource"]) for st in statements if "bedrock:InvokeModel" in _as_list(st["Action"])]
    assert any("anthropic" in r for r in resources)

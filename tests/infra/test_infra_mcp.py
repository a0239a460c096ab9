"""The mcp function: POST /mcp behind the same authorizer as /v1, in the VPC with the database, the
shared layers (which carry the mcp package), and what its tools do through the services: enqueue
embeddings and consolidation runs, embed queries, and Claude only where the LLM level allows it."""

from __future__ import annotations

from engram_http.route_table import ROUTES
from infra.functions import function_name
from infra.paths import CORE_PACKAGES


def _as_list(value):
    return value if isinstance(value, list) else [value]


def test_mcp_goes_to_the_mcp_function_behind_the_authorizer(dev):
    keys = ["POST /mcp", "GET /mcp", "DELETE /mcp"]  # GET and DELETE only to be answered 405
    assert [f"{r.method} {r.path}" for r in ROUTES if r.function == "mcp"] == keys
    mcp_id = dev.function_logical_id("mcp")
    # The challenge authorizer: the same function, uncached and without an identity source, so a request
    # without credentials gets the route's 401 with the bearer challenge (OAuth discovery).
    (authorizer_id,) = [
        k
        for k, v in dev.resources("AWS::ApiGatewayV2::Authorizer").items()
        if not v["Properties"].get("IdentitySource")
    ]
    routes = {r["Properties"]["RouteKey"]: r["Properties"] for r in dev.resources("AWS::ApiGatewayV2::Route").values()}
    for key in keys:
        props = routes[key]
        assert props["AuthorizationType"] == "CUSTOM" and props["AuthorizerId"] == {"Ref": authorizer_id}, key
        integration_id = props["Target"]["Fn::Join"][1][1]["Ref"]
        uri = dev.json["Resources"][integration_id]["Properties"]["IntegrationUri"]
        assert uri["Fn::GetAtt"][0] == mcp_id, key
    assert "engram_mcp" in CORE_PACKAGES  # the core layer ships the package the handler imports


def test_the_mcp_function_may_do_what_its_tools_do_and_nothing_else(dev):
    (fn,) = [
        f
        for f in dev.resources("AWS::Lambda::Function").values()
        if f["Properties"].get("FunctionName") == function_name(dev.stack.functions.config, "mcp")
    ]
    props = fn["Properties"]
    assert props["Handler"] == "handler.handler"
    assert props["VpcConfig"]["SubnetIds"]
    assert props["Timeout"] <= 29  # API Gateway waits 30 s
    assert len(props["Layers"]) == 2  # the dependency layer and the core layer, as every function
    statements = dev.role_statements("mcp")
    actions = {a for st in statements for a in _as_list(st["Action"])}
    assert "sqs:SendMessage" in actions
    # erase_memory deletes the export files that held an erased memory: delete only, nothing read or written.
    assert {a for a in actions if a.startswith("s3:")} == {"s3:DeleteObject"}, actions
    queues = {
        q["Properties"]["QueueName"]: k
        for k, q in dev.resources("AWS::SQS::Queue").items()
        if q["Properties"]["QueueName"] in ("engram-dev-embed-jobs", "engram-dev-consolidate-jobs")
    }
    sends = [r for st in statements if "sqs:SendMessage" in _as_list(st["Action"]) for r in _as_list(st["Resource"])]
    assert sorted(str(r) for r in sends) == sorted(str({"Fn::GetAtt": [q, "Arn"]}) for q in queues.values())
    assert len(queues) == 2
    invoke = [str(st["Resource"]) for st in statements if "bedrock:InvokeModel" in _as_list(st["Action"])]
    assert invoke and all("titan-embed" in r and "anthropic" not in r for r in invoke)  # dev: LLM off


def test_the_mcp_function_may_call_claude_where_the_llm_is_on(prod):
    statements = prod.role_statements("mcp")
    resources = [str(st["Resource"]) for st in statements if "bedrock:InvokeModel" in _as_list(st["Action"])]
    assert any("anthropic" in r for r in resources)


def test_metadata_documents_are_advertised_only_where_the_oauth_function_can_fetch_them(dev):
    """dev has no NAT gateway: no route out of the VPC, so no Client ID Metadata Documents."""
    assert not dev.resources("AWS::EC2::NatGateway")
    variables = dev.json["Resources"][dev.function_logical_id("oauth")]["Properties"]["Environment"]["Variables"]
    assert variables["ENGRAM_OAUTH_CLIENT_METADATA_DOCUMENTS"] == "false"

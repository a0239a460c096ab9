"""The graph function: its routes behind the authorizer, and a role that reaches only the database."""

from __future__ import annotations

from engram_http.route_table import ROUTES
from infra.functions import function_name

GRAPH_ROUTES = {
    "POST /v1/links",
    "POST /v1/links/batch",
    "GET /v1/links",
    "DELETE /v1/links/{link_id}",
    "GET /v1/memories/{memory_id}/links",
    "GET /v1/memories/{memory_id}/history",
}


def _as_list(value):
    return value if isinstance(value, list) else [value]


def test_the_graph_routes_go_to_the_graph_function_behind_the_authorizer(dev):
    assert {f"{r.method} {r.path}" for r in ROUTES if r.function == "graph"} == GRAPH_ROUTES
    graph_id = dev.function_logical_id("graph")
    authorizer_id = dev.key_authorizer_id()
    routes = {r["Properties"]["RouteKey"]: r["Properties"] for r in dev.resources("AWS::ApiGatewayV2::Route").values()}
    for key in GRAPH_ROUTES:
        props = routes[key]
        assert props["AuthorizationType"] == "CUSTOM" and props["AuthorizerId"] == {"Ref": authorizer_id}, key
        integration_id = props["Target"]["Fn::Join"][1][1]["Ref"]
        uri = dev.json["Resources"][integration_id]["Properties"]["IntegrationUri"]
        assert uri["Fn::GetAtt"][0] == graph_id, key


def test_the_graph_function_is_built_from_its_folder_with_the_database_only(dev):
    (fn,) = [
        f
        for f in dev.resources("AWS::Lambda::Function").values()
        if f["Properties"].get("FunctionName") == function_name(dev.stack.functions.config, "graph")
    ]
    props = fn["Properties"]
    assert props["Handler"] == "handler.handler"
    assert props["Description"] == "links between memories, traversal and history"
    assert props["VpcConfig"]["SubnetIds"]
    assert "ENGRAM_DB_SECRET_ARN" in props["Environment"]["Variables"]
    actions = {a for st in dev.role_statements("graph") for a in _as_list(st["Action"])}
    assert not any(a.startswith(("sqs:", "s3:", "bedrock:")) for a in actions), actions
    assert "secretsmanager:GetSecretValue" in actions

"""The HTTP API: every route of the route table, each with its function and the authorizer."""

from __future__ import annotations

import json

from aws_cdk.assertions import Match

from engram_http.route_table import ROUTES
from infra.functions import function_name
from infra.paths import REPO_ROOT
from infra.profiles import EVENT_FUNCTIONS, profile_for


def _integration_function(synth, integration_id: str) -> str:
    """The logical id of the Lambda function an integration calls."""
    uri = synth.json["Resources"][integration_id]["Properties"]["IntegrationUri"]
    return uri["Fn::GetAtt"][0]


def _authorizer_ids(synth) -> tuple[str, str]:
    """The cached authorizer's logical id, and the challenge one's (no identity source, no cache)."""
    found = synth.resources("AWS::ApiGatewayV2::Authorizer")
    assert len(found) == 2
    (cached,) = [k for k, v in found.items() if v["Properties"].get("IdentitySource")]
    (challenge,) = [k for k in found if k != cached]
    return cached, challenge


def test_every_route_has_its_function_and_the_authorizer(dev):
    routes = dev.resources("AWS::ApiGatewayV2::Route")
    by_key = {r["Properties"]["RouteKey"]: r["Properties"] for r in routes.values()}
    assert set(by_key) == {f"{r.method} {r.path}" for r in ROUTES}
    authorizer_id, challenge_id = _authorizer_ids(dev)
    for route in ROUTES:
        props = by_key[f"{route.method} {route.path}"]
        integration_id = props["Target"]["Fn::Join"][1][1]["Ref"]
        assert _integration_function(dev, integration_id) == dev.function_logical_id(route.function)
        if route.auth:
            assert props["AuthorizationType"] == "CUSTOM", route
            assert props["AuthorizerId"] == {"Ref": challenge_id if route.challenge else authorizer_id}, route
        else:
            assert props["AuthorizationType"] == "NONE", route


def test_only_the_routes_marked_public_are_public(dev):
    public = {
        r["Properties"]["RouteKey"]
        for r in dev.resources("AWS::ApiGatewayV2::Route").values()
        if r["Properties"]["AuthorizationType"] == "NONE"
    }
    assert public == {f"{r.method} {r.path}" for r in ROUTES if not r.auth}
    oauth_client_endpoints = {
        "GET /.well-known/oauth-protected-resource",
        "GET /.well-known/oauth-protected-resource/mcp",
        "GET /.well-known/oauth-authorization-server",
        "GET /.well-known/openid-configuration",
        "POST /oauth/register",
        "GET /oauth/authorize",
        "POST /oauth/token",
        "POST /oauth/revoke",
        "GET /oauth/requests/{request_id}",
        "POST /oauth/requests/{request_id}/deny",
    }
    assert public <= {
        "GET /v1/health",
        "GET /v1/health/live",
        "GET /v1/openapi.json",
        "GET /console",
        "GET /console/{asset}",
    } | (oauth_client_endpoints)
    # Approving a pending authorization grants access: it goes through the authorizer like /v1.
    assert "POST /oauth/requests/{request_id}/approve" not in public


def test_every_function_without_a_route_has_a_handler_module():
    for name in EVENT_FUNCTIONS:
        assert (REPO_ROOT / "functions" / name / "handler.py").is_file(), name


def test_one_function_per_folder_in_the_table(dev):
    expected = {
        function_name(dev.stack.functions.config, n) for n in {r.function for r in ROUTES} | set(EVENT_FUNCTIONS)
    }
    ours = {
        f["Properties"]["FunctionName"]
        for f in dev.resources("AWS::Lambda::Function").values()
        if f["Properties"].get("FunctionName", "").startswith("engram-dev-")
    }
    assert ours == expected
    # one integration per function, however many routes it serves
    integrations = dev.resources("AWS::ApiGatewayV2::Integration")
    assert len(integrations) == len({r.function for r in ROUTES})


def test_authorizer_is_a_cached_simple_request_authorizer(dev):
    dev.template.has_resource_properties(
        "AWS::ApiGatewayV2::Authorizer",
        {
            "AuthorizerType": "REQUEST",
            "AuthorizerPayloadFormatVersion": "2.0",
            "EnableSimpleResponses": True,
            "IdentitySource": ["$request.header.Authorization"],
            "AuthorizerResultTtlInSeconds": 300,
            "AuthorizerUri": Match.object_like(
                {
                    "Fn::Join": Match.array_with(
                        [
                            Match.array_with(
                                [Match.object_like({"Fn::GetAtt": [dev.function_logical_id("authorizer"), "Arn"]})]
                            )
                        ]
                    )
                }
            ),
        },
    )


def test_the_challenge_authorizer_is_the_same_function_uncached_without_identity_source(dev):
    _, challenge_id = _authorizer_ids(dev)
    props = dev.resources("AWS::ApiGatewayV2::Authorizer")[challenge_id]["Properties"]
    assert props["AuthorizerResultTtlInSeconds"] == 0
    assert not props.get("IdentitySource")
    assert props["EnableSimpleResponses"] is True
    assert dev.function_logical_id("authorizer") in json.dumps(props["AuthorizerUri"])
    assert {f"{r.method} {r.path}" for r in ROUTES if r.challenge} == {"POST /mcp", "GET /mcp", "DELETE /mcp"}


def test_stage_throttles_and_writes_json_access_logs(dev):
    (stage,) = dev.resources("AWS::ApiGatewayV2::Stage").values()
    props = stage["Properties"]
    assert props["StageName"] == "$default" and props["AutoDeploy"] is True
    assert props["DefaultRouteSettings"]["ThrottlingRateLimit"] == 50
    assert props["DefaultRouteSettings"]["ThrottlingBurstLimit"] == 100
    assert props["DefaultRouteSettings"]["DetailedMetricsEnabled"] is True
    log_format = json.loads(props["AccessLogSettings"]["Format"])
    assert log_format["requestId"] == "$context.requestId"
    assert log_format["tenantId"] == "$context.authorizer.tenant_id"
    assert "DestinationArn" in props["AccessLogSettings"]


def test_functions_are_arm64_python312_json_logging_traced_in_the_vpc(dev):
    for name in dev.stack.function_names:
        props = dev.json["Resources"][dev.function_logical_id(name)]["Properties"]
        assert props["Runtime"] == "python3.12"
        assert props["Architectures"] == ["arm64"]
        assert props["Handler"] == "handler.handler"
        assert props["TracingConfig"] == {"Mode": "Active"}
        assert props["LoggingConfig"]["LogFormat"] == "JSON"
        assert "LogGroup" in props["LoggingConfig"]
        # In the VPC unless it never touches the database (the console's static files).
        assert bool(props.get("VpcConfig", {}).get("SubnetIds")) == profile_for(name).database, name
        assert len(props["Layers"]) == 2
        env = props["Environment"]["Variables"]
        # A function that never touches the database reads no database secret (its duty's, or none).
        assert ("ENGRAM_DB_SECRET_ARN" in env) == profile_for(name).database, name
        for variable in (
            "ENGRAM_DB_NAME", "ENGRAM_DB_HOST", "ENGRAM_EMBED_QUEUE_URL",
            "ENGRAM_EMBEDDER", "ENGRAM_EMBED_DIM", "ENGRAM_LLM_LEVEL", "ENGRAM_LLM_PROVIDER",
            "ENGRAM_LLM_MODEL", "ENGRAM_UPLOADS_BUCKET", "ENGRAM_ENV", "POWERTOOLS_SERVICE_NAME",
            "POWERTOOLS_LOG_LEVEL",
        ):  # fmt: skip
            assert variable in env, (name, variable)
        assert env["ENGRAM_EMBEDDER"] == "bedrock"
        assert env["ENGRAM_ENV"] == "dev"
        # HTTP integrations time out at 30 s: route functions must finish before that.
        if any(r.function == name for r in ROUTES):
            assert props["Timeout"] < 30


def test_public_routes_have_their_own_smaller_throttle(dev):
    from aws_cdk import App

    from engram_http.route_table import ROUTES
    from infra.config import load_config

    config = load_config(App().node, "dev")
    (stage,) = dev.resources("AWS::ApiGatewayV2::Stage").values()
    settings = stage["Properties"]["RouteSettings"]
    public = {f"{r.method} {r.path}" for r in ROUTES if not r.auth}
    assert {"GET /v1/health", "POST /oauth/register", "GET /oauth/authorize"} <= public
    assert set(settings) == public
    for route in public:
        assert settings[route]["ThrottlingRateLimit"] == config.public_route_throttle_rate
        assert settings[route]["ThrottlingRateLimit"] < config.api_throttle_rate
        assert settings[route]["ThrottlingBurstLimit"] < config.api_throttle_burst


def test_one_lambda_permission_per_function_not_per_route(dev):
    invoked_by_the_api = [
        p["Properties"]
        for p in dev.resources("AWS::Lambda::Permission").values()
        if p["Properties"]["Principal"] == "apigateway.amazonaws.com"
    ]
    functions = {str(p["FunctionName"]) for p in invoked_by_the_api}
    route_functions = {r.function for r in dev.stack.routes}
    # One per route function, and the authorizer's two (the cached and the challenge one).
    assert len(invoked_by_the_api) == len(route_functions) + 2
    assert len(functions) == len(route_functions) + 1
    assert len(dev.json["Resources"]) <= 450, len(dev.json["Resources"])  # CloudFormation's limit is 500

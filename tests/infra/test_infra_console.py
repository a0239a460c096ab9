"""The memory console: a public route to a function that holds no secret and reaches nothing, and
an uploads bucket a browser may PUT presigned documents into from the console's origin (and the
origins cdk.json names) only."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import App, Stack
from aws_cdk.assertions import Template

from engram_http.route_table import ROUTES
from infra.config import EnvConfig, load_config, read_cdk_json_context
from infra.profiles import profile_for
from infra.storage import Storage


def test_console_routes_are_public_and_served_by_the_console_function(dev):
    routes = {r["Properties"]["RouteKey"]: r["Properties"] for r in dev.resources("AWS::ApiGatewayV2::Route").values()}
    for key in ("GET /console", "GET /console/{asset}"):
        assert routes[key]["AuthorizationType"] == "NONE"
    assert {r.function for r in ROUTES if r.path.startswith("/console")} == {"console"}


def test_console_function_is_outside_the_vpc_and_may_do_nothing_but_log(dev):
    props = dev.json["Resources"][dev.function_logical_id("console")]["Properties"]
    assert "VpcConfig" not in props
    assert not profile_for("console").database
    actions = {
        a
        for st in dev.role_statements("console")
        for a in ([st["Action"]] if isinstance(st["Action"], str) else st["Action"])
    }
    assert actions <= {"xray:PutTraceSegments", "xray:PutTelemetryRecords"}, (
        actions
    )  # no secret, queue, bucket or model
    role_id = dev.stack.get_logical_id(dev.stack.functions.functions["console"].role.node.default_child)
    (managed,) = dev.json["Resources"][role_id]["Properties"]["ManagedPolicyArns"]
    assert "AWSLambdaBasicExecutionRole" in str(managed)


def _cors_rules(s: Any) -> list[dict[str, Any]]:
    bucket_id = s.stack.get_logical_id(s.stack.storage.uploads_bucket.node.default_child)
    return s.json["Resources"][bucket_id]["Properties"].get("CorsConfiguration", {}).get("CorsRules", [])


def _api_origin(s: Any) -> Any:
    """The origin the console is served on, as the template spells it: the HTTP API's endpoint."""
    return s.stack.resolve(s.stack.api.http_api.api_endpoint)


def test_the_uploads_bucket_lets_only_the_consoles_origin_put_cross_origin(dev, staging, prod):
    # The bucket refers to the API. A circle back (a function the API calls reads the bucket)
    # would be refused by CloudFormation; aws_cdk's Template, which the synth fixture builds, fails
    # on one already.
    for s in (dev, staging, prod):  # cdk.json names no other origin in any environment
        (rule,) = _cors_rules(s)
        assert rule["AllowedMethods"] == ["PUT"]
        assert set(rule["AllowedHeaders"]) == {"content-type", "x-amz-checksum-sha256"}
        assert rule["AllowedOrigins"] == [_api_origin(s)]
    api_id = dev.stack.get_logical_id(dev.stack.api.http_api.node.default_child)
    # The attribute is https://<api id>.execute-api.<region>.amazonaws.com, no path: what a browser
    # on /console sends as Origin.
    assert _api_origin(dev) == {"Fn::GetAtt": [api_id, "ApiEndpoint"]}


def test_configured_origins_are_allowed_besides_the_consoles(future):
    (rule,) = _cors_rules(future)
    assert rule["AllowedOrigins"] == [_api_origin(future), "https://app.example.com"]


def test_no_console_and_no_origins_is_no_cors_rule():
    stack = Stack(App(context=read_cdk_json_context()), "StorageOnly")  # its feature flags too
    storage = Storage(stack, "Storage", config=EnvConfig(env="dev"))
    storage.allow_browser_uploads([])
    for bucket in Template.from_stack(stack).find_resources("AWS::S3::Bucket").values():
        assert "CorsConfiguration" not in bucket["Properties"]


@pytest.mark.parametrize("origin", ["https://app.example.com", "https://app.example.com:8443", "http://localhost:3000"])
def test_an_origin_is_a_scheme_and_a_host(origin):
    app = App(context={"engram:environments": {"dev": {"upload_cors_origins": [origin]}}})
    assert load_config(app.node, "dev").upload_cors_origins == [origin]


@pytest.mark.parametrize(
    "origin",
    [
        "*",
        "https://*.example.com",
        "https://app.example.com/",
        "https://app.example.com/console",
        "http://app.example.com",
        "app.example.com",
    ],
)
def test_anything_but_an_origin_fails_synthesis_naming_the_setting(origin):
    app = App(context={"engram:environments": {"dev": {"upload_cors_origins": [origin]}}})
    with pytest.raises(ValueError, match=r"upload_cors_origins: .* is not an origin"):
        load_config(app.node, "dev")


def test_the_console_function_ships_its_static_files(tmp_path):
    from infra.build_assets import copy_tree
    from infra.paths import FUNCTIONS_SRC

    copy_tree(FUNCTIONS_SRC / "console", tmp_path / "console")  # what `make build` does for each function
    source = sorted(p.name for p in (FUNCTIONS_SRC / "console" / "static").iterdir())
    assert "index.html" in source and "app.js" in source
    assert sorted(p.name for p in (tmp_path / "console" / "static").iterdir()) == source

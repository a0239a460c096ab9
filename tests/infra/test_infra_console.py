"""The memory console: a public route to a function that holds no secret and reaches nothing, and
an uploads bucket a browser may PUT presigned documents into."""

from __future__ import annotations

from engram_http.route_table import ROUTES
from infra.profiles import profile_for


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


def test_the_uploads_bucket_accepts_a_browser_put_and_nothing_else_cross_origin(dev):
    bucket_id = dev.stack.get_logical_id(dev.stack.storage.uploads_bucket.node.default_child)
    (rule,) = dev.json["Resources"][bucket_id]["Properties"]["CorsConfiguration"]["CorsRules"]
    assert rule["AllowedMethods"] == ["PUT"]
    assert set(rule["AllowedHeaders"]) == {"content-type", "x-amz-checksum-sha256"}


def test_the_console_function_ships_its_static_files(tmp_path):
    from infra.build_assets import copy_tree
    from infra.paths import FUNCTIONS_SRC

    copy_tree(FUNCTIONS_SRC / "console", tmp_path / "console")  # what `make build` does for each function
    source = sorted(p.name for p in (FUNCTIONS_SRC / "console" / "static").iterdir())
    assert "index.html" in source and "app.js" in source
    assert sorted(p.name for p in (tmp_path / "console" / "static").iterdir()) == source

"""Lambda SnapStart (`snap_start` in cdk.json: on in staging and prod, off in dev) for the functions
whose profile asks for it, the mcp function today. SnapStart applies to published versions only, so
where it is on the function publishes a version with a `live` alias and the API invokes the alias;
where it is off there is no version, no alias, and the API invokes the function as before."""

from __future__ import annotations

from typing import Any

import pytest

from infra.functions import LIVE_ALIAS, _check_snap_start
from infra.profiles import PROFILES, profile_for

SNAP_START = {"ApplyOn": "PublishedVersions"}


def _mcp_integration_uris(synth) -> dict[str, Any]:
    routes = {
        r["Properties"]["RouteKey"]: r["Properties"] for r in synth.resources("AWS::ApiGatewayV2::Route").values()
    }
    uris = {}
    for key in ("POST /mcp", "GET /mcp", "DELETE /mcp"):
        integration_id = routes[key]["Target"]["Fn::Join"][1][1]["Ref"]
        uris[key] = synth.json["Resources"][integration_id]["Properties"]["IntegrationUri"]
    return uris


def _api_gateway_permissions(synth) -> list[Any]:
    """FunctionName of every permission that lets API Gateway invoke a Lambda."""
    return [
        p["Properties"]["FunctionName"]
        for p in synth.resources("AWS::Lambda::Permission").values()
        if p["Properties"]["Principal"] == "apigateway.amazonaws.com"
    ]


@pytest.mark.parametrize("env", ["staging", "prod"])
def test_where_snap_start_is_on_the_api_invokes_the_mcp_functions_live_alias(synth, env):
    on = synth(env)
    assert on.stack.functions.config.snap_start
    mcp_id = on.function_logical_id("mcp")
    assert on.json["Resources"][mcp_id]["Properties"]["SnapStart"] == SNAP_START

    ((version_id, version),) = on.resources("AWS::Lambda::Version").items()
    assert version["Properties"]["FunctionName"] == {"Ref": mcp_id}
    # Python SnapStart bills a cached snapshot per version while it exists: a replaced one goes.
    assert version["DeletionPolicy"] == "Delete" and version["UpdateReplacePolicy"] == "Delete"
    ((alias_id, alias),) = on.resources("AWS::Lambda::Alias").items()
    assert alias["Properties"]["Name"] == LIVE_ALIAS
    assert alias["Properties"]["FunctionName"] == {"Ref": mcp_id}
    assert alias["Properties"]["FunctionVersion"] == {"Fn::GetAtt": [version_id, "Version"]}

    # Ref of an alias is its ARN (function:live): the integration and API Gateway's permission
    # name the alias, never the unqualified function (whose $LATEST SnapStart does not apply to).
    for key, uri in _mcp_integration_uris(on).items():
        assert uri == {"Ref": alias_id}, key
    permissions = _api_gateway_permissions(on)
    assert {"Ref": alias_id} in permissions
    assert not any(mcp_id in str(p) for p in permissions), permissions


@pytest.mark.parametrize("env", ["staging", "prod"])
def test_snap_start_stays_off_for_functions_whose_import_is_cheap(synth, env):
    on = synth(env)
    snapping = [
        name
        for name in on.stack.function_names
        if "SnapStart" in on.json["Resources"][on.function_logical_id(name)]["Properties"]
    ]
    assert snapping == ["mcp"]
    assert on.stack.functions.targets["recall"] is on.stack.functions.functions["recall"]


def test_where_snap_start_is_off_nothing_is_published_and_the_api_invokes_the_function(dev):
    assert not dev.stack.functions.config.snap_start
    mcp_id = dev.function_logical_id("mcp")
    assert not [f for f in dev.resources("AWS::Lambda::Function").values() if "SnapStart" in f["Properties"]]
    assert dev.resources("AWS::Lambda::Version") == {}
    assert dev.resources("AWS::Lambda::Alias") == {}
    for key, uri in _mcp_integration_uris(dev).items():
        assert uri == {"Fn::GetAtt": [mcp_id, "Arn"]}, key
    assert {"Fn::GetAtt": [mcp_id, "Arn"]} in _api_gateway_permissions(dev)


def test_snap_start_is_refused_for_a_function_that_a_queue_or_the_schedule_invokes():
    # Those triggers would invoke the unpublished function: SnapStart would cost and do nothing.
    for name, profile in PROFILES.items():
        if profile.consumes or profile.scheduled:
            with pytest.raises(ValueError, match=f"profile of {name!r}: snap_start is for API route functions"):
                _check_snap_start(name, profile)
    _check_snap_start("mcp", profile_for("mcp"))  # an API route function passes

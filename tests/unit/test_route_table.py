"""The route table (what API Gateway deploys) and the routers (what the Lambdas serve) agree."""

from __future__ import annotations

from pathlib import Path

from engram_http.api import all_routers
from engram_http.resolver import build_resolver
from engram_http.route_table import JSON_RPC_FUNCTIONS, ROUTES, STATIC_FUNCTIONS, http_functions

ROOT = Path(__file__).resolve().parents[2]


def _served() -> set[tuple[str, str]]:
    """What the routers serve, read through Powertools' public API: the resolver's OpenAPI schema
    (every route is in it: none is excluded from the schema)."""
    schema = build_resolver(*all_routers()).get_openapi_schema()
    return {
        (method.upper(), path)
        for path, item in (schema.paths or {}).items()
        for method in ("get", "put", "post", "delete", "patch", "head", "options")
        if getattr(item, method, None) is not None
    }


def test_every_route_in_the_table_is_served_and_vice_versa():
    table = {(r.method, r.path) for r in ROUTES if r.function not in (*STATIC_FUNCTIONS, *JSON_RPC_FUNCTIONS)}
    assert table == _served()


def test_every_routed_function_has_a_handler_module():
    # The functions no route reaches (infra/profiles.py): tests/infra/test_infra_api.py.
    for name in http_functions():
        assert (ROOT / "functions" / name / "handler.py").is_file(), name


def test_only_health_openapi_the_console_files_and_the_oauth_client_endpoints_are_public():
    assert {r.path for r in ROUTES if not r.auth} == {
        "/v1/health",
        "/v1/health/live",
        "/v1/openapi.json",
        "/console",
        "/console/{asset}",
        # OAuth (MCP connectors): what a client uses before it has a token; approving takes a key.
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
        "/oauth/register",
        "/oauth/authorize",
        "/oauth/token",
        "/oauth/revoke",
        "/oauth/requests/{request_id}",
        "/oauth/requests/{request_id}/deny",
    }


def test_static_routes_are_get_only_and_outside_v1():
    static = [r for r in ROUTES if r.function in STATIC_FUNCTIONS]
    assert static and all(r.method == "GET" and not r.path.startswith("/v1/") for r in static)


def test_the_mcp_endpoint_is_one_path_behind_the_authorizer():
    mcp = [(r.method, r.path, r.auth) for r in ROUTES if r.function in JSON_RPC_FUNCTIONS]
    assert mcp == [("POST", "/mcp", True), ("GET", "/mcp", True), ("DELETE", "/mcp", True)]
    # Only /mcp lets a request without credentials reach its function (for the bearer challenge).
    assert [(r.method, r.path) for r in ROUTES if r.challenge] == [
        ("POST", "/mcp"),
        ("GET", "/mcp"),
        ("DELETE", "/mcp"),
    ]


def test_a_path_a_route_names_literally_serves_that_routes_methods_alone() -> None:
    from engram_http.route_match import match, methods_at, requested_path

    memory = "/v1/memories/00000000-0000-4000-8000-000000000001"
    assert methods_at("/v1/memories/batch") == ["POST"]  # not also GET/PATCH/DELETE /v1/memories/{memory_id}
    assert methods_at("/v1/links/batch") == ["POST"] and methods_at("/v1/topics/lookup") == ["POST"]
    assert methods_at(memory) == ["DELETE", "GET", "PATCH"] and methods_at("/nowhere") == []
    found = match("GET", "/v1/memories/batch")  # what API Gateway invokes all the same
    assert found is not None and found[0].path == "/v1/memories/{memory_id}" and found[1] == {"memory_id": "batch"}
    assert requested_path("GET /v1/memories/{memory_id}", found[1]) == "/v1/memories/batch"

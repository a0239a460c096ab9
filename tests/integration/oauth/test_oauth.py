"""OAuth for the remote MCP endpoint, through the HTTP layer: discovery documents, registration,
authorize + consent + token exchange, refresh rotation, revocation, and every hostile case the issue
lists answered with the spec's error (never a 500)."""

from __future__ import annotations

import json

import psycopg

from tests.support.oauth_flow import (
    BASE,
    REDIRECT,
    RESOURCE,
    authorize,
    call,
    code_for,
    expire_tokens,
    pkce,
    query_of,
    redeem,
    refresh,
    register,
    request_id_of,
    tokens_for,
)


def test_metadata_documents_name_our_endpoints(stack):
    for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
        r = call("GET", path)
        assert r.status == 200
        assert r.body["resource"] == RESOURCE and r.body["authorization_servers"] == [BASE]
        assert r.body["bearer_methods_supported"] == ["header"]
    r = call("GET", "/.well-known/oauth-authorization-server")
    assert r.status == 200
    assert r.body["issuer"] == BASE
    assert r.body["token_endpoint"] == f"{BASE}/oauth/token"
    assert r.body["code_challenge_methods_supported"] == ["S256"]
    assert r.body["client_id_metadata_document_supported"] is True
    assert call("GET", "/.well-known/openid-configuration").body == r.body


def test_the_whole_flow_gives_a_token_that_works_on_mcp_and_v1(stack, tenant):
    _, answer = tokens_for(tenant.key)
    assert answer["token_type"] == "Bearer" and answer["scope"] == "read write"
    assert answer["access_token"].startswith("eat_") and answer["refresh_token"].startswith("ert_")
    stored = call("POST", "/v1/memories", {"content": "Stored through an OAuth token."}, token=answer["access_token"])
    assert stored.status == 201, stored.body
    listed = call("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, token=answer["access_token"])
    assert listed.status == 200
    assert {t["name"] for t in listed.body["result"]["tools"]} >= {"recall", "store_memory"}


def test_token_answers_are_not_cached(stack, tenant):
    client_id = register()
    code, verifier = code_for(tenant.key, client_id)
    r = redeem(client_id, code, verifier)
    assert r.headers["cache-control"] == "no-store"


def test_without_credentials_v1_and_mcp_point_at_the_resource_metadata(stack):
    for method, path in (("GET", "/v1/memories"), ("POST", "/mcp")):
        r = call(method, path, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, token="eat_not-a-token")
        assert r.status == 401
        assert r.headers["www-authenticate"] == (
            f'Bearer resource_metadata="{BASE}/.well-known/oauth-protected-resource/mcp", error="invalid_token"'
        )


def test_mcp_without_any_authorization_header_answers_the_bearer_challenge(stack):
    r = call("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert r.status == 401
    assert (
        r.headers["www-authenticate"] == f'Bearer resource_metadata="{BASE}/.well-known/oauth-protected-resource/mcp"'
    )
    # /v1 keeps the cached authorizer: API Gateway itself answers a request without the header.
    assert call("GET", "/v1/memories").status == 401


def test_wrong_or_missing_pkce_verifier_is_invalid_grant(stack, tenant):
    client_id = register()
    code, verifier = code_for(tenant.key, client_id)
    wrong = redeem(client_id, code, pkce()[0])
    assert (wrong.status, wrong.body["error"]) == (400, "invalid_grant")
    missing = redeem(client_id, code, None)  # type: ignore[arg-type]
    assert (missing.status, missing.body["error"]) == (400, "invalid_request")
    assert "code_verifier" in missing.body["error_description"]
    assert redeem(client_id, code, verifier).status == 200


def test_a_reused_code_fails_and_revokes_what_it_issued(stack, tenant):
    client_id = register()
    code, verifier = code_for(tenant.key, client_id)
    first = redeem(client_id, code, verifier)
    assert first.status == 200
    again = redeem(client_id, code, verifier)
    assert (again.status, again.body["error"]) == (400, "invalid_grant")
    assert call("GET", "/v1/memories", token=first.body["access_token"]).status == 401
    assert refresh(client_id, first.body["refresh_token"]).body["error"] == "invalid_grant"


def test_an_unregistered_redirect_uri_gets_a_page_not_a_redirect(stack):
    client_id = register()
    r = authorize(client_id, pkce()[1], redirect_uri="https://evil.example/cb")
    assert r.status == 400 and "location" not in r.headers
    assert r.headers["content-type"].startswith("text/html")
    unknown = authorize("ecl_nobody", pkce()[1])
    assert unknown.status == 400 and "location" not in unknown.headers


def test_authorize_errors_go_back_to_an_approved_client_with_state(stack, tenant):
    client_id = register()
    code_for(tenant.key, client_id)  # a person approved this client once
    cases = {
        "unsupported_response_type": {"response_type": "token"},
        "invalid_request": {"code_challenge_method": "plain"},
        "invalid_scope": {"scope": "read everything"},
        "invalid_target": {"resource": "https://other.example/mcp"},
    }
    for error, extra in cases.items():
        r = authorize(client_id, pkce()[1], **extra)
        assert r.status == 302, (error, r.body)
        assert r.headers["location"].startswith(REDIRECT)
        params = query_of(r.headers["location"])
        assert (params["error"], params["state"]) == (error, "st-1")
    no_pkce = authorize(client_id, None)  # type: ignore[arg-type]
    assert query_of(no_pkce.headers["location"])["error"] == "invalid_request"


def test_authorize_is_no_open_redirector_for_a_client_nobody_approved(stack, tenant):
    # Anyone may register any https redirect URI: until a person approves the client, an invalid
    # request gets our page, never a 302 from our domain to that URI (RFC 9700 §4.11.2).
    landing = "https://evil.example/landing"
    client_id = register([landing])
    for extra in ({"response_type": "x"}, {"code_challenge_method": "plain"}, {"scope": "everything"}):
        r = authorize(client_id, pkce()[1], redirect_uri=landing, **extra)
        assert r.status == 400 and "location" not in r.headers, (extra, r.headers)
        assert r.headers["content-type"].startswith("text/html") and "evil.example" not in r.body
    assert (
        "response_type must be code (unsupported_response_type)"
        in authorize(client_id, pkce()[1], redirect_uri=landing, response_type="x").body
    )
    # A valid request still reaches the consent page, where the person sees the host and decides.
    assert request_id_of(authorize(client_id, pkce()[1], redirect_uri=landing))


def test_registration_refuses_bad_redirect_uris_and_confidential_clients(stack):
    for uris in (["http://evil.example/cb"], ["javascript:alert(1)"], ["https://a.example/cb#frag"], []):
        r = call("POST", "/oauth/register", {"redirect_uris": uris})
        assert (r.status, r.body["error"]) == (400, "invalid_redirect_uri"), uris
    r = call(
        "POST",
        "/oauth/register",
        {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "client_secret_basic"},
    )
    assert (r.status, r.body["error"]) == (400, "invalid_client_metadata")


def test_a_token_for_another_resource_is_refused(stack, tenant):
    client_id = register()
    code, verifier = code_for(tenant.key, client_id)
    r = redeem(client_id, code, verifier, resource="https://other.example/mcp")
    assert (r.status, r.body["error"]) == (400, "invalid_target")
    _, answer = tokens_for(tenant.key)
    from engram_local import gateway

    # The same token presented to another host of this code (another deployment): not its resource.
    elsewhere = gateway.handle(
        "GET", "/v1/memories", {"authorization": f"Bearer {answer['access_token']}", "host": "other.example"}, b""
    )
    assert elsewhere.status == 401
    assert 'error="invalid_token"' in elsewhere.headers["www-authenticate"]


def test_refresh_rotates_and_a_reused_refresh_token_revokes_the_grant(stack, tenant):
    client_id, answer = tokens_for(tenant.key)
    first = refresh(client_id, answer["refresh_token"])
    assert first.status == 200 and first.body["refresh_token"] != answer["refresh_token"]
    assert call("GET", "/v1/memories", token=first.body["access_token"]).status == 200
    reused = refresh(client_id, answer["refresh_token"])
    assert (reused.status, reused.body["error"]) == (400, "invalid_grant")
    assert call("GET", "/v1/memories", token=first.body["access_token"]).status == 401
    assert refresh(client_id, first.body["refresh_token"]).body["error"] == "invalid_grant"


def test_refresh_may_narrow_but_not_widen_the_scope(stack, tenant):
    client_id, answer = tokens_for(tenant.key, scopes=["read"])
    wider = refresh(client_id, answer["refresh_token"], scope="read write")
    assert (wider.status, wider.body["error"]) == (400, "invalid_scope")
    other_client = refresh(register(), answer["refresh_token"])
    assert other_client.body["error"] == "invalid_grant"


def test_expired_and_revoked_tokens_are_invalid_token(stack, tenant, settings_env):
    client_id, answer = tokens_for(tenant.key)
    expire_tokens(stack, answer["access_token"])
    r = call("GET", "/v1/memories", token=answer["access_token"])
    assert r.status == 401 and 'error="invalid_token"' in r.headers["www-authenticate"]
    fresh = refresh(client_id, answer["refresh_token"])
    assert fresh.status == 200
    assert call("POST", "/oauth/revoke", form={"token": fresh.body["access_token"]}).status == 200
    assert call("GET", "/v1/memories", token=fresh.body["access_token"]).status == 401
    # Revoking the refresh token ends the grant (RFC 7009 §2.1); unknown tokens are no error.
    assert call("POST", "/oauth/revoke", form={"token": fresh.body["refresh_token"]}).status == 200
    assert refresh(client_id, fresh.body["refresh_token"]).body["error"] == "invalid_grant"
    assert call("POST", "/oauth/revoke", form={"token": "ert_unknown"}).status == 200
    assert call("POST", "/oauth/revoke", form={}).body["error"] == "invalid_request"


def test_a_read_grant_calling_a_write_route_or_tool_is_insufficient_scope(stack, tenant):
    _, answer = tokens_for(tenant.key, scopes=["read"])
    token = answer["access_token"]
    r = call("POST", "/v1/memories", {"content": "not allowed"}, token=token)
    assert r.status == 403
    assert r.headers["www-authenticate"].startswith('Bearer error="insufficient_scope", scope="write"')
    tool = call(
        "POST",
        "/mcp",
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "store_memory", "arguments": {"content": "not allowed"}},
        },
        token=token,
    )
    assert tool.status == 403
    assert 'error="insufficient_scope", scope="write"' in tool.headers["www-authenticate"]
    assert call("GET", "/v1/memories", token=token).status == 200


def test_a_grant_is_at_most_its_key(stack, make_tenant):
    reader = make_tenant("reader", ["read"])
    client_id = register()
    request_id = request_id_of(authorize(client_id, pkce()[1]))
    r = call("POST", f"/oauth/requests/{request_id}/approve", {"scopes": ["read", "write"]}, token=reader.key)
    assert r.status == 403 and "'write'" in r.body["error"]["message"]
    not_asked = call("POST", f"/oauth/requests/{request_id}/approve", {"scopes": ["admin"]}, token=reader.key)
    assert not_asked.status == 403 and "'admin'" in not_asked.body["error"]["message"]
    ok = call("POST", f"/oauth/requests/{request_id}/approve", {"scopes": ["read"]}, token=reader.key)
    assert ok.status == 200
    again = call("POST", f"/oauth/requests/{request_id}/approve", {"scopes": ["read"]}, token=reader.key)
    assert again.status == 404  # consumed


def test_pending_request_and_deny(stack):
    client_id = register(name="Acme Chat")
    request_id = request_id_of(authorize(client_id, pkce()[1]))
    shown = call("GET", f"/oauth/requests/{request_id}")
    assert shown.status == 200
    assert shown.body["client_name"] == "Acme Chat" and shown.body["redirect_host"] == "127.0.0.1:8123"
    assert shown.body["scopes"] == ["read", "write"] and shown.body["resource"] == RESOURCE
    denied = call("POST", f"/oauth/requests/{request_id}/deny")
    assert denied.status == 200
    params = query_of(denied.body["redirect_to"])
    assert (params["error"], params["state"]) == ("access_denied", "st-1")
    assert call("GET", f"/oauth/requests/{request_id}").status == 404
    assert call("GET", "/oauth/requests/nope").status == 404


def test_token_endpoint_errors(stack):
    assert call("POST", "/oauth/token", form={"grant_type": "password"}).body["error"] == "unsupported_grant_type"
    assert call("POST", "/oauth/token", form={}).body["error"] == "invalid_request"
    bad = call("POST", "/oauth/token", {"grant_type": "authorization_code"})
    assert (bad.status, bad.body["error"]) == (400, "invalid_request")
    unknown = redeem("ecl_x", "eac_unknown", pkce()[0])
    assert (unknown.status, unknown.body["error"]) == (400, "invalid_grant")


def test_a_revoked_token_stops_at_once_even_behind_a_cached_authorizer_verdict(stack, tenant):
    from engram_http.route_match import match
    from engram_local import gateway
    from engram_local.lambda_runtime import invoke

    _, answer = tokens_for(tenant.key)
    headers = {"authorization": f"Bearer {answer['access_token']}"}
    route, params = match("GET", "/v1/memories")  # type: ignore[misc]
    event = gateway.build_event("GET", "/v1/memories", headers, b"", route, params)
    verdict = invoke("authorizer", event)
    assert verdict["isAuthorized"] and verdict["context"]["grant_id"]
    assert call("POST", "/oauth/revoke", form={"token": answer["access_token"]}).status == 200
    # API Gateway caches the verdict per Authorization header; the route checks a token again.
    event["requestContext"]["authorizer"] = {"lambda": verdict["context"]}
    assert invoke("memories", event)["statusCode"] == 401


def test_refreshing_drops_the_grants_expired_tokens(stack, tenant):
    client_id, answer = tokens_for(tenant.key)
    expire_tokens(stack, answer["access_token"])
    assert refresh(client_id, answer["refresh_token"]).status == 200
    with psycopg.connect(stack.dsn) as conn:
        kinds = conn.execute(
            "SELECT kind, rotated_at IS NOT NULL FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id"
            " WHERE g.client_id = %s ORDER BY kind, 2",
            (client_id,),
        ).fetchall()
    # the expired access token is gone; the rotated refresh token stays for reuse detection
    assert kinds == [("access", False), ("refresh", False), ("refresh", True)]


def test_nul_characters_and_undecodable_bodies_are_refused_by_name_never_a_500(stack):
    from engram_local import gateway

    for document in ({"redirect_uris": [REDIRECT + "\x00"]}, {"redirect_uris": [REDIRECT], "client_name": "a\x00b"}):
        r = call("POST", "/oauth/register", document)
        assert r.status == 400 and "NUL" in r.body["error_description"], r.body
    page = authorize("\x00", pkce()[1])
    assert page.status == 400 and "location" not in page.headers and "NUL" in page.body
    for path in ("/oauth/token", "/oauth/revoke"):
        nul = call("POST", path, form={"grant_type": "refresh_token", "refresh_token": "ert_\x00", "token": "\x00"})
        assert (nul.status, nul.body["error"]) == (400, "invalid_request"), (path, nul.body)
        raw = gateway.handle("POST", path, {"content-type": "application/x-www-form-urlencoded"}, b"\xff\xfe=1")
        assert raw.status == 400 and json.loads(raw.body)["error"] == "invalid_request", (path, raw.body)

"""What an OAuth grant may reach: its namespaces only, by every route family and by MCP (row-level
security, so reads by id and recalls without a filter are confined too); grants listed and revoked
by the tenant's admin only; a key's revocation or narrowing bounds its tokens at once."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.oauth_flow import call, code_for, redeem, refresh, register, tokens_for


def mcp_call(token: str, name: str, arguments: dict[str, Any]) -> Any:
    r = call(
        "POST",
        "/mcp",
        {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name, "arguments": arguments}},
        token=token,
    )
    assert r.status == 200, r.body
    return r.body["result"]


@pytest.fixture
def two_namespaces(tenant, api, drain):
    """Memories and a conversation in `alpha` and in `beta`, a link inside each."""
    made: dict[str, dict[str, str]] = {}
    for ns in ("alpha", "beta"):
        one = api.post("/v1/memories", {"content": f"The {ns} harbor code is {ns}-pelican-42.", "namespace": ns})
        two = api.post("/v1/memories", {"content": f"The {ns} lantern is kept in the {ns} shed.", "namespace": ns})
        assert one.status == 201 and two.status == 201
        conv = api.post("/v1/conversations", {"namespace": ns, "title": f"{ns} chat"})
        assert conv.status == 201, conv.body
        conv_id = conv.body["id"]
        said = api.post(
            f"/v1/conversations/{conv_id}/messages", {"messages": [{"role": "user", "content": f"{ns} pelican"}]}
        )
        assert said.status in (200, 201), said.body
        link = api.post(
            "/v1/links",
            {"from_id": one.body["memory"]["id"], "to_id": two.body["memory"]["id"], "relation": "relates_to"},
        )
        assert link.status == 201, link.body
        made[ns] = {
            "memory": one.body["memory"]["id"],
            "other": two.body["memory"]["id"],
            "conversation": conv_id,
            "link": link.body["id"],
        }
    drain()
    return made


def test_a_namespaces_grant_reaches_its_namespaces_only_by_every_route_family(stack, tenant, two_namespaces):
    _, answer = tokens_for(tenant.key, scopes=["read", "write"], namespaces=["alpha"])
    token = answer["access_token"]
    alpha, beta = two_namespaces["alpha"], two_namespaces["beta"]

    def get(path: str) -> Any:
        return call("GET", path, token=token)

    # memories: by id, listed, changed, deleted, restored, written
    assert get(f"/v1/memories/{alpha['memory']}").status == 200
    assert get(f"/v1/memories/{beta['memory']}").status == 404
    assert call("PATCH", f"/v1/memories/{beta['memory']}", {"content": "x"}, token=token).status == 404
    assert call("DELETE", f"/v1/memories/{beta['memory']}", token=token).status == 404
    assert call("POST", f"/v1/memories/{beta['memory']}/restore", token=token).status == 404
    assert {m["namespace"] for m in get("/v1/memories?limit=200").body["items"]} == {"alpha"}
    assert get("/v1/memories?namespace=beta").body["items"] == []
    refused = call("POST", "/v1/memories", {"content": "smuggled", "namespace": "beta"}, token=token)
    assert (refused.status, refused.body["error"]["code"]) == (403, "namespace_forbidden")
    batch = call(
        "POST",
        "/v1/memories/batch",
        {"items": [{"content": "a", "namespace": "alpha"}, {"content": "b", "namespace": "beta"}]},
        token=token,
    )
    assert batch.status == 403
    assert call("POST", "/v1/memories", {"content": "allowed", "namespace": "alpha"}, token=token).status == 201
    # recall without a namespace filter, and naming the other namespace
    for body in ({"query": "harbor code pelican"}, {"query": "harbor code pelican", "namespace": "beta"}):
        hits = call("POST", "/v1/recall", body, token=token)
        assert hits.status == 200, hits.body
        assert all(h.get("namespace") != "beta" for h in hits.body["results"])
        assert beta["memory"] not in {h.get("memory_id") for h in hits.body["results"]}
    # conversations
    assert get(f"/v1/conversations/{beta['conversation']}").status == 404
    assert get(f"/v1/conversations/{beta['conversation']}/messages").status == 404
    assert {c["namespace"] for c in get("/v1/conversations").body["items"]} == {"alpha"}
    said = call(
        "POST",
        f"/v1/conversations/{beta['conversation']}/messages",
        {"messages": [{"role": "user", "content": "x"}]},
        token=token,
    )
    assert said.status == 404
    assert call("POST", "/v1/conversations", {"namespace": "beta"}, token=token).status == 403
    # graph
    assert get(f"/v1/memories/{beta['memory']}/links").status == 404
    assert get(f"/v1/memories/{beta['memory']}/history").status == 404
    assert beta["link"] not in {link["id"] for link in get("/v1/links").body.get("items", [])}
    cross = call(
        "POST",
        "/v1/links",
        {"from_id": alpha["memory"], "to_id": beta["memory"], "relation": "relates_to"},
        token=token,
    )
    assert cross.status in (403, 404), cross.body
    assert call("DELETE", f"/v1/links/{beta['link']}", token=token).status == 404
    # documents, erasure, portability, consolidation
    assert call("POST", f"/v1/memories/{beta['memory']}/query", {"question": "code?"}, token=token).status == 404
    assert call("POST", f"/v1/memories/{beta['memory']}/erase", {}, token=token).status == 404
    assert call("POST", "/v1/exports", {}, token=token).status == 403
    assert call("POST", "/v1/exports", {"namespace": "beta"}, token=token).status == 403
    assert call("POST", "/v1/consolidate", {"namespace": "beta", "dry_run": True}, token=token).status in (403, 404)
    # topics and stats count only what the grant sees
    stats = get("/v1/stats")
    assert stats.status == 200 and "beta" not in json.dumps(stats.body)
    assert "beta" not in json.dumps(get("/v1/topics").body)
    # MCP: the same tenant, scopes and namespaces
    assert mcp_call(token, "get_memory", {"memory_id": beta["memory"]})["isError"] is True
    found = mcp_call(token, "recall", {"query": "harbor code pelican"})
    assert "beta" not in json.dumps(found["content"])
    assert mcp_call(token, "store_memory", {"content": "via mcp", "namespace": "beta"})["isError"] is True
    # The key itself still sees everything.
    assert call("GET", f"/v1/memories/{beta['memory']}", token=tenant.key).status == 200


def test_admin_cannot_be_granted_with_namespaces(stack, tenant):
    client_id = register()
    from tests.support.oauth_flow import authorize, pkce, request_id_of

    request_id = request_id_of(authorize(client_id, pkce()[1], scope="read admin"))
    r = call(
        "POST",
        f"/oauth/requests/{request_id}/approve",
        {"scopes": ["admin"], "namespaces": ["alpha"]},
        token=tenant.key,
    )
    assert r.status == 422 and r.body["error"]["details"]["field"] == "scopes"


def test_grants_are_listed_and_revoked_by_the_tenant_admin_only(stack, tenant, make_tenant):
    client_id, answer = tokens_for(tenant.key, namespaces=["alpha"])
    listed = call("GET", "/v1/grants", token=tenant.key)
    assert listed.status == 200
    (grant,) = listed.body["grants"]
    assert grant["client_id"] == client_id and grant["namespaces"] == ["alpha"] and grant["revoked_at"] is None
    assert grant["scopes"] == ["read", "write"] and grant["last_used_at"] is None
    assert call("GET", "/v1/memories", token=answer["access_token"]).status == 200
    assert call("GET", "/v1/grants", token=tenant.key).body["grants"][0]["last_used_at"] is not None
    # a token (not admin) cannot list or revoke grants; another tenant cannot see or revoke this one
    assert call("GET", "/v1/grants", token=answer["access_token"]).status == 403
    other = make_tenant("other")
    assert call("GET", "/v1/grants", token=other.key).body["grants"] == []
    assert call("DELETE", f"/v1/grants/{grant['id']}", token=other.key).status == 404
    assert call("GET", "/v1/memories", token=answer["access_token"]).status == 200
    assert call("DELETE", "/v1/grants/not-a-uuid", token=tenant.key).status == 422
    revoked = call("DELETE", f"/v1/grants/{grant['id']}", token=tenant.key)
    assert revoked.status == 200
    assert call("GET", "/v1/memories", token=answer["access_token"]).status == 401
    assert refresh(client_id, answer["refresh_token"]).body["error"] == "invalid_grant"
    assert call("GET", "/v1/grants", token=tenant.key).body["grants"][0]["revoked_at"] is not None


def test_revoking_the_granting_key_revokes_its_grants(stack, tenant, make_tenant):
    issued = call("POST", "/v1/keys", {"scopes": ["read", "write"], "name": "granting"}, token=tenant.key)
    assert issued.status == 201
    client_id, answer = tokens_for(issued.body["api_key"])
    assert call("GET", "/v1/memories", token=answer["access_token"]).status == 200
    assert call("DELETE", f"/v1/keys/{issued.body['key_id']}", token=tenant.key).status == 200
    assert call("GET", "/v1/memories", token=answer["access_token"]).status == 401
    assert refresh(client_id, answer["refresh_token"]).body["error"] == "invalid_grant"
    (grant,) = call("GET", "/v1/grants", token=tenant.key).body["grants"]
    assert grant["revoked_at"] is not None


def test_a_key_narrowed_later_narrows_its_tokens(stack, tenant):
    issued = call("POST", "/v1/keys", {"scopes": ["read", "write"]}, token=tenant.key)
    _, answer = tokens_for(issued.body["api_key"])
    token = answer["access_token"]
    assert call("POST", "/v1/memories", {"content": "while it could"}, token=token).status == 201
    from tests.support.oauth_flow import narrow_key

    narrow_key(stack, issued.body["key_id"], ["read"])
    r = call("POST", "/v1/memories", {"content": "no longer"}, token=token)
    assert r.status == 403 and 'scope="write"' in r.headers["www-authenticate"]
    assert call("GET", "/v1/memories", token=token).status == 200


def test_an_access_token_cannot_approve_a_grant(stack, tenant):
    _, answer = tokens_for(tenant.key, scopes=["read", "write", "admin"])
    client_id = register()
    from tests.support.oauth_flow import authorize, pkce, request_id_of

    request_id = request_id_of(authorize(client_id, pkce()[1]))
    r = call("POST", f"/oauth/requests/{request_id}/approve", {"scopes": ["read"]}, token=answer["access_token"])
    assert r.status == 403
    code, verifier = code_for(tenant.key, client_id)
    assert redeem(client_id, code, verifier).status == 200


def test_namespaces_with_punctuation_confine_exactly(stack, tenant):
    _, answer = tokens_for(tenant.key, namespaces=["team/a.b:c", "x-1"])
    token = answer["access_token"]
    assert call("POST", "/v1/memories", {"content": "in", "namespace": "team/a.b:c"}, token=token).status == 201
    assert call("POST", "/v1/memories", {"content": "in too", "namespace": "x-1"}, token=token).status == 201
    assert call("POST", "/v1/memories", {"content": "out", "namespace": "team"}, token=token).status == 403
    assert call("POST", "/v1/memories", {"content": "out"}, token=token).status == 403  # default namespace
    listed = call("GET", "/v1/memories", token=token).body["items"]
    assert sorted(m["namespace"] for m in listed) == ["team/a.b:c", "x-1"]


def test_an_admin_grant_cannot_make_keys_or_erase_the_tenant(stack, tenant):
    # A key made with a token would outlive the grant: revoking the grant must end all the app can do.
    _, answer = tokens_for(tenant.key, scopes=["read", "write", "admin"])
    token = answer["access_token"]
    made = call("POST", "/v1/keys", {"scopes": ["read", "write", "admin"], "name": "kept"}, token=token)
    assert made.status == 403, made.body
    assert made.body["error"]["details"] == {"required_credential": "api_key"}
    assert "www-authenticate" not in made.headers  # no scope would help: not a step-up
    assert call("GET", "/v1/keys", token=token).status == 403
    (key,) = call("GET", "/v1/keys", token=tenant.key).body
    assert call("DELETE", f"/v1/keys/{key['id']}", token=token).status == 403
    erased = call("POST", "/v1/tenant/erase", {"confirm": tenant.id}, token=token)
    assert erased.status == 403 and erased.body["error"]["details"] == {"required_credential": "api_key"}
    # Its admin scope still does what ends with the grant; the key itself still manages keys.
    assert call("GET", "/v1/grants", token=token).status == 200
    assert call("GET", "/v1/memories", token=tenant.key).status == 200
    assert call("POST", "/v1/keys", {"scopes": ["read"]}, token=tenant.key).status == 201


def test_a_confined_token_sees_only_its_namespaces_erasure_records(stack, tenant, two_namespaces):
    alpha, beta = two_namespaces["alpha"], two_namespaces["beta"]
    erased = call("POST", f"/v1/memories/{beta['memory']}/erase", {}, token=tenant.key)
    assert erased.status == 200
    _, answer = tokens_for(tenant.key, namespaces=["alpha"])
    token = answer["access_token"]
    # Erased in another namespace: as unknown to this token as an id that never existed.
    again = call("POST", f"/v1/memories/{beta['memory']}/erase", {}, token=token)
    assert again.status == 404, again.body
    assert erased.body["namespaces"] == ["beta"]
    # Its own namespace's erasures answer idempotently, with the record.
    first = call("POST", f"/v1/memories/{alpha['memory']}/erase", {}, token=token)
    assert first.status == 200 and first.body["namespaces"] == ["alpha"]
    repeat = call("POST", f"/v1/memories/{alpha['memory']}/erase", {}, token=token)
    assert repeat.status == 200 and repeat.body["id"] == first.body["id"]
    # The key sees both.
    assert call("POST", f"/v1/memories/{beta['memory']}/erase", {}, token=tenant.key).body["id"] == erased.body["id"]


def keyed_post(path: str, body: dict[str, Any], token: str, idempotency_key: str) -> Any:
    from engram_local import gateway

    headers = {
        "authorization": f"Bearer {token}",
        "content-type": "application/json",
        "idempotency-key": idempotency_key,
    }
    reply = gateway.handle("POST", path, headers, json.dumps(body).encode())
    return reply.status, json.loads(reply.body)


def test_a_confined_token_never_gets_an_answer_stored_for_another_caller(stack, tenant):
    body = {"content": "The beta vault code is 7731.", "namespace": "beta"}
    status, stored = keyed_post("/v1/memories", body, tenant.key, "shared-key-1")
    assert status == 201
    _, answer = tokens_for(tenant.key, namespaces=["alpha"])
    token = answer["access_token"]
    # The same key and body from the confined token: a new request (refused: beta is not its own),
    # never the key's stored answer with the beta memory in it.
    status, replayed = keyed_post("/v1/memories", body, token, "shared-key-1")
    assert (status, replayed["error"]["code"]) == (403, "namespace_forbidden"), replayed
    assert stored["memory"]["id"] not in json.dumps(replayed)
    # Each caller's retry still gets its own answer.
    mine = {"content": "The alpha vault code is 1234.", "namespace": "alpha"}
    status, first = keyed_post("/v1/memories", mine, token, "shared-key-2")
    assert status == 201
    assert keyed_post("/v1/memories", mine, token, "shared-key-2") == (201, first)
    assert keyed_post("/v1/memories", body, tenant.key, "shared-key-1") == (201, stored)

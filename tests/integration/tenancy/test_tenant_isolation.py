"""Tenant A never sees tenant B's data, by id, by recall, by list, or by a query that forgets to filter."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from engram.core.db import tenant_transaction


@pytest.fixture
def two_tenants(make_tenant, api_for, drain):
    a, b = make_tenant("alpha"), make_tenant("beta")
    api_a, api_b = api_for(a.key), api_for(b.key)
    secret = api_b.post("/v1/memories", {"content": "Beta's launch code is pelican-42.", "tags": ["secret"]})
    assert secret.status == 201
    drain()
    return a, b, api_a, api_b, secret.body["memory"]["id"]


def test_other_tenant_gets_404_for_every_verb_by_id(two_tenants):
    _, _, api_a, api_b, bid = two_tenants
    assert api_a.get(f"/v1/memories/{bid}").status == 404
    assert api_a.patch(f"/v1/memories/{bid}", {"content": "hijacked"}).status == 404
    assert api_a.delete(f"/v1/memories/{bid}").status == 404
    assert api_a.post(f"/v1/memories/{bid}/restore").status == 404
    still = api_b.get(f"/v1/memories/{bid}")
    assert still.status == 200 and still.body["content"] == "Beta's launch code is pelican-42."


def test_recall_and_list_never_cross_tenants(two_tenants):
    _, _, api_a, api_b, bid = two_tenants
    for mode in ("hybrid", "keyword", "vector"):
        r = api_a.post("/v1/recall", {"query": "launch code pelican", "mode": mode})
        assert r.status == 200
        assert all(h["memory_id"] != bid for h in r.body["results"])
    assert all(m["id"] != bid for m in api_a.get("/v1/memories?limit=200").body["items"])
    assert api_a.get("/v1/stats").body["memories"] == 0
    mine = api_b.post("/v1/recall", {"query": "launch code pelican"})
    assert mine.body["results"][0]["memory_id"] == bid


def test_a_query_without_tenant_filter_still_sees_only_its_tenant(two_tenants, stack):
    a, _, api_a, _, bid = two_tenants
    api_a.post("/v1/memories", {"content": "Alpha's own note."})
    with tenant_transaction(a.id) as conn:
        contents = [r["content"] for r in conn.execute("SELECT content FROM memories").fetchall()]
        chunk_texts = [r["text"] for r in conn.execute("SELECT text FROM chunks").fetchall()]
        assert conn.execute("UPDATE memories SET content = 'x' WHERE id = %s RETURNING id", (bid,)).fetchone() is None
        assert conn.execute("DELETE FROM chunks WHERE memory_id = %s RETURNING id", (bid,)).fetchone() is None
        keys = conn.execute("SELECT tenant_id FROM api_keys").fetchall()
    assert contents == ["Alpha's own note."]
    assert chunk_texts == ["Alpha's own note."]
    assert {str(k["tenant_id"]) for k in keys} == {a.id}


def test_no_tenant_set_means_no_rows(two_tenants, stack):
    with psycopg.connect(stack.dsn) as conn:
        conn.execute("SET ROLE engram_app")
        assert conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM api_keys").fetchone() == (0,)


def test_inserting_a_row_for_another_tenant_is_refused(two_tenants):
    a, b, *_ = two_tenants
    with pytest.raises(psycopg.errors.InsufficientPrivilege), tenant_transaction(a.id) as conn:
        conn.execute("INSERT INTO memories (tenant_id, content, content_hash) VALUES (%s, 'planted', 'x')", (b.id,))


def test_bad_missing_and_revoked_keys(two_tenants, api_for, stack):
    _, b, *_ = two_tenants
    assert api_for(None).get("/v1/memories").status == 401
    bad = api_for("egk_00000000_" + "x" * 43).get("/v1/memories")
    assert bad.status == 401 and bad.body["error"]["code"] == "unauthorized"
    assert api_for("not-even-a-key").get("/v1/memories").status == 401
    from engram.ops.cli import main

    with psycopg.connect(stack.dsn) as conn:
        key_id = conn.execute("SELECT id FROM api_keys WHERE tenant_id = %s", (b.id,)).fetchone()[0]
    assert main(["revoke-key", str(key_id)]) == 0
    assert api_for(b.key).get("/v1/memories").status == 401


def test_scopes_are_enforced(make_tenant, api_for):
    reader = make_tenant("reader", ["read"])
    r = api_for(reader.key).post("/v1/memories", {"content": "should not land"})
    assert r.status == 403 and r.body["error"]["details"]["required_scope"] == "write"
    assert api_for(reader.key).get("/v1/memories").status == 200
    assert api_for(reader.key).post("/v1/recall", {"query": "anything"}).status == 200


def test_unknown_memory_id_is_404_not_500(api):
    assert api.get(f"/v1/memories/{uuid.uuid4()}").status == 404


def test_keys_api_issues_lists_and_revokes_within_the_tenant(make_tenant, api_for):
    admin_tenant, other = make_tenant("keys-a"), make_tenant("keys-b")
    admin = api_for(admin_tenant.key)
    issued = admin.post("/v1/keys", {"scopes": ["read"], "name": "reporting"})
    assert issued.status == 201 and issued.body["api_key"].startswith("egk_")
    reader = api_for(issued.body["api_key"])
    assert reader.get("/v1/memories").status == 200
    assert reader.post("/v1/memories", {"content": "nope"}).status == 403
    assert reader.post("/v1/keys", {"scopes": ["admin"]}).status == 403  # no privilege escalation
    listed = admin.get("/v1/keys").body
    assert {k["name"] for k in listed} == {"initial", "reporting"}
    assert all("api_key" not in k and "key_hash" not in k for k in listed)
    other_keys = api_for(other.key).get("/v1/keys").body
    assert api_for(other.key).delete(f"/v1/keys/{issued.body['key_id']}").status == 404  # not theirs
    assert issued.body["key_id"] not in {k["id"] for k in other_keys}
    assert admin.delete(f"/v1/keys/{issued.body['key_id']}").status == 200
    assert reader.get("/v1/memories").status == 401
    assert admin.post("/v1/keys", {"scopes": ["root"]}).status == 422

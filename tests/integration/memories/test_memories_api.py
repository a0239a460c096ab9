"""Memories through the HTTP API: create, dedupe, batch, get, list, patch, trash, restore, bad input."""

from __future__ import annotations

import concurrent.futures
import uuid

import psycopg


def test_create_get_and_chunk_pending_then_ready(api, drain):
    r = api.post(
        "/v1/memories",
        {
            "content": "The staging database lives in eu-west-1.",
            "tags": ["infra"],
            "namespace": "ops",
            "importance": 0.8,
        },
    )
    assert r.status == 201, r.body
    memory = r.body["memory"]
    assert r.body["deduplicated"] is False
    assert memory["layer"] == "buffer" and memory["kind"] == "semantic"
    assert memory["embedding_status"] == "pending"
    drain()
    got = api.get(f"/v1/memories/{memory['id']}")
    assert got.status == 200
    assert got.body["content"] == "The staging database lives in eu-west-1."
    assert got.body["embedding_status"] == "ready"


def test_exact_duplicate_bumps_repetition_and_creates_no_row(api):
    body = {"content": "Prefer pnpm over npm in this repo.", "namespace": "dup"}
    first = api.post("/v1/memories", body)
    second = api.post("/v1/memories", body)
    assert first.status == 201 and second.status == 200
    assert second.body["deduplicated"] is True
    assert second.body["memory"]["id"] == first.body["memory"]["id"]
    assert second.body["memory"]["repetition_count"] == 1
    listed = api.get("/v1/memories?namespace=dup")
    assert len(listed.body["items"]) == 1


def test_concurrent_identical_writes_converge_on_one_memory(api):
    body = {"content": f"concurrent fact {uuid.uuid4()}", "namespace": "race"}
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(lambda _: api.post("/v1/memories", body), range(8)))
    assert all(r.status in (200, 201) for r in replies), [r.body for r in replies]
    ids = {r.body["memory"]["id"] for r in replies}
    assert len(ids) == 1
    assert sum(r.status == 201 for r in replies) == 1
    final = api.get(f"/v1/memories/{ids.pop()}")
    assert final.body["repetition_count"] == 7


def test_same_content_in_another_namespace_is_a_new_memory(api):
    a = api.post("/v1/memories", {"content": "shared words", "namespace": "one"})
    b = api.post("/v1/memories", {"content": "shared words", "namespace": "two"})
    assert a.status == b.status == 201
    assert a.body["memory"]["id"] != b.body["memory"]["id"]


def test_batch_reports_per_item_and_keeps_good_items(api):
    items = [
        {"content": "batch one"},
        {"content": ""},
        {"content": "batch three", "tags": ["x"]},
        {"content": "batch one"},
        {"content": "bad kind", "kind": "dream"},
        {"content": "nul\u0000"},
    ]
    r = api.post("/v1/memories/batch", {"items": items})
    assert r.status == 200, r.body
    statuses = [x["status"] for x in r.body["results"]]
    assert statuses == ["created", "error", "created", "deduplicated", "error", "error"]
    assert r.body["results"][1]["error"]["details"]["field"] == "content"
    assert r.body["results"][4]["error"]["details"]["field"] == "kind"
    assert r.body["results"][5]["error"]["details"]["field"] == "content"
    assert (r.body["created"], r.body["deduplicated"], r.body["failed"]) == (2, 1, 3)


def test_batch_over_the_limit_is_refused_whole(api):
    items = [{"content": f"item {i}", "namespace": "toolarge"} for i in range(101)]
    r = api.post("/v1/memories/batch", {"items": items})
    assert r.status == 422
    assert r.body["error"]["details"]["field"] == "items"
    assert r.body["error"]["details"]["limit"] == 100
    assert api.get("/v1/memories?namespace=toolarge").body["items"] == []


def test_bad_input_names_the_field_and_writes_nothing(api):
    cases = [
        ({"content": "x", "namespace": "bad namespace!"}, 422, "namespace"),
        ({"content": "x", "namespace": "bad1", "tags": [f"t{i}" for i in range(33)]}, 422, "tags"),
        ({"content": "x", "namespace": "bad2", "tags": ["a" * 65]}, 422, "tags.0"),
        ({"content": "x", "namespace": "bad3", "colour": "blue"}, 422, "colour"),
        ({"content": "x", "namespace": "bad4", "importance": 1.5}, 422, "importance"),
        ({"namespace": "bad5"}, 422, "content"),
        ({"content": "nul \u0000 inside", "namespace": "bad7"}, 422, "content"),  # Postgres text cannot hold NUL
        ({"content": "x", "namespace": "bad8", "metadata": {"deep": ["\u0000"]}}, 422, "metadata"),
    ]
    for body, status, field in cases:
        r = api.post("/v1/memories", body)
        assert r.status == status, (body, r.body)
        assert r.body["error"]["code"] == "invalid_field"
        fields = [f["field"] for f in r.body["error"]["details"]["fields"]]
        assert field in fields, (field, r.body)
    too_big = api.post("/v1/memories", {"content": "y" * 16_001, "namespace": "bad6"})
    assert too_big.status == 413
    assert too_big.body["error"]["details"]["limit"] == 16_000
    assert "/v1/documents" in too_big.body["error"]["message"]
    malformed = api.post("/v1/memories", raw=b"{not json")
    assert malformed.status == 400 and malformed.body["error"]["code"] == "malformed_json"
    for ns in ("bad1", "bad2", "bad3", "bad4", "bad5", "bad6", "bad7", "bad8"):
        assert api.get(f"/v1/memories?namespace={ns}").body["items"] == []


def test_patch_content_rechunks_and_reembeds(api, drain, stack):
    created = api.post("/v1/memories", {"content": "The deploy window is Tuesday.", "namespace": "patch"})
    mid = created.body["memory"]["id"]
    drain()
    r = api.patch(f"/v1/memories/{mid}", {"content": "The deploy window moved to Thursday.", "tags": ["ops"]})
    assert r.status == 200, r.body
    assert r.body["version"] == 2 and r.body["embedding_status"] == "pending"
    drain()
    with psycopg.connect(stack.dsn) as conn:
        rows = conn.execute(
            "SELECT text, tags, embedding IS NOT NULL FROM chunks WHERE memory_id = %s", (mid,)
        ).fetchall()
    assert rows == [("The deploy window moved to Thursday.", ["ops"], True)]


def test_patch_validation(api):
    mid = api.post("/v1/memories", {"content": "patch me", "namespace": "pv"}).body["memory"]["id"]
    assert api.patch(f"/v1/memories/{mid}", {}).status == 422
    assert api.patch(f"/v1/memories/{mid}", {"layer": "core"}).status == 422  # layers move by consolidation
    assert api.patch(f"/v1/memories/{uuid.uuid4()}", {"importance": 0.1}).status == 404
    assert api.get("/v1/memories/not-a-uuid").status == 422


def test_delete_trash_restore(api):
    mid = api.post("/v1/memories", {"content": "trash me", "namespace": "bin"}).body["memory"]["id"]
    assert api.delete(f"/v1/memories/{mid}").status == 200
    assert api.get(f"/v1/memories/{mid}").status == 404
    trash = api.get("/v1/trash?namespace=bin")
    assert [m["id"] for m in trash.body["items"]] == [mid]
    assert api.delete(f"/v1/memories/{mid}").status == 404
    restored = api.post(f"/v1/memories/{mid}/restore")
    assert restored.status == 200 and restored.body["status"] == "active"
    assert api.get(f"/v1/memories/{mid}").status == 200


def test_restore_conflicts_with_an_active_duplicate(api):
    first = api.post("/v1/memories", {"content": "same again", "namespace": "rc"}).body["memory"]["id"]
    api.delete(f"/v1/memories/{first}")
    api.post("/v1/memories", {"content": "same again", "namespace": "rc"})
    assert api.post(f"/v1/memories/{first}/restore").status == 409


def test_restoring_an_active_memory_is_a_conflict_and_an_unknown_one_not_found(api):
    # it answered 404 for a memory that was just created (a fuzzer's "created resource not found")
    mid = api.post("/v1/memories", {"content": "never trashed", "namespace": "rc"}).body["memory"]["id"]
    active = api.post(f"/v1/memories/{mid}/restore")
    assert active.status == 409 and "active" in active.body["error"]["message"], active.body
    assert api.post("/v1/memories/00000000-0000-0000-0000-000000000001/restore").status == 404
    assert api.get(f"/v1/memories/{mid}").body["status"] == "active"


def test_list_cursor_pagination_and_filters(api):
    for i in range(7):
        api.post(
            "/v1/memories",
            {"content": f"page item {i}", "namespace": "pages", "tags": ["even"] if i % 2 == 0 else ["odd"]},
        )
    seen: list[str] = []
    cursor = None
    while True:
        path = "/v1/memories?namespace=pages&limit=3" + (f"&cursor={cursor}" if cursor else "")
        page = api.get(path).body
        seen += [m["content"] for m in page["items"]]
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert seen == [f"page item {i}" for i in reversed(range(7))]
    evens = api.get("/v1/memories?namespace=pages&tag=even").body["items"]
    assert len(evens) == 4
    assert api.get("/v1/memories?cursor=garbage").status == 422

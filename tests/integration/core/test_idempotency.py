"""Idempotency-Key on the create and write POSTs, through the real handlers on real PostgreSQL: the
same key and body replay the first answer and write nothing; another body is a 409 naming the
header; keys are per tenant; a concurrent duplicate waits for the first; expired keys are free."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest

HEADER = "Idempotency-Key"


@dataclass
class Reply:
    status: int
    body: Any


def keyed_post(key: str, path: str, body: Any, idempotency_key: str | None) -> Reply:
    from engram_local import gateway

    headers = {"content-type": "application/json", "authorization": f"Bearer {key}"}
    if idempotency_key is not None:
        headers[HEADER] = idempotency_key
    resp = gateway.handle("POST", path, headers, json.dumps(body).encode())
    return Reply(resp.status, json.loads(resp.body) if resp.body else None)


def count(stack: Any, sql: str, *params: Any) -> int:
    with psycopg.connect(stack.dsn) as conn:
        row = conn.execute(sql, params).fetchone()
    assert row is not None
    return int(row[0])


def memory_rows(stack: Any, tenant_id: str, content: str) -> list[tuple[str, int]]:
    with psycopg.connect(stack.dsn) as conn:
        return [
            (str(r[0]), r[1])
            for r in conn.execute(
                "SELECT id, repetition_count FROM memories WHERE tenant_id = %s AND content = %s",
                (tenant_id, content),
            ).fetchall()
        ]


def test_memory_create_replays_the_first_answer_and_counts_no_repetition(stack, tenant):
    body = {"content": "The deploy freeze starts on Friday at 18:00.", "namespace": "ops", "tags": ["process"]}
    first = keyed_post(tenant.key, "/v1/memories", body, "mem-1")
    assert first.status == 201, first.body
    again = keyed_post(tenant.key, "/v1/memories", body, "mem-1")
    assert again.status == 201 and again.body == first.body
    # the same body with key order and a default written out is the same request
    reordered = {"tags": ["process"], "namespace": "ops", "kind": "semantic", "content": body["content"]}
    assert keyed_post(tenant.key, "/v1/memories", reordered, "mem-1").body == first.body
    assert memory_rows(stack, tenant.id, body["content"]) == [(first.body["memory"]["id"], 0)]
    # without a key the same content is a repetition, as before
    plain = keyed_post(tenant.key, "/v1/memories", body, None)
    assert plain.status == 200 and plain.body["deduplicated"] is True
    assert memory_rows(stack, tenant.id, body["content"]) == [(first.body["memory"]["id"], 1)]
    # a keyed write that found a duplicate replays that answer, 200, and counts once
    dup = keyed_post(tenant.key, "/v1/memories", body, "mem-2")
    assert dup.status == 200 and dup.body["deduplicated"] is True
    assert keyed_post(tenant.key, "/v1/memories", body, "mem-2").status == 200
    assert memory_rows(stack, tenant.id, body["content"]) == [(first.body["memory"]["id"], 2)]


def test_the_same_key_with_another_body_or_route_is_a_conflict_naming_the_header(stack, tenant):
    first = keyed_post(tenant.key, "/v1/memories", {"content": "first body", "namespace": "k"}, "clash")
    assert first.status == 201, first.body
    other = keyed_post(tenant.key, "/v1/memories", {"content": "second body", "namespace": "k"}, "clash")
    assert other.status == 409, other.body
    assert HEADER in other.body["error"]["message"] and other.body["error"]["details"]["header"] == HEADER
    assert "retryable" not in other.body["error"]["details"]
    elsewhere = keyed_post(tenant.key, "/v1/conversations", {"title": "chat"}, "clash")
    assert elsewhere.status == 409 and elsewhere.body["error"]["details"]["operation"] == "POST /v1/memories"
    assert memory_rows(stack, tenant.id, "second body") == []
    assert count(stack, "SELECT count(*) FROM conversations WHERE tenant_id = %s", tenant.id) == 0


def test_a_failed_request_leaves_its_key_free(stack, tenant):
    bad = keyed_post(tenant.key, "/v1/memories", {"content": "x", "importance": 7}, "after-error")
    assert bad.status == 422 and bad.body["error"]["details"]["field"] == "importance"
    missing = {"from_id": "00000000-0000-4000-8000-000000000001", "to_id": "00000000-0000-4000-8000-000000000002"}
    assert keyed_post(tenant.key, "/v1/links", {**missing, "relation": "relates_to"}, "after-error").status == 404
    ok = keyed_post(tenant.key, "/v1/memories", {"content": "x"}, "after-error")
    assert ok.status == 201, ok.body


def test_keys_are_per_tenant(stack, make_tenant):
    a, b = make_tenant("idem-a"), make_tenant("idem-b")
    body = {"content": "Shared words, separate tenants.", "namespace": "n"}
    in_a = keyed_post(a.key, "/v1/memories", body, "shared-key")
    in_b = keyed_post(b.key, "/v1/memories", body, "shared-key")
    assert in_a.status == in_b.status == 201
    assert in_a.body["memory"]["id"] != in_b.body["memory"]["id"]
    assert memory_rows(stack, b.id, body["content"]) == [(in_b.body["memory"]["id"], 0)]
    # b's key with another body conflicts only with b's own first request
    other = keyed_post(b.key, "/v1/conversations", {"title": "t"}, "shared-key")
    assert other.status == 409
    assert keyed_post(a.key, "/v1/memories", body, "shared-key").body == in_a.body


def test_concurrent_requests_with_one_key_write_once(stack, tenant):
    body = {"content": "Written by whichever request comes first.", "namespace": "race"}
    replies: list[Reply] = []

    def send() -> None:
        replies.append(keyed_post(tenant.key, "/v1/memories", body, "racing"))

    threads = [threading.Thread(target=send) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.status for r in replies] == [201] * 6
    assert all(r.body == replies[0].body for r in replies)
    assert memory_rows(stack, tenant.id, body["content"]) == [(replies[0].body["memory"]["id"], 0)]


def test_an_expired_key_is_free_again_and_swept(stack, tenant):
    first = keyed_post(tenant.key, "/v1/memories", {"content": "old request", "namespace": "e"}, "old-key")
    keyed_post(tenant.key, "/v1/memories", {"content": "another old one", "namespace": "e"}, "older-key")
    with psycopg.connect(stack.dsn) as conn:  # as if both were written 25 hours ago
        conn.execute(
            "UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE tenant_id = %s", (tenant.id,)
        )
    reused = keyed_post(tenant.key, "/v1/memories", {"content": "new request", "namespace": "e"}, "old-key")
    assert reused.status == 201 and reused.body["memory"]["id"] != first.body["memory"]["id"]
    keys = "SELECT count(*) FROM idempotency_keys WHERE tenant_id = %s AND idempotency_key = %s"
    assert count(stack, keys, tenant.id, "older-key") == 0  # swept by the keyed write
    assert count(stack, keys, tenant.id, "old-key") == 1


@pytest.mark.parametrize("value", ["", "k\x00", "x" * 201])
def test_a_bad_key_is_refused_naming_the_header(stack, tenant, value):
    r = keyed_post(tenant.key, "/v1/memories", {"content": "never written"}, value)
    assert r.status == 422 and r.body["error"]["details"]["field"] == "idempotency-key", r.body
    assert memory_rows(stack, tenant.id, "never written") == []


def _two_memories(tenant: Any) -> tuple[str, str]:
    ids = []
    for text in ("The staging database moved to Aurora.", "Staging deploys need the new DSN."):
        r = keyed_post(tenant.key, "/v1/memories", {"content": text, "namespace": "routes"}, None)
        ids.append(r.body["memory"]["id"])
    return ids[0], ids[1]


# Each keyed route: path, a body (given two memory ids), another body, and the rows it writes.
ROUTES: dict[str, tuple[str, Any, Any, str]] = {
    "memory batch": (
        "/v1/memories/batch",
        lambda a, b: {
            "items": [{"content": "batch one", "namespace": "b"}, {"content": "batch two", "namespace": "b"}]
        },
        lambda a, b: {"items": [{"content": "batch three", "namespace": "b"}]},
        "SELECT count(*) + sum(repetition_count) FROM memories WHERE tenant_id = %s AND namespace = 'b'",
    ),
    "link": (
        "/v1/links",
        lambda a, b: {"from_id": a, "to_id": b, "relation": "relates_to"},
        lambda a, b: {"from_id": b, "to_id": a, "relation": "relates_to"},
        "SELECT count(*) FROM links WHERE tenant_id = %s",
    ),
    "link batch": (
        "/v1/links/batch",
        lambda a, b: {"items": [{"from_id": a, "to_id": b, "relation": "caused_by"}]},
        lambda a, b: {"items": [{"from_id": b, "to_id": a, "relation": "caused_by"}]},
        "SELECT count(*) FROM links WHERE tenant_id = %s",
    ),
    "conversation": (
        "/v1/conversations",
        lambda a, b: {"title": "standup", "namespace": "chats"},
        lambda a, b: {"title": "retro", "namespace": "chats"},
        "SELECT count(*) FROM conversations WHERE tenant_id = %s",
    ),
    "document": (
        "/v1/documents",
        lambda a, b: {"content": "# Runbook\n\nRestart the worker.", "content_type": "text/markdown", "namespace": "d"},
        lambda a, b: {"content": "# Runbook\n\nPage the on-call.", "content_type": "text/markdown", "namespace": "d"},
        "SELECT count(*) + sum(repetition_count) FROM memories WHERE tenant_id = %s AND namespace = 'd'",
    ),
    "upload": (
        "/v1/documents/uploads",
        lambda a, b: {"size_bytes": 10, "sha256": "a" * 64, "namespace": "u"},
        lambda a, b: {"size_bytes": 11, "sha256": "a" * 64, "namespace": "u"},
        "SELECT count(*) FROM document_uploads WHERE tenant_id = %s",
    ),
    "consolidation": (
        "/v1/consolidate",
        lambda a, b: {"namespace": "routes"},
        lambda a, b: {"namespace": "routes", "dry_run": True},
        "SELECT count(*) FROM consolidation_runs WHERE tenant_id = %s",
    ),
    "export": (
        "/v1/exports",
        lambda a, b: {"namespace": "routes"},
        lambda a, b: {},
        "SELECT count(*) FROM exports WHERE tenant_id = %s",
    ),
    "import": (
        "/v1/imports",
        lambda a, b: {"size_bytes": 10, "namespace": "imported"},
        lambda a, b: {"size_bytes": 10, "namespace": "imported", "id_policy": "map"},
        "SELECT count(*) FROM imports WHERE tenant_id = %s",
    ),
}


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_every_keyed_route_replays_its_first_answer_and_writes_once(stack, make_tenant, route):
    tenant = make_tenant(f"idem-{route}")
    path, body_of, other_of, rows = ROUTES[route]
    a, b = _two_memories(tenant)
    first = keyed_post(tenant.key, path, body_of(a, b), "route-key")
    assert first.status in (200, 201, 202), first.body
    written = count(stack, rows, tenant.id)
    again = keyed_post(tenant.key, path, body_of(a, b), "route-key")
    assert (again.status, again.body) == (first.status, first.body)
    assert count(stack, rows, tenant.id) == written
    other = keyed_post(tenant.key, path, other_of(a, b), "route-key")
    assert other.status == 409 and other.body["error"]["details"]["header"] == HEADER, other.body
    assert count(stack, rows, tenant.id) == written
    # another tenant's request with the same key is its own
    stranger = make_tenant(f"idem-{route}-other")
    c, d = _two_memories(stranger)
    theirs = keyed_post(stranger.key, path, body_of(c, d), "route-key")
    assert theirs.status == first.status and theirs.body != first.body
    assert count(stack, rows, stranger.id) == written


def test_an_export_that_could_not_be_queued_replays_as_failed(stack, tenant, settings_env):
    settings_env(ENGRAM_EXPORT_QUEUE_URL="")  # no queue: the job is settled failed at once
    first = keyed_post(tenant.key, "/v1/exports", {}, "export-unqueued")
    again = keyed_post(tenant.key, "/v1/exports", {}, "export-unqueued")
    assert first.status == 202 and first.body["status"] == "failed", first.body
    assert (again.status, again.body) == (first.status, first.body)
    assert count(stack, "SELECT count(*) FROM exports WHERE tenant_id = %s", tenant.id) == 1

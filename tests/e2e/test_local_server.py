"""The local server over real HTTP, as a new user meets it: health, a tenant, store, wait, recall."""

from __future__ import annotations

import time

import pytest

from tests.support.server_http import call


def test_store_then_recall_by_paraphrase_and_keyword(server, stack):
    from engram_local.serve import dev_key

    assert call(server, "GET", "/v1/health") == (200, {"status": "ok", "database": "ok"})
    key = dev_key(stack.dsn)
    notes = [
        "Grandma's apple pie recipe needs three Granny Smith apples and a pinch of cinnamon.",
        "Ticket OPS-7781: the nightly backup job fails when the disk quota is exceeded.",
        "The team standup moved to 10:30 on weekdays.",
    ]
    ids = []
    for text in notes:
        status, body = call(server, "POST", "/v1/memories", {"content": text, "namespace": "e2e"}, key)
        assert status == 201, body
        ids.append(body["memory"]["id"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if all(call(server, "GET", f"/v1/memories/{i}", key=key)[1]["embedding_status"] == "ready" for i in ids):
            break
        time.sleep(0.3)
    else:
        pytest.fail("embeddings never became ready")
    status, body = call(
        server,
        "POST",
        "/v1/recall",
        {"query": "how do I bake a fruit dessert?", "namespace": "e2e", "mode": "vector"},
        key,
    )
    assert status == 200 and body["results"][0]["memory_id"] == ids[0] and body["degraded"] == []
    status, body = call(server, "POST", "/v1/recall", {"query": "OPS-7781", "namespace": "e2e"}, key)
    assert body["results"][0]["memory_id"] == ids[1]


def test_errors_over_http(server, stack):
    from engram_local.serve import dev_key

    key = dev_key(stack.dsn)
    assert call(server, "GET", "/v1/memories")[0] == 401
    status, body = call(server, "POST", "/v1/memories", {"content": "x", "tags": "not-a-list"}, key)
    assert status == 422 and body["error"]["details"]["fields"][0]["field"] == "tags"
    assert call(server, "GET", "/v1/nope", key=key)[0] == 404


def test_openapi_document_lists_every_route(server):
    from engram_http.route_table import ROUTES

    status, doc = call(server, "GET", "/v1/openapi.json")
    assert status == 200 and doc["openapi"].startswith("3.1")
    documented = {(m.upper(), p) for p, ops in doc["paths"].items() for m in ops}
    for route in ROUTES:
        if route.path == "/v1/openapi.json" or not route.path.startswith("/v1/"):
            continue  # the console's files and MCP's JSON-RPC endpoint are outside the JSON API
        path = route.path
        assert (route.method, path) in documented, route

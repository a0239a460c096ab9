"""GET /v1/stats: the tenant's totals and, per namespace, what the console's overview shows."""

from __future__ import annotations


def test_per_namespace_counts_by_layer_kind_documents_and_pending_vectors(api, api_for, make_tenant, drain):
    api.post("/v1/memories", {"content": "The deploy freeze starts on Friday.", "namespace": "ops"})
    api.post(
        "/v1/memories", {"content": "Restart the worker with make restart.", "namespace": "ops", "kind": "procedural"}
    )
    gone = api.post("/v1/memories", {"content": "A note to throw away.", "namespace": "ops"}).body["memory"]["id"]
    api.delete(f"/v1/memories/{gone}")
    api.post("/v1/documents", {"content": "# Runbook\n\nBackups start at 02:00 UTC.", "namespace": "docs"})
    api_for(make_tenant("other").key).post("/v1/memories", {"content": "Someone else's note.", "namespace": "ops"})

    before = {n["namespace"]: n for n in api.get("/v1/stats").body["namespaces"]}
    assert before["ops"]["memories"] == 2 and before["ops"]["trashed"] == 1  # the other tenant's is not counted
    assert before["ops"]["by_layer"] == {"buffer": 2}
    assert before["ops"]["by_kind"] == {"semantic": 1, "procedural": 1}
    assert before["ops"]["documents"] == 0 and before["docs"]["documents"] == 1
    assert before["ops"]["embeddings_pending"] >= 2  # chunks wait for the embed worker

    drain()
    after = api.get("/v1/stats").body
    assert all(n["embeddings_pending"] == 0 for n in after["namespaces"]) and after["embeddings_pending"] == 0
    assert after["memories"] == 3

"""Vectors of two models are never mixed, and filters do not starve vector search."""

from __future__ import annotations

import json

import psycopg
import pytest

from engram.core.db import owner_connection
from engram.indexing.vectors import EmbeddingSpaceMismatch, active_space, embed_chunks, ensure_embedding_space


class OtherModel:
    model_id, dimension = "some-other-model", 8

    def embed(self, texts):
        return [[1.0] + [0.0] * 7 for _ in texts]


def test_a_different_model_is_refused_unless_switched_on_purpose(stack):
    with owner_connection(stack.dsn) as owner:
        before = active_space(owner)
        with pytest.raises(EmbeddingSpaceMismatch, match="--activate"):
            ensure_embedding_space(owner, OtherModel.model_id, OtherModel.dimension)
        assert active_space(owner) == before


def test_the_embed_worker_refuses_to_write_vectors_of_another_model(api, tenant, stack):
    mid = api.post("/v1/memories", {"content": "wrong model check", "namespace": "space"}).body["memory"]["id"]
    with psycopg.connect(stack.dsn) as conn:
        chunk_id = conn.execute("SELECT id FROM chunks WHERE memory_id = %s", (mid,)).fetchone()[0]
    with pytest.raises(EmbeddingSpaceMismatch):
        embed_chunks(tenant.id, [chunk_id], OtherModel())
    with psycopg.connect(stack.dsn) as conn:
        assert conn.execute("SELECT embedding FROM chunks WHERE id = %s", (chunk_id,)).fetchone() == (None,)


def test_a_selective_namespace_filter_does_not_starve_vector_results(api, drain):
    # 300 near-identical decoys in one namespace sit closer to the query than anything elsewhere;
    # a plain HNSW scan (ef_search 100) would return only decoys and filter them all away.
    decoys = [
        {"content": f"Weekly status report number {i}: the deploy pipeline is green.", "namespace": "busy"}
        for i in range(300)
    ]
    for i in range(0, 300, 100):
        assert api.post("/v1/memories/batch", {"items": decoys[i : i + 100]}).body["created"] == 100
    wanted = [
        "The quarterly offsite is in Porto.",
        "Remember to renew the TLS certificate in March.",
        "Our office plant is called Ferdinand.",
    ]
    for text in wanted:
        api.post("/v1/memories", {"content": text, "namespace": "quiet"})
    drain()
    body = api.post(
        "/v1/recall",
        {"query": "weekly status report deploy pipeline", "namespace": "quiet", "mode": "vector", "limit": 5},
    ).body
    assert sorted(h["chunk"]["text"] for h in body["results"]) == sorted(wanted), json.dumps(body)[:500]

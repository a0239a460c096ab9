"""What a tenant holds: memory and chunk counts by namespace, and pending embeddings."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from engram.db import tenant_transaction


def tenant_stats(tenant_id: UUID) -> dict[str, Any]:
    with tenant_transaction(tenant_id) as conn:
        namespaces = conn.execute(
            "SELECT namespace, count(*) FILTER (WHERE status = 'active') AS memories,"
            " count(*) FILTER (WHERE status = 'deleted') AS trashed FROM memories GROUP BY namespace"
            " ORDER BY namespace"
        ).fetchall()
        chunks = conn.execute(
            "SELECT count(*) AS chunks, count(*) FILTER (WHERE embedding IS NULL) AS pending FROM chunks"
        ).fetchone()
        space = conn.execute("SELECT model_id, dimension FROM embedding_spaces WHERE active").fetchone()
    assert chunks is not None
    return {
        "namespaces": namespaces,
        "memories": sum(n["memories"] for n in namespaces),
        "trashed": sum(n["trashed"] for n in namespaces),
        "chunks": chunks["chunks"],
        "embeddings_pending": chunks["pending"],
        "embedding_model": space,
    }

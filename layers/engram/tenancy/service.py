"""Tenancy: a tenant's API keys, its statistics and LLM usage, and purging a namespace (hard delete)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from engram.core.db import tenant_transaction
from engram.tenancy.models import ApiKeyInfo, IssuedApiKey, KeyCreate, PurgeResult, UsageLine, UsageReport
from engram.tenancy.store import issue_key, list_keys, llm_usage_by_day, namespace_breakdown, revoke_key

USAGE_DEFAULT_DAYS = 30


def create_tenant_key(tenant_id: UUID, req: KeyCreate) -> IssuedApiKey:
    """A tenant admin issues a key for their own tenant (RLS confines the insert to it)."""
    with tenant_transaction(tenant_id) as conn:
        key = issue_key(conn, tenant_id, req.scopes, name=req.name)
    return IssuedApiKey(key_id=key.key_id, api_key=key.api_key, scopes=list(key.scopes))


def tenant_keys(tenant_id: UUID) -> list[ApiKeyInfo]:
    with tenant_transaction(tenant_id) as conn:
        return [ApiKeyInfo.model_validate(r) for r in list_keys(conn)]


def revoke_tenant_key(tenant_id: UUID, key_id: UUID) -> None:
    with tenant_transaction(tenant_id) as conn:
        revoke_key(conn, key_id)


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
        breakdown = namespace_breakdown(conn)
    assert chunks is not None
    empty = {"by_layer": {}, "by_kind": {}, "documents": 0, "embeddings_pending": 0}
    return {
        "namespaces": [{**n, **breakdown.get(n["namespace"], empty)} for n in namespaces],
        "memories": sum(n["memories"] for n in namespaces),
        "trashed": sum(n["trashed"] for n in namespaces),
        "chunks": chunks["chunks"],
        "embeddings_pending": chunks["pending"],
        "embedding_model": space,
    }


def tenant_usage(tenant_id: UUID, since: datetime | None = None) -> UsageReport:
    """The tenant's LLM calls and tokens since `since` (default: the last 30 days), by UTC day,
    component and model, from llm_usage (every call is logged there, failed ones included)."""
    until = datetime.now(UTC)
    start = since if since is not None else until - timedelta(days=USAGE_DEFAULT_DAYS)
    with tenant_transaction(tenant_id) as conn:
        lines = [UsageLine.model_validate(r) for r in llm_usage_by_day(conn, start)]
    return UsageReport(
        since=start,
        until=until,
        calls=sum(u.calls for u in lines),
        input_tokens=sum(u.input_tokens for u in lines),
        output_tokens=sum(u.output_tokens for u in lines),
        lines=lines,
    )


def purge_namespace(tenant_id: UUID, namespace: str) -> PurgeResult:
    """Memories (active and trashed), conversations, messages, every chunk and the topic tree of the namespace.

    Chunks, messages and idempotency records go with their owners (ON DELETE CASCADE); stray
    chunks carrying the namespace are deleted too. Row-level security keeps it to this tenant.
    """
    with tenant_transaction(tenant_id) as conn:
        counts = conn.execute(
            "SELECT (SELECT count(*) FROM memories WHERE namespace = %(ns)s) AS memories,"
            " (SELECT count(*) FROM conversations WHERE namespace = %(ns)s) AS conversations,"
            " (SELECT count(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id"
            "   WHERE c.namespace = %(ns)s) AS messages,"
            " (SELECT count(*) FROM chunks WHERE namespace = %(ns)s) AS chunks",
            {"ns": namespace},
        ).fetchone()
        conn.execute("DELETE FROM conversations WHERE namespace = %s", (namespace,))
        conn.execute("DELETE FROM memories WHERE namespace = %s", (namespace,))
        conn.execute("DELETE FROM chunks WHERE namespace = %s", (namespace,))
        # Imported here: the topic service loads numpy, which the admin routes need for nothing else (cold start).
        from engram.topics import service as topic_service

        topic_service.forget_namespace(conn, namespace)
    assert counts is not None
    return PurgeResult(namespace=namespace, **counts)

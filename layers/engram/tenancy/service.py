"""Tenancy: a tenant's API keys, its statistics and LLM usage, and purging a namespace (hard delete)."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from engram.adapters import llm
from engram.core.config import settings
from engram.core.db import reader_snapshot, tenant_transaction
from engram.feedback import service as feedback
from engram.indexing.vectors import active_space
from engram.tenancy.models import ApiKeyInfo, ExtractionSpend, IssuedApiKey, KeyCreate, PurgeResult, UsageReport
from engram.tenancy.store import (
    NamespaceBreakdown,
    chunk_counts,
    delete_namespace_rows,
    extraction_today,
    issue_key,
    list_keys,
    llm_usage_by_day,
    memories_by_namespace,
    namespace_breakdown,
    revoke_key,
)

__all__ = [
    "create_tenant_key",
    "purge_namespace",
    "revoke_tenant_key",
    "tenant_keys",
    "tenant_stats",
    "tenant_usage",
]

USAGE_DEFAULT_DAYS = 30


def create_tenant_key(tenant_id: UUID, req: KeyCreate) -> IssuedApiKey:
    """A tenant admin issues a key for their own tenant (RLS confines the insert to it)."""
    with tenant_transaction(tenant_id) as conn:
        key = issue_key(conn, tenant_id, req.scopes, name=req.name)
    return IssuedApiKey(key_id=key.key_id, api_key=key.api_key, scopes=list(key.scopes))


def tenant_keys(tenant_id: UUID) -> list[ApiKeyInfo]:
    with tenant_transaction(tenant_id) as conn:
        return list_keys(conn)


def revoke_tenant_key(tenant_id: UUID, key_id: UUID) -> None:
    with tenant_transaction(tenant_id) as conn:
        revoke_key(conn, key_id)


def tenant_stats(tenant_id: UUID) -> dict[str, Any]:
    # Counts tolerate replica lag: they come from the reader where there is one.
    with reader_snapshot(tenant_id) as conn:
        namespaces = memories_by_namespace(conn)
        chunks = chunk_counts(conn)
        space = active_space(conn)
        breakdown = namespace_breakdown(conn)
        feedback_stats = feedback.feedback_stats(conn)
    return {
        "namespaces": [{**asdict(n), **asdict(breakdown.get(n.namespace, NamespaceBreakdown()))} for n in namespaces],
        "memories": sum(n.memories for n in namespaces),
        "trashed": sum(n.trashed for n in namespaces),
        "chunks": chunks.chunks,
        "embeddings_pending": chunks.pending,
        "embedding_model": asdict(space) if space else None,
        "feedback": feedback_stats.model_dump(),
    }


def tenant_usage(tenant_id: UUID, since: datetime | None = None) -> UsageReport:
    """The tenant's LLM calls and tokens since `since` (default: the last 30 days), by UTC day,
    component and model, from llm_usage (every call is logged there, failed ones included)."""
    until = datetime.now(UTC)
    start = since if since is not None else until - timedelta(days=USAGE_DEFAULT_DAYS)
    with tenant_transaction(tenant_id) as conn:
        lines = llm_usage_by_day(conn, start)
        _, tokens_today = llm.usage_today(conn)  # what run_job's budget check counts
        extraction_tokens, waiting = extraction_today(conn)
    budget = settings().extraction_daily_tokens
    return UsageReport(
        since=start,
        until=until,
        calls=sum(u.calls for u in lines),
        input_tokens=sum(u.input_tokens for u in lines),
        output_tokens=sum(u.output_tokens for u in lines),
        lines=lines,
        extraction=ExtractionSpend(
            tokens_today=tokens_today,
            extraction_tokens_today=extraction_tokens,
            daily_tokens=budget,
            over_budget=tokens_today >= budget,
            waiting_runs=waiting,
        ),
    )


def purge_namespace(tenant_id: UUID, namespace: str) -> PurgeResult:
    """Memories (active and trashed), conversations, messages, every chunk and the topic tree of the namespace.

    Chunks, messages and idempotency records go with their owners (ON DELETE CASCADE); stray
    chunks carrying the namespace are deleted too. Row-level security keeps it to this tenant.
    """
    with tenant_transaction(tenant_id) as conn:
        feedback.forget_namespace(conn, namespace)  # before the rows its weights and events name go
        purged = delete_namespace_rows(conn, namespace)
        # Imported here: the topic service loads numpy, which the admin routes need for nothing else (cold start).
        from engram.topics import service as topic_service

        topic_service.forget_namespace(conn, namespace)
    return purged

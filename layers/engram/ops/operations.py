"""Operator actions shared by the CLI and the migrate Lambda (owner connection, no tenant)."""

from __future__ import annotations

from typing import Any

from engram.adapters.embeddings.factory import embedder_from_env
from engram.adapters.queue import enqueue_embedding
from engram.core.config import database_dsn, settings
from engram.core.db import owner_connection
from engram.indexing.vectors import active_space, ensure_embedding_space, pending_chunks
from engram.schema.logins import provision_logins
from engram.schema.migrate import apply_migrations
from engram.tenancy.store import create_tenant, issue_key


def migrate_and_register_embedder(dsn: str | None = None, activate: bool = False) -> list[str]:
    """Apply migrations, then register the configured embedder's space (and its HNSW index)."""
    applied = apply_migrations(dsn or database_dsn())
    embedder = embedder_from_env()
    with owner_connection(dsn) as owner:
        ensure_embedding_space(owner, embedder.model_id, embedder.dimension, activate=activate)
        logins = settings().db_login_secret_arns
        if logins:  # in AWS: each duty's login role, with the password of its own secret
            provision_logins(owner, logins)
    return applied


def create_tenant_with_key(name: str, scopes: list[str] | None = None, dsn: str | None = None) -> dict[str, Any]:
    with owner_connection(dsn) as owner:
        tenant_id = create_tenant(owner, name)
        key = issue_key(owner, tenant_id, scopes or ["read", "write", "admin"], name="initial")
        owner.commit()
    return {"tenant_id": str(tenant_id), "key_id": str(key.key_id), "api_key": key.api_key, "scopes": list(key.scopes)}


def backfill(dsn: str | None = None, limit: int = 100_000, tenant_id: str | None = None) -> int:
    """Re-enqueue every chunk (of one tenant, or all) without a vector of the active model; return how many."""
    with owner_connection(dsn) as owner:
        space = active_space(owner)
        if space is None:
            return 0
        rows = pending_chunks(owner, space.model_id, limit, tenant_id)
    by_tenant: dict[str, list[str]] = {}
    for r in rows:
        by_tenant.setdefault(str(r.tenant_id), []).append(str(r.id))
    sent = 0
    for tenant_id, ids in by_tenant.items():
        if enqueue_embedding(tenant_id, ids):
            sent += len(ids)
    return sent

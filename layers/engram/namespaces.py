"""Purging a namespace: everything a tenant stored in it, gone for good (hard delete)."""

from __future__ import annotations

from uuid import UUID

from engram.conversation_models import PurgeResult
from engram.db import tenant_transaction


def purge_namespace(tenant_id: UUID, namespace: str) -> PurgeResult:
    """Memories (active and trashed), conversations, messages and every chunk of the namespace.

    Chunks, messages and idempotency records go with their owners (ON DELETE CASCADE); stray
    chunks carrying the namespace are deleted too. Row-level security keeps it to this tenant.
    """
    with tenant_transaction(tenant_id) as conn:
        counts = conn.execute(
            "SELECT (SELECT count(*) FROM memories WHERE namespace = %(ns)s) AS memories,"
            " (SELECT count(*) FROM conversations WHERE namespace = %(ns)s) AS conversations,"
            " (SELECT count(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id"
            "   WHERE c.namespace = %(ns)s) AS messages,"
            " (SELECT count(*) FROM chunks WHERE namespace = %(ns)s) AS chunks", {"ns": namespace},
        ).fetchone()
        conn.execute("DELETE FROM conversations WHERE namespace = %s", (namespace,))
        conn.execute("DELETE FROM memories WHERE namespace = %s", (namespace,))
        conn.execute("DELETE FROM chunks WHERE namespace = %s", (namespace,))
    assert counts is not None
    return PurgeResult(namespace=namespace, **counts)

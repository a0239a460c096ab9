"""The database owner's view of a tenant's rows: past row-level security, to see what the API cannot."""

from __future__ import annotations

from typing import Any

import psycopg


def owner_connection(stack: Any) -> psycopg.Connection:
    """The database owner's connection: past row-level security, to see what the API cannot."""
    return psycopg.connect(stack.dsn, autocommit=True)


def tenant_rows(stack: Any, tenant_id: str) -> dict[str, Any]:
    """Every memory and chunk row of the tenant as the database renders them, and its link count:
    equal snapshots mean nothing changed, byte for byte."""
    with owner_connection(stack) as conn:
        memories = conn.execute(
            "SELECT id::text, to_jsonb(m)::text FROM memories m WHERE tenant_id = %s ORDER BY id", (tenant_id,)
        ).fetchall()
        chunks = conn.execute(
            "SELECT id::text, (to_jsonb(c) - 'tsv')::text FROM chunks c WHERE tenant_id = %s ORDER BY id", (tenant_id,)
        ).fetchall()
        links = conn.execute("SELECT count(*) FROM links WHERE tenant_id = %s", (tenant_id,)).fetchone()
    return {"memories": dict(memories), "chunks": dict(chunks), "links": links[0] if links else 0}

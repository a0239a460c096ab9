"""Namespace activity: which (tenant, namespace) pairs were written to, recalled from or appended
to since consolidation last ran there (table `namespace_activity`, migration 0007).

Writers and recall call `record_activity` inside their tenant transaction. It costs one short
statement and, on the hot path, takes no lock: a row touched in the last minute (and not yet
covered by a dispatched run) is left alone, so concurrent requests in one namespace never queue
on its row. The consolidation dispatcher reads the pairs and marks them dispatched.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from uuid import UUID

from psycopg.rows import tuple_row

from engram.core.db import Conn

# Fresh enough: activity inside this window of the recorded time changes nothing.
_RECORD = """
INSERT INTO namespace_activity AS a (tenant_id, namespace)
SELECT engram_current_tenant(), n FROM unnest(%(namespaces)s::text[]) AS n
WHERE NOT EXISTS (
  SELECT 1 FROM namespace_activity f
  WHERE f.tenant_id = engram_current_tenant() AND f.namespace = n
    AND f.last_activity_at >= now() - interval '1 minute'
    AND (f.dispatched_at IS NULL OR f.last_activity_at > f.dispatched_at))
ON CONFLICT (tenant_id, namespace) DO UPDATE SET last_activity_at = now()
WHERE a.last_activity_at < now() - interval '1 minute' OR a.last_activity_at <= a.dispatched_at
"""


def record_activity(conn: Conn, namespaces: Iterable[str]) -> None:
    """Note that these namespaces of the transaction's tenant were used."""
    names = sorted(set(namespaces))  # sorted: concurrent upserts lock rows in one order
    if names:
        conn.execute(_RECORD, {"namespaces": names})


def namespaces_to_consolidate(conn: Conn, limit: int) -> list[tuple[UUID, str]]:
    """Pairs with activity since their last dispatch, longest waiting first (any tenant: a
    definer function, so this works in a transaction with no tenant set)."""
    cur = conn.cursor(row_factory=tuple_row)
    pairs: list[tuple[UUID, str]] = cur.execute(
        "SELECT tenant_id, namespace FROM engram_namespaces_to_consolidate(%s)", (limit,)
    ).fetchall()
    return pairs


def lock_activity(conn: Conn, namespace: str) -> tuple[datetime, datetime | None] | None:
    """Lock the tenant's activity row for this namespace (dispatchers serialise on it) and return
    (last_activity_at, dispatched_at), or None when it is no longer waiting for a run."""
    cur = conn.cursor(row_factory=tuple_row)
    found: tuple[datetime, datetime | None] | None = cur.execute(
        "SELECT last_activity_at, dispatched_at FROM namespace_activity"
        " WHERE tenant_id = engram_current_tenant() AND namespace = %s FOR UPDATE",
        (namespace,),
    ).fetchone()
    if found is None:
        return None
    last_activity_at, dispatched_at = found
    if dispatched_at is not None and last_activity_at <= dispatched_at:
        return None
    return last_activity_at, dispatched_at


def mark_dispatched(conn: Conn, namespace: str) -> None:
    """A run now covers the activity recorded so far in this namespace."""
    conn.execute(
        "UPDATE namespace_activity SET dispatched_at = now()"
        " WHERE tenant_id = engram_current_tenant() AND namespace = %s",
        (namespace,),
    )

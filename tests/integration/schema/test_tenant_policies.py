"""A tenant policy is planned as a value known only at run time (migration 0062), so the planner never
reads a tenant the statistics have not seen as a row or two and goes through its every row to find one
by its key. Measured on a table built here with memories' own policy, an index that leads with the
tenant and ends with the id (as memories_listing does), and statistics taken before the new tenant's
5,000 rows went in, as a first bulk import leaves them; the bare call beside it, on the same table."""

from __future__ import annotations

from typing import Any
from uuid import uuid4

from psycopg import sql

from tests.support.owner_view import owner_connection

ROWS = 5000


def _pages_read(conn: Any, policy: str, new_tenant: str, key: str) -> int:
    """Buffers a lookup by id reads as the request role, the table's policy being `policy`."""
    conn.execute("DROP POLICY IF EXISTS tenant_isolation ON scratch_items")
    conn.execute(sql.SQL("CREATE POLICY tenant_isolation ON scratch_items USING ({})").format(sql.SQL(policy)))
    conn.execute("SET LOCAL ROLE engram_app")
    conn.execute("SELECT set_config('engram.tenant_id', %s, true)", (new_tenant,))
    plan = conn.execute(
        "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT * FROM scratch_items WHERE id = %s", (key,)
    ).fetchone()[0][0]["Plan"]
    conn.execute("RESET ROLE")
    assert plan["Actual Rows"] == 1
    return int(plan["Shared Hit Blocks"]) + int(plan["Shared Read Blocks"])


def test_a_new_tenants_row_is_found_by_its_key_whatever_the_statistics(stack: Any) -> None:
    with owner_connection(stack) as conn, conn.transaction(force_rollback=True):
        policy = conn.execute(
            "SELECT qual FROM pg_policies WHERE tablename = 'memories' AND policyname = 'tenant_isolation'"
        ).fetchone()[0]
        old, new = (
            conn.execute("INSERT INTO tenants (name) VALUES (%s) RETURNING id::text", (n,)).fetchone()[0]
            for n in ("seen", "new")
        )
        conn.execute(
            "CREATE TABLE scratch_items (id uuid PRIMARY KEY, tenant_id uuid NOT NULL, namespace text NOT NULL,"
            " created_at timestamptz NOT NULL DEFAULT now()) WITH (autovacuum_enabled = off)"
        )
        conn.execute("CREATE INDEX scratch_items_listing ON scratch_items (tenant_id, namespace, created_at, id)")
        conn.execute("ALTER TABLE scratch_items ENABLE ROW LEVEL SECURITY")
        conn.execute("GRANT SELECT ON scratch_items TO engram_app")
        fill = "INSERT INTO scratch_items (id, tenant_id, namespace) SELECT gen_random_uuid(), %s, 'n'"
        fill += " FROM generate_series(1, %s)"
        conn.execute(fill, (old, 300))
        conn.execute("ANALYZE scratch_items")  # the new tenant is not in the statistics
        conn.execute(fill, (new, ROWS - 1))
        key = str(uuid4())
        conn.execute("INSERT INTO scratch_items (id, tenant_id, namespace) VALUES (%s, %s, 'n')", (key, new))
        as_planned = _pages_read(conn, policy, new, key)
        bare = _pages_read(
            conn,
            policy.replace("( SELECT engram_current_tenant() AS engram_current_tenant)", "engram_current_tenant()"),
            new,
            key,
        )
    assert "SELECT engram_current_tenant()" in policy, policy
    assert as_planned <= 5, as_planned  # the id's index pages and its row's page
    assert bare > 5 * as_planned, (bare, as_planned)  # the bare call: the new tenant's every index entry

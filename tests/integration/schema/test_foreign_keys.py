"""Deleting a row looks up every row that references it, once per deleted row: without an index that
leads with the referencing columns, that is a scan of the referencing table per row (a conversation's
2,000 turns against 20,000 evidence rows: 2.0 s, bench/perf/conversation_delete.py). A key's first
column leads: the conversation of (conversation_id, tenant_id) finds its few rows."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

# A tenant is deleted once, by tenant erasure: one statement per table, so these keys go unindexed.
ONE_ROW_PARENTS = {"tenants"}

UNINDEXED = """
SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent, c.conname AS key
FROM pg_constraint c
CROSS JOIN LATERAL (SELECT quote_ident(a.attname) AS name FROM pg_attribute a
                    WHERE a.attrelid = c.conrelid AND a.attnum = c.conkey[1]) lead
WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace
  AND NOT EXISTS (
    SELECT 1 FROM pg_index i
    WHERE i.indrelid = c.conrelid AND i.indkey[0] = c.conkey[1]
      -- a partial index serves only if the lookup implies its predicate: "key IS NOT NULL" does
      AND (i.indpred IS NULL OR pg_get_expr(i.indpred, i.indrelid) = format('(%s IS NOT NULL)', lead.name)))
ORDER BY 1, 3
"""


def test_every_foreign_key_a_delete_follows_is_found_by_an_index(stack: Any) -> None:
    with psycopg.connect(stack.dsn) as conn:
        unindexed = [r for r in conn.execute(UNINDEXED).fetchall() if r[1] not in ONE_ROW_PARENTS]
    assert not unindexed, unindexed


def test_messages_and_evidence_have_no_index_that_leads_with_the_tenant(stack: Any) -> None:
    """Their row-level security condition is on the tenant: an index leading with it is one the planner
    reads a tenant's every row through when stale statistics make the tenant look a row or two."""
    with psycopg.connect(stack.dsn) as conn:
        leading = conn.execute(
            "SELECT indexrelid::regclass::text FROM pg_index i JOIN pg_attribute a"
            " ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]"
            " WHERE i.indrelid IN ('messages'::regclass, 'memory_evidence'::regclass) AND a.attname = 'tenant_id'"
        ).fetchall()
    assert leading == []


def test_a_message_belongs_to_its_conversations_tenant(stack: Any) -> None:
    """The denormalised tenant of a message is its conversation's: another tenant's is refused."""
    with psycopg.connect(stack.dsn) as conn:
        a, b = (conn.execute("INSERT INTO tenants (name) VALUES (%s) RETURNING id", (n,)).fetchone()[0] for n in "ab")
        cid = conn.execute("INSERT INTO conversations (tenant_id) VALUES (%s) RETURNING id", (a,)).fetchone()[0]
        conn.execute(
            "INSERT INTO messages (tenant_id, conversation_id, seq, role, content) VALUES (%s, %s, 1, 'user', 'x')",
            (a, cid),
        )
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            conn.execute(
                "INSERT INTO messages (tenant_id, conversation_id, seq, role, content) VALUES (%s, %s, 2, 'user', 'y')",
                (b, cid),
            )
        conn.rollback()

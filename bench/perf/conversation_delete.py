"""Deleting a conversation in a tenant that has learned from its conversations, with every foreign key
a delete follows found by an index (migration 0061) and with memory_evidence's key to messages unindexed,
as it was.

    .venv/bin/python -m bench.perf.conversation_delete [--evidence 20000] [--turns 2000] [--deletes 5]

A delete takes a conversation's messages with it, and each message takes its evidence rows: PostgreSQL
looks those up once per message. The tenant holds one conversation whose --evidence turns are each the
evidence of a derived memory (as extraction records them; one memory here, the table's size is what
counts), then conversations of --turns turns, each deleted through the API (DELETE
/v1/conversations/{id}, through the gateway stand-in), timed. Rows are written straight into the tables.
"""

from __future__ import annotations

import argparse
import time
from typing import Any
from uuid import UUID

from bench.harness import Tenant, call, local_stack, new_tenant, p50_p95

MESSAGES = (
    "INSERT INTO messages (tenant_id, conversation_id, seq, role, content)"
    " SELECT %s, %s, g, 'user', 'turn ' || g FROM generate_series(1, %s) g"
)


def _conversation(tenant: Tenant, stack: Any, turns: int) -> UUID:
    import psycopg

    status, made = call(tenant.key, "POST", "/v1/conversations", {"namespace": "chats"})
    assert status == 201, made
    with psycopg.connect(stack.dsn, autocommit=True) as conn:
        conn.execute(MESSAGES, (tenant.tenant_id, made["id"], turns))
    return UUID(made["id"])


def _deletes(tenant: Tenant, stack: Any, turns: int, deletes: int) -> list[float]:
    import psycopg

    ids = [_conversation(tenant, stack, turns) for _ in range(deletes)]
    with psycopg.connect(stack.dsn, autocommit=True) as conn:
        conn.execute("ANALYZE")
    timings = []
    for cid in ids:
        t = time.perf_counter()
        status, body = call(tenant.key, "DELETE", f"/v1/conversations/{cid}")
        timings.append((time.perf_counter() - t) * 1000)
        assert status == 200 and body["messages"] == turns, (status, body)
    return timings


def run(evidence: int, turns: int, deletes: int) -> None:
    import psycopg

    with local_stack(durable=False, prefix="engram-delete-") as stack:
        tenant = new_tenant(stack, "deletes", ["read", "write"])
        source = _conversation(tenant, stack, evidence)
        learned = {"content": "Learned from every turn.", "namespace": "chats"}
        status, made = call(tenant.key, "POST", "/v1/memories", learned)
        assert status == 201, made
        with psycopg.connect(stack.dsn, autocommit=True) as conn:
            conn.execute(
                "INSERT INTO memory_evidence (tenant_id, memory_id, conversation_id, message_id)"
                " SELECT tenant_id, %s, conversation_id, id FROM messages WHERE conversation_id = %s",
                (made["memory"]["id"], source),
            )
        print(f"{evidence} evidence rows in the tenant; each conversation deleted holds {turns} turns")
        for state in ("indexed (0061)", "message_id unindexed"):
            if state != "indexed (0061)":
                with psycopg.connect(stack.dsn, autocommit=True) as conn:
                    conn.execute("DROP INDEX memory_evidence_message")
            p50, p95 = p50_p95(_deletes(tenant, stack, turns, deletes))
            print(f"  {state:<21} delete p50 {p50:8.1f} / p95 {p95:8.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evidence", type=int, default=20000)
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--deletes", type=int, default=5)
    args = parser.parse_args()
    run(args.evidence, args.turns, args.deletes)


if __name__ == "__main__":
    main()

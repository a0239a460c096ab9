"""Reading a recall's windows' messages from a long conversation, with the planner's statistics behind
the data and after they catch up.

    .venv/bin/python -m bench.perf.window_messages [--sizes 10000 200000] [--windows 40] [--rounds 50]
                                                   [--prepared-rounds 10]

A recall over a conversation attaches each window's original messages (engram.conversations.store:
one probe of messages' (conversation_id, seq) key a window). One conversation of N messages is written
straight into the table, as a bulk import leaves it, with autovacuum off for the table so the
statistics stay as they were before; then ANALYZE. Each state times the service's read of 40 random
one-turn windows against the plain join it replaced (the windows joined to messages on conversation
and seq), which the planner may hash over the tenant's every message when its estimate is low.

A second load starts from a table of three rows, vacuumed, where the service's statement is run as a
prepared statement until PostgreSQL plans it generic (as psycopg prepares any statement run five
times on a connection); then the rest is written and the prepared statement is timed beside the
service's, which is never prepared: a generic plan lasts as long as the connection, and the one made
on a page or two reads the whole table for every window.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any, LiteralString
from uuid import UUID

from bench.harness import Tenant, call, local_stack, new_tenant, p50_p95
from engram.conversations.service import messages_for_windows
from engram.conversations.store import WINDOW_MESSAGES
from engram.core.db import tenant_transaction

PLAIN_JOIN: LiteralString = (
    "SELECT m.id, m.seq FROM unnest(%s::uuid[], %s::int[], %s::int[]) AS w(cid, lo, hi)"
    " JOIN messages m ON m.conversation_id = w.cid AND m.seq BETWEEN w.lo AND w.hi"
)
INSERT: LiteralString = (
    "INSERT INTO messages (tenant_id, conversation_id, seq, role, content)"
    " SELECT %s, %s, g, 'user', 'message number ' || g FROM generate_series(%s::int, %s::int) g"
)
Spans = list[tuple[UUID, int, int]]


def _span_args(windows: Spans) -> tuple[list[UUID], list[int], list[int]]:
    return [w[0] for w in windows], [w[1] for w in windows], [w[2] for w in windows]


def _timed(tenant: UUID, spans: list[Spans]) -> tuple[list[float], list[float]]:
    """Each span list read both ways, in turn, in one tenant transaction each: (the service's, the plain join's)."""
    service, plain = [], []
    for windows in spans:
        with tenant_transaction(tenant) as conn:
            t = time.perf_counter()
            found = messages_for_windows(conn, windows)
            service.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            joined = conn.execute(PLAIN_JOIN, _span_args(windows)).fetchall()
            plain.append((time.perf_counter() - t) * 1000)
            assert len(found) == len(joined) == len({(w[0], w[1]) for w in windows})
    return service, plain


def _empty_conversation(stack: Any) -> tuple[Tenant, UUID]:
    """A tenant and its conversation, autovacuum off for messages (its statistics stay as a test leaves them)."""
    import psycopg

    tenant = new_tenant(stack, "windows", ["read", "write"])
    status, conversation = call(tenant.key, "POST", "/v1/conversations", {"namespace": "long"})
    assert status == 201, conversation
    with psycopg.connect(stack.dsn, autocommit=True) as conn:
        conn.execute("ALTER TABLE messages SET (autovacuum_enabled = off)")
    return tenant, UUID(conversation["id"])


def run(size: int, windows: int, rounds: int, seed: int) -> None:
    import psycopg

    rng = random.Random(seed)
    with local_stack(durable=False, prefix="engram-windows-") as stack:
        tenant, cid = _empty_conversation(stack)
        with psycopg.connect(stack.dsn, autocommit=True) as conn:
            conn.execute("ANALYZE messages")  # the statistics of an empty table, as before an import
            conn.execute(INSERT, (tenant.tenant_id, cid, 1, size))
        spans = [[(cid, s, s) for s in rng.sample(range(1, size + 1), windows)] for _ in range(rounds)]
        for state in ("statistics behind", "analysed"):
            if state == "analysed":
                with psycopg.connect(stack.dsn, autocommit=True) as conn:
                    conn.execute("ANALYZE messages")
            _timed(tenant.tenant_id, spans[:3])  # warm
            service, plain = _timed(tenant.tenant_id, spans)
            s50, s95 = p50_p95(service)
            j50, j95 = p50_p95(plain)
            print(
                f"{size:>8} messages, {state:<17}  {windows} windows: the service's probes p50 {s50:6.2f} / p95 "
                f"{s95:6.2f} ms | the plain join p50 {j50:7.2f} / p95 {j95:7.2f} ms ({j50 / s50:.1f}x)"
            )


def _prepared_and_service(tenant: UUID, spans: list[Spans]) -> tuple[list[float], list[float]]:
    """Each span list read by the service's statement prepared, then by the service: (prepared, service)."""
    prepared, service = [], []
    for windows in spans:
        with tenant_transaction(tenant) as conn:  # single-threaded: the pool hands out the same connection
            t = time.perf_counter()
            again = conn.execute(WINDOW_MESSAGES, _span_args(windows), prepare=True).fetchall()
            prepared.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            found = messages_for_windows(conn, windows)
            service.append((time.perf_counter() - t) * 1000)
            assert {(r["conversation_id"], r["seq"]) for r in again} == set(found)
    return prepared, service


def run_prepared_early(size: int, windows: int, rounds: int, seed: int) -> None:
    import psycopg

    rng = random.Random(seed)
    with local_stack(durable=False, prefix="engram-windows-") as stack:
        tenant, cid = _empty_conversation(stack)
        with psycopg.connect(stack.dsn, autocommit=True) as conn:
            conn.execute(INSERT, (tenant.tenant_id, cid, 1, 3))
            conn.execute("VACUUM ANALYZE messages")  # a new table: one page
        # Prepared, then planned generic. psycopg prepares a statement per text and parameter types, and
        # sends a list of seqs as int2[] or int4[] by its largest: the last window is the table's size to be.
        warm = [(cid, 1, 1)] * (windows - 1) + [(cid, size, size)]
        _prepared_and_service(tenant.tenant_id, [warm] * 12)
        with tenant_transaction(tenant.tenant_id) as conn:
            plans = conn.execute("SELECT sum(generic_plans) AS n FROM pg_prepared_statements").fetchone()
        assert plans is not None and plans["n"], "the statement was never planned generic"
        with psycopg.connect(stack.dsn, autocommit=True) as conn:
            conn.execute(INSERT, (tenant.tenant_id, cid, 4, size))
        spans = [[(cid, s, s) for s in rng.sample(range(1, size + 1), windows)] for _ in range(rounds)]
        for state in ("statistics behind", "analysed"):
            if state == "analysed":  # ANALYZE invalidates the cached plan: the next run plans again
                with psycopg.connect(stack.dsn, autocommit=True) as conn:
                    conn.execute("ANALYZE messages")
            prepared, service = _prepared_and_service(tenant.tenant_id, spans)
            p50, p95 = p50_p95(prepared[1:])
            s50, _ = p50_p95(service[1:])
            print(
                f"{size:>8} messages, {state:<17}  {windows} windows: the statement prepared while the table was"
                f" new p50 {p50:8.2f} / p95 {p95:8.2f} ms | the service's p50 {s50:6.2f} ms ({p50 / s50:.1f}x)"
            )


def main(argv: Any = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 200_000])
    parser.add_argument("--windows", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--prepared-rounds", type=int, default=10, help="span lists read with the stale plan")
    args = parser.parse_args(argv)
    for size in args.sizes:
        run(size, args.windows, args.rounds, args.seed)
    for size in args.sizes:
        run_prepared_early(size, args.windows, args.prepared_rounds, args.seed)


if __name__ == "__main__":
    main()

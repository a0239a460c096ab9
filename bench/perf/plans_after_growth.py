"""Recall on a connection whose statements were prepared while the tables were small, after a bulk load.

    .venv/bin/python -m bench.perf.plans_after_growth [--small 300] [--added 30000] [--queries 30]

psycopg prepares a statement on its fifth run on a connection, and PostgreSQL keeps a generic plan
for it until an ANALYZE of a table it reads. A Lambda's connection lives for many requests, so a plan
made while a table was new can outlive the table's growth until autovacuum next analyses it (here
autovacuum is off for memories and chunks, so that moment does not come by itself). The same recalls
(precomputed query vectors, as bench/perf/recall_latency.py) are timed: on a table of `--small` rows;
after `--added` rows are COPYed in, on the connection that ran the first recalls; on a new
connection; and after ANALYZE. Unfiltered and with a namespace and tag; each with the scan settings'
round trip (the pending count and the scope's count, service.scan_strategy) on its own.

A second load is a new tenant's first import: `--small` rows of one tenant, analysed, then `--added`
rows of a second tenant the statistics have not seen, whose recalls are timed on a new connection,
then after ANALYZE (migration 0062: the tenant policies are planned as a value known at run time).
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any
from uuid import UUID

import numpy as np

from bench.harness import clocked, local_stack, new_tenant, p50_p95
from bench.perf.recall_latency import DIM, PrecomputedQueries, load, vocabulary
from engram.recall import service
from engram.recall.models import RecallRequest

Question = tuple[list[float], str]


def _timed(tenant: UUID, questions: list[Question], filtered: bool) -> tuple[list[float], list[float]]:
    """Each question's recall and its scan_strategy step, ms: (recall, scan strategy)."""
    embedder = PrecomputedQueries()
    whole, scan = [], []
    with clocked(service, ("scan_strategy",)) as spent:
        for i, (vector, text) in enumerate(questions):
            embedder.next = vector
            scope: dict[str, Any] = {"namespace": f"ns{i % 10}", "tags": [f"tag{i % 7}"]} if filtered else {}
            spent.clear()
            started = time.perf_counter()
            service.recall(tenant, RecallRequest(query=text, limit=10, touch=False, **scope), embedder)
            whole.append((time.perf_counter() - started) * 1000)
            scan.append(spent["scan_strategy"])
    return whole, scan


def run(small: int, added: int, queries: int, seed: int) -> None:
    import psycopg

    from engram.core.db import reset_connections

    rng = random.Random(seed)
    with local_stack(durable=False, prefix="engram-plans-") as stack:
        tenant = new_tenant(stack).tenant_id
        with psycopg.connect(stack.dsn, autocommit=True) as conn:
            conn.execute("ALTER TABLE memories SET (autovacuum_enabled = off)")
            conn.execute("ALTER TABLE chunks SET (autovacuum_enabled = off)")
        centers = np.random.default_rng(seed).normal(size=(200, DIM))
        words = vocabulary(rng)
        load(stack.dsn, tenant, small, rng, centers, words)  # vacuumed and analysed: a new table, settled
        questions: list[Question] = []
        for _ in range(queries):
            v = centers[rng.randrange(len(centers))] + np.random.default_rng(rng.randint(0, 9999)).normal(0, 0.35, DIM)
            questions.append(([float(x) for x in v / np.linalg.norm(v)], " ".join(rng.sample(words, 3))))

        print(f"{small} rows, then {added} more, {queries} questions:")
        _report(tenant, questions, f"{small} rows")
        load(stack.dsn, tenant, added, rng, centers, words, analyse=False)
        _report(tenant, questions, f"+{added}, the plans made at {small} rows")
        reset_connections()
        _report(tenant, questions, f"+{added}, a new connection")
        _analyse(stack.dsn)
        _report(tenant, questions, f"+{added}, analysed")

        newcomer = new_tenant(stack, "newcomer").tenant_id
        load(stack.dsn, newcomer, added, rng, centers, words, analyse=False)
        reset_connections()
        print(f"a new tenant's {added} rows beside the first tenant's, its first recalls:")
        _report(newcomer, questions, "statistics from before it came")
        _analyse(stack.dsn)
        _report(newcomer, questions, "analysed")


def _analyse(dsn: str) -> None:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("ANALYZE memories")
        conn.execute("ANALYZE chunks")


def _report(tenant: UUID, questions: list[Question], state: str) -> None:
    for filtered in (False, True):
        whole, scan = _timed(tenant, questions, filtered)
        w50, w95 = p50_p95(whole[2:])  # the first two: a new connection's first plans
        s50, _ = p50_p95(scan[2:])
        shape = "namespace + tag" if filtered else "unfiltered"
        timings = f"recall p50 {w50:6.2f} / p95 {w95:6.2f} ms, scan settings {s50:5.2f} ms"
        print(f"  {state:<36} {shape:<15} {timings}")


def main(argv: Any = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=300)
    parser.add_argument("--added", type=int, default=30_000)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    run(args.small, args.added, args.queries, args.seed)


if __name__ == "__main__":
    main()

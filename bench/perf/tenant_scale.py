"""Small tenants beside a big one in the shared chunks table: recall latency and vector candidate recall.

    .venv/bin/python -m bench.perf.tenant_scale [--total 100000] [--queries 40] [--strategies adaptive hnsw]

One big tenant (80% of the chunks) and many small ones share one table and one HNSW graph:
5 tenants at 2%, 8 at 1% and 40 of 50 chunks. Every tenant draws its vectors from the same 200
clusters, so a small tenant's nearest rows sit among the big tenant's in the graph: the case a
filtered approximate scan handles worst. Rows are loaded with COPY, the HNSW index built once
after the load (as `CREATE INDEX` on a restored database would).

For each size class and each filter (none, one namespace of ten, one tag of seven, both), with each
vector strategy in turn (same data, same queries, one run; the machine may be busy, so compare
the ratios, not the absolute figures):
  - candidate recall@40: the vector candidates recall takes (its own SQL, k = 40) against the
    exact top-40 of that tenant and filter (a full scan ordered by the same halfvec distance);
  - recall p50/p95: engram.recall.service.recall() end to end (hybrid, limit 10, touch off).
Strategies: `adaptive` (today: when the rows the filter leaves are few, both sides scan them exactly,
distance and words; the shared HNSW graph and text index otherwise), `hnsw` (the iterative HNSW scan
and the shared text index always: ENGRAM_RECALL_EXACT_SCAN_MAX_ROWS=0).
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID, uuid4

import numpy as np

from bench.harness import copy_memories_and_chunks, local_stack, new_tenant, p50_p95
from engram.indexing.vectors import vector_literal

DIM = 384
MODEL = "all-minilm-l6-v2-int8"
SYLLABLES = ["ka", "lo", "mi", "ran", "tes", "vo", "qui", "del", "ar", "zen", "po", "lu", "shi", "ber", "nax"]


class PrecomputedQueries:
    """Stands in for the embedder so the bench times the database, not the model."""

    model_id = MODEL
    dimension = DIM

    def __init__(self) -> None:
        self.next: list[float] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.next for _ in texts]


@dataclass
class TenantClass:
    name: str
    share: float  # of the total chunks, per tenant
    count: int  # tenants of this class
    fixed_rows: int = 0  # rows per tenant when not a share


def classes(total: int) -> list[TenantClass]:
    return [
        TenantClass("big 80%", 0.80, 1),
        TenantClass("2%", 0.02, 5),
        TenantClass("1%", 0.01, 8),
        TenantClass("50 rows", 0.0, 40, fixed_rows=50),
    ]


def vectors_text(rows: np.ndarray) -> list[str]:
    """pgvector text literals for many rows at once (savetxt formats a row in C, not per float)."""
    buf = io.StringIO()
    np.savetxt(buf, rows, fmt="%.5f", delimiter=",")
    return ["[" + line + "]" for line in buf.getvalue().splitlines()]


def load(
    dsn: str, plan: list[tuple[TenantClass, UUID, int]], rng: random.Random, centers: np.ndarray, words: list[str]
) -> None:
    """Every tenant's memories and chunks with COPY, then the HNSW index built once over all of them."""
    import psycopg
    from psycopg import sql

    from engram.indexing.vectors import hnsw_index_name, hnsw_index_sql

    nrng = np.random.default_rng(rng.randint(0, 2**31))
    mem_rows: list[tuple[Any, ...]] = []
    chunk_rows: list[tuple[Any, ...]] = []
    for _, tenant, n in plan:
        vecs = centers[nrng.integers(0, len(centers), n)] + nrng.normal(0, 0.35, (n, DIM))
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        for i, vec in enumerate(vectors_text(vecs)):
            mid = uuid4()
            text = " ".join(rng.choices(words, k=rng.randint(12, 40)))
            ns, tags = f"ns{i % 10}", [f"tag{i % 7}"]
            created = f"2026-{(i % 11) + 1:02d}-{(i % 27) + 1:02d}T12:00:00Z"
            mem_rows.append((mid, tenant, ns, "semantic", text, uuid4().bytes, 0.5, tags, created))
            chunk_rows.append((tenant, mid, ns, "semantic", tags, created, 0, text, vec, DIM, MODEL, created))
    with psycopg.connect(dsn) as conn:
        conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(hnsw_index_name(DIM))))
        copy_memories_and_chunks(conn, mem_rows, chunk_rows)
        conn.commit()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SET maintenance_work_mem = '1GB'")
        # The same index the service creates (indexing.vectors), built once after the bulk load.
        conn.execute(hnsw_index_sql(DIM))
        conn.execute("VACUUM ANALYZE memories")
        conn.execute("VACUUM ANALYZE chunks")


def exact_top(conn: Any, tenant: UUID, vec: str, filt: dict[str, str], k: int = 40) -> set[UUID]:
    """The true top-k of a tenant under a filter: every row's distance, no index for the ordering."""
    rows = conn.execute(
        "WITH d AS MATERIALIZED (SELECT id, embedding::halfvec(384) <=> %(q)s::vector::halfvec(384) AS dist"
        " FROM chunks WHERE tenant_id = %(t)s AND embedding_dim = 384"
        " AND (%(ns)s::text IS NULL OR namespace = %(ns)s) AND (%(tag)s::text IS NULL OR tags @> ARRAY[%(tag)s]))"
        " SELECT id FROM d ORDER BY dist LIMIT %(k)s",
        {"q": vec, "t": tenant, "k": k, "ns": filt.get("namespace"), "tag": filt.get("tag")},
    ).fetchall()
    return {r[0] for r in rows}


def candidates(tenant: UUID, vec: str, filt: dict[str, str], k: int = 40) -> set[UUID]:
    """The vector candidates recall itself takes: its filters, its strategy choice, its SQL."""
    from engram.core.db import tenant_transaction
    from engram.recall.models import RecallRequest
    from engram.recall.service import vector_candidate_ids

    req = RecallRequest(
        query="x", mode="vector", namespace=filt.get("namespace"), tags=[filt["tag"]] if "tag" in filt else None
    )
    with tenant_transaction(tenant) as conn:
        return set(vector_candidate_ids(conn, req, vec, MODEL, DIM, k))


FILTERS = {
    "none": lambda i: {},
    "namespace 1/10": lambda i: {"namespace": f"ns{i % 10}"},
    "tag 1/7": lambda i: {"tag": f"tag{i % 7}"},
    "both 1/70": lambda i: {"namespace": f"ns{i % 10}", "tag": f"tag{(i + 3) % 7}"},
}


def measure(
    strategy: str,
    work: dict[str, list[tuple[UUID, str, str]]],
    truth: dict[tuple[str, str, int], set[UUID]],
    results: dict[tuple[str, str, str], tuple[float, float, float]],
) -> None:
    """Candidate recall@40 and recall latency of every class and filter, with one vector strategy."""
    from engram.recall.models import RecallRequest
    from engram.recall.service import recall
    from engram_local.stack import LocalStack

    if strategy == "hnsw":
        os.environ["ENGRAM_RECALL_EXACT_SCAN_MAX_ROWS"] = "0"
    else:
        os.environ.pop("ENGRAM_RECALL_EXACT_SCAN_MAX_ROWS", None)
    LocalStack.refresh_settings()
    embedder = PrecomputedQueries()
    for cname, qs in work.items():
        for fname, filt in FILTERS.items():
            found, lat = [], []
            for i, (tenant, vec, text) in enumerate(qs):
                f = filt(i)
                exact = truth[(cname, fname, i)]
                found.append(len(candidates(tenant, vec, f) & exact) / max(1, len(exact)))
                embedder.next = [float(x) for x in vec.strip("[]").split(",")]
                req = RecallRequest(
                    query=text,
                    limit=10,
                    touch=False,
                    namespace=f.get("namespace"),
                    tags=[f["tag"]] if "tag" in f else None,
                )
                t = time.perf_counter()
                recall(tenant, req, embedder)
                lat.append((time.perf_counter() - t) * 1000)
            p50, p95 = p50_p95(lat)
            results[(strategy, cname, fname)] = (statistics.mean(found), p50, p95)
            print(
                f"{strategy:>8} | {cname:>8} | {fname:>15} | candidate recall@40 {statistics.mean(found):.3f}"
                f" (min {min(found):.3f}) | recall p50 {p50:6.2f} ms p95 {p95:6.2f} ms",
                flush=True,
            )


def summarise(
    strategy: str, work: dict[str, Any], results: dict[tuple[str, str, str], tuple[float, float, float]]
) -> None:
    big = results[(strategy, "big 80%", "none")]
    one = results[(strategy, "1%", "none")]
    worst = min(v[0] for (s, _, _), v in results.items() if s == strategy)
    filt_ratio = max(
        results[(strategy, c, f)][2] / results[(strategy, c, "none")][2] for c in work for f in FILTERS if f != "none"
    )
    print(
        f"{strategy:>8}: worst candidate recall@40 {worst:.3f} | 1% tenant p95 / big tenant p95 "
        f"{one[2] / big[2]:.2f}x | worst filtered p95 / unfiltered p95 (same class) {filt_ratio:.2f}x"
    )


def run(total: int, queries: int, seed: int, strategies: list[str]) -> None:
    import psycopg

    rng = random.Random(seed)
    with local_stack(durable=False) as stack:
        plan: list[tuple[TenantClass, UUID, int]] = []
        for tc in classes(total):
            for j in range(tc.count):
                tenant = new_tenant(stack, f"{tc.name}-{j}").tenant_id
                plan.append((tc, tenant, tc.fixed_rows or int(total * tc.share)))
        centers = np.random.default_rng(seed).normal(size=(200, DIM))
        words = list({"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(10000)})
        t0 = time.perf_counter()
        load(stack.dsn, plan, rng, centers, words)
        print(
            f"loaded {sum(n for _, _, n in plan)} chunks of {len(plan)} tenants in "
            f"{time.perf_counter() - t0:.0f}s (COPY + HNSW build + VACUUM ANALYZE)",
            flush=True,
        )
        # Queries: per class, spread over its tenants; a vector near a random cluster, three words.
        work: dict[str, list[tuple[UUID, str, str]]] = {}
        for tc in classes(total):
            tenants = [t for c, t, _ in plan if c.name == tc.name]
            qs = []
            for i in range(queries):
                v = centers[rng.randrange(len(centers))] + np.random.default_rng(rng.randint(0, 9999)).normal(
                    0, 0.35, DIM
                )
                qs.append(
                    (
                        tenants[i % len(tenants)],
                        vector_literal(v / np.linalg.norm(v)),
                        " ".join(rng.sample(words, 3)),
                    )
                )
            work[tc.name] = qs
        truth: dict[tuple[str, str, int], set[UUID]] = {}
        with psycopg.connect(stack.dsn) as conn:
            for cname, qs in work.items():
                for fname, filt in FILTERS.items():
                    for i, (tenant, vec, _) in enumerate(qs):
                        truth[(cname, fname, i)] = exact_top(conn, tenant, vec, filt(i))
        results: dict[tuple[str, str, str], tuple[float, float, float]] = {}
        for strategy in strategies:
            measure(strategy, work, truth, results)
        for strategy in strategies:
            summarise(strategy, work, results)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--total", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--strategies", nargs="+", default=["adaptive", "hnsw"], choices=["adaptive", "hnsw"])
    args = parser.parse_args()
    run(args.total, args.queries, args.seed, args.strategies)


if __name__ == "__main__":
    main()
